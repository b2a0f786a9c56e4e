// The launch floor: a device-wide reduction that costs one kernel launch and
// nothing else, for any op given as a small policy. floor_sum.cuh (sum),
// floor_minmax.cuh (max, min), floor_argmax.cuh (argmax) and
// kernels/dot/floor_dot.cuh (dot) are thin users: a policy, an auto table and
// the public calls. Independent of the benchmark harness: only CUDA and
// libcu++ headers.
//
// Design (one launch, the measured read ceiling's loads, a combine with no
// fence and at most one L2 round trip after the last block's loads):
//   - the host splits the input once (split(), below): the elements before the
//     first 16-byte boundary (head), the whole 16-byte vectors, the rest (tail);
//     tiles of block x batch vectors (a two-input op loads a vector of each
//     input per step: dot's b at a's offsets);
//   - when the tiles fit in one wave (at most SMs x resident blocks per SM, the
//     occupancy API asked once per device), a straight-line kernel
//     (tile_kernel): block b issues the `batch` loads of tile b after the
//     fewest instructions, block 0 takes head and tail one element per thread,
//     no loop. One tile (n <= block x batch vectors): one block, no combine.
//     Otherwise
//   - grid_kernel on the resident grid: each thread reads 16-byte vectors at a
//     grid stride, `batch` loads in flight per round (the last, partial round
//     guarded, its loads issued together); at 32 or more tiles per block each
//     block reads a contiguous run of tiles instead (CUB's even share);
//   - each block reduces by warp shuffles (redux.sync for 4-byte integers, and
//     for float max and min as ordered integer keys),
//     its warps' partials combined by thread 0 in warp order (block_reduce),
//     then the combine (finish()):
//       an op whose combine is 4-byte integer addition (sum of int/unsigned,
//       Policy::kTicket): ONE 64-bit relaxed atomic add per block carries the
//       value and the count together (bits 0-31 the sum mod 2^32, 32-47 its
//       carries, 48-63 the blocks counted); the block whose add counts last
//       has the total in the value it got back, writes *out and zeroes the
//       word. One round trip after the last block's reduction, no fence.
//       Every other op (floats, max, min, argmax, dot, 8-byte sums): block
//       b > 0 publishes its partial into slot b and exits; block 0, which
//       pulled the slots into L2 first (prefetch), polls slots 1..grid-1 (its
//       threads a slot each, loads issued together), combines them in index
//       order with its own partial, writes *out and clears the slots. A slot
//       is published either "packed" (ONE relaxed 8-byte store holds the value
//       and a nonzero flag: single-copy atomic, no fence) or "flagged" (the
//       payload word relaxed, then a flag word with release; the poll acquires
//       the flag word, then reads the payload): the policy says which.
//     H200, cold L2, one tile per block (experiments/floor_tile/,
//     experiments 4-6): no combine at all 3.97 us at 2^16, the atomic 4.58,
//     publish/poll 4.80; a thread-block cluster's shared-memory combine 4.61
//     (its launch alone costs about 0.5 us); polls staggered over block 0's
//     warps were slower.
// Progress: only block 0 of a publish/poll grid ever waits, for blocks that
// wait on nothing, so the grid need not be co-resident.
// Deterministic: for a given n, input alignment(s), device and Config, the
// grid, every thread's share and every combination order are fixed (block 0
// combines slot u in thread u % block, in ascending u, then block_reduce's
// fixed order). Float results are bitwise identical from call to call.
//
// Workspace: the calls without one use a workspace built into the module (one
// per translation unit, shared by every op and type in it; zero when the
// module loads). Calls that use it must be stream-ordered (one stream, or
// synchronised): concurrent calls on different streams need workspaces of
// their own: workspace_bytes() bytes, 16-byte aligned and zero-filled once
// when allocated; every call leaves every slot it used zero-filled again
// (block 0 clears each slot it consumed, the last block the count word in
// slot 0, and the next call is ordered after this kernel's end), so one
// workspace serves every op in turn.
//
// A policy (the op) is a small struct, passed by value to the kernels (its
// members are per-call state: dot's second input, argmax's index output):
//   using In;     element type of the input(s)           using Out;   what *out holds
//   using Value;  what threads and blocks combine         using Vec;   one loaded 16-byte step
//   static constexpr bool kTicket;            combine is 4-byte integer addition (the atomic)
//   static constexpr int kInputs;             inputs read per element (sizes the auto table's key)
//   static constexpr int kFullOccupancyBatch; largest batch whose loads and accumulators fit 32
//                                             registers (a full SM of resident threads)
//   Policy bind(const Split&, std::size_t n) const;          host: state that depends on the split
//   __device__ Value identity() const;   Value combine(Value a, Value b) const;
//   __device__ Vec load(const uint4* p) const;                the vector at p, in the first input's body
//                                                             (a second input: at the same byte offset from p)
//   __device__ Vec empty() const;                             a vector past the end: reduces to the identity
//   __device__ Value reduce(const Vec&, I first) const;       first: index of the vector's first element
//   __device__ Value element(const In* in, I i) const;        one head or tail element
//   __device__ Value shfl_down(Value, int offset) const;
//   optional: static constexpr bool kWarpRedux; Value warp_all(Value) const   (see kWarpRedux below)
//   __device__ bool packed() const;  pack(Value) -> word with its flag; unpack(word, Value*) -> full;
//   __device__ pack2(Value, w0*, w1*); unpack2(w0, w1, Value*) -> full (w1's flag; the flagged protocol)
//   __device__ void write(Out* out, Value) const;             the result (block 0, thread 0)
#pragma once

