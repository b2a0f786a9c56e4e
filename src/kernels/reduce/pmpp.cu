// PMPP chapter 10 kernels not already in the Harris ladder (naive, convergent,
// first add, complete unroll, warp shuffle and multi-level are there, with
// their PMPP lineage noted): the grid-stride load, and the atomic final
// combine; plus the library building block the chapter ends with,
// cub::BlockReduce, inside a hand-written kernel.
#include <cub/block/block_reduce.cuh>

#include "kernels/reduce/common.cuh"

namespace bench::reduce {
namespace {

// Grid-stride load: a grid of ceil(n / (block * batch)) blocks strides over the
// whole input, so each thread combines about `batch` elements spread n/batch apart.
template <class Op, class X>
__device__ Acc<X> grid_stride_load(const X* __restrict__ in, std::size_t n) {
  Acc<X> acc = Op::template identity<Acc<X>>();
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
#pragma unroll 4
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += stride)
    acc = Op::combine(acc, to_acc<X>(in[i]));
  return acc;
}

// PMPP grid-stride kernel: grid-stride load, shared-memory tree; multi-level.
template <class Op, class X>
__global__ void grid_stride_tree_kernel(const X* __restrict__ in, Acc<X>* __restrict__ out, std::size_t n) {
  const auto r = block_tree<Op>(grid_stride_load<Op>(in, n));
  if (threadIdx.x == 0) out[blockIdx.x] = r;
}

// PMPP atomic final combine: grid-stride load, shuffle block reduce, one atomicAdd
// per block instead of a second launch.
template <class T>
__global__ void warp_shuffle_atomic_kernel(const T* __restrict__ in, T* __restrict__ out, std::size_t n) {
  const T r = block_reduce_shfl<Sum>(grid_stride_load<Sum>(in, n));
  if (threadIdx.x == 0) atomicAdd(out, r);
}

// cub::BlockReduce as the block step of a hand-written kernel: Batch
// block-strided elements per thread, then BlockReduce::Sum, one atomicAdd.
template <class T, int Block, int Batch>
__global__ void __launch_bounds__(Block) block_reduce_cub_kernel(const T* __restrict__ in, T* __restrict__ out,
                                                                 std::size_t n) {
  using BlockReduce = cub::BlockReduce<T, Block>;
  __shared__ typename BlockReduce::TempStorage temp;
  const std::size_t base = blockIdx.x * (std::size_t{Block} * Batch) + threadIdx.x;
  T sum = 0;
#pragma unroll
  for (int j = 0; j < Batch; ++j) {
    const std::size_t i = base + std::size_t(j) * Block;
    if (i < n) sum += in[i];
  }
  sum = BlockReduce(temp).Sum(sum);
  if (threadIdx.x == 0) atomicAdd(out, sum);
}

struct GridStrideTree : MultiPass<0> {
  template <class Op, class In>
  static void launch(const Args<Op, In>& a) {
    run(a, grid_stride_tree_kernel<Op, In>, grid_stride_tree_kernel<Op, Acc<In>>, "grid_stride_tree_kernel");
  }
};

struct WarpShuffleAtomic : KernelVariant {
  template <class Op, class In>
  static void launch(const Args<Op, In>& a) {
    zero_result(a);
    warp_shuffle_atomic_kernel<In>
        <<<grid_for(a.n, std::size_t(a.block) * a.batch), a.block, 0, a.stream>>>(a.in, a.out, a.n);
    BENCH_CHECK_LAUNCH("warp_shuffle_atomic_kernel");
  }
};

struct BlockReduceCub : KernelVariant {
  using Blocks = Compiled<128, 256, 512, 1024>;
  using Batches = Compiled<1, 4, 8, 16>;
  template <class Op, class In>
  static void launch(const Args<Op, In>& a) {
    zero_result(a);
    Blocks::dispatch(a.block, "block", [&](auto bl) {
      constexpr int Block = decltype(bl)::value;
      Batches::dispatch(a.batch, "batch", [&](auto ba) {
        constexpr int Batch = decltype(ba)::value;
        block_reduce_cub_kernel<In, Block, Batch>
            <<<grid_for(a.n, std::size_t(Block) * Batch), Block, 0, a.stream>>>(a.in, a.out, a.n);
        BENCH_CHECK_LAUNCH("block_reduce_cub_kernel");
      });
    });
  }
};

}  // namespace

BENCH_DECLARE(ReduceSum, GridStrideTree, SumTypes, "grid_stride_tree",
              "PMPP grid-stride load: about `batch` elements per thread a grid apart, block tree; multi-level",
              block_axis(), batch_axis({8}, {1, 2, 4, 8, 16, 32}));
BENCH_DECLARE(ReduceSum, WarpShuffleAtomic, SumTypes, "warp_shuffle_atomic",
              "PMPP atomic final combine: grid-stride load, shuffle block reduce, one atomicAdd per block",
              block_axis(), batch_axis({8}, {1, 2, 4, 8, 16, 32}));
BENCH_DECLARE(ReduceSum, BlockReduceCub, SumTypes, "block_reduce_cub",
              "library building block: cub::BlockReduce as the block step, `batch` elements per thread, atomicAdd",
              axis<BlockReduceCub::Blocks, 256>(), axis<BlockReduceCub::Batches, 8>());

}  // namespace bench::reduce
