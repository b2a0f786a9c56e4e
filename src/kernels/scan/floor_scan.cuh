// floor_scan: an inclusive prefix sum out[i] = in[0] + ... + in[i] (int32,
// float32) in one launch that moves the input once and the output once, aimed
// at the copy roof (at 2^30, 0.98 of copy_memcpy on an H100, measured before
// the two-hop look-back and the wide shape, and 0.922-0.927 on two H200s,
// int32 and float32; CUB 0.82 and 0.73: results/versus/README.md).
// Independent of the benchmark harness: only CUDA and libcu++.
//
// Design (single pass, decoupled look-back in the spirit of Merrill & Garland
// 2016, with a fixed combination order so floats are deterministic):
//   - a tile is Block x Items elements, one block per tile; blocks take tiles
//     in the order they start from an atomic counter, so a tile only ever
//     waits on tiles already taken by running blocks;
//   - data: each warp owns 32 x Items consecutive elements and moves them as
//     Items / 4 rows of 16-byte vectors, lane l holding vector (row x 32 + l)
//     of its warp: every load and store instruction of a warp covers 512
//     consecutive bytes, no shared-memory transpose. A partial last tile, or
//     an input or output not 16-byte aligned, goes element by element in the
//     same arrangement;
//   - in registers: each vector scanned in place, one warp scan per row
//     (shuffles, the rows independent), rows chained by their totals, warps
//     chained through shared memory;
//   - across tiles, for up to 512 tiles (to 2^22 elements by the choice):
//     each tile publishes its aggregate A as soon as it has it and reads the A
//     of every tile before it, all its warps at once, summed in a fixed order
//     (flat_prefix): one hop;
//   - above, groups of 32 tiles: each tile publishes its aggregate A as
//     soon as it has it; a group's last tile publishes the group's aggregate
//     G = (sum of its A) and the inclusive prefix of its group
//     P[g] = (P[g-32] + sum of G[g-31 .. g-1]) + G[g]; a tile's exclusive
//     prefix is ((P[g-33] + sum of G[g-32 .. g-2]) + sum of the A of group
//     g-1) + sum of the A before it in its group. Each sum is over
//     warp lanes in a fixed shuffle tree, so every value is a fixed expression
//     of the input whatever the timing: float results are bitwise identical
//     from call to call (CUB's look-back, which stops at whichever prefix it
//     meets first, is not). A tile waits on the A of the up to 63 tiles
//     before it (one hop: each is published as its tile has loaded), on the G
//     of the groups before those (two hops: each published as soon as its
//     group's A are in, by its last tile, which does not nap), and on P[g-33]
//     (published a thousand tiles before); a group's last tile also waits on
//     G of the 31 groups before and P[g-32] to publish P[g]. Nothing waits on
//     a P published less than 33 groups before: the only chain of waits is
//     P's, one round trip per 32 groups. A tile polls everything it still
//     lacks at once, one round trip a turn. Before its first look a tile naps
//     (kFirstReadNs, longer when the call has many waves of tiles): polling
//     sooner only adds L2 traffic while the tiles before it are still loading;
//   - a status word is 64 bits: the value's bits high, the call's tag low,
//     written and read with one relaxed 8-byte access (single-copy atomic, no
//     fence). A word is ready when its tag is this call's;
//   - calls of a few waves (513 to 1024 tiles: 2^23 < n <= 2^24 by the
//     choice), 16-byte aligned: a persistent grid stages each block's next
//     tile in shared memory (one TMA bulk copy) while the block looks back
//     for its current one, and publishes that tile's aggregate as soon as it
//     lands (Staging, staged_scan_kernel): H100 2^24 4.6-5.2% faster.
//   - calls of more waves, 16-byte aligned: a persistent grid again, each
//     block taking its next ticket only as it loads that tile
//     (persistent_scan_kernel): against a block a tile, 0.2-0.4% faster at
//     2^28-2^30 on an H100, 0.9-1.7% at 2^25-2^30 on an H200. While a block
//     looks back, it has a tile 3/4 of the grid ahead prefetched into L2
//     (prefetch_ahead), so the DRAM does not idle through the look-backs.
//     A call by n takes this grid at the wide shape, 256 x 96 at 128
//     registers a thread (kWide), where it has more than 1024 such tiles.
#pragma once

#include <cuda/atomic>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "kernels/resident_grid.cuh"

