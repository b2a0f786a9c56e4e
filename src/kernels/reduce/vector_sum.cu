// "Making vector sum really fast" (H100, N = 2^30 int32): kernels 0-4, from a
// two-pass block tree to a batched one-pass atomic reduction with 16-byte loads,
// and the write-up's later warp-intrinsic versions (__shfl_down_sync,
// __reduce_add_sync). Unlike the write-up, every kernel handles any N (tails are
// guarded) and the warp stage is race-free on sm_70+.
#include "kernels/reduce/common.cuh"

namespace bench::reduce {
namespace {

template <class T>
__device__ T grid_stride_sum(const T* __restrict__ in, std::size_t n) {
  T sum = 0;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
    sum += in[i];
  return sum;
}

// Kernel 0: grid-stride load, shared-memory block tree, one partial per block.
template <class T>
__global__ void two_pass_tree_kernel(const T* __restrict__ in, T* __restrict__ out, std::size_t n) {
  const T sum = block_tree<Sum>(grid_stride_sum(in, n));
  if (threadIdx.x == 0) out[blockIdx.x] = sum;
}

// Kernel 1: kernel 0 with the last warp's levels under __syncwarp.
template <class T>
__global__ void two_pass_syncwarp_kernel(const T* __restrict__ in, T* __restrict__ out, std::size_t n) {
  const T sum = block_tree_syncwarp<Sum>(grid_stride_sum(in, n));
  if (threadIdx.x == 0) out[blockIdx.x] = sum;
}

// Kernel 2: one element per thread, block tree, one atomicAdd per block.
template <class T>
__global__ void one_pass_atomic_kernel(const T* __restrict__ in, T* __restrict__ out, std::size_t n) {
  const std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  const T sum = block_tree_syncwarp<Sum>(i < n ? in[i] : T(0));
  if (threadIdx.x == 0) atomicAdd(out, sum);
}

// Kernel 3's load: each thread sums Batch consecutive elements (unrolled, so the
// loads are in flight together). Kernel 4's: the same with 16-byte loads.
template <class T, int Batch, bool Vector>
__device__ T batch_sum(const T* __restrict__ in, std::size_t n) {
  const std::size_t base = (blockIdx.x * std::size_t{blockDim.x} + threadIdx.x) * Batch;
  T sum = 0;
  if (base + Batch <= n) {
    if constexpr (Vector) {
      static_assert(Batch % Vec16<T>::count == 0, "16-byte loads take whole vectors");
#pragma unroll
      for (int j = 0; j < Batch; j += Vec16<T>::count) sum = Vec16<T>::template load_combine<Sum>(in + base + j, sum);
    } else {
#pragma unroll
      for (int j = 0; j < Batch; ++j) sum += in[base + j];
    }
  } else {
    for (std::size_t i = base; i < n; ++i) sum += in[i];  // the partial chunk at the tail
  }
  return sum;
}

enum class BlockStep { tree_syncwarp, shfl, reduce_add_sync };

// Kernels 3 and 4 and their warp-intrinsic successors: batch load, block step,
// one atomicAdd per block.
template <class T, int Batch, bool Vector, BlockStep Step>
__global__ void batched_kernel(const T* __restrict__ in, T* __restrict__ out, std::size_t n) {
  T sum = batch_sum<T, Batch, Vector>(in, n);
  if constexpr (Step == BlockStep::tree_syncwarp) {
    sum = block_tree_syncwarp<Sum>(sum);
  } else if constexpr (Step == BlockStep::shfl) {
    sum = block_reduce_shfl<Sum>(sum);
  } else {
    // __reduce_add_sync: one instruction per warp level (sm_80+, integers only).
    __shared__ T warp_sums[32];
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    sum = __reduce_add_sync(0xFFFFFFFFu, sum);
    if (lane == 0) warp_sums[warp] = sum;
    __syncthreads();
    if (warp == 0) sum = __reduce_add_sync(0xFFFFFFFFu, lane < blockDim.x / 32 ? warp_sums[lane] : T(0));
  }
  if (threadIdx.x == 0) atomicAdd(out, sum);
}

// Two-pass driver (kernels 0, 1): ceil(n / block) blocks into partials, then one
// block of the same kernel over the partials.
struct TwoPass : KernelVariant {
  template <class Op, class In>
  static std::size_t workspace_bytes(const Args<Op, In>& a) {
    return ceil_div(a.n, a.block) * sizeof(In);
  }
  template <class In>
  static ExtraTraffic extra_traffic(const Point& p) {
    return partials_traffic(std::max<std::size_t>(1, ceil_div(p.n, p.block)), sizeof(In));  // grid_for's count
  }
  template <class In, class Kernel>
  static void run(const Args<Sum, In>& a, Kernel kernel, const char* name) {
    const unsigned grid = grid_for(a.n, a.block);
    In* partials = static_cast<In*>(a.workspace);
    kernel<<<grid, a.block, a.block * sizeof(In), a.stream>>>(a.in, partials, a.n);
    cuda_check(cudaGetLastError(), name, __FILE__, __LINE__);
    kernel<<<1, a.block, a.block * sizeof(In), a.stream>>>(partials, a.out, grid);
    cuda_check(cudaGetLastError(), name, __FILE__, __LINE__);
  }
};

struct TwoPassTree : TwoPass {
  template <class Op, class In>
  static void launch(const Args<Op, In>& a) { run(a, two_pass_tree_kernel<In>, "two_pass_tree_kernel"); }
};

struct TwoPassSyncwarp : TwoPass {
  template <class Op, class In>
  static void launch(const Args<Op, In>& a) { run(a, two_pass_syncwarp_kernel<In>, "two_pass_syncwarp_kernel"); }
};

struct OnePassAtomic : KernelVariant {
  template <class Op, class In>
  static void launch(const Args<Op, In>& a) {
    zero_result(a);
    one_pass_atomic_kernel<In><<<grid_for(a.n, a.block), a.block, a.block * sizeof(In), a.stream>>>(a.in, a.out, a.n);
    BENCH_CHECK_LAUNCH("one_pass_atomic_kernel");
  }
};

// Batched one-pass variants; Vector ones need a 16-byte aligned input (they
// refuse others) and a batch that is a whole number of vectors.
template <bool Vector, BlockStep Step>
struct Batched : KernelVariant {
  using Batches = std::conditional_t<Vector, Compiled<4, 8, 16, 32, 64>, Compiled<1, 2, 4, 8, 16, 32, 64>>;
  template <class Op, class In>
  static void launch(const Args<Op, In>& a) {
    if (Vector && !aligned16(a.in)) throw Unsupported("16-byte loads need a 16-byte aligned input");
    auto go = [&](auto b) {
      constexpr int B = decltype(b)::value;
      const std::size_t smem = Step == BlockStep::tree_syncwarp ? a.block * sizeof(In) : 0;
      batched_kernel<In, B, Vector, Step>
          <<<grid_for(a.n, std::size_t(a.block) * B), a.block, smem, a.stream>>>(a.in, a.out, a.n);
      BENCH_CHECK_LAUNCH("batched_kernel");
    };
    for (int r = 0; r < kRepeats; ++r) {
      zero_result(a);
      Batches::dispatch(a.batch, "batch", go);
    }
#ifdef CUDABENCH_PLANTED_SLOWDOWN_PERCENT
    // Test-only build option: batched_vec16_shfl re-reads the first P% of its
    // input into a scratch result (its own result stays right), so that the
    // gate's sensitivity to a small real slowdown can be shown.
    if constexpr (Vector && Step == BlockStep::shfl) {
      static In* scratch = nullptr;  // made in the verification call, before any timed one
      if (!scratch) BENCH_CUDA_CHECK(cudaMalloc(&scratch, sizeof(In)));
      const std::size_t extra = a.n * CUDABENCH_PLANTED_SLOWDOWN_PERCENT / 100 / 16 * 16;
      auto again = [&](auto b) {
        constexpr int B = decltype(b)::value;
        batched_kernel<In, B, Vector, Step>
            <<<grid_for(extra, std::size_t(a.block) * B), a.block, 0, a.stream>>>(a.in, scratch, extra);
        BENCH_CHECK_LAUNCH("batched_kernel (planted slowdown)");
      };
      if (extra > 0) Batches::dispatch(a.batch, "batch", again);
    }
#endif
  }
#ifdef CUDABENCH_PLANTED_SLOWDOWN
  // Test-only build option: batched_vec16_shfl does all its work twice (still a
  // correct result), so that the regression gate can be shown to catch it.
  static constexpr int kRepeats = (Vector && Step == BlockStep::shfl) ? 2 : 1;
#else
  static constexpr int kRepeats = 1;
#endif
};

}  // namespace

using BatchedAtomic = Batched<false, BlockStep::tree_syncwarp>;
using BatchedVec16 = Batched<true, BlockStep::tree_syncwarp>;
using BatchedShfl = Batched<false, BlockStep::shfl>;
using BatchedVec16Shfl = Batched<true, BlockStep::shfl>;
using BatchedReduceAddSync = Batched<false, BlockStep::reduce_add_sync>;
using BatchedVec16ReduceAddSync = Batched<true, BlockStep::reduce_add_sync>;

BENCH_DECLARE(ReduceSum, TwoPassTree, SumTypes, "two_pass_tree",
              "vector-sum kernel 0: grid-stride load, block tree, second pass of one block", block_axis(), {});
BENCH_DECLARE(ReduceSum, TwoPassSyncwarp, SumTypes, "two_pass_syncwarp",
              "vector-sum kernel 1: kernel 0 with the last warp unrolled under __syncwarp", block_axis(), {});
BENCH_DECLARE(ReduceSum, OnePassAtomic, SumTypes, "one_pass_atomic",
              "vector-sum kernel 2: one element per thread, one atomicAdd per block", block_axis(), {});
BENCH_DECLARE(ReduceSum, BatchedAtomic, SumTypes, "batched_atomic",
              "vector-sum kernel 3: `batch` consecutive elements per thread, one atomicAdd per block",
              block_axis(), axis<BatchedAtomic::Batches, 16>());
BENCH_DECLARE(ReduceSum, BatchedVec16, SumTypes, "batched_vec16",
              "vector-sum kernel 4: kernel 3 with 16-byte int4/float4 loads; refuses a misaligned input",
              block_axis(), axis<BatchedVec16::Batches, 16>());
BENCH_DECLARE(ReduceSum, BatchedShfl, SumTypes, "batched_shfl",
              "vector-sum, warp intrinsics: kernel 3 with a __shfl_down_sync block reduce", block_axis(),
              axis<BatchedShfl::Batches, 16>());
BENCH_DECLARE(ReduceSum, BatchedVec16Shfl, SumTypes, "batched_vec16_shfl",
              "vector-sum, warp intrinsics: kernel 4 with a __shfl_down_sync block reduce; refuses a misaligned input",
              block_axis(), axis<BatchedVec16Shfl::Batches, 16>());
BENCH_DECLARE(ReduceSum, BatchedReduceAddSync, IntOnly, "batched_reduce_add_sync",
              "vector-sum, warp intrinsics: kernel 3 with __reduce_add_sync (int only)", block_axis(),
              axis<BatchedReduceAddSync::Batches, 16>());
BENCH_DECLARE(ReduceSum, BatchedVec16ReduceAddSync, IntOnly, "batched_vec16_reduce_add_sync",
              "vector-sum, warp intrinsics: kernel 4 with __reduce_add_sync (int only); refuses a misaligned input",
              block_axis(), axis<BatchedVec16ReduceAddSync::Batches, 16>());

}  // namespace bench::reduce
