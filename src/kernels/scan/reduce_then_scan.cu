// Reduce-then-scan (Merrill & Grimshaw, "Parallel scan for stream
// architectures", 2009; PMPP chapter 11's hierarchical scan), the structure
// single-pass scans replaced: the input is cut into one contiguous range of
// whole tiles per block of an SM-sized grid; (1) each block sums its range,
// (2) one block scans the range sums, (3) each block scans its range tile by
// tile from its range's prefix. The input is read twice: 3N of traffic
// against the 2N a single pass needs (the declared bytes stay 2N, the least
// a scan must move).
#include <algorithm>

#include "common/axes.hpp"
#include "common/block_reduce.cuh"
#include "common/launch.cuh"
#include "common/ops.cuh"
#include "families/scan.cuh"
#include "kernels/scan/block_scan.cuh"

namespace bench::scan {
namespace {

// (1) The sum of in[blockIdx.x * range, + range) (clipped to n); four loads in
// flight per thread.
template <class T, int Block>
__global__ void __launch_bounds__(Block) range_sum_kernel(const T* __restrict__ in, std::size_t n, std::size_t range,
                                                          T* __restrict__ sums) {
  const std::size_t begin = blockIdx.x * range;
  const std::size_t end = begin + range < n ? begin + range : n;
  T acc[4] = {T(0), T(0), T(0), T(0)};
  std::size_t i = begin + threadIdx.x;
  for (; i + 3 * std::size_t{Block} < end; i += 4 * std::size_t{Block}) {
#pragma unroll
    for (int u = 0; u < 4; ++u) acc[u] = acc[u] + in[i + u * std::size_t{Block}];
  }
  for (; i < end; i += Block) acc[0] = acc[0] + in[i];
  const T sum = block_reduce_shfl<Sum>((acc[0] + acc[1]) + (acc[2] + acc[3]));
  if (threadIdx.x == 0) sums[blockIdx.x] = sum;
}

// (2) Exclusive scan of the range sums in place: one block of 1024 threads,
// 1024 sums at a time.
template <class T>
__global__ void __launch_bounds__(1024) spine_kernel(T* __restrict__ sums, unsigned count) {
  __shared__ T warp_totals[32];
  T carry = T(0);
  for (unsigned base = 0; base < count; base += 1024) {
    const unsigned i = base + threadIdx.x;
    T total;
    const T before = block_exclusive_scan<T, 1024>(i < count ? sums[i] : T(0), total, warp_totals);
    if (i < count) sums[i] = carry + before;
    carry = carry + total;
  }
}

// (3) Each block scans its range tile by tile, carrying the running prefix
// (prefixes[blockIdx.x] to start; 0 with a single block).
template <class T, int Block, int Items>
__global__ void __launch_bounds__(Block) range_scan_kernel(const T* __restrict__ in, T* __restrict__ out,
                                                           std::size_t n, std::size_t range,
                                                           const T* __restrict__ prefixes) {
  using Tile = TileScan<T, Block, Items>;
  __shared__ typename Tile::Storage s;
  const std::size_t begin = blockIdx.x * range;
  const std::size_t end = begin + range < n ? begin + range : n;
  T carry = prefixes ? prefixes[blockIdx.x] : T(0);
  for (std::size_t base = begin; base < end; base += Tile::kTile) {
    const int valid = static_cast<int>(end - base < std::size_t{Tile::kTile} ? end - base : std::size_t{Tile::kTile});
    T x[Items];
    Tile::load(in + base, valid, x, s);
    const T total = Tile::scan(x, s);
    Tile::store(out + base, valid, x, carry, s);
    carry = carry + total;
  }
}

struct ReduceThenScan : TiledScan {
  template <class T>
  static std::size_t workspace_bytes(const Args<T>&) {
    return std::size_t(sm_count()) * kMaxResidentPerSm * sizeof(T);  // one sum per block of the grid
  }
  // More than one tile: a grid of several ranges, so (1) and (3) both read the input.
  template <class T>
  static ExtraTraffic extra_traffic(const Point& p) {
    if (p.n <= std::size_t(p.block) * p.batch) return {};
    return {static_cast<double>(p.n) * sizeof(T), 0,
            "the input read again by the range scan (the range sums, one per block of an SM-sized grid, not counted)"};
  }

  template <class T>
  static void launch(const Args<T>& a) {
    dispatch_tile(a, [&](auto b, auto k) {
      constexpr int B = decltype(b)::value, K = decltype(k)::value;
      const auto scan_kernel = range_scan_kernel<T, B, K>;
      const std::size_t tile = std::size_t(B) * K;
      const std::size_t tiles = ceil_div(a.n, tile);
      // As many blocks as stay resident (and sums as fit), each a whole number of tiles.
      const std::size_t resident = std::size_t(sm_count()) * resident_blocks_per_sm(scan_kernel, B, 0);
      const std::size_t blocks = std::max<std::size_t>(1, std::min({tiles, resident, a.workspace_size / sizeof(T)}));
      const std::size_t tiles_per_block = ceil_div(tiles, blocks);
      const unsigned grid = static_cast<unsigned>(ceil_div(tiles, tiles_per_block));
      const std::size_t range = tiles_per_block * tile;
      T* sums = static_cast<T*>(a.workspace);
      if (grid > 1) {
        range_sum_kernel<T, B><<<grid, B, 0, a.stream>>>(a.in, a.n, range, sums);
        BENCH_CHECK_LAUNCH("range_sum_kernel");
        spine_kernel<T><<<1, 1024, 0, a.stream>>>(sums, grid);
        BENCH_CHECK_LAUNCH("spine_kernel");
      }
      scan_kernel<<<grid, B, 0, a.stream>>>(a.in, a.out, a.n, range, grid > 1 ? sums : nullptr);
      BENCH_CHECK_LAUNCH("range_scan_kernel");
    });
  }
};

}  // namespace

BENCH_DECLARE(Scan, ReduceThenScan, ScanTypes, "reduce_then_scan",
              "reduce-then-scan (Merrill & Grimshaw 2009; PMPP ch. 11 hierarchical scan): SM-sized grid of tile "
              "ranges; range sums, a one-block scan of them, each range scanned tile by tile from its prefix; reads "
              "the input twice (3N traffic)",
              axis<ReduceThenScan::Blocks, 256>(), axis<ReduceThenScan::Batches, 8>());

}  // namespace bench::scan
