// The launch-floor sum (kernels/reduce/floor_sum.cuh) as reduce_sum variants,
// called exactly as a user calls it, (in, n, out, stream), with its built-in
// workspace; nothing else is enqueued.
//   floor_sum        Config{}: block/batch chosen by n (the API's own table)
//   floor_sum_fixed  one compiled block x batch pair per benchmark (the sweep)
#include "common/axes.hpp"
#include "families/reduce.cuh"
#include "kernels/reduce/floor_sum.cuh"

namespace bench::reduce {
namespace {

// a.block and a.batch are 0 for the variant without axes: Config{0, 0} = by n.
struct FloorSum : KernelVariant {
  template <class Op, class In>
  static void launch(const Args<Op, In>& a) {
    BENCH_CUDA_CHECK(launch_floor::floor_sum(a.in, a.n, a.out, a.stream, launch_floor::Config{a.block, a.batch}));
  }
};
struct FloorSumFixed : FloorSum {};

constexpr launch_floor::Config kDefault{256, 4};  // the read ceiling's shape

}  // namespace

BENCH_DECLARE(ReduceSum, FloorSum, AllSumTypes, "floor_sum",
                     "launch floor: one launch, no memset, block/batch by n; 16-byte loads, `batch` in flight per "
                     "thread, head/tail by element (halves summed in float); blocks publish (flag|value) in one "
                     "relaxed store, block 0 polls and adds them in index order, clears them; deterministic",
              {}, {});
BENCH_DECLARE(ReduceSum, FloorSumFixed, AllSumTypes, "floor_sum_fixed",
                     "floor_sum with a fixed compiled block x batch (the sweep behind floor_sum's table)",
                     sequence_axis(launch_floor::BlockSizes{}, kDefault.block),
                     sequence_axis(launch_floor::Batches{}, kDefault.batch));

}  // namespace bench::reduce
