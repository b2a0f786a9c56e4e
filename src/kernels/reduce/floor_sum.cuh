// floor_sum: a device-wide sum that costs one kernel launch and nothing else.
//
//   cudaError_t bench::launch_floor::floor_sum(const T* in, size_t n, T* out, cudaStream_t stream, Config = {});
//   cudaError_t bench::launch_floor::floor_sum(const T* in, size_t n, T* out, void* workspace,
//                                              size_t workspace_bytes, cudaStream_t stream, Config = {});
//
// T: int, unsigned, float, double (any 4- or 8-byte arithmetic type); integers
// wrap in two's complement. Any n (0 writes 0), any T-aligned input pointer.
// The caller never clears anything: no memset before a call, no second pass.
// Config{} (the default) picks block, batch and grid from n (kAuto, below);
// an explicit Config runs that compiled kernel (the benchmark sweep).
//
// Design (one launch, the measured read ceiling's loads, a combine with no
// fence and at most one L2 round trip after the last block's loads):
//   - the host splits the input once (split(), below): the elements before the
//     first 16-byte boundary (head), the whole 16-byte vectors, the rest (tail);
//     tiles of block x batch vectors;
//   - when the tiles fit in one wave (at most SMs x resident blocks per SM, the
//     occupancy API asked once per device), a straight-line kernel
//     (floor_sum_tile_kernel): block b issues the `batch` loads of tile b after
//     the fewest instructions, block 0 adds head and tail one element per
//     thread, no loop. One tile (n <= block x batch vectors): one block, no
//     combine. Otherwise
//   - floor_sum_kernel on the resident grid: each thread reads 16-byte vectors
//     at a grid stride, `batch` loads in flight per round (the last, partial
//     round guarded, its loads issued together); at 32 or more tiles per block
//     each block reads a contiguous run of tiles instead (CUB's even share);
//   - each block reduces by warp shuffles, then the combine (finish()):
//       4-byte integers: ONE 64-bit relaxed atomic add per block carries the
//       value and the count together (bits 0-31 the sum mod 2^32, 32-47 its
//       carries, 48-63 the blocks counted); the block whose add counts last
//       has the total in the value it got back, writes *out and zeroes the
//       word. One round trip after the last block's reduction, no fence.
//       Floating point and 8-byte T (an add that carries a count would be a
//       float atomic, not deterministic): block b > 0 publishes its sum into
//       slot b with ONE relaxed 8-byte store that holds the value and a "full"
//       flag together (8-byte T: value, then the flag with release) and exits;
//       block 0, which pulled the slots into L2 first (prefetch), polls slots
//       1..grid-1 (its threads a slot each, loads issued together), adds them
//       in index order with its own sum, writes *out and clears the slots.
//     H200, cold L2, one tile per block (experiments/floor_tile/,
//     experiments 4-6): no combine at all 3.97 us at 2^16, the atomic 4.58,
//     publish/poll 4.80; a thread-block cluster's shared-memory combine 4.61
//     (its launch alone costs about 0.5 us); polls staggered over block 0's
//     warps were slower.
// Progress: only block 0 of a publish/poll grid ever waits, for blocks that
// wait on nothing, so the grid need not be co-resident.
// Deterministic: for a given n, input alignment, device and Config, the grid,
// every thread's share and every combination order are fixed (block 0 adds
// slot u in thread u % block, in ascending u, then a fixed shuffle tree);
// integer sums are exact mod 2^bits in any order. Float results are bitwise
// identical from call to call.
//
// Workspace: the first overload uses a workspace built into the module (zero
// when the module loads). Calls that use it must be stream-ordered (one stream,
// or synchronised): concurrent calls on different streams need workspaces of
// their own, through the second overload: floor_sum_workspace_bytes<T>() bytes,
// 16-byte aligned and zero-filled once when allocated (e.g. cudaMemset after
// cudaMalloc); every call leaves it zero-filled again (block 0 clears each slot
// it consumed, the last block the count word in slot 0, and the next call is
// ordered after this kernel's end).
//
// Independent of the benchmark harness: only CUDA and libcu++ headers.
#pragma once

#include <cuda/atomic>
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <type_traits>
#include <utility>

