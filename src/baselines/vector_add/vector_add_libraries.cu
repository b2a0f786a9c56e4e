// Library vector adds: thrust::transform with thrust::plus as users call it, and
// cub::DeviceTransform::Transform (CCCL 3; on Hopper it may move data with bulk
// copies). Neither needs temporary storage, so both time the call alone.
#include <cub/device/device_transform.cuh>
#include <cuda/std/tuple>
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/transform.h>

#include "families/vector_add.cuh"

namespace bench::vector_add {
namespace {

struct ThrustTransform : LibraryVariant {
  template <class T>
  static void launch(const Args<T>& a) {
    const auto x = thrust::device_pointer_cast(a.a);
    thrust::transform(thrust::cuda::par_nosync.on(a.stream), x, x + a.n, thrust::device_pointer_cast(a.b),
                      thrust::device_pointer_cast(a.out), thrust::plus<T>());
  }
};

struct CubDeviceTransform : LibraryVariant {
  static constexpr bool reference = true;
  template <class T>
  static void launch(const Args<T>& a) {
    BENCH_CUDA_CHECK(cub::DeviceTransform::Transform(::cuda::std::make_tuple(a.a, a.b), a.out,
                                                     static_cast<std::int64_t>(a.n), thrust::plus<T>(), a.stream));
  }
};

}  // namespace

BENCH_DECLARE(VectorAdd, ThrustTransform, AddTypes, "thrust_transform",
              "baseline: thrust::transform(a, b, out, thrust::plus) on the stream (par_nosync)", {}, {});
BENCH_DECLARE(VectorAdd, CubDeviceTransform, AddTypes, "cub_device_transform",
              "baseline: cub::DeviceTransform::Transform over (a, b) with plus", {}, {});

}  // namespace bench::vector_add
