// Library dot products: cub::DeviceReduce::TransformReduce (a counting iterator
// of indices, transformed to a[i] * b[i], summed; temp storage allocated once)
// and thrust::inner_product as users call it (allocation and the copy of the
// result to the host are in its time).
#include <cub/device/device_reduce.cuh>
#include <cuda/std/functional>
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/inner_product.h>
#include <thrust/iterator/counting_iterator.h>

#include "families/dot.cuh"

namespace bench::dot {
namespace {

struct Product {
  const float* a;
  const float* b;
  __device__ float operator()(std::int64_t i) const { return a[i] * b[i]; }
};

struct CubTransformReduce : TwoPhaseLibrary<CubTransformReduce> {
  static constexpr bool reference = true;
  static cudaError_t call(void* temp, std::size_t& bytes, const Args& a) {
    return cub::DeviceReduce::TransformReduce(temp, bytes, thrust::counting_iterator<std::int64_t>(0), a.out,
                                              static_cast<std::int64_t>(a.n), ::cuda::std::plus<float>{},
                                              Product{a.a, a.b}, 0.0f, a.stream);
  }
};

struct ThrustInnerProduct : LibraryVariant {
  static constexpr bool host_work = true;  // allocates, and returns the result to the host (a.out is host memory)
  static void launch(const Args& a) {
    const auto x = thrust::device_pointer_cast(a.a);
    *a.out = thrust::inner_product(thrust::cuda::par.on(a.stream), x, x + a.n, thrust::device_pointer_cast(a.b), 0.0f);
  }
};

}  // namespace

BENCH_DECLARE(Dot, CubTransformReduce, DotTypes, "cub_device_reduce",
              "baseline: cub::DeviceReduce::TransformReduce of a[i]*b[i] over a counting iterator; temp allocated once",
              {}, {});
BENCH_DECLARE(Dot, ThrustInnerProduct, DotTypes, "thrust_inner_product",
              "baseline: thrust::inner_product as users call it; includes its allocation and the copy to host", {}, {});

}  // namespace bench::dot