namespace bench::launch_floor {

// The compiled tunables (one list each: the dispatch below and the benchmark
// declaration's axes both read them): threads per block, and 16-byte loads in
// flight per thread per loop iteration. 16 kernels per type.
using BlockSizes = std::integer_sequence<int, 128, 256, 512, 1024>;
using Batches = std::integer_sequence<int, 1, 2, 4, 8>;

// block 0 / batch 0: choose by n (kAuto). Otherwise a compiled pair.
struct Config {
  int block = 0;
  int batch = 0;
};

// The choice by n, in 16-byte vectors (n * sizeof(T) / 16), first row whose
// limit is >= the vectors. Picked from H200 sweeps (`--suite=full`,
// floor_sum_fixed over every block x batch, int32 and float32, cold L2,
// 2026-11-22; docs/timing.md): up to 2^14 from the sweep of the one-block tile
// kernel, 2^16 to 2^22 from the sweep of a tile per block with the atomic
// combine for int32 (results/checks/floor_sweep_v5_tilegrid_nvidia-h200.json),
// above from the sweep of the contiguous runs. The fastest pair of both types
// at each N (where they differ, the one within 1.1% of both). One block as
// long as one block's loads cover the input (the combine costs more than it
// saves up to 2^14 four-byte elements); then a tile of one or four loads per
// thread per block; 512 x 8 from 2^22 on, up to the resident grid. (With a grid
// stride at 2^28, 512 x 8 was 1% slower than 1024 x 8 on the H100, which its
// regression gate flagged; with contiguous runs it is the fastest at
// 2^28-2^30 on the H200.)
struct AutoRow {
  std::size_t max_vectors;
  Config config;
};
inline constexpr AutoRow kAuto[] = {
    {std::size_t{1} << 8, {128, 4}},   // n <= 2^10 (4-byte T): the tile kernel, 128 threads
    {std::size_t{1} << 10, {256, 4}},  // n <= 2^12: the tile kernel, 4 loads in flight (CUB's single tile)
    {std::size_t{1} << 12, {512, 8}},  // n <= 2^14: the tile kernel, 8 loads in flight
    {std::size_t{1} << 16, {256, 1}},  // n <= 2^18: a tile per block, 64 blocks at 2^16, 256 at 2^18
    {std::size_t{1} << 18, {256, 4}},  // n <= 2^20: 256 blocks
    {std::size_t{1} << 20, {512, 4}},  // n <= 2^22: 512 blocks (one wave: 4 blocks per SM)
    {~std::size_t{0}, {512, 8}},       // larger: the resident grid, 8 loads in flight
};

// Every row names a compiled pair, and the limits rise (a row that can never be
// chosen, or a pair the dispatch does not have, fails the build).
template <int... Vs>
constexpr bool one_of(int v, std::integer_sequence<int, Vs...>) {
  return ((v == Vs) || ...);
}
constexpr bool auto_table_is_valid() {
  for (std::size_t i = 0; i < std::size(kAuto); ++i) {
    if (!one_of(kAuto[i].config.block, BlockSizes{}) || !one_of(kAuto[i].config.batch, Batches{})) return false;
    if (i > 0 && kAuto[i].max_vectors <= kAuto[i - 1].max_vectors) return false;
  }
  return kAuto[std::size(kAuto) - 1].max_vectors == ~std::size_t{0};
}
static_assert(auto_table_is_valid(), "kAuto: every row a compiled block x batch, limits rising, the last unbounded");

inline constexpr Config choose(std::size_t vectors) {
  for (const AutoRow& row : kAuto)
    if (vectors <= row.max_vectors) return row.config;
  return kAuto[std::size(kAuto) - 1].config;
}

// A workspace slot: 16 bytes (8-byte T needs value and flag apart).
constexpr std::size_t kSlotBytes = 16;

namespace detail {

// Integers add as unsigned (two's-complement wrap, no signed overflow).
template <class T>
__host__ __device__ inline T add(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}

// The elements of one 16-byte vector, summed pairwise.
template <class T>
__device__ inline T sum16(const uint4& v) {
  constexpr int kCount = 16 / sizeof(T);
  T e[kCount];
  std::memcpy(e, &v, 16);
  if constexpr (kCount == 4) {
    return add(add(e[0], e[1]), add(e[2], e[3]));
  } else {
    return add(e[0], e[1]);
  }
}

// The sum of lanes [0, Width) in lane 0.
template <int Width = 32, class T>
__device__ inline T warp_sum(T v) {
#pragma unroll
  for (int offset = Width / 2; offset > 0; offset >>= 1) v = add(v, __shfl_down_sync(0xFFFFFFFFu, v, offset));
  return v;
}

// Warp shuffles, then the warps' sums by warp 0: a fixed tree. Result in thread 0.
// `scratch` is reused by a second call only after a __syncthreads.
template <int Block, class T>
__device__ inline T block_sum(T v, T* scratch) {
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  v = warp_sum(v);
  if constexpr (Block == 32) return v;
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  if (warp == 0) v = warp_sum<Block / 32>(lane < Block / 32 ? scratch[lane] : T(0));
  return v;
}

using Ref64 = cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>;

template <class T>
__device__ inline unsigned long long bits_of(T v) {
  if constexpr (sizeof(T) == 4) {
    unsigned u;
    std::memcpy(&u, &v, 4);
    return u;
  } else {
    unsigned long long u;
    std::memcpy(&u, &v, 8);
    return u;
  }
}

template <class T>
__device__ inline T from_bits(unsigned long long u) {
  T v;
  if constexpr (sizeof(T) == 4) {
    const unsigned w = static_cast<unsigned>(u);
    std::memcpy(&v, &w, 4);
  } else {
    std::memcpy(&v, &u, 8);
  }
  return v;
}

// Slot layout (two 8-byte words): 4-byte T: word 0 = flag << 32 | value bits,
// one store publishes both (single-copy atomic); 8-byte T: word 0 = value,
// word 1 = flag, stored with release after the value.
constexpr unsigned long long kFull = 1;

template <class T>
__device__ inline void publish(unsigned long long* slot, T v) {
  if constexpr (sizeof(T) == 4) {
    Ref64(slot[0]).store((kFull << 32) | bits_of(v), cuda::memory_order_relaxed);
  } else {
    Ref64(slot[0]).store(bits_of(v), cuda::memory_order_relaxed);
    Ref64(slot[1]).store(kFull, cuda::memory_order_release);
  }
}

// One look at a slot: true and the value when it is full.
template <class T>
__device__ inline bool peek(unsigned long long* slot, T* v) {
  if constexpr (sizeof(T) == 4) {
    const unsigned long long w = Ref64(slot[0]).load(cuda::memory_order_relaxed);
    *v = from_bits<T>(w);
    return (w >> 32) == kFull;
  } else {
    if (Ref64(slot[1]).load(cuda::memory_order_acquire) != kFull) return false;
    *v = from_bits<T>(Ref64(slot[0]).load(cuda::memory_order_relaxed));
    return true;
  }
}

__device__ inline void clear(unsigned long long* slot, std::size_t t_size) {
  Ref64(slot[t_size == 4 ? 0 : 1]).store(0, cuda::memory_order_relaxed);
}

// 4-byte integers combine through one atomic add that carries the value and
// the count (finish()); everything else publishes and polls. The count sits in
// bits 48-63 and the sum's carries (one per block at most) in 32-47, so a grid
// has at most kMaxGrid blocks.
template <class T>
inline constexpr bool kTicket = std::is_integral_v<T> && sizeof(T) == 4;
constexpr int kCountShift = 48;
constexpr std::size_t kMaxGrid = (std::size_t{1} << 16) - 1;

// The input at 16-byte boundaries, computed once by the host for both kernels:
// `head` elements before the first boundary, then `vectors` whole 16-byte
// vectors, then the tail (the rest, fewer than 16 bytes).
struct Split {
  std::size_t head, vectors;
};
template <class T>
inline Split split(const T* in, std::size_t n) {
  const std::size_t misalign = reinterpret_cast<std::uintptr_t>(in) % 16;
  const std::size_t to_boundary = misalign == 0 ? 0 : (16 - misalign) / sizeof(T);
  const std::size_t head = std::min(to_boundary, n);
  return {head, (n - head) / (16 / sizeof(T))};
}

// The workspace built into the module: zero when it loads, left zero by every call.
constexpr unsigned kBuiltinSlots = 4096;
namespace {
__device__ unsigned long long builtin_slots[2 * kBuiltinSlots];
}  // namespace

// Tiles per block from which a block reads a contiguous run of tiles rather
// than a grid stride: on the H200 contiguous runs were 0.4-0.65% faster at
// 2^28-2^30 (60 or more tiles per block), and 2% slower at 2^24 (4-8); on the
// H100 they made 256 x 4 at 2^24 (3 tiles per block) 3% slower, which its
// regression gate flagged.
constexpr std::size_t kContiguousMinTiles = 32;

// Up to four loads in flight fit in 32 registers: a full SM (2048 threads) of
// resident blocks, as the read ceiling has. Eight need more.
template <int Block, int Batch>
constexpr int kMinBlocksPerSm = Batch <= 4 ? 2048 / Block : 1;

// Block 0's combine: thread t adds slots t, t + Block, ... (ascending; slot 0 is
// block 0's own sum, in thread 0), polling until every one it reads is full.
// Loads of one round are issued together (unrolled), then tested.
template <class T, int Block>
__device__ inline T gather(unsigned long long* slots, unsigned grid, T own) {
  T acc;
  for (;;) {
    bool full = true;
    acc = threadIdx.x == 0 ? own : T(0);
    unsigned u = threadIdx.x == 0 ? Block : threadIdx.x;
#pragma unroll 4
    for (; u < grid; u += Block) {
      T v = T(0);
      full &= peek<T>(slots + 2 * std::size_t{u}, &v);
      acc = add(acc, v);
    }
    if (full) break;
  }
  for (unsigned u = threadIdx.x == 0 ? Block : threadIdx.x; u < grid; u += Block) clear(slots + 2 * std::size_t{u}, sizeof(T));
  return acc;
}

// Block 0 pulls the lines the combine meets in into L2: after an L2 flush (or
// a long gap) they are cold, and block 0's first poll (or the first atomic)
// would wait for DRAM (0.2-0.3 us from 2^14 to 2^20 on the H200, cold L2).
template <class T, int Block>
__device__ inline void warm(const unsigned long long* slots) {
  if (blockIdx.x != 0 || gridDim.x == 1) return;
  const unsigned first = kTicket<T> ? 0u : 1u, last = kTicket<T> ? 1u : gridDim.x;
  for (unsigned u = threadIdx.x + first; u < last; u += Block)
    asm volatile("prefetch.global.L2 [%0];" ::"l"(slots + 2 * std::size_t{u}));
}

// The combine, after block_sum (each block's sum in its thread 0): see the
// design notes at the top. A grid of one block writes *out.
template <class T, int Block>
__device__ inline void finish(T sum, T* out, unsigned long long* slots, T* scratch) {
  if (gridDim.x == 1) {
    if (threadIdx.x == 0) *out = sum;
    return;
  }
  if constexpr (kTicket<T>) {
    if (threadIdx.x != 0) return;
    const unsigned long long mine = (1ull << kCountShift) | bits_of(sum);
    const unsigned long long before = Ref64(slots[0]).fetch_add(mine, cuda::memory_order_relaxed);
    if ((before >> kCountShift) == gridDim.x - 1) {  // every other block has added
      *out = from_bits<T>((before + mine) & 0xFFFFFFFFull);
      Ref64(slots[0]).store(0, cuda::memory_order_relaxed);
    }
  } else {
    if (blockIdx.x != 0) {
      if (threadIdx.x == 0) publish(slots + 2 * std::size_t{blockIdx.x}, sum);
      return;
    }
    sum = gather<T, Block>(slots, gridDim.x, sum);
    __syncthreads();  // scratch is read by warp 0 in block_sum before it is written again
    sum = block_sum<Block>(sum, scratch);
    if (threadIdx.x == 0) *out = sum;
  }
}

// When the tiles fit in one wave: block b reads tile b, straight-line, its
// loads issued after the fewest instructions (32-bit counts, the split passed
// in), no loop; block 0 adds the elements outside the whole vectors (fewer than
// 16 bytes each side), one per thread. One tile: one block, no combine. A
// one-block grid of floor_sum_kernel spent 0.3-0.6 us more on the H200 at
// 2^12-2^14 with cold L2 (the difference CUB's single-tile kernel made), and a
// tile per block 0.1-0.2 us less than its grid stride from 2^16 to 2^20
// (docs/timing.md).
template <class T, int Block, int Batch>
__global__ void __launch_bounds__(Block, (kMinBlocksPerSm<Block, Batch>))
    floor_sum_tile_kernel(const T* __restrict__ in, unsigned n, unsigned head, unsigned vectors, T* __restrict__ out,
                          unsigned long long* slots) {  // nullptr: the built-in workspace
  __shared__ T scratch[Block / 32];
  const uint4* __restrict__ body = reinterpret_cast<const uint4*>(in + head);
  const unsigned t = threadIdx.x, first = blockIdx.x * static_cast<unsigned>(Block * Batch) + t;
  uint4 v[Batch];
#pragma unroll
  for (int b = 0; b < Batch; ++b) {
    const unsigned i = first + static_cast<unsigned>(b * Block);
    v[b] = i < vectors ? __ldg(body + i) : make_uint4(0, 0, 0, 0);
  }
  if (slots == nullptr) slots = builtin_slots;
  warm<T, Block>(slots);
  T extra = T(0);
  if (blockIdx.x == 0) {
    const unsigned tail = head + vectors * static_cast<unsigned>(16 / sizeof(T));
    if (t < head) extra = in[t];
    if (t < n - tail) extra = add(extra, in[tail + t]);
  }
  T acc[Batch];
#pragma unroll
  for (int b = 0; b < Batch; ++b) acc[b] = sum16<T>(v[b]);
#pragma unroll
  for (int width = Batch / 2; width > 0; width /= 2) {
#pragma unroll
    for (int b = 0; b < width; ++b) acc[b] = add(acc[b], acc[b + width]);
  }
  finish<T, Block>(block_sum<Block>(add(acc[0], extra), scratch), out, slots, scratch);
}

template <class T, int Block, int Batch>
__global__ void __launch_bounds__(Block, (kMinBlocksPerSm<Block, Batch>))
    floor_sum_kernel(const T* __restrict__ in, std::size_t n, std::size_t head, std::size_t vectors,
                     T* __restrict__ out,
                     unsigned long long* slots,  // nullptr: the built-in workspace
                     std::size_t per, std::size_t extra) {  // tiles per block, blocks with one more
  constexpr std::size_t kPerVec = 16 / sizeof(T);
  __shared__ T scratch[Block / 32];
  if (slots == nullptr) slots = builtin_slots;
  warm<T, Block>(slots);  // before block 0 reads its share
  const std::size_t tail = head + vectors * kPerVec;
  const uint4* __restrict__ body = reinterpret_cast<const uint4*>(in + head);

  // Tiles of Block x Batch vectors. Up to kContiguousMinTiles tiles per block,
  // a grid stride: thread t of block b reads b x Block + t + j x grid x Block.
  // From there on (large n, the grid capped at the resident grid), block b
  // reads tiles [first, last), a contiguous run (CUB's even share: `per` each,
  // one more for the first `extra` blocks). Either way a thread's Batch loads
  // are issued together, without guards while they are inside the input, and
  // a partial last round is one guarded round.
  T acc[Batch];
#pragma unroll
  for (int b = 0; b < Batch; ++b) acc[b] = T(0);
  if (per < kContiguousMinTiles) {
    const std::size_t stride = std::size_t{gridDim.x} * Block;
    std::size_t i = std::size_t{blockIdx.x} * Block + threadIdx.x;
    for (; i + (Batch - 1) * stride < vectors; i += Batch * stride) {
      uint4 v[Batch];
#pragma unroll
      for (int b = 0; b < Batch; ++b) v[b] = __ldg(body + i + b * stride);
#pragma unroll
      for (int b = 0; b < Batch; ++b) acc[b] = add(acc[b], sum16<T>(v[b]));
    }
    if (i < vectors) {
      uint4 v[Batch];
#pragma unroll
      for (int b = 0; b < Batch; ++b) v[b] = i + b * stride < vectors ? __ldg(body + i + b * stride) : make_uint4(0, 0, 0, 0);
#pragma unroll
      for (int b = 0; b < Batch; ++b) acc[b] = add(acc[b], sum16<T>(v[b]));
    }
  } else {
    constexpr std::size_t kTile = std::size_t{Block} * Batch;
    const std::size_t first = blockIdx.x * per + (blockIdx.x < extra ? blockIdx.x : extra);
    const std::size_t last = first + per + (blockIdx.x < extra ? 1 : 0);
    const std::size_t whole = vectors / kTile;
    const std::size_t full_end = last < whole ? last : whole;
    std::size_t k = first;
    for (; k < full_end; ++k) {
      const uint4* __restrict__ tile = body + k * kTile + threadIdx.x;
      uint4 v[Batch];
#pragma unroll
      for (int b = 0; b < Batch; ++b) v[b] = __ldg(tile + b * Block);
#pragma unroll
      for (int b = 0; b < Batch; ++b) acc[b] = add(acc[b], sum16<T>(v[b]));
    }
    if (k < last) {
      uint4 v[Batch];
#pragma unroll
      for (int b = 0; b < Batch; ++b) {
        const std::size_t j = k * kTile + threadIdx.x + b * Block;
        v[b] = j < vectors ? __ldg(body + j) : make_uint4(0, 0, 0, 0);
      }
#pragma unroll
      for (int b = 0; b < Batch; ++b) acc[b] = add(acc[b], sum16<T>(v[b]));
    }
  }
  const std::size_t t = std::size_t{blockIdx.x} * Block + threadIdx.x;
#pragma unroll
  for (int width = Batch / 2; width > 0; width /= 2) {
#pragma unroll
    for (int b = 0; b < width; ++b) acc[b] = add(acc[b], acc[b + width]);
  }
  T sum = acc[0];
  if (t < head) sum = add(sum, in[t]);
  if (t < n - tail) sum = add(sum, in[tail + t]);
  finish<T, Block>(block_sum<Block>(sum, scratch), out, slots, scratch);
}

// SMs x resident blocks per SM of this kernel on the current device, asked once
// per device (the occupancy API is too slow to ask on every call).
template <class T, int Block, int Batch>
cudaError_t resident_grid(unsigned* grid) {
  constexpr int kDevices = 64;
  static std::atomic<unsigned> cache[kDevices] = {};
  int device = 0;
  if (const cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) return e;
  const bool cached = device < kDevices && (*grid = cache[device].load(std::memory_order_relaxed)) != 0;
  if (cached) return cudaSuccess;
  int sms = 0, per_sm = 0;
  if (const cudaError_t e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device); e != cudaSuccess)
    return e;
  if (const cudaError_t e =
          cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, floor_sum_kernel<T, Block, Batch>, Block, 0);
      e != cudaSuccess)
    return e;
  *grid = static_cast<unsigned>(sms) * static_cast<unsigned>(per_sm > 0 ? per_sm : 1);
  if (device < kDevices) cache[device].store(*grid, std::memory_order_relaxed);
  return cudaSuccess;
}