namespace bench::floor_scan {

// The compiled tunables: threads per block, elements per thread (a multiple of
// 4: rows of 16-byte vectors of 4-byte elements).
using BlockSizes = std::integer_sequence<int, 128, 256, 512>;
using ItemCounts = std::integer_sequence<int, 8, 16, 32>;

// 0 / 0: chosen by n (choose()); otherwise a compiled pair.
struct Config {
  int block = 0;
  int items = 0;
};

// The choice by n, from the H100 sweeps of floor_scan_fixed (interleaved;
// results/versus/README.md and scan_sweeps/): one block up to 4096 elements;
// then one tile of 512 x 16 to 8192; from 2^13 to 2^19 the small-call sweep
// of 2026-11-27 (scan_sweeps/small_20261127/: about 64 tiles from 2^16, where
// the call is latency, not bytes: at 2^18 256 x 16 7.6-7.8 us against
// 8.5-8.6 for 256 x 32); 256 x 32 to 2^22; 512 x 32 above (the fewest
// look-backs: at 2^28 860 us int32 then, 0.82 of the copy ceiling, the next
// shape 893; with the one-hop look-back, 2026-11-26, still the fastest from
// 2^24, scan_sweeps/). An aligned call by n of more than 1024 tiles of 256 x
// 96 takes that shape instead (kWide, the persistent grid only).
inline constexpr Config choose(std::size_t n) {
  if (n <= 4096) return Config{256, 16};
  if (n <= 8192) return Config{512, 16};
  if (n <= (std::size_t{1} << 15)) return Config{256, 16};
  if (n <= (std::size_t{1} << 16)) return Config{128, 8};
  if (n <= (std::size_t{1} << 17)) return Config{256, 8};
  if (n <= (std::size_t{1} << 19)) return Config{256, 16};
  if (n <= (std::size_t{1} << 22)) return Config{256, 32};
  return Config{512, 32};
}

namespace detail {

using Word = unsigned long long;
using Ref = cuda::atomic_ref<Word, cuda::thread_scope_device>;

constexpr int kFan = 32;  // tiles per group (16 and 8: 4.7-9.3% slower, H200, experiments/scan_fan/)
// Calls of at most this many tiles take the flat look-back (flat_prefix): a
// tile reads the A of every tile before it, all of its warps at once. Against
// the groups for every call (H100, tools/run-ab against a681f0d, 4 rounds,
// scan_sweeps/flat_20261126/): 2^19-2^21 15-19% faster (33-256 tiles), 2^22
// 6.5-6.9% (512), 2^23 7.3-9.1% (512 of 512 x 32), i32 and f32; no difference
// at 2^14-2^18 (one group) and 2^24-2^26. 2048 would spill at 256 x 32.
constexpr std::size_t kFlatTiles = 512;
enum : std::size_t { kCtl = 0, kHighWater = 1, kDone = 2, kHeader = 4 };
constexpr unsigned kLastTag = 0xFFFFFFFFu;

// Word offsets of the status arrays for a call of `tiles` tiles: A per tile,
// G and P per group.
struct Layout {
  std::size_t a, g, p, end;
};
__host__ __device__ inline Layout layout(std::size_t tiles) {
  const std::size_t groups = (tiles + kFan - 1) / kFan;
  Layout l{};
  l.a = kHeader;
  l.g = l.a + tiles;
  l.p = l.g + groups;
  l.end = l.p + groups;
  return l;
}

// Integers add as unsigned (two's-complement wrap, no signed overflow).
template <class T>
__host__ __device__ inline T add(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(static_cast<unsigned>(a) + static_cast<unsigned>(b));
  } else {
    return a + b;
  }
}

template <class T>
__device__ inline Word pack(T v, unsigned tag) {
  unsigned bits;
  std::memcpy(&bits, &v, 4);
  return (static_cast<Word>(bits) << 32) | tag;
}
template <class T>
__device__ inline T value_of(Word w) {
  const unsigned bits = static_cast<unsigned>(w >> 32);
  T v;
  std::memcpy(&v, &bits, 4);
  return v;
}
__device__ inline unsigned tag_of(Word w) { return static_cast<unsigned>(w); }

// The look-back's naps: a tile sleeps before its first status read and
// between polls, when the call has more than one group of tiles. The first
// nap is long when the call has many waves of tiles (kLongNapTiles or more)
// and is not staged:
// in that steady state the tiles just before this one finish loading about
// when this one does, under the same contention, and polling for them sooner
// only adds traffic while they load. H100, int32, tools/run-ab against the
// 800 ns nap (2026-11-26, results/versus/README.md): 2400 ns 8.0 / 7.7 / 6.9 /
// 4.0% faster at 2^30 / 2^28 / 2^26 / 2^24, 3200 and 4000 ns the same, 5600
// ns 0.8-9% slower; but 5-14% slower at 2^22 and 2^20 (512 and 128 tiles).
// Those take 400 ns: against 800, float32 3.9% and int32 1.5% faster at 2^20,
// no different at 2^18 and 2^22; 200 ns mixed, none 2-9% slower. A staged
// call (staged_scan_kernel, up to 1024 tiles) takes 400 ns too: its blocks
// load the next tile while they look back, so the tiles before are not in
// step with it. tools/run-ab against 2400 ns, 6 rounds, 2026-11-27
// (results/versus/<gpu>/ab_staged_short_nap.md): 2^24 (1024 tiles) 3.3% /
// 3.6% faster int32 / float32 on an H100, 5.7% / 5.5% on an H200, 2^22,
// 2^23, 2^25, 2^26 no different (0.24% once, 2^25 int32 on the H100, whose
// code did not change); earlier, on the H200 alone, 0, 200 and 400 ns alike,
// 800 ns 1% and 1200 ns 3% slower (experiments/scan_naps/). The long nap is
// 1200 ns since the two-hop look-back (exclusive_prefix): on an H200, one
// process a setting, two rounds (experiments/scan_wait/), 1600 ns the same,
// 600 and 900 ns 0.8-1.3% slower, 2400 ns 3.0-4.2% slower at 2^26-2^30; the
// poll nap at 50 or 200 ns the same as 100. A group's last tile does not nap:
// the tiles after it wait on the G it publishes. Not measured on an H100 since.
constexpr int kFirstReadNs = 400, kFirstReadLongNs = 1200, kPollNs = 100;
constexpr std::size_t kLongNapTiles = 1024;
__device__ inline void nap(int ns) {
  if (ns > 0) __nanosleep(ns);
}
// Before a tile's first status read, and between its polls.
__device__ inline int first_nap_ns(std::size_t tiles, bool staged, bool last_of_group = false) {
  if (tiles <= kFan || last_of_group) return 0;
  return tiles >= kLongNapTiles && !staged ? kFirstReadLongNs : kFirstReadNs;
}
__device__ inline int poll_nap_ns(std::size_t tiles) { return tiles > kFan ? kPollNs : 0; }

__device__ inline void publish(Word* w, Word value) { Ref(*w).store(value, cuda::std::memory_order_relaxed); }
__device__ inline Word peek(Word* w) { return Ref(*w).load(cuda::std::memory_order_relaxed); }

// The sum over the warp's lanes in a fixed tree, the same value in every lane
// (lane 0's, broadcast: a butterfly's lanes may round differently).
template <class T>
__device__ inline T warp_sum(T v) {
#pragma unroll
  for (int d = 16; d > 0; d >>= 1) v = add(v, __shfl_down_sync(0xFFFFFFFFu, v, d));
  return __shfl_sync(0xFFFFFFFFu, v, 0);
}

template <class T, int Items>
struct Vec4Rows {
  static constexpr int kRows = Items / 4;
  T x[kRows][4];
};

// Loads (Vectors: 16-byte, the tile whole and aligned) and stores of this
// thread's rows: row j, element c is at tile offset 4 (w 32 R + j 32 + l) + c.
template <class T, int Block, int Items, bool Vectors>
struct TileIO {
  static constexpr int kRows = Items / 4;
  __device__ static int first(int row) {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    return 4 * (warp * 32 * kRows + row * 32 + lane);
  }
  __device__ static void load(const T* __restrict__ in, int valid, T (&x)[kRows][4]) {
    if (Vectors && valid == Block * Items) {
#pragma unroll
      for (int j = 0; j < kRows; ++j) {
        const uint4 q = __ldcs(reinterpret_cast<const uint4*>(in + first(j)));
        std::memcpy(&x[j][0], &q, 16);
      }
    } else {
#pragma unroll
      for (int j = 0; j < kRows; ++j)
#pragma unroll
        for (int c = 0; c < 4; ++c) {
          const int e = first(j) + c;
          x[j][c] = e < valid ? in[e] : T(0);
        }
    }
  }
  __device__ static void store(T* __restrict__ out, int valid, const T (&y)[kRows][4]) {
    if (Vectors && valid == Block * Items) {
#pragma unroll
      for (int j = 0; j < kRows; ++j) {
        uint4 q;
        std::memcpy(&q, &y[j][0], 16);
        __stcs(reinterpret_cast<uint4*>(out + first(j)), q);
      }
    } else {
#pragma unroll
      for (int j = 0; j < kRows; ++j)
#pragma unroll
        for (int c = 0; c < 4; ++c) {
          const int e = first(j) + c;
          if (e < valid) out[e] = y[j][c];
        }
    }
  }
};

// Warp 0 of tile `tile` (tag: this call's; tiles > kFlatTiles): the sum of
// every element before the tile, ((P[g-33] + sum G[g-32 .. g-2]) + sum of the
// A of group g-1) + sum of the A before it in group g, after publishing, as
// the group's last tile, G[g] and P[g] = (P[g-32] + sum G[g-31 .. g-1]) + G[g].
// A tile waits on the A of the tiles before it directly (one hop: published as
// each has loaded) and on the G of the groups before (two hops: each group's
// last tile publishes its G as soon as it has read its group's A), never on a
// P published less than 33 groups before (P[g-2] was a third hop: its tile
// publishes it only after reading G[g-33 .. g-3]).
template <class T>
__device__ T exclusive_prefix(Word* ws, const Layout& l, std::size_t tile, std::size_t tiles, unsigned tag,
                             T aggregate, bool staged) {
  const int lane = threadIdx.x % 32;
  const std::size_t group = tile / kFan;
  const int in_group = static_cast<int>(tile % kFan);
  const bool last = in_group == kFan - 1;
  // Three words a lane: A[32g + lane] (lane < in_group), A[32(g-1) + lane],
  // and G[g-32 + lane] (lane < 31) or, in lane 31, P[g-33]. Word offsets are
  // 32-bit (the layout is under 2^32 words: tiles < 2^31).
  const long long h_index = static_cast<long long>(group) - kFan + lane;
  const bool want_a = lane < in_group;
  const bool want_b = group >= 1;
  const bool want_h = lane < kFan - 1 ? h_index >= 0 && group >= 2 : group >= kFan + 1;
  const unsigned a_at = static_cast<unsigned>(l.a + group * kFan + lane);
  const unsigned b_at = want_b ? static_cast<unsigned>(l.a + (group - 1) * kFan + lane) : 0u;
  const unsigned h_at = !want_h ? 0u
                        : lane < kFan - 1 ? static_cast<unsigned>(l.g + h_index)
                                          : static_cast<unsigned>(l.p + group - kFan - 1);
  const int poll_ns = poll_nap_ns(tiles);
  nap(first_nap_ns(tiles, staged, last));
  Word a = want_a ? peek(ws + a_at) : Word{tag};
  Word b = want_b ? peek(ws + b_at) : Word{tag};
  Word h = want_h ? peek(ws + h_at) : Word{tag};
  if (last) {
    // G[g] first: it needs only this group's A (published after the waits
    // below, each G would wait on the G before it: one round trip a group).
    while (tag_of(a) != tag) nap(poll_ns), a = peek(ws + a_at);
    const T group_total = add(warp_sum(want_a ? value_of<T>(a) : T(0)), aggregate);
    if (lane == 0) publish(ws + l.g + group, pack(group_total, tag));
    // P[g]: lanes 0-30 G[g-31 .. g-1], lane 31 P[g-32].
    const long long g_index = static_cast<long long>(group) - (kFan - 1) + lane;
    const bool want_g = lane < kFan - 1 ? g_index >= 0 : group >= kFan;
    Word* const g_word = ws + (lane < kFan - 1 ? l.g + (want_g ? g_index : 0) : l.p + (want_g ? group - kFan : 0));
    Word g = want_g ? peek(g_word) : Word{tag};
    while (tag_of(g) != tag) nap(poll_ns), g = peek(g_word);
    const T g_sum = warp_sum(want_g && lane < kFan - 1 ? value_of<T>(g) : T(0));
    const T before = __shfl_sync(0xFFFFFFFFu, want_g ? value_of<T>(g) : T(0), 31);
    if (lane == 0) publish(ws + l.p + group, pack(add(add(before, g_sum), group_total), tag));
  }
  // Everything still lacking, polled at once: one round trip a turn.
  for (;;) {
    const bool ready = tag_of(a) == tag && tag_of(b) == tag && tag_of(h) == tag;
    if (__all_sync(0xFFFFFFFFu, ready)) break;
    nap(poll_ns);
    if (tag_of(a) != tag) a = peek(ws + a_at);
    if (tag_of(b) != tag) b = peek(ws + b_at);
    if (tag_of(h) != tag) h = peek(ws + h_at);
  }
  const T a_sum = warp_sum(want_a ? value_of<T>(a) : T(0));
  const T b_sum = warp_sum(want_b ? value_of<T>(b) : T(0));
  const T h_sum = warp_sum(want_h && lane < kFan - 1 ? value_of<T>(h) : T(0));
  const T p_before = __shfl_sync(0xFFFFFFFFu, want_h ? value_of<T>(h) : T(0), 31);
  return add(add(add(p_before, h_sum), b_sum), a_sum);
}

// Every thread of tile `tile` (tiles <= kFlatTiles): the sum of the A of the
// tiles before it, P[t] = sum over chunks c of (sum of A[32c .. 32c+31]), in
// chunk order; each chunk summed over warp lanes in warp_sum's fixed tree, so
// floats are a fixed expression of the input. Warp w reads chunks w, w + kWarps,
// ... (all its loads first, then it waits on each): one hop on the tiles
// before, none on a sum another tile makes from them. For up to 512 tiles this
// is at most 16 chunks, 8 KiB read from L2 a tile.
template <class T, int Block>
__device__ T flat_prefix(Word* ws, const Layout& l, std::size_t tile, std::size_t tiles, unsigned tag,
                         T* chunk_sums) {
  constexpr int kWarps = Block / 32;
  constexpr int kChunks = static_cast<int>(kFlatTiles) / 32;
  constexpr int kPerWarp = (kChunks + kWarps - 1) / kWarps;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int chunks = static_cast<int>((tile + 31) / 32);
  const int poll_ns = poll_nap_ns(tiles);
  nap(first_nap_ns(tiles, false));  // at most kFlatTiles: never the long nap
  Word w[kPerWarp];
#pragma unroll
  for (int k = 0; k < kPerWarp; ++k) {
    const std::size_t i = std::size_t(warp + k * kWarps) * 32 + lane;
    w[k] = i < tile ? peek(ws + l.a + i) : Word{tag};
  }
#pragma unroll
  for (int k = 0; k < kPerWarp; ++k) {
    const int c = warp + k * kWarps;
    if (c < chunks) {  // the same for the whole warp
      const std::size_t i = std::size_t(c) * 32 + lane;
      while (tag_of(w[k]) != tag) nap(poll_ns), w[k] = peek(ws + l.a + i);
      const T sum = warp_sum(i < tile ? value_of<T>(w[k]) : T(0));
      if (lane == 0) chunk_sums[c] = sum;
    }
  }
  __syncthreads();
  T prefix = T(0);
  for (int c = 0; c < chunks; ++c) prefix = add(prefix, chunk_sums[c]);
  return prefix;
}

// Staging (grouped look-back calls, 16-byte aligned input and output, whole
// tiles): a block's next tile travels from global memory into shared memory in
// one bulk copy (TMA, cp.async.bulk, completing on an mbarrier) while the block
// looks back for its current tile, no registers held. Warp 1 waits for it
// there, beside warp 0's look-back, sums it and publishes its aggregate A at
// once: a staged tile's A must not wait for its block's current look-back and
// stores, or every tile's look-back waits on the one a round of tiles before it
// (tried with per-thread cp.async and A published when the tile was scanned:
// 30-40% slower at 2^28-2^30 on an H100).
template <class T, int Block, int Items>
struct Staging {
  static constexpr int kRows = Items / 4, kVectors = Block * Items / 4;
  static constexpr std::size_t kBytes = std::size_t{Block} * Items * sizeof(T);
  __device__ static unsigned address(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }
  __device__ static void init(Word* bar) {  // one thread
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(address(bar)) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  // One thread, after the block has met since it last read the buffer.
  __device__ static void copy_async(uint4* staged, Word* bar, const T* __restrict__ tile_in) {
    unsigned long long policy;
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;\n" : "=l"(policy));
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");  // the block's reads of the buffer first
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(address(bar)),
                 "r"(static_cast<unsigned>(kBytes))
                 : "memory");
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [%0], [%1], %2, [%3], %4;\n" ::
            "r"(address(staged)),
        "l"(tile_in), "r"(static_cast<unsigned>(kBytes)), "r"(address(bar)), "l"(policy)
        : "memory");
  }
  __device__ static void wait(Word* bar, unsigned parity) {
    unsigned done = 0;
    do {
      asm volatile(
          "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}\n"
          : "=r"(done)
          : "r"(address(bar)), "r"(parity)
          : "memory");
    } while (!done);
  }
  // This thread's rows, TileIO's arrangement (the buffer holds the tile as it is in memory).
  __device__ static void read(const uint4* staged, T (&x)[kRows][4]) {
#pragma unroll
    for (int j = 0; j < kRows; ++j) {
      const uint4 q = staged[TileIO<T, Block, Items, true>::first(j) / 4];
      std::memcpy(&x[j][0], &q, 16);
    }
  }
  // Warp 1 (while warp 0 looks back): the staged tile's sum in a fixed order
  // (lane l: vectors l, l + 32, ..., then warp_sum), published as A[tile].
  // One warp, no barrier among warps (512 x 32: 128 16-byte reads a lane).
  __device__ static void publish_sum(const uint4* staged, Word* bar, unsigned parity, Word* a_word, unsigned tag) {
    if (threadIdx.x / 32 != 1) return;
    const int lane = threadIdx.x % 32;
    wait(bar, parity);
    T sum = T(0);
#pragma unroll 4
    for (int v = lane; v < kVectors; v += 32) {
      T e[4];
      std::memcpy(e, &staged[v], 16);
      sum = add(sum, add(add(e[0], e[1]), add(e[2], e[3])));
    }
    sum = warp_sum(sum);
    if (lane == 0) publish(a_word, pack(sum, tag));
  }
};

