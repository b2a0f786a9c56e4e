// The one-launch scan (kernels/scan/floor_scan.cuh) as scan variants, called
// as a user calls it, (in, out, n, workspace, stream); nothing else is enqueued.
//   floor_scan        Config{}: block/items chosen by n (the API's own choice)
//   floor_scan_fixed  one compiled block x items pair per benchmark (the sweep)
#include "common/axes.hpp"
#include "families/scan.cuh"
#include "kernels/scan/floor_scan.cuh"

namespace bench::scan {
namespace {

// a.block and a.batch are 0 for the variant without axes: Config{0, 0} = by n.
struct FloorScan : KernelVariant {
  static floor_scan::Config config(int block, int batch) { return floor_scan::Config{block, batch}; }
  template <class T>
  static std::size_t workspace_bytes(const Args<T>& a) {
    std::size_t bytes = 0;
    BENCH_CUDA_CHECK(floor_scan::workspace_bytes(a.n, &bytes, config(a.block, a.batch)));
    return bytes;
  }
  // The status words: one per tile (and two per 32 tiles), each
  // written once and read by the tiles after it, from L2.
  template <class T>
  static ExtraTraffic extra_traffic(const Point& p) {
    const std::size_t tiles = floor_scan::tiles(p.n, config(p.block, p.batch));
    if (tiles <= 1) return {};
    const double bytes = static_cast<double>(tiles) * 8;
    return {bytes, bytes, std::to_string(tiles) + " tile status words of 8 B written once, read by the next tiles"};
  }
  template <class T>
  static void launch(const Args<T>& a) {
    BENCH_CUDA_CHECK(
        floor_scan::inclusive_sum(a.in, a.out, a.n, a.workspace, a.workspace_size, a.stream, config(a.block, a.batch)));
  }
};
struct FloorScanFixed : FloorScan {};

}  // namespace

BENCH_DECLARE(Scan, FloorScan, ScanTypes, "floor_scan",
              "one-launch scan: one block per tile, warp-contiguous 16-byte loads and stores, register scan, "
              "look-back in a fixed order (tile aggregates, groups of 32 tiles, group prefixes 32 groups apart) so "
              "floats are deterministic; the workspace resets itself (epoch tags); block/items by n",
              {}, {});
BENCH_DECLARE(Scan, FloorScanFixed, ScanTypes, "floor_scan_fixed",
              "floor_scan with a fixed compiled block x items pair (the sweep behind its choice)",
              sequence_axis(floor_scan::BlockSizes{}, 512), sequence_axis(floor_scan::ItemCounts{}, 32));

}  // namespace bench::scan