// One call with compiled tunables. `capacity`: slots the workspace holds.
template <class T, int Block, int Batch>
cudaError_t launch(const T* in, std::size_t n, T* out, unsigned long long* slots, std::size_t capacity,
                   cudaStream_t stream, std::size_t* grid_out) {
  const Split s = split(in, n);
  constexpr std::size_t kTile = std::size_t{Block} * Batch;
  const std::size_t tiles = (s.vectors + kTile - 1) / kTile;
  unsigned resident = 1;
  if (tiles > 1) {
    if (const cudaError_t e = resident_grid<T, Block, Batch>(&resident); e != cudaSuccess) return e;
  }
  const std::size_t wave = std::min({std::size_t{resident}, capacity, kMaxGrid});
  if (tiles <= 1 || (tiles <= wave && n <= std::numeric_limits<unsigned>::max())) {  // a tile per block
    const std::size_t grid = std::max<std::size_t>(tiles, 1);
    if (grid_out) *grid_out = grid;
    floor_sum_tile_kernel<T, Block, Batch><<<static_cast<unsigned>(grid), Block, 0, stream>>>(
        in, static_cast<unsigned>(n), static_cast<unsigned>(s.head), static_cast<unsigned>(s.vectors), out, slots);
    return cudaGetLastError();
  }
  const std::size_t grid = std::max<std::size_t>(1, std::min(tiles, wave));
  if (grid_out) *grid_out = grid;
  floor_sum_kernel<T, Block, Batch><<<static_cast<unsigned>(grid), Block, 0, stream>>>(
      in, n, s.head, s.vectors, out, slots, tiles / grid, tiles % grid);
  return cudaGetLastError();
}