// scan_tile's steps that both its tile codes take: each 16-byte vector
// scanned in place; one warp scan per row over v[j] (the rows independent);
// the sum of the warps' totals before this warp and of all of them, in warp
// order.
template <class T, int Rows>
__device__ inline void scan_vectors(T (&x)[Rows][4]) {
#pragma unroll
  for (int j = 0; j < Rows; ++j) {
    x[j][1] = add(x[j][0], x[j][1]);
    x[j][2] = add(x[j][1], x[j][2]);
    x[j][3] = add(x[j][2], x[j][3]);
  }
}
template <class T, int Rows>
__device__ inline void scan_rows(T (&v)[Rows], int lane) {
#pragma unroll
  for (int d = 1; d < 32; d *= 2) {
#pragma unroll
    for (int j = 0; j < Rows; ++j) {
      const T y = __shfl_up_sync(0xFFFFFFFFu, v[j], d);
      if (lane >= d) v[j] = add(y, v[j]);
    }
  }
}
template <class T, int Warps>
__device__ inline void sum_warp_totals(const T* warp_totals, int warp, T& before_warp, T& aggregate) {
#pragma unroll
  for (int w = 0; w < Warps; ++w) {
    const T t = warp_totals[w];
    if (w < warp) before_warp = add(before_warp, t);
    aggregate = add(aggregate, t);
  }
}