#include <cuda/atomic>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <type_traits>
#include <utility>

#include "kernels/resident_grid.cuh"

namespace bench::launch_floor {

// The compiled tunables (one list each: the dispatch below and the benchmark
// declarations' axes both read them): threads per block, and 16-byte loads (of
// each input) in flight per thread per loop iteration. 16 kernels per op and type.
using BlockSizes = std::integer_sequence<int, 128, 256, 512, 1024>;
using Batches = std::integer_sequence<int, 1, 2, 4, 8>;

// block 0 / batch 0: choose by n (the op's auto table). Otherwise a compiled pair.
struct Config {
  int block = 0;
  int batch = 0;
};

// A row of an auto table: the first row whose limit is >= the 16-byte vectors
// the call reads (all inputs: n x sizeof(In) x inputs / 16) gives the Config.
struct AutoRow {
  std::size_t max_vectors;
  Config config;
};

// Every row names a compiled pair, and the limits rise (a row that can never be
// chosen, or a pair the dispatch does not have, fails the build).
template <int... Vs>
constexpr bool one_of(int v, std::integer_sequence<int, Vs...>) {
  return ((v == Vs) || ...);
}
template <std::size_t R>
constexpr bool auto_table_is_valid(const AutoRow (&table)[R]) {
  for (std::size_t i = 0; i < R; ++i) {
    if (!one_of(table[i].config.block, BlockSizes{}) || !one_of(table[i].config.batch, Batches{})) return false;
    if (i > 0 && table[i].max_vectors <= table[i - 1].max_vectors) return false;
  }
  return table[R - 1].max_vectors == ~std::size_t{0};
}

template <std::size_t R>
constexpr Config choose(const AutoRow (&table)[R], std::size_t vectors) {
  for (const AutoRow& row : table)
    if (vectors <= row.max_vectors) return row.config;
  return table[R - 1].config;
}

// An op's own table that departs from another only for calls of (lo, hi]
// vectors: both choose alike at 0, at every row limit outside that range and
// one past it (the choices are constant between those points), so a table
// that drifts from the one it copies fails the build.
template <std::size_t R, std::size_t S>
constexpr bool departs_only_within(const AutoRow (&table)[R], const AutoRow (&from)[S], std::size_t lo,
                                   std::size_t hi) {
  const auto alike = [&](std::size_t v) {
    const Config a = choose(table, v), b = choose(from, v);
    return (v > lo && v <= hi) || (a.block == b.block && a.batch == b.batch);
  };
  const auto rows_alike = [&](const AutoRow& row) {
    return alike(row.max_vectors) && (row.max_vectors == ~std::size_t{0} || alike(row.max_vectors + 1));
  };
  for (const AutoRow& row : table)
    if (!rows_alike(row)) return false;
  for (const AutoRow& row : from)
    if (!rows_alike(row)) return false;
  return alike(0);  // n < 4 reads no whole vector: key 0
}

// The auto table of floor_sum, and of every op that reads the same bytes the
// same way (max, min, argmax: their loads are the sum's; argmax only carries
// more through the combine; max and min depart from it at 2^12 alone,
// kExtremumAuto in floor_minmax.cuh), keyed by 16-byte vectors read. Picked from H200
// sweeps (`--suite=full`, floor_sum_fixed over every block x batch, int32 and
// float32, cold L2, 2026-11-22; docs/timing.md): up to 2^14 from the sweep of
// the one-block tile kernel, 2^16 to 2^22 from the sweep of a tile per block
// with the atomic combine for int32
// (results/checks/floor_sweep_v5_tilegrid_nvidia-h200.json), above from the
// sweep of the contiguous runs. The fastest pair of both types at each N
// (where they differ, the one within 1.1% of both). One block as long as one
// block's loads cover the input (the combine costs more than it saves up to
// 2^14 four-byte elements); then a tile of one or four loads per thread per
// block; 512 x 8 from 2^22 on, up to the resident grid (but 1024 x 4 above
// 2^25 to 2^26, below). (With a grid stride at
// 2^28, 512 x 8 was 1% slower than 1024 x 8 on the H100, which its regression
// gate flagged; with contiguous runs it is the fastest at 2^28-2^30 on the
// H200.) The sweeps of max, min and argmax (their `_fixed` twins) re-pick theirs.
// 1024 x 4 above 2^25 up to 2^26 (4-byte types; at 2^27 for halves): at
// 2^26, against 512 x 8, tools/run-ab, 2026-11-27 (results/versus/README.md,
// twelfth session), sum, max, min and argmax, int32 and float32: an H100
// 0.7-1.2% faster, an H200 0.5-1.1%; f16/bf16 at 2^27 0.7-1.0% faster on the
// H100, no different on the H200. At 2^27 an H100 sweep said 1024 x 4 was 0.8%
// faster for 4-byte types too, but the H200 read sum i32 0.5% slower there, so
// 2^27 keeps 512 x 8.
inline constexpr AutoRow kAuto[] = {
    {std::size_t{1} << 8, {128, 4}},   // n <= 2^10 (4-byte T): the tile kernel, 128 threads
    {std::size_t{1} << 10, {256, 4}},  // n <= 2^12: the tile kernel, 4 loads in flight (CUB's single tile)
    {std::size_t{1} << 12, {512, 8}},  // n <= 2^14: the tile kernel, 8 loads in flight
    {std::size_t{1} << 16, {256, 1}},  // n <= 2^18: a tile per block, 64 blocks at 2^16, 256 at 2^18
    {std::size_t{1} << 18, {256, 4}},  // n <= 2^20: 256 blocks
    {std::size_t{1} << 20, {512, 4}},  // n <= 2^22: 512 blocks (one wave: 4 blocks per SM)
    {std::size_t{1} << 23, {512, 8}},  // n <= 2^25: the resident grid, 8 loads in flight
    {std::size_t{1} << 24, {1024, 4}},  // n <= 2^26: the resident grid of 1024-thread blocks
    {~std::size_t{0}, {512, 8}},       // larger
};
static_assert(auto_table_is_valid(kAuto), "kAuto: every row a compiled block x batch, limits rising, the last unbounded");

// floor_sum's choice for a call that reads `vectors` 16-byte vectors.
inline constexpr Config choose(std::size_t vectors) { return choose(kAuto, vectors); }

// A workspace slot: 16 bytes (two 8-byte words: a packed value and flag in
// word 0, or a payload in word 0 and its flag word in word 1).
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

// The flag of a packed 4-byte value: word 0 = kFull << 32 | value bits.
constexpr unsigned long long kFull = 1;

// The slot protocol (see the design notes): one look at a slot is true, with
// the value, when the slot is full.
template <class Op>
__device__ inline void publish(const Op& op, unsigned long long* slot, typename Op::Value v) {
  if (op.packed()) {
    Ref64(slot[0]).store(op.pack(v), cuda::memory_order_relaxed);
  } else {
    unsigned long long w0, w1;
    op.pack2(v, &w0, &w1);
    Ref64(slot[0]).store(w0, cuda::memory_order_relaxed);
    Ref64(slot[1]).store(w1, cuda::memory_order_release);  // the payload happens-before the flag
  }
}

template <class Op>
__device__ inline bool peek(const Op& op, unsigned long long* slot, typename Op::Value* v) {
  if (op.packed()) return op.unpack(Ref64(slot[0]).load(cuda::memory_order_relaxed), v);
  const unsigned long long w1 = Ref64(slot[1]).load(cuda::memory_order_acquire);
  if ((w1 & 1) == 0) return false;  // every flag word has bit 0 set
  return op.unpack2(Ref64(slot[0]).load(cuda::memory_order_relaxed), w1, v);
}

// Both words of a flagged slot are cleared: a packed op that uses the same
// workspace next reads word 0 as value and flag.
template <class Op>
__device__ inline void clear(const Op& op, unsigned long long* slot) {
  Ref64(slot[0]).store(0, cuda::memory_order_relaxed);
  if (!op.packed()) Ref64(slot[1]).store(0, cuda::memory_order_relaxed);
}

// The count of the ticket combine sits in bits 48-63 and the sum's carries
// (one per block at most) in 32-47, so a grid has at most kMaxGrid blocks.
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

// Up to four loads in flight (sum, max, min) fit in 32 registers: a full SM
// (2048 threads) of resident blocks, as the read ceiling has. More need more;
// the policy says where its limit is (dot loads two vectors per step, argmax
// carries a 64-bit index per accumulator).
template <class Op, int Block, int Batch>
constexpr int kMinBlocksPerSm = Batch <= Op::kFullOccupancyBatch ? 2048 / Block : 1;

// Whether the op's combine is one warp instruction (redux.sync, sm_80 on:
// 4-byte integer add, min, max; float max and min through it as ordered
// keys): a policy with kWarpRedux true gives it as warp_all(v), every lane's
// value combined, in every lane. CUB's warp
// reduction takes it too; five shuffle rounds cost a block's reduction about
// 0.1 us more (the whole of a 2^12 call is 5 us).
template <class Op, class = void>
inline constexpr bool kWarpRedux = false;
template <class Op>
inline constexpr bool kWarpRedux<Op, std::void_t<decltype(Op::kWarpRedux)>> = Op::kWarpRedux;

// The combination of lanes [0, Width) in lane 0 (lanes [Width, 32), when
// Width < 32, hold the identity: they take part in redux.sync).
template <int Width = 32, class Op>
__device__ inline typename Op::Value warp_reduce(const Op& op, typename Op::Value v) {
#if __CUDA_ARCH__ >= 800
  constexpr bool kRedux = kWarpRedux<Op>;
#else
  constexpr bool kRedux = false;
#endif
  if constexpr (kRedux) {
    return op.warp_all(v);
  } else {
#pragma unroll
    for (int offset = Width / 2; offset > 0; offset >>= 1) v = op.combine(v, op.shfl_down(v, offset));
    return v;
  }
}

// Each warp's partial (warp_reduce), then the warps' partials: a scalar
// without redux.sync (float sum, dot) by thread 0 in warp order, as
// CUB's BlockReduce does (its loads issue together, and Block / 32 - 1
// dependent combines cost less than log2(Block / 32) shuffle rounds); 4-byte
// integers and float max and min by warp 0 in one redux.sync; argmax's (value, index) pairs by warp
// 0's shuffle tree (their combine is a chain of compares and selects: thread
// 0's seven were 1.7-4.7% slower at 2^14-2^16). H100, tools/run-ab --timing=graph
// against the tree for all: float sum 1.1-3.8%, max and min up to 3.0%, dot
// 2.2-3.8% faster at 2^10-2^16 (int32, unchanged, no different). Either way a
// fixed order. Result in thread 0. `scratch` is reused by a second call only
// after a __syncthreads.
template <int Block, class Op>
__device__ inline typename Op::Value block_reduce(const Op& op, typename Op::Value v, typename Op::Value* scratch) {
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  v = warp_reduce(op, v);
  if constexpr (Block == 32) return v;
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  if constexpr (kWarpRedux<Op> || !std::is_arithmetic_v<typename Op::Value>) {
    if (warp == 0) v = warp_reduce<Block / 32>(op, lane < Block / 32 ? scratch[lane] : op.identity());
  } else if (threadIdx.x == 0) {
#pragma unroll
    for (int w = 1; w < Block / 32; ++w) v = op.combine(v, scratch[w]);
  }
  return v;
}

// Block 0's combine: thread t takes slots t, t + Block, ... (ascending; slot 0
// is block 0's own partial, in thread 0), polling until every one it reads is
// full. Loads of one round are issued together (unrolled), then tested.
template <class Op, int Block>
__device__ inline typename Op::Value gather(const Op& op, unsigned long long* slots, unsigned grid,
                                            typename Op::Value own) {
  using V = typename Op::Value;
  V acc;
  for (;;) {
    bool full = true;
    acc = threadIdx.x == 0 ? own : op.identity();
    unsigned u = threadIdx.x == 0 ? Block : threadIdx.x;
#pragma unroll 4
    for (; u < grid; u += Block) {
      V v = op.identity();
      full &= peek(op, slots + 2 * std::size_t{u}, &v);
      acc = op.combine(acc, v);
    }
    if (full) break;
  }
  for (unsigned u = threadIdx.x == 0 ? Block : threadIdx.x; u < grid; u += Block) clear(op, slots + 2 * std::size_t{u});
  return acc;
}

// Block 0 pulls the lines the combine meets in into L2: after an L2 flush (or
// a long gap) they are cold, and block 0's first poll (or the first atomic)
// would wait for DRAM (0.2-0.3 us from 2^14 to 2^20 on the H200, cold L2).
template <class Op, int Block>
__device__ inline void warm(const unsigned long long* slots) {
  if (blockIdx.x != 0 || gridDim.x == 1) return;
  const unsigned first = Op::kTicket ? 0u : 1u, last = Op::kTicket ? 1u : gridDim.x;
  for (unsigned u = threadIdx.x + first; u < last; u += Block)
    asm volatile("prefetch.global.L2 [%0];" ::"l"(slots + 2 * std::size_t{u}));
}

// The combine, after block_reduce (each block's partial in its thread 0): see
// the design notes at the top. A grid of one block writes *out.
template <class Op, int Block>
__device__ inline void finish(const Op& op, typename Op::Value part, typename Op::Out* out, unsigned long long* slots,
                              typename Op::Value* scratch) {
  if (gridDim.x == 1) {
    if (threadIdx.x == 0) op.write(out, part);
    return;
  }
  if constexpr (Op::kTicket) {
    static_assert(std::is_integral_v<typename Op::Value> && sizeof(typename Op::Value) == 4,
                  "the ticket combine adds 4-byte integers");
    using T = typename Op::Value;
    if (threadIdx.x != 0) return;
    const unsigned long long mine = (1ull << kCountShift) | bits_of(part);
    const unsigned long long before = Ref64(slots[0]).fetch_add(mine, cuda::memory_order_relaxed);
    if ((before >> kCountShift) == gridDim.x - 1) {  // every other block has added
      op.write(out, from_bits<T>((before + mine) & 0xFFFFFFFFull));
      Ref64(slots[0]).store(0, cuda::memory_order_relaxed);
    }
  } else {
    if (blockIdx.x != 0) {
      if (threadIdx.x == 0) publish(op, slots + 2 * std::size_t{blockIdx.x}, part);
      return;
    }
    part = gather<Op, Block>(op, slots, gridDim.x, part);
    __syncthreads();  // the first block_reduce reads scratch before the second writes it
    part = block_reduce<Block>(op, part, scratch);
    if (threadIdx.x == 0) op.write(out, part);
  }
}

// When the tiles fit in one wave: block b reads tile b, straight-line, its
// loads issued after the fewest instructions (32-bit counts, the split passed
// in), no loop; block 0 takes the elements outside the whole vectors (fewer
// than 16 bytes each side), one per thread. One tile: one block, no combine.
// A one-block grid of grid_kernel spent 0.3-0.6 us more on the H200 at
// 2^12-2^14 with cold L2 (the difference CUB's single-tile kernel made), and a
// tile per block 0.1-0.2 us less than its grid stride from 2^16 to 2^20
// (docs/timing.md).
template <class Op, int Block, int Batch>
__global__ void __launch_bounds__(Block, (kMinBlocksPerSm<Op, Block, Batch>))
    tile_kernel(const typename Op::In* __restrict__ in, unsigned n, unsigned head, unsigned vectors,
                typename Op::Out* __restrict__ out,
                unsigned long long* slots,  // nullptr: the built-in workspace
                const Op op) {
  using V = typename Op::Value;
  constexpr unsigned kPerVec = 16 / sizeof(typename Op::In);
  __shared__ V scratch[Block / 32];
  const uint4* __restrict__ body = reinterpret_cast<const uint4*>(in + head);
  const unsigned t = threadIdx.x, first = blockIdx.x * static_cast<unsigned>(Block * Batch) + t;
  typename Op::Vec v[Batch];
#pragma unroll
  for (int b = 0; b < Batch; ++b) {
    const unsigned i = first + static_cast<unsigned>(b * Block);
    v[b] = i < vectors ? op.load(body + i) : op.empty();
  }
  if (slots == nullptr) slots = builtin_slots;
  warm<Op, Block>(slots);
  V extra = op.identity();
  if (blockIdx.x == 0) {
    const unsigned tail = head + vectors * kPerVec;
    if (t < head) extra = op.element(in, t);
    if (t < n - tail) extra = op.combine(extra, op.element(in, tail + t));
  }
  V acc[Batch];
#pragma unroll
  for (int b = 0; b < Batch; ++b) acc[b] = op.reduce(v[b], head + (first + static_cast<unsigned>(b * Block)) * kPerVec);
#pragma unroll
  for (int width = Batch / 2; width > 0; width /= 2) {
#pragma unroll
    for (int b = 0; b < width; ++b) acc[b] = op.combine(acc[b], acc[b + width]);
  }
  finish<Op, Block>(op, block_reduce<Block>(op, op.combine(acc[0], extra), scratch), out, slots, scratch);
}

template <class Op, int Block, int Batch>
__global__ void __launch_bounds__(Block, (kMinBlocksPerSm<Op, Block, Batch>))
    grid_kernel(const typename Op::In* __restrict__ in, std::size_t n, std::size_t head, std::size_t vectors,
                typename Op::Out* __restrict__ out,
                unsigned long long* slots,  // nullptr: the built-in workspace
                std::size_t per, std::size_t extra,  // tiles per block, blocks with one more
                const Op op) {
  using V = typename Op::Value;
  constexpr std::size_t kPerVec = 16 / sizeof(typename Op::In);
  __shared__ V scratch[Block / 32];
  if (slots == nullptr) slots = builtin_slots;
  warm<Op, Block>(slots);  // before block 0 reads its share
  const std::size_t tail = head + vectors * kPerVec;
  const uint4* __restrict__ body = reinterpret_cast<const uint4*>(in + head);

  // Tiles of Block x Batch vectors. Up to kContiguousMinTiles tiles per block,
  // a grid stride: thread t of block b reads b x Block + t + j x grid x Block.
  // From there on (large n, the grid capped at the resident grid), block b
  // reads tiles [first, last), a contiguous run (CUB's even share: `per` each,
  // one more for the first `extra` blocks). Either way a thread's Batch loads
  // are issued together, without guards while they are inside the input, and
  // a partial last round is one guarded round. Each accumulator meets its
  // vectors in ascending index order.
  V acc[Batch];
#pragma unroll
  for (int b = 0; b < Batch; ++b) acc[b] = op.identity();
  if (per < kContiguousMinTiles) {
    const std::size_t stride = std::size_t{gridDim.x} * Block;
    std::size_t i = std::size_t{blockIdx.x} * Block + threadIdx.x;
    for (; i + (Batch - 1) * stride < vectors; i += Batch * stride) {
      typename Op::Vec v[Batch];
#pragma unroll
      for (int b = 0; b < Batch; ++b) v[b] = op.load(body + i + b * stride);
#pragma unroll
      for (int b = 0; b < Batch; ++b) acc[b] = op.combine(acc[b], op.reduce(v[b], head + (i + b * stride) * kPerVec));
    }
    if (i < vectors) {
      typename Op::Vec v[Batch];
#pragma unroll
      for (int b = 0; b < Batch; ++b) v[b] = i + b * stride < vectors ? op.load(body + i + b * stride) : op.empty();
#pragma unroll
      for (int b = 0; b < Batch; ++b) acc[b] = op.combine(acc[b], op.reduce(v[b], head + (i + b * stride) * kPerVec));
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
      typename Op::Vec v[Batch];
#pragma unroll
      for (int b = 0; b < Batch; ++b) v[b] = op.load(tile + b * Block);
#pragma unroll
      for (int b = 0; b < Batch; ++b)
        acc[b] = op.combine(acc[b], op.reduce(v[b], head + (k * kTile + threadIdx.x + b * Block) * kPerVec));
    }
    if (k < last) {
      typename Op::Vec v[Batch];
#pragma unroll
      for (int b = 0; b < Batch; ++b) {
        const std::size_t j = k * kTile + threadIdx.x + b * Block;
        v[b] = j < vectors ? op.load(body + j) : op.empty();
      }
#pragma unroll
      for (int b = 0; b < Batch; ++b)
        acc[b] = op.combine(acc[b], op.reduce(v[b], head + (k * kTile + threadIdx.x + b * Block) * kPerVec));
    }
  }
  const std::size_t t = std::size_t{blockIdx.x} * Block + threadIdx.x;
#pragma unroll
  for (int width = Batch / 2; width > 0; width /= 2) {
#pragma unroll
    for (int b = 0; b < width; ++b) acc[b] = op.combine(acc[b], acc[b + width]);
  }
  V part = acc[0];
  if (t < head) part = op.combine(part, op.element(in, t));
  if (t < n - tail) part = op.combine(part, op.element(in, tail + t));
  finish<Op, Block>(op, block_reduce<Block>(op, part, scratch), out, slots, scratch);
}

// SMs x resident blocks per SM of this kernel on the current device, asked once
// per device (kernels/resident_grid.cuh).
template <class Op, int Block, int Batch>
cudaError_t resident_grid(unsigned* grid) {
  static resident::PerDevice cache;
  return resident::grid(grid_kernel<Op, Block, Batch>, Block, 0, cache, grid);
}

// One call with compiled tunables. `capacity`: slots the workspace holds.
template <class Op, int Block, int Batch>
cudaError_t launch(const Op& unbound, const typename Op::In* in, std::size_t n, typename Op::Out* out,
                   unsigned long long* slots, std::size_t capacity, cudaStream_t stream, std::size_t* grid_out) {
  const Split s = split(in, n);
  const Op op = unbound.bind(s, n);
  constexpr std::size_t kTile = std::size_t{Block} * Batch;
  const std::size_t tiles = (s.vectors + kTile - 1) / kTile;
  unsigned resident = 1;
  if (tiles > 1) {
    if (const cudaError_t e = resident_grid<Op, Block, Batch>(&resident); e != cudaSuccess) return e;
  }
  const std::size_t wave = std::min({std::size_t{resident}, capacity, kMaxGrid});
  if (tiles <= 1 || (tiles <= wave && n <= std::numeric_limits<unsigned>::max())) {  // a tile per block
    const std::size_t grid = std::max<std::size_t>(tiles, 1);
    if (grid_out) *grid_out = grid;
    tile_kernel<Op, Block, Batch><<<static_cast<unsigned>(grid), Block, 0, stream>>>(
        in, static_cast<unsigned>(n), static_cast<unsigned>(s.head), static_cast<unsigned>(s.vectors), out, slots, op);
    return cudaGetLastError();
  }
  const std::size_t grid = std::max<std::size_t>(1, std::min(tiles, wave));
  if (grid_out) *grid_out = grid;
  grid_kernel<Op, Block, Batch><<<static_cast<unsigned>(grid), Block, 0, stream>>>(
      in, n, s.head, s.vectors, out, slots, tiles / grid, tiles % grid, op);
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

inline bool misaligned(const void* p, std::size_t alignment) {
  return reinterpret_cast<std::uintptr_t>(p) % alignment != 0;
}

inline bool is_auto(const Config& cfg) { return cfg.block == 0 && cfg.batch == 0; }

// The 16-byte vectors a call over n elements reads (every input): the auto
// tables' key, so that a two-input op meets its rows at the same bytes.
template <class Op>
constexpr std::size_t vectors_read(std::size_t n) {
  return n / (16 / sizeof(typename Op::In)) * Op::kInputs;
}

// A whole call: the pointers checked, the Config chosen (auto) or looked up.
// `slots`: nullptr for the built-in workspace. The op's own pointers (dot's
// second input, argmax's index output) are checked by its caller.
template <class Op, std::size_t R>
cudaError_t run(const Op& op, const AutoRow (&table)[R], const typename Op::In* in, std::size_t n,
                typename Op::Out* out, unsigned long long* slots, std::size_t capacity, cudaStream_t stream, Config cfg,
                std::size_t* grid) {
  using In = typename Op::In;
  using Out = typename Op::Out;
  if ((in == nullptr && n > 0) || out == nullptr || misaligned(in, sizeof(In)) || misaligned(out, alignof(Out)))
    return cudaErrorInvalidValue;
  if (is_auto(cfg)) cfg = choose(table, vectors_read<Op>(n));
  cudaError_t status = cudaErrorInvalidValue;  // stays so when cfg names no compiled kernel
  dispatch(
      cfg,
      [&](auto block, auto batch) {
        status = launch<Op, decltype(block)::value, decltype(batch)::value>(op, in, n, out, slots, capacity, stream,
                                                                            grid);
      },
      BlockSizes{}, Batches{});
  return status;
}

// The public calls' bodies: the built-in workspace, or the caller's (16-byte
// aligned, at least one slot).
template <class Op, std::size_t R>
cudaError_t run_builtin(const Op& op, const AutoRow (&table)[R], const typename Op::In* in, std::size_t n,
                        typename Op::Out* out, cudaStream_t stream, Config cfg) {
  return run(op, table, in, n, out, nullptr, kBuiltinSlots, stream, cfg, nullptr);
}
template <class Op, std::size_t R>
cudaError_t run_caller(const Op& op, const AutoRow (&table)[R], const typename Op::In* in, std::size_t n,
                       typename Op::Out* out, void* workspace, std::size_t workspace_bytes, cudaStream_t stream,
                       Config cfg) {
  if (workspace == nullptr || misaligned(workspace, 16) || workspace_bytes < kSlotBytes) return cudaErrorInvalidValue;
  return run(op, table, in, n, out, static_cast<unsigned long long*>(workspace), workspace_bytes / kSlotBytes, stream,
             cfg, nullptr);
}

// Bytes of a workspace for op's calls on the current device: one 16-byte slot
// per block of the largest grid this Config can use (Config{}: the largest
// over the table's rows).
template <class Op, std::size_t R>
cudaError_t workspace_bytes(const AutoRow (&table)[R], std::size_t* bytes, Config cfg) {
  *bytes = 0;
  cudaError_t status = cudaSuccess;
  auto size_one = [&](const Config& c) {
    cudaError_t s = cudaErrorInvalidValue;
    dispatch(
        c,
        [&](auto block, auto batch) {
          unsigned grid = 0;
          s = resident_grid<Op, decltype(block)::value, decltype(batch)::value>(&grid);
          *bytes = std::max(*bytes, std::size_t{grid} * kSlotBytes);
        },
        BlockSizes{}, Batches{});
    if (s != cudaSuccess) status = s;
  };
  if (is_auto(cfg)) {
    for (const AutoRow& row : table) size_one(row.config);
  } else {
    size_one(cfg);
  }
  return status;
}

// The packed protocol for a 4-byte value (sum of floats, max, min, dot):
// word 0 = kFull << 32 | value bits, one store publishes both. A policy with
// such a value derives from it for its slot codec.
template <class T>
struct Packed4 {
  __device__ static bool packed() { return true; }
  __device__ static unsigned long long pack(T v) { return (kFull << 32) | bits_of(v); }
  __device__ static bool unpack(unsigned long long w, T* v) {
    *v = from_bits<T>(w);
    return (w >> 32) == kFull;
  }
  __device__ static void pack2(T, unsigned long long*, unsigned long long*) {}
  __device__ static bool unpack2(unsigned long long, unsigned long long, T*) { return false; }
};

}  // namespace detail
}  // namespace bench::launch_floor
