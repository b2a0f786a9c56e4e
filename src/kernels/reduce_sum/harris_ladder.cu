// Mark Harris, "Optimizing Parallel Reduction in CUDA": the first three steps of
// the ladder, each a shared-memory block tree run in multiple passes
// (MultiPass). Later steps (first add on load, unrolls, shuffles) build on these.
#include "kernels/reduce_sum/common.cuh"

namespace bench::reduce_sum {
namespace {

template <typename T>
__device__ T load_or_zero(const T* in, std::size_t i, std::size_t n) {
  return i < n ? in[i] : T(0);
}

// #1 interleaved addressing with %: highly divergent warps (Harris v0; PMPP's
// naive adjacent-pair kernel).
template <typename T>
__global__ void interleaved_mod_kernel(const T* __restrict__ in, T* __restrict__ out, std::size_t n) {
  T* s = shared_array<T>();
  const unsigned tid = threadIdx.x;
  s[tid] = load_or_zero(in, blockIdx.x * std::size_t{blockDim.x} + tid, n);
  __syncthreads();
  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    if (tid % (2 * stride) == 0) s[tid] += s[tid + stride];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

// #2 interleaved addressing, strided index: no divergence, but shared-memory
// bank conflicts (Harris v1).
template <typename T>
__global__ void interleaved_strided_kernel(const T* __restrict__ in, T* __restrict__ out, std::size_t n) {
  T* s = shared_array<T>();
  const unsigned tid = threadIdx.x;
  s[tid] = load_or_zero(in, blockIdx.x * std::size_t{blockDim.x} + tid, n);
  __syncthreads();
  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    const unsigned index = 2 * stride * tid;
    if (index < blockDim.x) s[index] += s[index + stride];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

// #3 sequential addressing: contiguous active threads, conflict-free (Harris v2;
// PMPP's convergent kernel).
template <typename T>
__global__ void sequential_addressing_kernel(const T* __restrict__ in, T* __restrict__ out, std::size_t n) {
  const T sum = block_sum_tree(load_or_zero(in, blockIdx.x * std::size_t{blockDim.x} + threadIdx.x, n));
  if (threadIdx.x == 0) out[blockIdx.x] = sum;
}

struct InterleavedMod : MultiPass<1> {
  template <typename T>
  static void launch(const Args<T>& a) { run(a, interleaved_mod_kernel<T>, "interleaved_mod_kernel"); }
};
struct InterleavedStrided : MultiPass<1> {
  template <typename T>
  static void launch(const Args<T>& a) { run(a, interleaved_strided_kernel<T>, "interleaved_strided_kernel"); }
};
struct SequentialAddressing : MultiPass<1> {
  template <typename T>
  static void launch(const Args<T>& a) { run(a, sequential_addressing_kernel<T>, "sequential_addressing_kernel"); }
};

}  // namespace

BENCH_DECLARE_REDUCE_SUM(InterleavedMod, "interleaved_mod",
                         "Harris #1 (v0) / PMPP naive: interleaved addressing with %, divergent warps; multi-pass",
                         block_axis(), {});
BENCH_DECLARE_REDUCE_SUM(InterleavedStrided, "interleaved_strided",
                         "Harris #2 (v1): strided index, no divergence but bank conflicts; multi-pass",
                         block_axis(), {});
BENCH_DECLARE_REDUCE_SUM(SequentialAddressing, "sequential_addressing",
                         "Harris #3 (v2) / PMPP convergent: sequential addressing, conflict-free; multi-pass",
                         block_axis(), {});

}  // namespace bench::reduce_sum