// One tile of the scan: its elements loaded by load(x, base, valid) (each
// thread's rows, TileIO's arrangement), scanned in registers, its prefix
// found (tiles > 1; LookBack false: the bound without it, tiles_only), stored. after_totals() runs once
// the block has met at its first barrier, when x has been read (the staging
// buffer may take the next tile); beside_look_back() runs in the other warps
// while warp 0 looks back (grouped calls). A is published unless a_published
// (Staging did). staged: the call is staged_scan_kernel's (its first nap).
template <class T, int Block, int Items, bool Vectors, bool LookBack, class Load, class AfterTotals,
          class BesideLookBack>
__device__ void scan_tile(Load load, T* __restrict__ out, std::size_t n, std::size_t tiles, Word* ws, std::size_t tile,
                          unsigned tag, T* warp_totals, T* prefix_shared, T* chunk_sums, bool a_published,
                          bool staged, AfterTotals after_totals, BesideLookBack beside_look_back) {
  constexpr int kRows = Items / 4, kWarps = Block / 32;
  constexpr std::size_t kTile = std::size_t{Block} * Items;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const std::size_t base = tile * kTile;
  const int valid = static_cast<int>(n - base < kTile ? n - base : kTile);
  using IO = TileIO<T, Block, Items, Vectors>;
  T x[kRows][4];
  load(x, base, valid);

  // Each vector in place, then one warp scan per row (independent), rows chained.
  T before_warp = T(0), aggregate = T(0);
  if constexpr (Items > 32) {
    // The wide shape (kWide): each row's lane offsets are added to x as soon
    // as they are known, and x[j][3] becomes the row's scanned value, so no row
    // base stays live through the barrier. int32 256 x 80 spilled 44 bytes a
    // thread the other way and none this way; float32 256 x 96 20 -> 0
    // (ptxas, nvcc 13.0). Floats: a fixed expression still,
    // ((carry + lanes before) + x) + (before_warp + prefix) for a vector's
    // first three elements, (carry + the lane's scan) + (before_warp + prefix)
    // for its last.
    scan_vectors(x);
    T incl[kRows];  // x[j][3], scanned over the warp's lanes (x[j][3] is not read again)
#pragma unroll
    for (int j = 0; j < kRows; ++j) incl[j] = x[j][3];
    scan_rows(incl, lane);
    T carry = T(0);  // the rows before, whole
#pragma unroll
    for (int j = 0; j < kRows; ++j) {
      const T excl = __shfl_up_sync(0xFFFFFFFFu, incl[j], 1);
      const T total = __shfl_sync(0xFFFFFFFFu, incl[j], 31);
      const T b = add(carry, lane == 0 ? T(0) : excl);
#pragma unroll
      for (int c = 0; c < 3; ++c) x[j][c] = add(b, x[j][c]);
      x[j][3] = add(carry, incl[j]);
      carry = add(carry, total);
    }
    if (lane == 0) warp_totals[warp] = carry;
    __syncthreads();
    after_totals();
    sum_warp_totals<T, kWarps>(warp_totals, warp, before_warp, aggregate);
    // before_warp is added with the prefix, after the look-back: added here,
    // ptxas moved the row offsets' shuffles below the barrier to fuse the two
    // adds, and each row's carry stayed live through it (int32 256 x 96: a
    // 52-byte spill; none this way).
  } else {
    scan_vectors(x);
    T incl[kRows];
#pragma unroll
    for (int j = 0; j < kRows; ++j) incl[j] = x[j][3];
    scan_rows(incl, lane);
    T before_in_row[kRows];  // this lane's vectors before it in the warp: rows before, lanes before
    T carry = T(0);
#pragma unroll
    for (int j = 0; j < kRows; ++j) {
      const T excl = __shfl_up_sync(0xFFFFFFFFu, incl[j], 1);
      before_in_row[j] = add(carry, lane == 0 ? T(0) : excl);
      carry = add(carry, __shfl_sync(0xFFFFFFFFu, incl[j], 31));
    }
    if (lane == 0) warp_totals[warp] = carry;
    __syncthreads();
    after_totals();
    if constexpr (LookBack || !Vectors) {
      sum_warp_totals<T, kWarps>(warp_totals, warp, before_warp, aggregate);
    } else {
      // tiles_only on aligned data (the bound, scan_tiles): one warp sum, not the
      // unrolled loop above, which without the look-back's code after it spilled
      // 24 bytes a thread at int32 512 x 32 (ptxas): 19% more store sectors from
      // the SMs and 2.5% more DRAM writes than the output at 2^26-2^28, 1.7% of
      // the time at 2^30 on an H100 (docs/audit.md). The element-by-element path
      // keeps the loop: the warp sum made it spill 8 bytes where it spilled 0-4.
      before_warp = warp_sum(lane < warp ? warp_totals[lane] : T(0));
    }
    // What precedes each element within the tile is added now, so that only x
    // stays live through the look-back (fewer registers than carrying the row
    // bases: the 16-byte path no longer spills under the 64-register cap; the
    // element-by-element path, for misaligned or partial tiles, still spills 4
    // bytes at 512 x 32).
#pragma unroll
    for (int j = 0; j < kRows; ++j) {
      const T row_base = add(before_warp, before_in_row[j]);
#pragma unroll
      for (int c = 0; c < 4; ++c) x[j][c] = add(row_base, x[j][c]);
    }
  }

  if (LookBack && tiles > 1) {
    const Layout l = layout(tiles);
    if (threadIdx.x == 0 && !a_published) publish(ws + l.a + tile, pack(aggregate, tag));
    T prefix;
    if (tiles <= kFlatTiles) {
      prefix = flat_prefix<T, Block>(ws, l, tile, tiles, tag, chunk_sums);
    } else {
      if (warp == 0) {
        const T p = exclusive_prefix<T>(ws, l, tile, tiles, tag, aggregate, staged);
        if (lane == 0) *prefix_shared = p;
      } else {
        beside_look_back();
      }
      __syncthreads();
      prefix = *prefix_shared;
    }
    if constexpr (Items > 32) prefix = add(before_warp, prefix);
#pragma unroll
    for (int j = 0; j < kRows; ++j)
#pragma unroll
      for (int c = 0; c < 4; ++c) x[j][c] = add(prefix, x[j][c]);
  } else if constexpr (Items > 32) {
#pragma unroll
    for (int j = 0; j < kRows; ++j)
#pragma unroll
      for (int c = 0; c < 4; ++c) x[j][c] = add(before_warp, x[j][c]);
  }
  IO::store(out + base, valid, x);
}

