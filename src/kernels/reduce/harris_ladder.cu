// Mark Harris, "Optimizing Parallel Reduction in CUDA", step by step as re-told
// on a V100 (v0 ... v8), with the fixes a modern GPU needs: guarded tails for
// any N, and warp-level steps that are race-free on sm_70+. Each step changes
// one thing relative to the previous one; the comment says which.
// PMPP chapter 10 describes several of the same kernels; their lineage is noted.
#include "kernels/reduce/common.cuh"

namespace bench::reduce {
namespace {

template <class Op, class X>
__device__ Acc<X> load_or_identity(const X* in, std::size_t i, std::size_t n) {
  return i < n ? to_acc<X>(in[i]) : Op::template identity<Acc<X>>();
}

// v3's load: each thread combines two elements a block apart while loading.
template <class Op, class X>
__device__ Acc<X> load_pair(const X* in, std::size_t n) {
  const std::size_t i = blockIdx.x * (2 * std::size_t{blockDim.x}) + threadIdx.x;
  return Op::combine(load_or_identity<Op>(in, i, n), load_or_identity<Op>(in, i + blockDim.x, n));
}

// v0: interleaved addressing with %: divergent warps and a slow modulo.
template <class Op, class X>
__global__ void interleaved_mod_kernel(const X* __restrict__ in, Acc<X>* __restrict__ out, std::size_t n) {
  auto* s = shared_array<Acc<X>>();
  const unsigned tid = threadIdx.x;
  s[tid] = load_or_identity<Op>(in, blockIdx.x * std::size_t{blockDim.x} + tid, n);
  __syncthreads();
  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    if (tid % (2 * stride) == 0) s[tid] = Op::combine(s[tid], s[tid + stride]);
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

// v1: strided index instead of %: no divergence, but shared-memory bank conflicts.
template <class Op, class X>
__global__ void interleaved_strided_kernel(const X* __restrict__ in, Acc<X>* __restrict__ out, std::size_t n) {
  auto* s = shared_array<Acc<X>>();
  const unsigned tid = threadIdx.x;
  s[tid] = load_or_identity<Op>(in, blockIdx.x * std::size_t{blockDim.x} + tid, n);
  __syncthreads();
  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    const unsigned index = 2 * stride * tid;
    if (index < blockDim.x) s[index] = Op::combine(s[index], s[index + stride]);
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

// v1.5: v0 with the % replaced by a bit mask (still divergent).
template <class Op, class X>
__global__ void interleaved_bitmask_kernel(const X* __restrict__ in, Acc<X>* __restrict__ out, std::size_t n) {
  auto* s = shared_array<Acc<X>>();
  const unsigned tid = threadIdx.x;
  s[tid] = load_or_identity<Op>(in, blockIdx.x * std::size_t{blockDim.x} + tid, n);
  __syncthreads();
  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    if ((tid & (2 * stride - 1)) == 0) s[tid] = Op::combine(s[tid], s[tid + stride]);
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

// v2: sequential addressing: contiguous active threads, conflict-free.
template <class Op, class X>
__global__ void sequential_addressing_kernel(const X* __restrict__ in, Acc<X>* __restrict__ out, std::size_t n) {
  const auto r = block_tree<Op>(load_or_identity<Op>(in, blockIdx.x * std::size_t{blockDim.x} + threadIdx.x, n));
  if (threadIdx.x == 0) out[blockIdx.x] = r;
}

// v3: first add during the global load: half the blocks, no idle first level.
template <class Op, class X>
__global__ void first_add_on_load_kernel(const X* __restrict__ in, Acc<X>* __restrict__ out, std::size_t n) {
  const auto r = block_tree<Op>(load_pair<Op>(in, n));
  if (threadIdx.x == 0) out[blockIdx.x] = r;
}

// v4 (v4.1 in the write-up): v3 with the last warp unrolled without block
// barriers, ordered by __syncwarp (the sm_70+-correct form of the unroll).
template <class Op, class X>
__global__ void last_warp_syncwarp_kernel(const X* __restrict__ in, Acc<X>* __restrict__ out, std::size_t n) {
  const auto r = block_tree_syncwarp<Op>(load_pair<Op>(in, n));
  if (threadIdx.x == 0) out[blockIdx.x] = r;
}

// v4.2: v3 with the last warp reduced by __shfl_down_sync (registers, no shared memory).
template <class Op, class X>
__global__ void last_warp_shfl_kernel(const X* __restrict__ in, Acc<X>* __restrict__ out, std::size_t n) {
  using A = Acc<X>;
  A* s = shared_array<A>();
  const unsigned tid = threadIdx.x;
  s[tid] = load_pair<Op>(in, n);
  __syncthreads();
  for (unsigned active = blockDim.x / 2; active > 32; active >>= 1) {
    if (tid < active) s[tid] = Op::combine(s[tid], s[tid + active]);
    __syncthreads();
  }
  if (tid < 32) {
    const A r = warp_reduce<Op>(Op::combine(s[tid], s[tid + 32]));
    if (tid == 0) out[blockIdx.x] = r;
  }
}

// v5: complete unroll: the block size is a template parameter, so every level's
// bounds are compile-time and the loop disappears; last warp by shuffles.
template <class Op, class X, int Block>
__global__ void __launch_bounds__(Block) complete_unroll_kernel(const X* __restrict__ in, Acc<X>* __restrict__ out,
                                                                std::size_t n) {
  using A = Acc<X>;
  A* s = shared_array<A>();
  const unsigned tid = threadIdx.x;
  s[tid] = load_pair<Op>(in, n);
  __syncthreads();
#pragma unroll
  for (int active = Block / 2; active > 32; active >>= 1) {
    if (tid < active) s[tid] = Op::combine(s[tid], s[tid + active]);
    __syncthreads();
  }
  if (tid < 32) {
    const A r = warp_reduce<Op>(Op::combine(s[tid], s[tid + 32]));
    if (tid == 0) out[blockIdx.x] = r;
  }
}

// v6: several elements per thread (Batch, block-strided so loads coalesce) with
// the grid shrunk to match, then the v4 block step.
template <class Op, class X, int Batch>
__global__ void multi_per_thread_kernel(const X* __restrict__ in, Acc<X>* __restrict__ out, std::size_t n) {
  using A = Acc<X>;
  const std::size_t base = blockIdx.x * (std::size_t{blockDim.x} * Batch) + threadIdx.x;
  A acc = Op::template identity<A>();
#pragma unroll
  for (int j = 0; j < Batch; ++j) acc = Op::combine(acc, load_or_identity<Op>(in, base + std::size_t(j) * blockDim.x, n));
  const A r = block_tree_syncwarp<Op>(acc);
  if (threadIdx.x == 0) out[blockIdx.x] = r;
}

// v7: v6's loads with a two-level warp-shuffle block reduce (one __syncthreads;
// PyTorch's BlockReduceSum, PMPP's warp-shuffle kernel).
template <class Op, class X, int Batch>
__global__ void warp_shuffle_block_kernel(const X* __restrict__ in, Acc<X>* __restrict__ out, std::size_t n) {
  using A = Acc<X>;
  const std::size_t base = blockIdx.x * (std::size_t{blockDim.x} * Batch) + threadIdx.x;
  A acc = Op::template identity<A>();
#pragma unroll
  for (int j = 0; j < Batch; ++j) acc = Op::combine(acc, load_or_identity<Op>(in, base + std::size_t(j) * blockDim.x, n));
  const A r = block_reduce_shfl<Op>(acc);
  if (threadIdx.x == 0) out[blockIdx.x] = r;
}

// v8: v7 with 16-byte loads and a grid of (SMs x resident blocks) striding over
// the input. Handles a misaligned start (the head before the first 16-byte
// boundary) and the tail element by element.
template <class Op, class X>
__global__ void vec16_sm_grid_kernel(const X* __restrict__ in, Acc<X>* __restrict__ out, std::size_t n) {
  using A = Acc<X>;
  A acc = Op::template identity<A>();
  for_each_vec16(
      in, n, [&](std::size_t i) { acc = Op::combine(acc, to_acc<X>(in[i])); },
      [&](std::size_t i) { acc = Vec16<X>::template load_combine<Op>(in + i, acc); });
  const A r = block_reduce_shfl<Op>(acc);
  if (threadIdx.x == 0) out[blockIdx.x] = r;
}

// ---- launchers ---------------------------------------------------------------
#define BENCH_MULTI_PASS_VARIANT(Name, PerThread, kernel)                                   \
  struct Name : MultiPass<PerThread> {                                                      \
    template <class Op, class In>                                                           \
    static void launch(const Args<Op, In>& a) {                                             \
      run(a, kernel<Op, In>, kernel<Op, Acc<In>>, #kernel);                                 \
    }                                                                                       \
  }

BENCH_MULTI_PASS_VARIANT(InterleavedMod, 1, interleaved_mod_kernel);
BENCH_MULTI_PASS_VARIANT(InterleavedStrided, 1, interleaved_strided_kernel);
BENCH_MULTI_PASS_VARIANT(InterleavedBitmask, 1, interleaved_bitmask_kernel);
BENCH_MULTI_PASS_VARIANT(SequentialAddressing, 1, sequential_addressing_kernel);
BENCH_MULTI_PASS_VARIANT(FirstAddOnLoad, 2, first_add_on_load_kernel);
BENCH_MULTI_PASS_VARIANT(LastWarpSyncwarp, 2, last_warp_syncwarp_kernel);
BENCH_MULTI_PASS_VARIANT(LastWarpShfl, 2, last_warp_shfl_kernel);
#undef BENCH_MULTI_PASS_VARIANT

struct CompleteUnroll : MultiPass<2> {
  using Blocks = Compiled<64, 128, 256, 512, 1024>;
  template <class Op, class In>
  static void launch(const Args<Op, In>& a) {
    Blocks::dispatch(a.block, "block", [&](auto b) {
      constexpr int B = decltype(b)::value;
      run(a, complete_unroll_kernel<Op, In, B>, complete_unroll_kernel<Op, Acc<In>, B>, "complete_unroll_kernel");
    });
  }
};

struct MultiPerThread : MultiPass<0> {
  using Batches = Compiled<2, 4, 8, 16, 32>;
  template <class Op, class In>
  static void launch(const Args<Op, In>& a) {
    Batches::dispatch(a.batch, "batch", [&](auto b) {
      constexpr int B = decltype(b)::value;
      run(a, multi_per_thread_kernel<Op, In, B>, multi_per_thread_kernel<Op, Acc<In>, B>, "multi_per_thread_kernel");
    });
  }
};

struct WarpShuffleBlock : MultiPass<0> {
  using Batches = Compiled<1, 2, 4, 8, 16, 32>;
  template <class Op, class In>
  static void launch(const Args<Op, In>& a) {
    Batches::dispatch(a.batch, "batch", [&](auto b) {
      constexpr int B = decltype(b)::value;
      run(a, warp_shuffle_block_kernel<Op, In, B>, warp_shuffle_block_kernel<Op, Acc<In>, B>,
          "warp_shuffle_block_kernel");
    });
  }
};

struct Vec16SmGrid : KernelVariant {
  template <class Op, class In>
  static std::size_t workspace_bytes(const Args<Op, In>&) {
    return sm_grid_workspace<Acc<In>>();
  }
  template <class Op, class In>
  static void launch(const Args<Op, In>& a) {
    using A = Acc<In>;
    const auto first = vec16_sm_grid_kernel<Op, In>;
    sm_grid_two_pass(
        a, first, ceil_div(a.n, std::size_t(a.block) * Vec16<In>::count),
        [&](unsigned grid, A* out) {
          first<<<grid, a.block, 0, a.stream>>>(a.in, out, a.n);
          BENCH_CHECK_LAUNCH("vec16_sm_grid_kernel");
        },
        [&](const A* partials, unsigned count) {
          vec16_sm_grid_kernel<Op, A><<<1, a.block, 0, a.stream>>>(partials, a.out, count);
          BENCH_CHECK_LAUNCH("vec16_sm_grid_kernel");
        });
  }
};

}  // namespace

BENCH_DECLARE(ReduceSum, InterleavedMod, SumTypes, "interleaved_mod",
              "Harris v0 / PMPP naive: interleaved addressing with %, divergent warps; multi-pass",
              block_axis(), {});
BENCH_DECLARE(ReduceSum, InterleavedStrided, SumTypes, "interleaved_strided",
              "Harris v1: strided index, no divergence but bank conflicts; multi-pass", block_axis(), {});
BENCH_DECLARE(ReduceSum, InterleavedBitmask, SumTypes, "interleaved_bitmask",
              "Harris v1.5: v0 with the % replaced by a bit mask; multi-pass", block_axis(), {});
BENCH_DECLARE(ReduceSum, SequentialAddressing, SumTypes, "sequential_addressing",
              "Harris v2 / PMPP convergent: sequential addressing, conflict-free; multi-pass", block_axis(), {});
BENCH_DECLARE(ReduceMax, SequentialAddressing, SumTypes, "sequential_addressing",
              "naive max: Harris v2 block tree with max; multi-pass", block_axis(), {});
BENCH_DECLARE(ReduceMin, SequentialAddressing, SumTypes, "sequential_addressing",
              "naive min: Harris v2 block tree with min; multi-pass", block_axis(), {});
BENCH_DECLARE(ReduceSum, FirstAddOnLoad, SumTypes, "first_add_on_load",
              "Harris v3 / PMPP: first add during the global load, half the blocks; multi-pass", block_axis(), {});
BENCH_DECLARE(ReduceSum, LastWarpSyncwarp, SumTypes, "last_warp_syncwarp",
              "Harris v4 (sm_70+-correct) / PMPP warp unroll: last warp under __syncwarp, value in a register; multi-pass",
              block_axis(), {});
BENCH_DECLARE(ReduceSum, LastWarpShfl, SumTypes, "last_warp_shfl",
              "Harris v4.2: last warp by __shfl_down_sync; multi-pass", block_axis(), {});
BENCH_DECLARE(ReduceSum, CompleteUnroll, SumTypes, "complete_unroll",
              "Harris v5 / PMPP complete unroll: block size as a template parameter; multi-pass",
              axis<CompleteUnroll::Blocks, 256>(), {});
BENCH_DECLARE(ReduceSum, MultiPerThread, SumTypes, "multi_per_thread",
              "Harris v6: `batch` block-strided elements per thread, grid shrunk to match; multi-pass",
              block_axis(), axis<MultiPerThread::Batches, 8>());
BENCH_DECLARE(ReduceSum, WarpShuffleBlock, SumTypes, "warp_shuffle_block",
              "Harris v7 / PMPP warp shuffle + multi-level: two-level shuffle block reduce, one __syncthreads",
              block_axis(), axis<WarpShuffleBlock::Batches, 8>());
BENCH_DECLARE(ReduceSum, Vec16SmGrid, AllSumTypes, "vec16_sm_grid",
              "Harris v8: 16-byte loads, grid = SMs x resident blocks, shuffle block reduce; any alignment (head/tail scalar)",
              block_axis(), {});
BENCH_DECLARE(ReduceMax, Vec16SmGrid, SumTypes, "vec16_sm_grid",
              "tuned max: Harris v8 structure (16-byte loads, SM-sized grid, shuffles); any alignment", block_axis(), {});
BENCH_DECLARE(ReduceMin, Vec16SmGrid, SumTypes, "vec16_sm_grid",
              "tuned min: Harris v8 structure (16-byte loads, SM-sized grid, shuffles); any alignment", block_axis(), {});

}  // namespace bench::reduce