// Calls f(integral_constant<Block>, integral_constant<Batch>) for the compiled
// pair equal to cfg; false when cfg names none.
template <class F, int... Blocks, int... Bs>
bool dispatch(const Config& cfg, F&& f, std::integer_sequence<int, Blocks...>, std::integer_sequence<int, Bs...>) {
  auto for_block = [&](auto block) {
    return ((cfg.batch == Bs ? (f(block, std::integral_constant<int, Bs>{}), true) : false) || ...);
  };
  return ((cfg.block == Blocks ? for_block(std::integral_constant<int, Blocks>{}) : false) || ...);
}

template <class T>
constexpr void check_type() {
  static_assert(std::is_arithmetic_v<T> && (sizeof(T) == 4 || sizeof(T) == 8),
                "floor_sum sums 4- or 8-byte arithmetic types");
}

inline bool misaligned(const void* p, std::size_t alignment) {
  return reinterpret_cast<std::uintptr_t>(p) % alignment != 0;
}

inline bool is_auto(const Config& cfg) { return cfg.block == 0 && cfg.batch == 0; }

template <class T>
cudaError_t run(const T* in, std::size_t n, T* out, unsigned long long* slots, std::size_t capacity,
                cudaStream_t stream, Config cfg, std::size_t* grid) {
  check_type<T>();
  if ((in == nullptr && n > 0) || out == nullptr || misaligned(in, sizeof(T)) || misaligned(out, sizeof(T)))
    return cudaErrorInvalidValue;
  if (is_auto(cfg)) cfg = choose(n / (16 / sizeof(T)));
  cudaError_t status = cudaErrorInvalidValue;  // stays so when cfg names no compiled kernel
  dispatch(
      cfg,
      [&](auto block, auto batch) {
        status = launch<T, decltype(block)::value, decltype(batch)::value>(in, n, out, slots, capacity, stream, grid);
      },
      BlockSizes{}, Batches{});
  return status;
}

}  // namespace detail