// Blocks take tiles by ticket from a counter, in the order they ask: a tile
// only ever waits on tiles already taken, by running blocks.
//   scan_kernel: one tile a block (the grid is the tiles): calls of at most
//   kFlatTiles tiles, misaligned calls, and tiles_only above the staged calls;
//   persistent_scan_kernel (persistent_call: aligned grouped calls of more than
//   kStagedTiles tiles): scan_kernel's tile in a loop on a persistent grid;
//   staged_scan_kernel (staged_call: grouped calls of at most kStagedTiles
//   tiles, 16-byte aligned data): a persistent grid, at most the blocks that
//   fit the GPU at once, each looping; a block takes its next ticket as soon as
//   it has its current tile and stages that tile (Staging), so the next tile
//   loads, and its A is published, while this one looks back and stores. A
//   staged tile is running: its load is in flight. (A persistent grid that took
//   its next ticket but loaded it only after finishing the current tile was
//   1.8x slower at 512 x 32, 2^28, on an H100: a ticket taken but not started
//   holds up every tile after it.) Every block of it takes one ticket past the
//   last tile.
// The call's last take (tiles, or tiles + grid) sets the counter back to 0 and
// the epoch up by one.
// Each kernel declares its own shared arrays and load: one struct of them and
// a load functor for all three made the persistent grid's int32 calls 1.4-1.6%
// slower at 2^26-2^30 (float32 no different; H100, tools/run-ab, 6 rounds,
// 2026-11-27), with the same memory instructions in the PTX.
// At most 64 registers a thread: two 512-thread blocks (four of 256, eight of
// 128) fit an SM's 64K registers, so one tile loads while another waits (the
// wide shapes, kWide, two 256-thread blocks of 128). (The
// one-hop look-back needs 74 for int32 512 x 32 otherwise: one block an SM,
// 4.8-6.3% slower from 2^26 to 2^30 on an H100, tools/run-ab.) Tried and not
// landed around this choice (experiments/, results/versus/README.md): tiles of
// 1024 x 32, one block an SM, 13-18% slower on an H200 and 3-10% on an H100;
// the tiles in shared memory (TMA in, two passes, 40 registers: three blocks an
// SM), 4.8-8.4% slower at 2^25-2^30 on an H100 and 3.3-7.1% on an H200; the next
// ticket asked for under the stores, 1% faster for float32 and slower for int32
// on an H200 (the compiled code, not the ticket); each tile's A computed ahead
// (a TMA copy into shared memory summed beside an earlier look-back), 7% slower at
// best on an H200 at 2^30; two register tiles a block (one block an SM, the next
// tile's loads under the current look-back, its A published after it), 16% slower
// at best on an H200 at 2^30. With every A published before its load (timing only,
// experiments/scan_fake_a/) and a short nap, this grid runs at its data path on an
// H200 (0.92 of copy_memcpy at 2^30). Traced (experiments/scan_wait/), the wait was
// not for the tiles' loads but for P[g-2], three hops away: a status round trip
// takes 1-1.5 us under the scan's traffic, and the waits after the first round
// went one word after another. Reading the G of the groups before instead (two
// hops), polling all at once and the group's last tile not napping: H200, tools/
// run-ab against 548f884, 6 rounds (results/versus/nvidia-h200/ab_scan_two_hops.md):
// 2^24-2^30 2.5-5.4% faster, int32 and float32, every round; 2^20-2^23 no different.
// The wide shape (kWide, more than 32 items a thread) is allowed 128
// registers at 256 x 96 (65536 / (Block x (Items + 32)) blocks an SM: two).
template <int Block, int Items>
inline constexpr int kMinBlocksPerSm = 65536 / (Block * (Items > 32 ? Items + 32 : 64));

