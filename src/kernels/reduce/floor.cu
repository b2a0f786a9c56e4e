// The launch-floor sum (kernels/reduce/floor_sum.cuh) as a reduce_sum variant:
// called exactly as a user calls it, (in, n, out, stream), with its built-in
// workspace; nothing else is enqueued.
#include "families/reduce.cuh"
#include "kernels/reduce/floor_sum.cuh"

namespace bench::reduce {
namespace {

template <int... Vs>
std::vector<int> values(std::integer_sequence<int, Vs...>) {
  return {Vs...};
}

struct FloorSum : KernelVariant {
  template <class Op, class In>
  static void launch(const Args<Op, In>& a) {
    BENCH_CUDA_CHECK(launch_floor::floor_sum(a.in, a.n, a.out, a.stream, launch_floor::Config{a.block, a.batch}));
  }
};

const launch_floor::Config kDefault{};

}  // namespace

BENCH_DECLARE(ReduceSum, FloorSum, SumTypes, "floor_sum",
                     "launch floor: one launch, no memset; SM-sized grid, 16-byte loads with `batch` in flight per "
                     "thread, head/tail by element; the last block (atomic ticket) combines the partials in a fixed "
                     "order and resets the ticket; deterministic",
                     Axis{{kDefault.block}, values(launch_floor::BlockSizes{})},
                     Axis{{kDefault.batch}, values(launch_floor::Batches{})});

}  // namespace bench::reduce
