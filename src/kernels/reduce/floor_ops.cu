// The launch-floor max, min (kernels/reduce/floor_minmax.cuh) and argmax
// (kernels/reduce/floor_argmax.cuh) as variants of reduce_max, reduce_min and
// reduce_argmax, called exactly as a user calls them, with their built-in
// workspace (one for this file's kernels); nothing else is enqueued.
//   floor_<op>        Config{}: block/batch chosen by n (the API's own table)
//   floor_<op>_fixed  one compiled block x batch pair per benchmark (the sweep)
#include "common/axes.hpp"
#include "families/argmax.cuh"
#include "families/reduce.cuh"
#include "kernels/reduce/floor_argmax.cuh"
#include "kernels/reduce/floor_minmax.cuh"

namespace bench {
namespace {

constexpr launch_floor::Config kDefault{256, 4};  // the read ceiling's shape

Axis block_sweep() { return sequence_axis(launch_floor::BlockSizes{}, kDefault.block); }
Axis batch_sweep() { return sequence_axis(launch_floor::Batches{}, kDefault.batch); }

// a.block and a.batch are 0 for the variants without axes: Config{0, 0} = by n.
template <class A>
launch_floor::Config config_of(const A& a) {
  return launch_floor::Config{a.block, a.batch};
}

struct FloorExtremum : KernelVariant {
  template <class Op, class In>
  static void launch(const reduce::Args<Op, In>& a) {
    if constexpr (std::is_same_v<Op, Max>) {
      BENCH_CUDA_CHECK(launch_floor::floor_max(a.in, a.n, a.out, a.stream, config_of(a)));
    } else {
      static_assert(std::is_same_v<Op, Min>, "floor_max and floor_min only");
      BENCH_CUDA_CHECK(launch_floor::floor_min(a.in, a.n, a.out, a.stream, config_of(a)));
    }
  }
};
struct FloorExtremumFixed : FloorExtremum {};

struct FloorArgmax : KernelVariant {
  template <class T>
  static void launch(const argmax::Args<T>& a) {
    BENCH_CUDA_CHECK(launch_floor::floor_argmax(a.in, a.n, &a.out->value, &a.out->index, a.stream, config_of(a)));
  }
};
struct FloorArgmaxFixed : FloorArgmax {};

}  // namespace

namespace reduce {
BENCH_DECLARE(ReduceMax, FloorExtremum, SumTypes, "floor_max",
              "launch floor (floor_sum's design): one launch, no memset, block/batch by n; 16-byte loads, fmaxf "
              "(NaN never wins); blocks publish (flag|value) in one relaxed store, block 0 polls and combines them "
              "in index order, clears them; deterministic",
              {}, {});
BENCH_DECLARE(ReduceMax, FloorExtremumFixed, SumTypes, "floor_max_fixed",
              "floor_max with a fixed compiled block x batch (the sweep for its table)", block_sweep(), batch_sweep());
BENCH_DECLARE(ReduceMin, FloorExtremum, SumTypes, "floor_min",
              "launch floor (floor_sum's design): one launch, no memset, block/batch by n; 16-byte loads, fminf "
              "(NaN never wins); blocks publish (flag|value) in one relaxed store, block 0 polls and combines them "
              "in index order, clears them; deterministic",
              {}, {});
BENCH_DECLARE(ReduceMin, FloorExtremumFixed, SumTypes, "floor_min_fixed",
              "floor_min with a fixed compiled block x batch (the sweep for its table)", block_sweep(), batch_sweep());
}  // namespace reduce

namespace argmax {
BENCH_DECLARE(Argmax, FloorArgmax, ArgmaxTypes, "floor_argmax",
              "launch floor (floor_sum's design): one launch, no memset, block/batch by n; 16-byte loads, (value, "
              "index) pairs, ties to the lowest index; blocks publish (flag|index|value) in one relaxed 8-byte "
              "store below 2^31 elements, block 0 polls and combines them in index order, clears them",
              {}, {});
BENCH_DECLARE(Argmax, FloorArgmaxFixed, ArgmaxTypes, "floor_argmax_fixed",
              "floor_argmax with a fixed compiled block x batch (the sweep for its table)", block_sweep(),
              batch_sweep());
}  // namespace argmax

}  // namespace bench