// Staging pays where a call has a few waves of tiles, whose loads and
// look-backs otherwise move in step. H100, tools/run-ab against one tile a
// block, 2026-11-27 (results/versus/nvidia-h100-80gb-hbm3/scan_sweeps/
// staged_20261127/): every grouped call staged, 2^24 (1024 tiles of 512 x 32)
// 3.3% faster int32 and 4.3% float32, 2^25 within 0.6% either way, 2^26-2^30
// 1.1-1.9% slower (the store of a tile then waits for the next tile's load);
// staged to 1024 tiles only, 2^24 4.8% and 5.0% faster, the rest no different.
constexpr std::size_t kStagedTiles = 1024;
constexpr bool staged_call(bool vectors, std::size_t tiles) {  // host: which kernel enqueue launches
  return vectors && tiles > kFlatTiles && tiles <= kStagedTiles;
}
// Above the staged calls, 16-byte aligned, with the look-back (not tiles_only,
// whose data path alone was 3.9% slower on it, H200): persistent_scan_kernel.
// tools/run-ab against one tile a block, 6 rounds, 2^25-2^30, int32 and
// float32, 2026-11-27 (results/versus/<gpu>/ab_persistent_scan*.md): H100
// 2^28-2^30 0.2-0.4% faster (11 of 12 cells in two runs, the 12th and 2^25-2^27
// no different), H200 all 12 cells 0.9-1.7% faster.
constexpr bool persistent_call(bool vectors, std::size_t tiles, bool look_back) {
  return vectors && look_back && tiles > kStagedTiles;
}

// The wide shape: a call by n (Config{}) that takes the persistent grid at
// kWide (aligned, more than kStagedTiles of its tiles, with the look-back)
// takes it there, not at choose(n)'s 512 x 32. Two blocks an SM still, each
// holding 96 KiB of its tile in registers (Items + 32 of them, 128 a thread)
// against 64 KiB: more bytes in flight on an SM while the other block looks
// back, and a third fewer look-backs. H200, one interleaved process a shape,
// two mirrored rounds (experiments/scan_shapes/, GPU-9a48c30d), 2^30, float32:
// 2172.9 us against 2249.9 (0.924 of copy_memcpy against 0.892); 256 x 88,
// 192 x 120 and 192 x 128 0.913-0.918, three blocks an SM slower. tools/run-ab
// against 5306a4c, 6 rounds (GPU-0ba338cd, results/versus/nvidia-h200/
// ab_scan_wide.md): 2^25-2^30 int32 1.4-3.5% and float32 0.6-3.5% faster,
// every round; at 2^30 0.922-0.924 int32 and 0.924-0.927 float32 of copy_memcpy
// on two H200s (nvidia-h200/scan.md and results/versus/README.md).
inline constexpr Config kWide{256, 96};
constexpr std::size_t tile_count(std::size_t n, Config c) {
  const std::size_t tile = std::size_t(c.block) * c.items;
  return n == 0 ? 1 : (n + tile - 1) / tile;
}
constexpr bool wide_call(std::size_t n, Config c, bool vectors, bool look_back) {
  return c.block == 0 && c.items == 0 && persistent_call(vectors, tile_count(n, kWide), look_back);
}

// The persistent grid's L2 prefetch: while warp 0 looks back for tile t (the
// block's loads done, its stores not yet issued: no DRAM traffic of its own),
// one thread of warp 1 asks the TMA unit to bring tile t + 3/4 of the grid into
// L2 (cp.async.bulk.prefetch, a hint: no data comes back, nothing waits on it).
// The counter then stands about a grid past t, so the block that takes that
// tile a little later finds it in L2: the DRAM stays busy through the
// look-backs, and each load, now from L2, ends sooner, so its A is published
// sooner. Sweeps, one process a setting (experiments/scan_prefetch/), int32,
// 2^25 / 2^28 / 2^30: H200 4.8-6.1% faster at 1/2 to 1 grid ahead, 1.6% at
// 1/4, 1.2% with the prefetch at the ticket instead of the look-back; H100 best
// at 3/4 (4.4-5.5%). The long first nap stayed at 2400 ns then: 1600 ns was 0.5%
// faster on an H200, 1.2% slower on an H100. tools/run-ab against 02c3cb3, 6 rounds,
// 2^24-2^30, int32 and float32 (results/versus/<gpu>/ab_scan_prefetch.md):
// 2^25-2^30 3.7-5.5% faster on an H200 and 4.1-5.4% on an H100, every round;
// 2^24 (staged, unchanged) no different. The copy roof at 2^30 after it: H100
// 0.979, H200 0.870 of copy_memcpy.
__host__ __device__ constexpr std::size_t prefetch_ahead(unsigned grid) { return std::size_t{grid} * 3 / 4; }
// Bytes of tile t (of `tile` elements, of n) to prefetch: 0 past the last tile,
// the last tile's elements rounded down to 16 bytes (the copy's granule); the
// tile starts 16-byte aligned (persistent calls are aligned).
template <class T>
__host__ __device__ constexpr unsigned prefetch_bytes(std::size_t n, std::size_t tile, std::size_t t) {
  if (t >= (n + tile - 1) / tile) return 0;
  const std::size_t count = n - t * tile < tile ? n - t * tile : tile;
  return static_cast<unsigned>(count * sizeof(T)) & ~15u;
}
// Asks for tile t of `in` into L2; past the last tile (0 bytes) nothing, and the
// address, which would point past `in`, is never formed.
template <class T>
__device__ inline void prefetch_tile_l2(const T* in, std::size_t n, std::size_t tile, std::size_t t) {
  const unsigned bytes = prefetch_bytes<T>(n, tile, t);
  if (bytes) asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;\n" ::"l"(in + t * tile), "r"(bytes) : "memory");
}

// One thread: a ticket into `ticket` (first: the block may meet on it).
__device__ inline void take_ticket(Word* ws, std::size_t tiles, std::size_t takes, Word& ticket) {
  const Word old = atomicAdd(ws + kCtl, Word{1});
  ticket = old;
  const unsigned epoch = static_cast<unsigned>(old >> 32);
  if ((old & 0xFFFFFFFFu) == takes - 1 && epoch + 1 != kLastTag)
    atomicAdd(ws + kCtl, (Word{1} << 32) - takes);  // the call's last take: counter back to 0, epoch up by one
  if ((old & 0xFFFFFFFFu) == 0) atomicMax(ws + kHighWater, Word{layout(tiles).end});
}

// The last tag's call: the last of the call's `blocks` to finish zeroes every
// word used (every block has taken its last ticket, so none touches the
// counter after).
template <int Block>
__device__ void reset_after_last_tag(Word* ws, unsigned tag, std::size_t blocks, int* last_block) {
  if (tag != kLastTag) return;
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    *last_block = atomicAdd(ws + kDone, Word{1}) == blocks - 1;
  }
  __syncthreads();
  if (*last_block) {
    __threadfence();
    const std::size_t end = static_cast<std::size_t>(peek(ws + kHighWater));
    for (std::size_t i = kHeader + threadIdx.x; i < end; i += Block) publish(ws + i, 0);
    __syncthreads();
    if (threadIdx.x == 0) {
      publish(ws + kHighWater, 0);
      publish(ws + kDone, 0);
      publish(ws + kCtl, 0);
    }
  }
}

