// cub::DeviceReduce::Sum, the library baseline every hand-written reduction is
// compared with. Temporary storage is sized and allocated once, outside the
// timed region (as a careful user does), so the timing is the reduction alone.
#include <cub/device/device_reduce.cuh>

#include "families/reduce_sum.cuh"

namespace bench::reduce_sum {
namespace {

struct CubDeviceReduce : VariantBase {
  template <typename T>
  static std::size_t workspace_bytes(std::size_t n, int, int) {
    std::size_t bytes = 0;
    BENCH_CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, bytes, static_cast<const T*>(nullptr),
                                            static_cast<T*>(nullptr), static_cast<std::int64_t>(n)));
    return bytes;
  }
  template <typename T>
  static void launch(const Args<T>& a) {
    std::size_t bytes = workspace_bytes<T>(a.n, 0, 0);
    BENCH_CUDA_CHECK(cub::DeviceReduce::Sum(a.workspace, bytes, a.in, a.out, static_cast<std::int64_t>(a.n), a.stream));
  }
};

}  // namespace

BENCH_DECLARE_REDUCE_SUM(CubDeviceReduce, "cub_device_reduce",
                         "baseline: cub::DeviceReduce::Sum, temporary storage allocated once outside timing",
                         {}, {});

}  // namespace bench::reduce_sum