// Bytes of a workspace for the second overload of floor_sum on the current
// device: one 16-byte slot per block of the largest grid this Config can use
// (Config{}: the largest over the auto table's rows).
template <class T>
cudaError_t floor_sum_workspace_bytes(std::size_t* bytes, Config cfg = {}) {
  detail::check_type<T>();
  *bytes = 0;
  cudaError_t status = cudaSuccess;
  auto size_one = [&](const Config& c) {
    cudaError_t s = cudaErrorInvalidValue;
    detail::dispatch(
        c,
        [&](auto block, auto batch) {
          unsigned grid = 0;
          s = detail::resident_grid<T, decltype(block)::value, decltype(batch)::value>(&grid);
          *bytes = std::max(*bytes, std::size_t{grid} * kSlotBytes);
        },
        BlockSizes{}, Batches{});
    if (s != cudaSuccess) status = s;
  };
  if (detail::is_auto(cfg)) {
    for (const AutoRow& row : kAuto) size_one(row.config);
  } else {
    size_one(cfg);
  }
  return status;
}

// The sum of in[0, n) into *out (device memory), using the built-in workspace:
// calls must be stream-ordered. One kernel launch; cudaErrorInvalidValue for a
// null or misaligned pointer or a Config that is not compiled.
template <class T>
cudaError_t floor_sum(const T* in, std::size_t n, T* out, cudaStream_t stream, Config cfg = {}) {
  return detail::run<T>(in, n, out, nullptr, detail::kBuiltinSlots, stream, cfg, nullptr);
}

// As above with the caller's workspace (floor_sum_workspace_bytes<T>(cfg) bytes,
// 16-byte aligned, zero-filled once when allocated; each call leaves it zeroed).
template <class T>
cudaError_t floor_sum(const T* in, std::size_t n, T* out, void* workspace, std::size_t workspace_bytes,
                      cudaStream_t stream, Config cfg = {}) {
  if (workspace == nullptr || detail::misaligned(workspace, 16) || workspace_bytes < kSlotBytes)
    return cudaErrorInvalidValue;
  return detail::run<T>(in, n, out, static_cast<unsigned long long*>(workspace), workspace_bytes / kSlotBytes, stream,
                        cfg, nullptr);
}

}  // namespace bench::launch_floor
