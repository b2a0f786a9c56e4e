// Building blocks shared by the hand-written reductions: block-level trees and
// shuffles (generic over the operator), vector loads, and the multi-pass driver.
// The step that distinguishes a variant stays in its own file.
#pragma once

#include <cstdint>
#include <map>

#include "families/reduce.cuh"

namespace bench::reduce {

// Dynamic shared memory typed as T (launched with blockDim.x * sizeof(T) bytes).
template <class T>
__device__ T* shared_array() {
  extern __shared__ __align__(16) unsigned char bench_smem[];
  return reinterpret_cast<T*>(bench_smem);
}

// Block reduction by sequential addressing, a __syncthreads at every level
// (Harris #3). blockDim.x a power of two. Result in thread 0.
template <class Op, class T>
__device__ T block_tree(T v) {
  T* s = shared_array<T>();
  const unsigned tid = threadIdx.x;
  s[tid] = v;
  __syncthreads();
  for (unsigned active = blockDim.x / 2; active > 0; active >>= 1) {
    if (tid < active) s[tid] = Op::combine(s[tid], s[tid + active]);
    __syncthreads();
  }
  return s[0];
}

// As block_tree, the last six levels in warp 0 without block barriers. Correct
// on sm_70+ (independent thread scheduling): each lane reads its partner into a
// register, __syncwarp, writes, __syncwarp. The pre-Volta "volatile, no sync"
// unroll is a data race there and is not used. blockDim.x >= 64.
template <class Op, class T>
__device__ T block_tree_syncwarp(T v) {
  T* s = shared_array<T>();
  const unsigned tid = threadIdx.x;
  s[tid] = v;
  __syncthreads();
  for (unsigned active = blockDim.x / 2; active > 32; active >>= 1) {
    if (tid < active) s[tid] = Op::combine(s[tid], s[tid + active]);
    __syncthreads();
  }
  T acc = s[tid];
  if (tid < 32) {
#pragma unroll
    for (unsigned active = 32; active > 0; active >>= 1) {
      acc = Op::combine(acc, s[tid + active]);
      __syncwarp();
      s[tid] = acc;
      __syncwarp();
    }
  }
  return acc;
}

// __shfl_down_sync for any T: built-in types here; composite types (argmax's
// value/index pair) overload it next to their definition.
template <class T>
__device__ T shfl_down(T v, int offset) {
  return __shfl_down_sync(0xFFFFFFFFu, v, offset);
}

// Warp reduction by shuffles: lane 0 ends with the warp's result.
template <class Op, class T>
__device__ T warp_reduce(T v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) v = Op::combine(v, shfl_down(v, offset));
  return v;
}

// Two-level warp-shuffle block reduction, one __syncthreads (PyTorch's
// BlockReduceSum; Harris-ladder v7). Result in thread 0.
template <class Op, class T>
__device__ T block_reduce_shfl(T v) {
  __shared__ T warp_results[32];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  v = warp_reduce<Op>(v);
  if (lane == 0) warp_results[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < blockDim.x / 32 ? warp_results[lane] : Op::template identity<T>();
    v = warp_reduce<Op>(v);
  }
  return v;
}

// 16 bytes of In, converted to the accumulator and combined.
template <class In>
struct Vec16 {
  static constexpr int count = 16 / sizeof(In);
  template <class Op>
  __device__ static Acc<In> load_combine(const In* p, Acc<In> acc) {
    const uint4 raw = *reinterpret_cast<const uint4*>(p);
    const In* e = reinterpret_cast<const In*>(&raw);
#pragma unroll
    for (int j = 0; j < count; ++j) acc = Op::combine(acc, to_acc<In>(e[j]));
    return acc;
  }
};

inline bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

inline std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

inline unsigned grid_for(std::size_t n, std::size_t per_block) {
  const std::size_t g = ceil_div(n, per_block);
  if (g > 0x7FFFFFFFu) throw Unsupported("grid of " + std::to_string(g) + " blocks exceeds 2^31-1");
  return static_cast<unsigned>(g == 0 ? 1 : g);
}

