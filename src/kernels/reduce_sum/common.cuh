// Building blocks shared by the hand-written reduce_sum variants: block-level
// trees and the multi-pass / two-pass drivers. The step that distinguishes a
// variant stays in its own file.
#pragma once

#include "families/reduce_sum.cuh"

namespace bench::reduce_sum {

// Dynamic shared memory typed as T (launched with blockDim.x * sizeof(T) bytes).
template <typename T>
__device__ T* shared_array() {
  extern __shared__ __align__(16) unsigned char bench_smem[];
  return reinterpret_cast<T*>(bench_smem);
}

// Block sum by sequential addressing with a __syncthreads at every level
// (Harris's reduction #3 step). blockDim.x must be a power of two. Result in
// thread 0.
template <typename T>
__device__ T block_sum_tree(T v) {
  T* s = shared_array<T>();
  const unsigned tid = threadIdx.x;
  s[tid] = v;
  __syncthreads();
  for (unsigned active = blockDim.x / 2; active > 0; active >>= 1) {
    if (tid < active) s[tid] += s[tid + active];
    __syncthreads();
  }
  return s[0];
}

// As block_sum_tree, but the last six levels run in warp 0 without block
// barriers. Correct on sm_70+ (independent thread scheduling): each lane reads
// its partner into a register, __syncwarp, then writes, __syncwarp. The
// pre-Volta "volatile, no sync" unroll is a data race and is not used.
// blockDim.x must be a power of two >= 64.
template <typename T>
__device__ T block_sum_tree_syncwarp(T v) {
  T* s = shared_array<T>();
  const unsigned tid = threadIdx.x;
  s[tid] = v;
  __syncthreads();
  for (unsigned active = blockDim.x / 2; active > 32; active >>= 1) {
    if (tid < active) s[tid] += s[tid + active];
    __syncthreads();
  }
  T sum = s[tid];
  if (tid < 32) {
#pragma unroll
    for (unsigned active = 32; active > 0; active >>= 1) {
      sum += s[tid + active];
      __syncwarp();
      s[tid] = sum;
      __syncwarp();
    }
  }
  return sum;
}

inline std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

inline unsigned grid_for(std::size_t n, std::size_t per_block) {
  const std::size_t g = ceil_div(n, per_block);
  if (g > 0x7FFFFFFFu) throw Unsupported("grid of " + std::to_string(g) + " blocks exceeds 2^31-1");
  return static_cast<unsigned>(g);
}

// Multi-pass driver (Harris): `kernel(in, out, n)` reduces each run of
// block * per_thread consecutive inputs into out[blockIdx.x]; it is launched on
// the input, then on the partial sums, until one value is left, which lands in
// a.out. Workspace: two partial-sum buffers.
template <int PerThread>
struct MultiPass : VariantBase {
  template <typename T>
  static std::size_t workspace_bytes(std::size_t n, int block, int) {
    return 2 * ceil_div(n, std::size_t(block) * PerThread) * sizeof(T);
  }
  template <typename T, typename Kernel>
  static void run(const Args<T>& a, Kernel kernel, const char* name) {
    const std::size_t per_block = std::size_t(a.block) * PerThread;
    T* buffers[2] = {static_cast<T*>(a.workspace), static_cast<T*>(a.workspace) + ceil_div(a.n, per_block)};
    const T* src = a.in;
    std::size_t n = a.n;
    for (int pass = 0;; ++pass) {
      const unsigned grid = grid_for(n, per_block);
      T* dst = grid == 1 ? a.out : buffers[pass & 1];
      kernel<<<grid, a.block, a.block * sizeof(T), a.stream>>>(src, dst, n);
      cuda_check(cudaGetLastError(), name, __FILE__, __LINE__);
      if (grid == 1) break;
      src = dst;
      n = grid;
    }
  }
};

// Two-pass driver ("Making vector sum really fast", kernels 0 and 1): pass one
// launches ceil(n / block) blocks of a grid-stride kernel into per-block
// partials; pass two is one block of the same kernel over the partials.
struct TwoPass : VariantBase {
  template <typename T>
  static std::size_t workspace_bytes(std::size_t n, int block, int) {
    return ceil_div(n, block) * sizeof(T);
  }
  template <typename T, typename Kernel>
  static void run(const Args<T>& a, Kernel kernel, const char* name) {
    const unsigned grid = grid_for(a.n, a.block);
    T* partials = static_cast<T*>(a.workspace);
    kernel<<<grid, a.block, a.block * sizeof(T), a.stream>>>(a.in, partials, a.n);
    cuda_check(cudaGetLastError(), name, __FILE__, __LINE__);
    kernel<<<1, a.block, a.block * sizeof(T), a.stream>>>(partials, a.out, grid);
    cuda_check(cudaGetLastError(), name, __FILE__, __LINE__);
  }
};

// One-pass variants accumulate into a.out with atomicAdd; it is zeroed first,
// inside the timed region (the zeroing is part of the algorithm's cost).
template <typename T>
void zero_result(const Args<T>& a) {
  BENCH_CUDA_CHECK(cudaMemsetAsync(a.out, 0, sizeof(T), a.stream));
}

// Block sizes every hand-written block-tree variant supports.
inline Axis block_axis(std::vector<int> curated = {256}) {
  return Axis{std::move(curated), {64, 128, 256, 512, 1024}};
}

}  // namespace bench::reduce_sum

namespace bench::reduce_sum {

// Calls f(std::integral_constant<int, B>{}) for the compiled batch B == batch:
// items per thread are a template parameter so that their loads unroll.
template <int... Bs, typename F>
void dispatch_batch(int batch, F&& f) {
  const bool found = ((batch == Bs ? (f(std::integral_constant<int, Bs>{}), true) : false) || ...);
  if (!found) throw Unsupported("batch " + std::to_string(batch) + " is not compiled for this variant");
}

}  // namespace bench::reduce_sum
