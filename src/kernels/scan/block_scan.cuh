// The block-level step both hand-written scans share. A tile of Block x Items
// elements is loaded coalesced (consecutive threads read consecutive elements)
// into shared memory and read back as Items consecutive elements per thread;
// scanned in registers (sequentially within a thread, warp shuffles across a
// warp's threads, the warp totals through shared memory); and stored back the
// same way. Every global access is one element, so any alignment of the input
// and the output works.
#pragma once

#include <cstddef>

#include "common/axes.hpp"
#include "families/contract.cuh"

namespace bench::scan {

// The tile shapes both scans are compiled for: a tile is block x batch
// (items per thread) elements.
struct TiledScan : KernelVariant {
  using Blocks = Compiled<128, 256, 512>;
  using Batches = Compiled<4, 8, 16>;
  // Calls f(block, items), both std::integral_constant, for a.block and a.batch.
  template <class A, class F>
  static void dispatch_tile(const A& a, F&& f) {
    Blocks::dispatch(a.block, "block", [&](auto b) { Batches::dispatch(a.batch, "batch", [&](auto k) { f(b, k); }); });
  }
};

// Exclusive scan of one value per thread across the block, in thread order:
// returns the sum of the values of the threads before this one, and the
// block's total in `total`. warp_totals: Block / 32 elements of shared memory.
template <class T, int Block>
__device__ T block_exclusive_scan(T v, T& total, T* warp_totals) {
  static_assert(Block % 32 == 0 && Block <= 1024, "whole warps");
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  T inclusive = v;
#pragma unroll
  for (int d = 1; d < 32; d *= 2) {
    const T y = __shfl_up_sync(0xFFFFFFFFu, inclusive, d);
    if (lane >= d) inclusive = y + inclusive;
  }
  T exclusive = __shfl_up_sync(0xFFFFFFFFu, inclusive, 1);
  if (lane == 0) exclusive = T(0);
  if (lane == 31) warp_totals[warp] = inclusive;
  __syncthreads();
  T before = T(0);
  total = T(0);
#pragma unroll
  for (int w = 0; w < Block / 32; ++w) {
    const T t = warp_totals[w];
    if (w < warp) before = before + t;
    total = total + t;
  }
  __syncthreads();  // warp_totals may be written again
  return before + exclusive;
}

template <class T, int Block, int Items>
struct TileScan {
  static constexpr int kTile = Block * Items;

  // The tile with one element of padding every 32, so that the blocked reads
  // (thread t reads t * Items + k) fall in 32 different banks for Items = 4,
  // 8 or 16, as do the striped ones.
  struct Storage {
    T tile[kTile + kTile / 32];
    T warp_totals[Block / 32];
  };

  __device__ static int padded(int i) { return i + i / 32; }

  // x = this thread's Items consecutive elements of in[0 .. valid), valid <=
  // kTile; elements past `valid` are 0.
  __device__ static void load(const T* __restrict__ in, int valid, T (&x)[Items], Storage& s) {
#pragma unroll
    for (int j = 0; j < Items; ++j) {
      const int i = j * Block + static_cast<int>(threadIdx.x);
      s.tile[padded(i)] = i < valid ? in[i] : T(0);
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < Items; ++k) x[k] = s.tile[padded(static_cast<int>(threadIdx.x) * Items + k)];
    __syncthreads();  // the tile may be written again
  }

  // Inclusive scan of the tile in place; returns the tile's total.
  __device__ static T scan(T (&x)[Items], Storage& s) {
#pragma unroll
    for (int k = 1; k < Items; ++k) x[k] = x[k - 1] + x[k];
    T total;
    const T before = block_exclusive_scan<T, Block>(x[Items - 1], total, s.warp_totals);
#pragma unroll
    for (int k = 0; k < Items; ++k) x[k] = before + x[k];
    return total;
  }

  // out[0 .. valid) = prefix + x, coalesced.
  __device__ static void store(T* __restrict__ out, int valid, const T (&x)[Items], T prefix, Storage& s) {
#pragma unroll
    for (int k = 0; k < Items; ++k) s.tile[padded(static_cast<int>(threadIdx.x) * Items + k)] = prefix + x[k];
    __syncthreads();
#pragma unroll
    for (int j = 0; j < Items; ++j) {
      const int i = j * Block + static_cast<int>(threadIdx.x);
      if (i < valid) out[i] = s.tile[padded(i)];
    }
    __syncthreads();  // the tile may be written again
  }
};

}  // namespace bench::scan
