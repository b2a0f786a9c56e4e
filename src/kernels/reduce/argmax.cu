// Argmax (PMPP's "other reduction operations"): a value/index pair reduced with
// a tie-breaking combine. Naive: the Harris v2 shared-memory tree on pairs, in
// multiple passes. Tuned: the v8 structure, 16-byte loads, an SM-sized grid,
// warp shuffles of both halves of the pair, and one small second launch.
#include "common/axes.hpp"
#include "common/block_reduce.cuh"
#include "common/launch.cuh"
#include "common/span.cuh"
#include "families/argmax.cuh"

namespace bench::argmax {

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
  Pair<T> best = ArgMaxOp::identity<Pair<T>>();
  for_each_vec16(
      in, n, [&](std::size_t i) { best = ArgMaxOp::combine(best, element(in, i, n)); },
      [&](std::size_t base) {
        const uint4 raw = *reinterpret_cast<const uint4*>(in + base);
        const T* e = reinterpret_cast<const T*>(&raw);
#pragma unroll
        for (std::size_t j = 0; j < V; ++j)
          best = ArgMaxOp::combine(best, Pair<T>{e[j], static_cast<long long>(base + j)});
      });
  best = block_reduce_shfl<ArgMaxOp>(best);
  if (threadIdx.x == 0) out[blockIdx.x] = best;
}

// Naive: multi-pass shared-memory tree on pairs.
struct ArgmaxTree : KernelVariant {
  template <class T>
  static std::size_t workspace_bytes(const Args<T>& a) {
    return multi_pass_workspace<Pair<T>>(a.n, a.block);
  }
  template <class T>
  static ExtraTraffic extra_traffic(const Point& p) {
    return partials_traffic(multi_pass_partials(p.n, p.block), sizeof(Pair<T>));
  }
  template <class T>
  static void launch(const Args<T>& a) {
    multi_pass(a, argmax_tree_first<T>, argmax_tree_next<T>, a.block, a.block * sizeof(Pair<T>), "argmax_tree");
  }
};

// Tuned: SM-sized grid of the vectorised first pass, then one block over the partials.
struct ArgmaxVec16 : KernelVariant {
  template <class T>
  static std::size_t workspace_bytes(const Args<T>&) {
    return sm_grid_workspace<Pair<T>>();
  }
  template <class T>
  static void launch(const Args<T>& a) {
    sm_grid_two_pass(
        a, argmax_vec16_first<T>, ceil_div(a.n, std::size_t(a.block) * (16 / sizeof(T))),
        [&](unsigned grid, Pair<T>* out) {
          argmax_vec16_first<T><<<grid, a.block, 0, a.stream>>>(a.in, out, a.n);
          BENCH_CHECK_LAUNCH("argmax_vec16_first");
        },
        [&](const Pair<T>* partials, unsigned count) {
          argmax_tree_next<T><<<1, 1024, 1024 * sizeof(Pair<T>), a.stream>>>(partials, a.out, count);
          BENCH_CHECK_LAUNCH("argmax_tree_next");
        });
  }
};

}  // namespace

BENCH_DECLARE(Argmax, ArgmaxTree, ArgmaxTypes, "sequential_addressing",
              "naive argmax: Harris v2 shared-memory tree on (value, index) pairs; multi-pass", block_axis(), {});
BENCH_DECLARE(Argmax, ArgmaxVec16, ArgmaxTypes, "vec16_sm_grid",
              "tuned argmax: 16-byte loads, SM-sized grid, shuffles of (value, index); any alignment",
              block_axis(), {});

}  // namespace bench::argmax