// Blocks per SM the kernel can keep resident at this block size, asked once per
// (kernel, block) outside the timed launches that follow.
template <class Kernel>
int resident_blocks_per_sm(Kernel kernel, int block, std::size_t dynamic_smem) {
  static std::map<std::pair<const void*, int>, int> cache;
  const auto key = std::make_pair(reinterpret_cast<const void*>(kernel), block);
  auto it = cache.find(key);
  if (it == cache.end()) {
    int blocks = 0;
    BENCH_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, block, dynamic_smem));
    it = cache.emplace(key, blocks > 0 ? blocks : 1).first;
  }
  return it->second;
}

int sm_count();

// Room for one partial per resident block: 2048 threads / 64-thread blocks = 32
// blocks per SM at most; launchers also clamp their grid to the room they have.
constexpr int kMaxResidentPerSm = 32;

// Multi-pass driver (Harris; PMPP's multi-level reduction): `first(in, out, n)`
// reduces each run of block * per_thread inputs into out[blockIdx.x]; `next` (the
// same kernel on accumulator-typed partials) runs on the partials until one
// value is left, which lands in a.out. PerThread 0 means "the batch axis".
template <int PerThread>
struct MultiPass : VariantBase {
  static std::size_t per_block(int block, int batch) {
    return std::size_t(block) * (PerThread ? PerThread : batch);
  }
  template <class Op, class In>
  static std::size_t workspace_bytes(std::size_t n, int block, int batch) {
    return 2 * ceil_div(n, per_block(block, batch)) * sizeof(Acc<In>);
  }
  template <class Op, class In, class First, class Next>
  static void run(const Args<Op, In>& a, First first, Next next, const char* name) {
    using A = Acc<In>;
    const std::size_t pb = per_block(a.block, a.batch);
    A* buffers[2] = {static_cast<A*>(a.workspace), static_cast<A*>(a.workspace) + ceil_div(a.n, pb)};
    const std::size_t smem = a.block * sizeof(A);
    unsigned grid = grid_for(a.n, pb);
    first<<<grid, a.block, smem, a.stream>>>(a.in, grid == 1 ? a.out : buffers[0], a.n);
    cuda_check(cudaGetLastError(), name, __FILE__, __LINE__);
    for (int pass = 1; grid > 1; ++pass) {
      const A* src = buffers[(pass - 1) & 1];
      const std::size_t n = grid;
      grid = grid_for(n, pb);
      next<<<grid, a.block, smem, a.stream>>>(src, grid == 1 ? a.out : buffers[pass & 1], n);
      cuda_check(cudaGetLastError(), name, __FILE__, __LINE__);
    }
  }
};

// One-pass sums accumulate into a.out with atomicAdd; it is zeroed first, in the
// timed region (the zeroing is part of the algorithm's cost).
template <class Op, class In>
void zero_result(const Args<Op, In>& a) {
  BENCH_CUDA_CHECK(cudaMemsetAsync(a.out, 0, sizeof(Acc<In>), a.stream));
}

// Calls f(std::integral_constant<int, B>{}) for the compiled B == value:
// block sizes and items per thread as template parameters unroll their loops.
template <int... Bs, typename F>
void dispatch(int value, const char* what, F&& f) {
  const bool found = ((value == Bs ? (f(std::integral_constant<int, Bs>{}), true) : false) || ...);
  if (!found) throw Unsupported(std::string(what) + " " + std::to_string(value) + " is not compiled for this variant");
}

// Block sizes every hand-written block-level variant supports.
inline Axis block_axis(std::vector<int> curated = {256}) { return Axis{std::move(curated), {64, 128, 256, 512, 1024}}; }
inline Axis batch_axis(std::vector<int> curated, std::vector<int> full) { return Axis{std::move(curated), std::move(full)}; }

}  // namespace bench::reduce