template <class T, int Block, int Items, bool Vectors, bool LookBack = true>
__global__ void __launch_bounds__(Block, kMinBlocksPerSm<Block, Items>)
    scan_kernel(const T* __restrict__ in, T* __restrict__ out, std::size_t n, std::size_t tiles, Word* ws) {
  __shared__ T warp_totals[Block / 32];
  __shared__ T prefix_shared;
  __shared__ T chunk_sums[kFlatTiles / 32];
  __shared__ Word ticket;
  __shared__ int last_block;
  using IO = TileIO<T, Block, Items, Vectors>;
  auto nothing = [] {};
  auto load = [&](T(&x)[Items / 4][4], std::size_t base, int valid) { IO::load(in + base, valid, x); };
  if (tiles == 1) {
    scan_tile<T, Block, Items, Vectors, LookBack>(load, out, n, tiles, ws, 0, 0, warp_totals, &prefix_shared,
                                                  chunk_sums, false, false, nothing, nothing);
    return;
  }
  if (threadIdx.x == 0) take_ticket(ws, tiles, tiles, ticket);
  __syncthreads();
  const unsigned tag = static_cast<unsigned>(ticket >> 32) + 1;
  const std::size_t tile = static_cast<std::size_t>(ticket & 0xFFFFFFFFu);
  scan_tile<T, Block, Items, Vectors, LookBack>(load, out, n, tiles, ws, tile, tag, warp_totals, &prefix_shared,
                                                chunk_sums, false, false, nothing, nothing);
  reset_after_last_tag<Block>(ws, tag, tiles, &last_block);
}

// Grouped calls of more than kStagedTiles tiles, 16-byte aligned (with the
// look-back; tiles_only keeps one tile a block): scan_kernel's tile on a
// persistent grid, the blocks that fit at once, each taking its next ticket
// only when it is about to load that tile (not before finishing the current
// one: see above), so no block launches after the first wave; during each
// look-back, the L2 prefetch of a tile 3/4 of the grid ahead (prefetch_ahead).
// Every block takes one ticket past the last tile.
template <class T, int Block, int Items>
__global__ void __launch_bounds__(Block, kMinBlocksPerSm<Block, Items>)
    persistent_scan_kernel(const T* __restrict__ in, T* __restrict__ out, std::size_t n, std::size_t tiles,
                           Word* ws) {
  __shared__ T warp_totals[Block / 32];
  __shared__ T prefix_shared;
  __shared__ T chunk_sums[kFlatTiles / 32];
  __shared__ Word ticket;
  __shared__ int last_block;
  using IO = TileIO<T, Block, Items, true>;
  auto nothing = [] {};
  auto load = [&](T(&x)[Items / 4][4], std::size_t base, int valid) { IO::load(in + base, valid, x); };
  const std::size_t takes = tiles + gridDim.x;
  unsigned tag = 0;
  for (;;) {
    if (threadIdx.x == 0) take_ticket(ws, tiles, takes, ticket);
    __syncthreads();
    const Word t = ticket;
    __syncthreads();  // ticket is written again next turn
    tag = static_cast<unsigned>(t >> 32) + 1;
    const std::size_t tile = static_cast<std::size_t>(t & 0xFFFFFFFFu);
    if (tile >= tiles) break;
    auto prefetch = [&] {
      if (threadIdx.x != 32) return;  // warp 1, beside warp 0's look-back
      constexpr std::size_t kTile = std::size_t{Block} * Items;
      prefetch_tile_l2(in, n, kTile, tile + prefetch_ahead(gridDim.x));
    };
    scan_tile<T, Block, Items, true, true>(load, out, n, tiles, ws, tile, tag, warp_totals, &prefix_shared,
                                           chunk_sums, false, false, nothing, prefetch);
  }
  reset_after_last_tag<Block>(ws, tag, gridDim.x, &last_block);
}

template <class T, int Block, int Items, bool LookBack = true>
__global__ void __launch_bounds__(Block, kMinBlocksPerSm<Block, Items>)
    staged_scan_kernel(const T* __restrict__ in, T* __restrict__ out, std::size_t n, std::size_t tiles, Word* ws) {
  extern __shared__ uint4 staged[];  // Staging::kBytes, the block's next tile
  __shared__ T warp_totals[Block / 32];
  __shared__ T prefix_shared;
  __shared__ T chunk_sums[kFlatTiles / 32];
  __shared__ Word bar;         // the staging buffer's mbarrier
  __shared__ Word tickets[2];  // the counter's old value: tile (low 32 bits), epoch (high); by turn
  __shared__ int last_block;
  constexpr std::size_t kTile = std::size_t{Block} * Items;
  using Stage = Staging<T, Block, Items>;
  const std::size_t takes = tiles + gridDim.x;
  if (threadIdx.x == 0) {
    take_ticket(ws, tiles, takes, tickets[0]);
    Stage::init(&bar);
  }
  __syncthreads();
  const unsigned tag = static_cast<unsigned>(tickets[0] >> 32) + 1;
  std::size_t tile = static_cast<std::size_t>(tickets[0] & 0xFFFFFFFFu);
  bool staged_tile = false;  // a block's first tile loads straight into registers
  unsigned parity = 0;       // of the staging buffer's next fill
  for (int turn = 1; tile < tiles; turn ^= 1) {
    Word next = 0;
    if (threadIdx.x == 0) take_ticket(ws, tiles, takes, next);  // its latency under the wait for the data
    const bool a_published = staged_tile && LookBack;
    auto load = [&](T(&x)[Items / 4][4], std::size_t base, int valid) {
      if (staged_tile) {
        Stage::wait(&bar, parity);
        Stage::read(staged, x);
        parity ^= 1;
      } else {
        TileIO<T, Block, Items, true>::load(in + base, valid, x);
      }
      if (threadIdx.x == 0) tickets[turn] = next;
    };
    std::size_t next_tile = 0;
    scan_tile<T, Block, Items, true, LookBack>(
        load, out, n, tiles, ws, tile, tag, warp_totals, &prefix_shared, chunk_sums, a_published, true,
        [&] {
          next_tile = static_cast<std::size_t>(tickets[turn] & 0xFFFFFFFFu);
          staged_tile = next_tile < tiles && (next_tile + 1) * kTile <= n;
          if (staged_tile && threadIdx.x == 0) Stage::copy_async(staged, &bar, in + next_tile * kTile);
        },
        [&] {
          if (staged_tile)
            Stage::publish_sum(staged, &bar, parity, ws + layout(tiles).a + next_tile, tag);
        });
    if constexpr (!LookBack) __syncthreads();  // warp_totals is written again next turn
    tile = next_tile;
  }
  reset_after_last_tag<Block>(ws, tag, gridDim.x, &last_block);
}

