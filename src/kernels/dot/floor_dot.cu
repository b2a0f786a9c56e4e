// The launch-floor dot product (kernels/dot/floor_dot.cuh) as dot variants,
// called exactly as a user calls it, (a, b, n, out, stream), with its built-in
// workspace; nothing else is enqueued.
//   floor_dot        Config{}: block/batch chosen by n (the API's own table)
//   floor_dot_fixed  one compiled block x batch pair per benchmark (the sweep)
#include "common/axes.hpp"
#include "families/dot.cuh"
#include "kernels/dot/floor_dot.cuh"

namespace bench::dot {
namespace {

// a.block and a.batch are 0 for the variant without axes: Config{0, 0} = by n.
struct FloorDot : KernelVariant {
  static void launch(const Args& a) {
    BENCH_CUDA_CHECK(launch_floor::floor_dot(a.a, a.b, a.n, a.out, a.stream, launch_floor::Config{a.block, a.batch}));
  }
};
struct FloorDotFixed : FloorDot {};

constexpr launch_floor::Config kDefault{256, 2};  // the read ceiling's loads in flight: two inputs x 2

}  // namespace

BENCH_DECLARE(Dot, FloorDot, DotTypes, "floor_dot",
              "launch floor (floor_sum's design): one launch, no memset, block/batch by n; 16-byte loads of a and b "
              "(b element-wise where its alignment differs from a's), products added in a fixed order; blocks "
              "publish (flag|value) in one relaxed store, block 0 polls and adds them in index order; deterministic",
              {}, {});
BENCH_DECLARE(Dot, FloorDotFixed, DotTypes, "floor_dot_fixed",
              "floor_dot with a fixed compiled block x batch (the sweep behind its table)",
              sequence_axis(launch_floor::BlockSizes{}, kDefault.block),
              sequence_axis(launch_floor::Batches{}, kDefault.batch));

}  // namespace bench::dot
