// "Making vector sum really fast" (H100, N = 2^30 int32): kernels 0-4, from a
// two-pass block tree to a batched one-pass atomic reduction with 16-byte loads.
// Unlike the write-up, every kernel here handles any N (tails are guarded) and
// the warp stage is race-free on sm_70+.
#include <cstdint>

#include "kernels/reduce_sum/common.cuh"

namespace bench::reduce_sum {
namespace {

template <typename T> struct Vec16;
template <> struct Vec16<int> { using type = int4; };
template <> struct Vec16<float> { using type = float4; };

template <typename T>
__device__ T grid_stride_sum(const T* __restrict__ in, std::size_t n) {
  T sum = 0;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x)
    sum += in[i];
  return sum;
}

// Kernel 0: grid-stride load, shared-memory block tree, partial per block.
template <typename T>
__global__ void two_pass_tree_kernel(const T* __restrict__ in, T* __restrict__ out, std::size_t n) {
  const T sum = block_sum_tree(grid_stride_sum(in, n));
  if (threadIdx.x == 0) out[blockIdx.x] = sum;
}

// Kernel 1: as kernel 0, the last warp's levels synchronised with __syncwarp.
template <typename T>
__global__ void two_pass_syncwarp_kernel(const T* __restrict__ in, T* __restrict__ out, std::size_t n) {
  const T sum = block_sum_tree_syncwarp(grid_stride_sum(in, n));
  if (threadIdx.x == 0) out[blockIdx.x] = sum;
}

// Kernel 2: one element per thread, block tree, one atomicAdd per block.
template <typename T>
__global__ void one_pass_atomic_kernel(const T* __restrict__ in, T* __restrict__ out, std::size_t n) {
  const std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  const T sum = block_sum_tree_syncwarp(i < n ? in[i] : T(0));
  if (threadIdx.x == 0) atomicAdd(out, sum);
}

// Kernel 3: each thread sums Batch consecutive elements (unrolled, independent
// loads in flight), then block tree and one atomicAdd per block.
template <typename T, int Batch>
__global__ void batched_atomic_kernel(const T* __restrict__ in, T* __restrict__ out, std::size_t n) {
  const std::size_t base = (blockIdx.x * std::size_t{blockDim.x} + threadIdx.x) * Batch;
  T sum = 0;
  if (base + Batch <= n) {
#pragma unroll
    for (int j = 0; j < Batch; ++j) sum += in[base + j];
  } else {
    for (std::size_t i = base; i < n; ++i) sum += in[i];
  }
  sum = block_sum_tree_syncwarp(sum);
  if (threadIdx.x == 0) atomicAdd(out, sum);
}

// Kernel 4: as kernel 3 with 16-byte (int4/float4) loads; the partial chunk at
// the tail is read element by element.
template <typename T, int Batch>
__global__ void batched_vec16_kernel(const T* __restrict__ in, T* __restrict__ out, std::size_t n) {
  static_assert(Batch % 4 == 0, "16-byte loads take 4 elements at a time");
  using V = typename Vec16<T>::type;
  const std::size_t base = (blockIdx.x * std::size_t{blockDim.x} + threadIdx.x) * Batch;
  T sum = 0;
  if (base + Batch <= n) {
    const V* v = reinterpret_cast<const V*>(in + base);
#pragma unroll
    for (int j = 0; j < Batch / 4; ++j) {
      const V x = v[j];
      sum += (x.x + x.y) + (x.z + x.w);
    }
  } else {
    for (std::size_t i = base; i < n; ++i) sum += in[i];
  }
  sum = block_sum_tree_syncwarp(sum);
  if (threadIdx.x == 0) atomicAdd(out, sum);
}

struct TwoPassTree : TwoPass {
  template <typename T>
  static void launch(const Args<T>& a) { run(a, two_pass_tree_kernel<T>, "two_pass_tree_kernel"); }
};

struct TwoPassSyncwarp : TwoPass {
  template <typename T>
  static void launch(const Args<T>& a) { run(a, two_pass_syncwarp_kernel<T>, "two_pass_syncwarp_kernel"); }
};

struct OnePassAtomic : VariantBase {
  template <typename T>
  static void launch(const Args<T>& a) {
    zero_result(a);
    one_pass_atomic_kernel<T><<<grid_for(a.n, a.block), a.block, a.block * sizeof(T), a.stream>>>(a.in, a.out, a.n);
    BENCH_CHECK_LAUNCH("one_pass_atomic_kernel");
  }
};

struct BatchedAtomic : VariantBase {
  template <typename T>
  static void launch(const Args<T>& a) {
    zero_result(a);
    dispatch_batch<1, 2, 4, 8, 16, 32, 64>(a.batch, [&](auto b) {
      constexpr int B = decltype(b)::value;
      batched_atomic_kernel<T, B>
          <<<grid_for(a.n, std::size_t(a.block) * B), a.block, a.block * sizeof(T), a.stream>>>(a.in, a.out, a.n);
      BENCH_CHECK_LAUNCH("batched_atomic_kernel");
    });
  }
};

struct BatchedVec16 : VariantBase {
  template <typename T>
  static void launch(const Args<T>& a) {
    if (reinterpret_cast<std::uintptr_t>(a.in) % 16 != 0)
      throw Unsupported("batched_vec16 needs a 16-byte aligned input");
    zero_result(a);
    dispatch_batch<4, 8, 16, 32, 64>(a.batch, [&](auto b) {
      constexpr int B = decltype(b)::value;
      batched_vec16_kernel<T, B>
          <<<grid_for(a.n, std::size_t(a.block) * B), a.block, a.block * sizeof(T), a.stream>>>(a.in, a.out, a.n);
      BENCH_CHECK_LAUNCH("batched_vec16_kernel");
    });
  }
};

}  // namespace

BENCH_DECLARE_REDUCE_SUM(TwoPassTree, "two_pass_tree",
                         "vector-sum kernel 0: grid-stride load, block tree, second pass of one block",
                         block_axis(), {});
BENCH_DECLARE_REDUCE_SUM(TwoPassSyncwarp, "two_pass_syncwarp",
                         "vector-sum kernel 1: kernel 0 with the last warp unrolled under __syncwarp",
                         block_axis(), {});
BENCH_DECLARE_REDUCE_SUM(OnePassAtomic, "one_pass_atomic",
                         "vector-sum kernel 2: one element per thread, one atomicAdd per block",
                         block_axis(), {});
BENCH_DECLARE_REDUCE_SUM(BatchedAtomic, "batched_atomic",
                         "vector-sum kernel 3: `batch` consecutive elements per thread, one atomicAdd per block",
                         block_axis(), Axis{{16}, {1, 2, 4, 8, 16, 32, 64}});
BENCH_DECLARE_REDUCE_SUM(BatchedVec16, "batched_vec16",
                         "vector-sum kernel 4: kernel 3 with 16-byte int4/float4 loads; needs 16-byte aligned input",
                         block_axis(), Axis{{16}, {4, 8, 16, 32, 64}});

}  // namespace bench::reduce_sum
