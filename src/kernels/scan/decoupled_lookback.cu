// Single-pass scan with decoupled look-back (Merrill & Garland, "Single-pass
// Parallel Prefix Scan with Decoupled Look-back", NVIDIA 2016), the algorithm
// inside cub::DeviceScan: one block per tile, tiles taken in the order blocks
// start (an atomic counter), so a tile only ever waits on tiles that are
// already running. Each tile scans itself, publishes its aggregate, looks
// back over its predecessors' published values until it meets an inclusive
// prefix, publishes its own inclusive prefix, and writes out. The input is
// read once and the output written once: 2N of traffic.
#include <cuda/atomic>

#include <algorithm>

#include "common/axes.hpp"
#include "common/launch.cuh"
#include "families/scan.cuh"
#include "kernels/scan/block_scan.cuh"

namespace bench::scan {
namespace {

// A tile's status: a flag in the low 32 bits and the value's bits in the high
// 32, one 64-bit word. One atomic store publishes flag and value together and
// one atomic load reads a consistent pair, so relaxed order at device scope is
// enough: nothing else has to become visible with them.
using Status = unsigned long long;
using StatusRef = ::cuda::atomic_ref<Status, ::cuda::thread_scope_device>;
enum : unsigned { kNotReady = 0, kAggregate = 1, kPrefix = 2 };

template <class T>
__device__ Status pack(unsigned flag, T value) {
  static_assert(sizeof(T) == 4, "the value shares a 64-bit word with its flag");
  unsigned bits;
  memcpy(&bits, &value, sizeof bits);
  return (static_cast<Status>(bits) << 32) | flag;
}
__device__ inline unsigned flag_of(Status s) { return static_cast<unsigned>(s & 0xFFFFFFFFu); }
template <class T>
__device__ T value_of(Status s) {
  const unsigned bits = static_cast<unsigned>(s >> 32);
  T value;
  memcpy(&value, &bits, sizeof value);
  return value;
}

// The workspace, reset by every call before the scan: the tile counter, then
// one status per tile, all zero (kNotReady).
__global__ void reset_kernel(Status* words, std::size_t count) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
       i += std::size_t{gridDim.x} * blockDim.x)
    words[i] = 0;
}

// Warp 0 of tile `tile` (> 0): the sum of every tile before it. Lane l reads
// the status of tile (window - l), waiting while it is not ready; the values
// from the nearest inclusive prefix (lowest lane with kPrefix) down to lane 0
// are summed; without a prefix in the window, all 32 aggregates are, and the
// window moves 32 tiles back. Tile 0 always publishes a prefix, so this ends.
template <class T>
__device__ T look_back(Status* status, unsigned tile) {
  const int lane = threadIdx.x % 32;
  T exclusive = T(0);
  for (long long window = static_cast<long long>(tile) - 1;; window -= 32) {
    const long long j = window - lane;
    Status s = pack(kPrefix, T(0));  // lanes before tile 0: nothing to add
    if (j >= 0) {
      StatusRef ref(status[j]);
      do {
        s = ref.load(::cuda::std::memory_order_relaxed);
      } while (flag_of(s) == kNotReady);
    }
    const unsigned prefixes = __ballot_sync(0xFFFFFFFFu, flag_of(s) == kPrefix);
    const int last = prefixes ? __ffs(static_cast<int>(prefixes)) - 1 : 31;
    T v = lane <= last ? value_of<T>(s) : T(0);
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) v = v + __shfl_xor_sync(0xFFFFFFFFu, v, d);
    exclusive = exclusive + v;
    if (prefixes) return exclusive;
  }
}

