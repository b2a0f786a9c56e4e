// cub::DeviceReduce, the library baseline every hand-written reduction is
// compared with: Sum, Max, Min, and for half/bfloat16 inputs Reduce with a
// float accumulator. Temporary storage is sized and allocated once, outside the
// timed region (as a careful user does), so the timing is the reduction alone.
#include <cub/device/device_reduce.cuh>
#include <cuda/std/functional>

#include "families/reduce.cuh"

namespace bench::reduce {
namespace {

struct CubDeviceReduce : LibraryVariant {
  static constexpr bool reference = true;
  template <class Op, class In>
  static cudaError_t call(void* temp, std::size_t& bytes, const In* in, Acc<In>* out, std::size_t n,
                          cudaStream_t stream) {
    const auto count = static_cast<std::int64_t>(n);
    if constexpr (std::is_same_v<Op, Max>) {
      return cub::DeviceReduce::Max(temp, bytes, in, out, count, stream);
    } else if constexpr (std::is_same_v<Op, Min>) {
      return cub::DeviceReduce::Min(temp, bytes, in, out, count, stream);
    } else if constexpr (std::is_same_v<In, Acc<In>>) {
      return cub::DeviceReduce::Sum(temp, bytes, in, out, count, stream);
    } else {  // half / bfloat16 in, float accumulator and result
      return cub::DeviceReduce::Reduce(temp, bytes, in, out, count, ::cuda::std::plus<float>{}, 0.0f, stream);
    }
  }
  template <class Op, class In>
  static std::size_t workspace_bytes(const Args<Op, In>& a) {
    std::size_t bytes = 0;
    BENCH_CUDA_CHECK((call<Op, In>(nullptr, bytes, a.in, a.out, a.n, nullptr)));
    return bytes;
  }
  template <class Op, class In>
  static void launch(const Args<Op, In>& a) {
    std::size_t bytes = a.workspace_size;
    BENCH_CUDA_CHECK((call<Op, In>(a.workspace, bytes, a.in, a.out, a.n, a.stream)));
  }
};

}  // namespace

BENCH_DECLARE(ReduceSum, CubDeviceReduce, AllSumTypes, "cub_device_reduce",
              "baseline: cub::DeviceReduce::Sum (Reduce with a float accumulator for f16/bf16); temp storage allocated once",
              {}, {});
BENCH_DECLARE(ReduceMax, CubDeviceReduce, SumTypes, "cub_device_reduce",
              "baseline: cub::DeviceReduce::Max; temp storage allocated once", {}, {});
BENCH_DECLARE(ReduceMin, CubDeviceReduce, SumTypes, "cub_device_reduce",
              "baseline: cub::DeviceReduce::Min; temp storage allocated once", {}, {});

}  // namespace bench::reduce
