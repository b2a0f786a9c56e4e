// Block- and warp-level reductions, generic over the operator (common/ops.cuh)
// and the value type: the building blocks every reduction-shaped kernel uses.
// blockDim.x is a power of two from 64 to 1024 for all of them.
#pragma once

namespace bench {

// Dynamic shared memory typed as T (launched with blockDim.x * sizeof(T) bytes).
template <class T>
__device__ T* shared_array() {
  extern __shared__ __align__(16) unsigned char bench_smem[];
  return reinterpret_cast<T*>(bench_smem);
}

// Block reduction by sequential addressing, a __syncthreads at every level
// (Harris #3). Needs blockDim.x * sizeof(T) bytes of dynamic shared memory.
// Result in thread 0.
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
// unroll is a data race there and is not used.
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

// __shfl_down_sync for any T: built-in types here; a composite type (argmax's
// value/index pair) overloads it in its own namespace, found by argument-
// dependent lookup.
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

}  // namespace bench
