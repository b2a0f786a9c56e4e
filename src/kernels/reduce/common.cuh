// What the hand-written sum/max/min reductions share beyond src/common: the
// multi-pass variant base and the zeroing of a result that atomics accumulate
// into. The step that distinguishes a variant stays in its own file.
#pragma once

#include "common/axes.hpp"
#include "common/block_reduce.cuh"
#include "common/launch.cuh"
#include "common/span.cuh"
#include "families/reduce.cuh"

namespace bench::reduce {

// Multi-pass variants (Harris; PMPP's multi-level reduction): `first` reduces
// each run of block * per_thread inputs, `next` (the same kernel on
// accumulator-typed partials) the partials, until one value is left.
// PerThread 0 means "the batch axis".
template <int PerThread>
struct MultiPass : KernelVariant {
  static std::size_t per_block(int block, int batch) { return std::size_t(block) * (PerThread ? PerThread : batch); }
  template <class Op, class In>
  static std::size_t workspace_bytes(const Args<Op, In>& a) {
    return multi_pass_workspace<Acc<In>>(a.n, per_block(a.block, a.batch));
  }
  template <class In>
  static ExtraTraffic extra_traffic(const Point& p) {
    return partials_traffic(multi_pass_partials(p.n, per_block(p.block, p.batch)), sizeof(Acc<In>));
  }
  template <class Op, class In, class First, class Next>
  static void run(const Args<Op, In>& a, First first, Next next, const char* name) {
    multi_pass(a, first, next, per_block(a.block, a.batch), a.block * sizeof(Acc<In>), name);
  }
};

// One-pass sums accumulate into a.out with atomicAdd; it is zeroed first, in the
// timed region (the zeroing is part of the algorithm's cost).
template <class Op, class In>
void zero_result(const Args<Op, In>& a) {
  BENCH_CUDA_CHECK(cudaMemsetAsync(a.out, 0, sizeof(Acc<In>), a.stream));
}

}  // namespace bench::reduce