template <class T, int Block, int Items>
__global__ void __launch_bounds__(Block) decoupled_lookback_kernel(const T* __restrict__ in, T* __restrict__ out,
                                                                   std::size_t n, Status* status,
                                                                   unsigned* tile_counter) {
  using Tile = TileScan<T, Block, Items>;
  __shared__ typename Tile::Storage s;
  __shared__ unsigned tile_shared;
  __shared__ T prefix_shared;
  if (threadIdx.x == 0) tile_shared = atomicAdd(tile_counter, 1u);
  __syncthreads();
  const unsigned tile = tile_shared;
  const std::size_t base = std::size_t{tile} * Tile::kTile;
  const int valid = static_cast<int>(n - base < std::size_t{Tile::kTile} ? n - base : std::size_t{Tile::kTile});

  T x[Items];
  Tile::load(in + base, valid, x, s);
  const T aggregate = Tile::scan(x, s);
  T prefix = T(0);
  if (tile == 0) {
    if (threadIdx.x == 0) StatusRef(status[0]).store(pack(kPrefix, aggregate), ::cuda::std::memory_order_relaxed);
  } else {
    // The aggregate first, so that successors need not wait for this tile's look-back.
    if (threadIdx.x == 0) StatusRef(status[tile]).store(pack(kAggregate, aggregate), ::cuda::std::memory_order_relaxed);
    if (threadIdx.x < 32) {
      const T before = look_back<T>(status, tile);
      if (threadIdx.x == 0) {
        StatusRef(status[tile]).store(pack(kPrefix, before + aggregate), ::cuda::std::memory_order_relaxed);
        prefix_shared = before;
      }
    }
    __syncthreads();
    prefix = prefix_shared;
  }
  Tile::store(out + base, valid, x, prefix, s);
}

struct DecoupledLookback : TiledScan {
  // The tile counter and one status per tile.
  template <class T>
  static std::size_t workspace_bytes(const Args<T>& a) {
    return (1 + ceil_div(a.n, std::size_t(a.block) * a.batch)) * sizeof(Status);
  }
  // The status words, zeroed by the reset kernel and read by the look-back
  // (those of tiles far ahead leave L2 before their tile runs).
  template <class T>
  static ExtraTraffic extra_traffic(const Point& p) {
    const std::size_t words = 1 + ceil_div(p.n, std::size_t(p.block) * p.batch);
    const double bytes = static_cast<double>(words) * sizeof(Status);
    return {bytes, bytes, std::to_string(words) + " tile status words of 8 B written by the reset, read by the look-back"};
  }

  template <class T>
  static void launch(const Args<T>& a) {
    dispatch_tile(a, [&](auto b, auto k) {
      constexpr int B = decltype(b)::value, K = decltype(k)::value;
      const unsigned tiles = grid_for(a.n, std::size_t(B) * K);
      if (a.workspace_size < (1 + std::size_t{tiles}) * sizeof(Status))
        throw Unsupported("workspace too small for the tile status");
      auto* words = static_cast<Status*>(a.workspace);
      const unsigned reset_blocks = std::min(grid_for(1 + std::size_t{tiles}, 256), 1024u);
      reset_kernel<<<reset_blocks, 256, 0, a.stream>>>(words, 1 + std::size_t{tiles});
      BENCH_CHECK_LAUNCH("reset_kernel");
      decoupled_lookback_kernel<T, B, K>
          <<<tiles, B, 0, a.stream>>>(a.in, a.out, a.n, words + 1, reinterpret_cast<unsigned*>(words));
      BENCH_CHECK_LAUNCH("decoupled_lookback_kernel");
    });
  }
};

}  // namespace

BENCH_DECLARE(Scan, DecoupledLookback, ScanTypes, "decoupled_lookback",
              "single-pass scan with decoupled look-back (Merrill & Garland 2016): tiles in start order from an "
              "atomic counter, flag and value in one 64-bit status word per tile, a warp looks back 32 tiles at a "
              "time; the status is reset by a kernel in every call (2N traffic)",
              axis<DecoupledLookback::Blocks, 256>(), axis<DecoupledLookback::Batches, 8>());

}  // namespace bench::scan
