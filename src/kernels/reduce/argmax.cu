// Argmax (PMPP's "other reduction operations"): a value/index pair reduced with
// a tie-breaking combine. Naive: the Harris v2 shared-memory tree on pairs, in
// multiple passes. Tuned: the v8 structure, 16-byte loads, an SM-sized grid,
// warp shuffles of both halves of the pair, and one small second launch.
#include "families/argmax.cuh"
#include "kernels/reduce/common.cuh"

namespace bench::reduce {

// Shuffle a pair as its two halves (found by argument-dependent lookup).
template <class T>
__device__ ArgPair<T> shfl_down(ArgPair<T> p, int offset) {
  return ArgPair<T>{__shfl_down_sync(0xFFFFFFFFu, p.value, offset), __shfl_down_sync(0xFFFFFFFFu, p.index, offset)};
}

namespace {

template <class T>
using Pair = ArgPair<T>;

template <class T>
__device__ Pair<T> element(const T* in, std::size_t i, std::size_t n) {
  return i < n ? Pair<T>{in[i], static_cast<long long>(i)} : ArgMaxOp::identity<Pair<T>>();
}

// First pass: elements with their own index; later passes: pairs.
template <class T>
__global__ void argmax_tree_first(const T* __restrict__ in, Pair<T>* __restrict__ out, std::size_t n) {
  const auto r = block_tree<ArgMaxOp>(element(in, blockIdx.x * std::size_t{blockDim.x} + threadIdx.x, n));
  if (threadIdx.x == 0) out[blockIdx.x] = r;
}

// Grid-stride, so one block can also take all the partials of the tuned first pass.
template <class T>
__global__ void argmax_tree_next(const Pair<T>* __restrict__ in, Pair<T>* __restrict__ out, std::size_t n) {
  Pair<T> best = ArgMaxOp::identity<Pair<T>>();
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
    best = ArgMaxOp::combine(best, in[i]);
  const auto r = block_tree<ArgMaxOp>(best);
  if (threadIdx.x == 0) out[blockIdx.x] = r;
}

// Tuned first pass: grid-stride over 16-byte vectors (head and tail scalar, so
// any alignment works); indices are those of the original input.
template <class T>
__global__ void argmax_vec16_first(const T* __restrict__ in, Pair<T>* __restrict__ out, std::size_t n) {
  constexpr std::size_t V = 16 / sizeof(T);
  const std::size_t misaligned = (reinterpret_cast<std::uintptr_t>(in) % 16) / sizeof(T);
  const std::size_t head = misaligned ? (V - misaligned < n ? V - misaligned : n) : 0;
  const std::size_t tid = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  Pair<T> best = ArgMaxOp::identity<Pair<T>>();
  if (tid < head) best = ArgMaxOp::combine(best, element(in, tid, n));
  const std::size_t vectors = (n - head) / V;
#pragma unroll 4
  for (std::size_t v = tid; v < vectors; v += stride) {
    const std::size_t base = head + v * V;
    const uint4 raw = *reinterpret_cast<const uint4*>(in + base);
    const T* e = reinterpret_cast<const T*>(&raw);
#pragma unroll
    for (std::size_t j = 0; j < V; ++j) best = ArgMaxOp::combine(best, Pair<T>{e[j], static_cast<long long>(base + j)});
  }
  const std::size_t tail = head + vectors * V;
  if (tid < n - tail) best = ArgMaxOp::combine(best, element(in, tail + tid, n));
  best = block_reduce_shfl<ArgMaxOp>(best);
  if (threadIdx.x == 0) out[blockIdx.x] = best;
}

// Naive: multi-pass shared-memory tree on pairs.
struct ArgmaxTree : ArgVariantBase {
  template <class T>
  static std::size_t workspace_bytes(std::size_t n, int block, int) {
    return 2 * ceil_div(n, block) * sizeof(Pair<T>);
  }
  template <class T>
  static void launch(const ArgArgs<T>& a) {
    Pair<T>* buffers[2] = {static_cast<Pair<T>*>(a.workspace), static_cast<Pair<T>*>(a.workspace) + ceil_div(a.n, a.block)};
    const std::size_t smem = a.block * sizeof(Pair<T>);
    unsigned grid = grid_for(a.n, a.block);
    argmax_tree_first<T><<<grid, a.block, smem, a.stream>>>(a.in, grid == 1 ? a.out : buffers[0], a.n);
    BENCH_CHECK_LAUNCH("argmax_tree_first");
    for (int pass = 1; grid > 1; ++pass) {
      const std::size_t n = grid;
      grid = grid_for(n, a.block);
      argmax_tree_next<T><<<grid, a.block, smem, a.stream>>>(buffers[(pass - 1) & 1], grid == 1 ? a.out : buffers[pass & 1], n);
      BENCH_CHECK_LAUNCH("argmax_tree_next");
    }
  }
};

// Tuned: SM-sized grid of the vectorised first pass, then one block over the partials.
struct ArgmaxVec16 : ArgVariantBase {
  template <class T>
  static std::size_t workspace_bytes(std::size_t, int, int) {
    return std::size_t(sm_count()) * kMaxResidentPerSm * sizeof(Pair<T>);
  }
  template <class T>
  static void launch(const ArgArgs<T>& a) {
    const std::size_t resident =
        std::min<std::size_t>(std::size_t(sm_count()) * resident_blocks_per_sm(argmax_vec16_first<T>, a.block, 0),
                              a.workspace_size / sizeof(Pair<T>));  // never more partials than room
    const std::size_t needed = ceil_div(a.n, std::size_t(a.block) * (16 / sizeof(T)));
    const unsigned grid = static_cast<unsigned>(std::max<std::size_t>(1, std::min(resident, needed)));
    auto* partials = static_cast<Pair<T>*>(a.workspace);
    argmax_vec16_first<T><<<grid, a.block, 0, a.stream>>>(a.in, grid == 1 ? a.out : partials, a.n);
    BENCH_CHECK_LAUNCH("argmax_vec16_first");
    if (grid > 1) {
      argmax_tree_next<T><<<1, 1024, 1024 * sizeof(Pair<T>), a.stream>>>(partials, a.out, grid);
      BENCH_CHECK_LAUNCH("argmax_tree_next");
    }
  }
};

}  // namespace

BENCH_DECLARE_ARGMAX(ArgmaxTree, "sequential_addressing",
                     "naive argmax: Harris v2 shared-memory tree on (value, index) pairs; multi-pass", block_axis(), {});
BENCH_DECLARE_ARGMAX(ArgmaxVec16, "vec16_sm_grid",
                     "tuned argmax: 16-byte loads, SM-sized grid, shuffles of (value, index); any alignment",
                     block_axis(), {});

}  // namespace bench::reduce
