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

struct CubTransformReduce : VariantBase {
  static cudaError_t call(void* temp, std::size_t& bytes, const DotArgs& a) {
    return cub::DeviceReduce::TransformReduce(temp, bytes, thrust::counting_iterator<std::int64_t>(0), a.out,
                                              static_cast<std::int64_t>(a.n), ::cuda::std::plus<float>{},
                                              Product{a.a, a.b}, 0.0f, a.stream);
  }
  static std::size_t workspace_bytes(std::size_t n, int, int) {
    std::size_t bytes = 0;
    DotArgs probe{nullptr, nullptr, n, nullptr, nullptr, 0, 0, nullptr, 0, nullptr};
    BENCH_CUDA_CHECK(call(nullptr, bytes, probe));
    return bytes;
  }
  static void launch(const DotArgs& a) {
    std::size_t bytes = a.workspace_size;
    BENCH_CUDA_CHECK(call(a.workspace, bytes, a));
  }
};

struct ThrustInnerProduct : VariantBase {
  static constexpr bool result_on_host = true;
  static void launch(const DotArgs& a) {
    const auto x = thrust::device_pointer_cast(a.a);
    *a.host_out = thrust::inner_product(thrust::cuda::par.on(a.stream), x, x + a.n, thrust::device_pointer_cast(a.b), 0.0f);
  }
};

}  // namespace

BENCH_DECLARE_DOT(CubTransformReduce, "cub_device_reduce",
                  "baseline: cub::DeviceReduce::TransformReduce of a[i]*b[i] over a counting iterator; temp allocated once",
                  {}, {});
BENCH_DECLARE_DOT(ThrustInnerProduct, "thrust_inner_product",
                  "baseline: thrust::inner_product as users call it; includes its allocation and the copy to host", {}, {});

}  // namespace bench::dot
