// The one-launch scan (kernels/scan/floor_scan.cuh) as scan variants, called
// as a user calls it, (in, out, n, workspace, stream); nothing else is enqueued.
//   floor_scan        Config{}: block/items chosen by n (the API's own choice)
//   floor_scan_fixed  one compiled block x items pair per benchmark (the sweep)
// and its bound without the look-back, as a ceiling:
//   ceiling/i32/scan_tiles  floor_scan::tiles_only (its data path alone)

#include "common/axes.hpp"
#include "families/ceiling.cuh"
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
    const bool aligned = p.in_offset[0] * sizeof(T) % 16 == 0 && p.out_offset * sizeof(T) % 16 == 0;
    const std::size_t tiles = floor_scan::call_tiles(p.n, config(p.block, p.batch), aligned);
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
}  // namespace bench::scan

namespace bench::ceiling {
namespace {

// floor_scan's launch at n (the shape chosen by n) without the look-back: the
// bytes it must move, through its own tiles, tickets and data path, one tile a
// block. Up to 1024 tiles its time over copy_memcpy's is what floor_scan could
// reach, and floor_scan's over it is what the look-back costs. Above, floor_scan
// runs a persistent grid that prefetches tiles into L2 during its look-backs,
// which has no counterpart without a look-back: there it beats this on an H100
// (2^30: 0.979 of copy_memcpy against 0.967, results/versus/README.md), and
// copy_memcpy is the bound. Above 1024 tiles of 256 x 96 (2^24 + 2^23)
// floor_scan takes those (kWide, the persistent grid only); this keeps
// choose(n)'s shape.
struct ScanTiles : KernelVariant {
  static constexpr std::size_t min_n = 1 << 12;
  static Work work(std::size_t n) { return Work{4.0 * n, 4.0 * n, static_cast<double>(n)}; }
  ScanTiles(std::size_t n, int placement) : n_(n), in_(placed_dataset<int>(n, 0, placement)), out_(n) {
    std::size_t bytes = 0;
    BENCH_CUDA_CHECK(floor_scan::workspace_bytes(n, &bytes));
    workspace_ = DeviceBuffer<unsigned char>(bytes);
    BENCH_CUDA_CHECK(cudaMemset(workspace_.get(), 0, bytes));
  }
  void launch(cudaStream_t s) {
    BENCH_CUDA_CHECK(floor_scan::tiles_only(in_, out_.get(), n_, workspace_.get(), workspace_.bytes(), s));
  }
  // Every tile's own inclusive scan (int32 wraps), checked whole on the device.
  std::string verify(cudaStream_t s) {
    BENCH_CUDA_CHECK(cudaMemsetAsync(out_.get(), 0xA5, out_.bytes(), s));
    launch(s);
    const floor_scan::Config c = floor_scan::choose(n_);
    const std::string wrong = scan::prefix_sums_device_check(in_, out_.get(), n_, std::size_t(c.block) * c.items, s);
    return wrong.empty() ? "" : "not each tile's own inclusive scan: " + wrong;
  }
  std::size_t n_;
  const int* in_;
  DeviceBuffer<int> out_;
  DeviceBuffer<unsigned char> workspace_;
};

}  // namespace

BENCH_DECLARE(Ceiling, ScanTiles, I32, "scan_tiles",
              "ceiling: floor_scan's tiles scanned alone, one tile a block, no look-back: its data path and tile "
              "order moving the bytes (above 1024 tiles floor_scan's persistent grid prefetches and can pass it; "
              "above 2^24 + 2^23 floor_scan takes 256 x 96 tiles, this stays at 512 x 32)",
              {}, {});

}  // namespace bench::ceiling

namespace bench::scan {

BENCH_DECLARE(Scan, FloorScan, ScanTypes, "floor_scan",
              "one-launch scan: one block per tile, warp-contiguous 16-byte loads and stores, register scan, "
              "look-back in a fixed order (tile aggregates, groups of 32 tiles, group prefixes 32 groups apart) so "
              "floats are deterministic; the workspace resets itself (epoch tags); block/items by n",
              {}, {});
BENCH_DECLARE(Scan, FloorScanFixed, ScanTypes, "floor_scan_fixed",
              "floor_scan with a fixed compiled block x items pair (the sweep behind its choice)",
              sequence_axis(floor_scan::BlockSizes{}, 512), sequence_axis(floor_scan::ItemCounts{}, 32));

}  // namespace bench::scan
