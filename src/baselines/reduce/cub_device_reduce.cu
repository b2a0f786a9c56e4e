// cub::DeviceReduce, the library baseline every hand-written reduction is
// compared with: Sum, Max, Min, and for half/bfloat16 inputs Reduce with a
// float accumulator; for max and min also the generic entry point a user
// reaches for with an operator of their own, Reduce with cuda::maximum /
// cuda::minimum and the type's identity. Temporary storage is sized and allocated once, outside the
// timed region (as a careful user does), so the timing is the reduction alone.
#include <cub/device/device_reduce.cuh>
#include <cuda/functional>
#include <cuda/std/functional>
#include <cuda/std/limits>

#include "families/reduce.cuh"

namespace bench::reduce {
namespace {

struct CubDeviceReduce : TwoPhaseLibrary<CubDeviceReduce> {
  static constexpr bool reference = true;
  template <class Op, class In>
  static cudaError_t call(void* temp, std::size_t& bytes, const Args<Op, In>& a) {
    const auto count = static_cast<std::int64_t>(a.n);
    if constexpr (std::is_same_v<Op, Max>) {
      return cub::DeviceReduce::Max(temp, bytes, a.in, a.out, count, a.stream);
    } else if constexpr (std::is_same_v<Op, Min>) {
      return cub::DeviceReduce::Min(temp, bytes, a.in, a.out, count, a.stream);
    } else if constexpr (std::is_same_v<In, Acc<In>>) {
      return cub::DeviceReduce::Sum(temp, bytes, a.in, a.out, count, a.stream);
    } else {  // half / bfloat16 in, float accumulator and result
      return cub::DeviceReduce::Reduce(temp, bytes, a.in, a.out, count, ::cuda::std::plus<float>{}, 0.0f, a.stream);
    }
  }
};

struct CubReduceWithOperator : TwoPhaseLibrary<CubReduceWithOperator> {
  template <class Op, class In>
  static cudaError_t call(void* temp, std::size_t& bytes, const Args<Op, In>& a) {
    const auto count = static_cast<std::int64_t>(a.n);
    if constexpr (std::is_same_v<Op, Max>) {
      return cub::DeviceReduce::Reduce(temp, bytes, a.in, a.out, count, ::cuda::maximum<>{},
                                       ::cuda::std::numeric_limits<In>::lowest(), a.stream);
    } else {
      static_assert(std::is_same_v<Op, Min>, "max and min only");
      return cub::DeviceReduce::Reduce(temp, bytes, a.in, a.out, count, ::cuda::minimum<>{},
                                       ::cuda::std::numeric_limits<In>::max(), a.stream);
    }
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

BENCH_DECLARE(ReduceMax, CubReduceWithOperator, SumTypes, "cub_reduce_maximum",
              "baseline: cub::DeviceReduce::Reduce with cuda::maximum and the lowest value; temp storage allocated once",
              {}, {});
BENCH_DECLARE(ReduceMin, CubReduceWithOperator, SumTypes, "cub_reduce_minimum",
              "baseline: cub::DeviceReduce::Reduce with cuda::minimum and the largest value; temp storage allocated once",
              {}, {});

}  // namespace bench::reduce