template <int... Vs>
constexpr bool one_of(int v, std::integer_sequence<int, Vs...>) {
  return ((v == Vs) || ...);
}

// Calls f(block, items) (std::integral_constant) for c, a compiled pair.
template <class F, int... Bs, int... Ks>
void dispatch(Config c, F&& f, std::integer_sequence<int, Bs...>, std::integer_sequence<int, Ks...>) {
  auto per_block = [&](auto b) { ((c.items == Ks ? (f(b, std::integral_constant<int, Ks>{}), true) : false), ...); };
  ((c.block == Bs ? (per_block(std::integral_constant<int, Bs>{}), true) : false), ...);
}

inline Config resolve(Config c, std::size_t n) { return c.block == 0 && c.items == 0 ? choose(n) : c; }
inline bool compiled(Config c) { return one_of(c.block, BlockSizes{}) && one_of(c.items, ItemCounts{}); }

}  // namespace detail

// The tiles of n elements at Config c after the choice by n (choose; at least
// one); 0 when that is not a compiled pair. A call by n may take fewer, larger
// tiles (detail::kWide: call_tiles says how many), never more:
// workspace_bytes holds for either.
inline std::size_t tiles(std::size_t n, Config c = {}) {
  c = detail::resolve(c, n);
  if (!detail::compiled(c)) return 0;
  return detail::tile_count(n, c);
}

// The tiles inclusive_sum takes on n elements with Config c, in and out
// 16-byte aligned or not.
inline std::size_t call_tiles(std::size_t n, Config c = {}, bool aligned = true) {
  if (detail::wide_call(n, c, aligned, true)) return detail::tile_count(n, detail::kWide);
  return tiles(n, c);
}

// Bytes of workspace a call on n elements with Config c needs (8 bytes a
// tile and a little more; 32 bytes for a call of one tile).
inline cudaError_t workspace_bytes(std::size_t n, std::size_t* bytes, Config c = {}) {
  const std::size_t count = tiles(n, c);
  if (!bytes || count == 0) return cudaErrorInvalidValue;
  *bytes = detail::layout(count).end * sizeof(detail::Word);
  return cudaSuccess;
}

namespace detail {

// persistent_scan_kernel at B x K on `tiles` tiles: the blocks that fit the
// device at once (at most one a tile), each taking tiles until none is left.
template <class T, int B, int K>
cudaError_t launch_persistent(const T* in, T* out, std::size_t n, std::size_t tiles, Word* ws, cudaStream_t stream) {
  static resident::PerDevice found;
  const auto kernel = persistent_scan_kernel<T, B, K>;
  unsigned grid = 0;
  if (const cudaError_t e = resident::grid(kernel, B, 0, found, &grid); e != cudaSuccess) return e;
  if (grid > tiles) grid = static_cast<unsigned>(tiles);
  kernel<<<grid, B, 0, stream>>>(in, out, n, tiles, ws);
  return cudaGetLastError();
}

template <bool LookBack, class T>
cudaError_t enqueue(const T* in, T* out, std::size_t n, void* workspace, std::size_t workspace_size,
                    cudaStream_t stream, Config c) {
  static_assert((std::is_same_v<T, int> || std::is_same_v<T, unsigned> || std::is_same_v<T, float>),
                "floor_scan scans 4-byte int, unsigned or float");
  if (n == 0) return cudaSuccess;
  if (!in || !out) return cudaErrorInvalidValue;
  std::size_t need = 0;
  if (cudaError_t e = workspace_bytes(n, &need, c); e != cudaSuccess) return e;
  const std::size_t count = tiles(n, c);
  if (count > 1 && (!workspace || workspace_size < need || reinterpret_cast<std::uintptr_t>(workspace) % 8 != 0))
    return cudaErrorInvalidValue;
  if (count >= (std::size_t{1} << 31)) return cudaErrorInvalidValue;  // the counter's 32 bits
  const bool vectors = reinterpret_cast<std::uintptr_t>(in) % 16 == 0 && reinterpret_cast<std::uintptr_t>(out) % 16 == 0;
  auto* ws = static_cast<detail::Word*>(workspace);
  cudaError_t error = cudaSuccess;
  if constexpr (LookBack) {
    if (detail::wide_call(n, c, vectors, LookBack))  // fewer tiles than count: the workspace holds them
      return detail::launch_persistent<T, detail::kWide.block, detail::kWide.items>(
          in, out, n, detail::tile_count(n, detail::kWide), ws, stream);
  }
  detail::dispatch(
      detail::resolve(c, n),
      [&](auto b, auto k) {
        constexpr int B = decltype(b)::value, K = decltype(k)::value;
        unsigned grid = static_cast<unsigned>(count);
        if (detail::staged_call(vectors, count)) {
          // Its grid: the blocks that fit the device at once, each taking tiles
          // until none is left; the kernel is allowed its staging buffer (above
          // 48 KiB at 512 x 32) first.
          static resident::PerDevice found;
          const auto kernel = detail::staged_scan_kernel<T, B, K, LookBack>;
          constexpr std::size_t smem = detail::Staging<T, B, K>::kBytes;
          if ((error = resident::grid(kernel, B, smem, found, &grid)) != cudaSuccess) return;
          if (grid > count) grid = static_cast<unsigned>(count);
          kernel<<<grid, B, smem, stream>>>(in, out, n, count, ws);
        } else if (detail::persistent_call(vectors, count, LookBack)) {
          error = detail::launch_persistent<T, B, K>(in, out, n, count, ws, stream);
          return;
        } else if (vectors) {
          detail::scan_kernel<T, B, K, true, LookBack><<<grid, B, 0, stream>>>(in, out, n, count, ws);
        } else {
          detail::scan_kernel<T, B, K, false, LookBack><<<grid, B, 0, stream>>>(in, out, n, count, ws);
        }
        error = cudaGetLastError();
      },
      BlockSizes{}, ItemCounts{});
  return error;
}

}  // namespace detail

// out[i] = in[0] + ... + in[i] for i < n, enqueued on `stream`. in and out
// may have any alignment (16-byte aligned both: vector loads and stores) but
// must not overlap. Integers wrap (two's complement).
template <class T>
cudaError_t inclusive_sum(const T* in, T* out, std::size_t n, void* workspace, std::size_t workspace_size,
                          cudaStream_t stream = nullptr, Config c = {}) {
  return detail::enqueue<true>(in, out, n, workspace, workspace_size, stream, c);
}

// The bound of inclusive_sum without its look-back: the same launch, tile
// order, tickets, loads, register scan and stores, but every tile's prefix is
// 0, so out is each tile's own inclusive scan (tile = block x items of c after
// the choice by n). Not a prefix sum: what the scan's data path alone costs
// (the ceiling scan_tiles measures it beside copy_memcpy).
template <class T>
cudaError_t tiles_only(const T* in, T* out, std::size_t n, void* workspace, std::size_t workspace_size,
                       cudaStream_t stream = nullptr, Config c = {}) {
  return detail::enqueue<false>(in, out, n, workspace, workspace_size, stream, c);
}

}  // namespace bench::floor_scan
