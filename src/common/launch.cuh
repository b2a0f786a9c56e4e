// Grid sizing and the launch patterns several families share: the SM-sized
// grid with its second pass, and the multi-pass reduction. A launcher here
// sizes and sequences the launches; the caller's lambdas or kernels do the work.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <map>
#include <string>
#include <type_traits>
#include <utility>

#include "harness/cuda_check.hpp"

namespace bench {

inline std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

// Blocks of `per_block` elements that cover n (at least one).
inline unsigned grid_for(std::size_t n, std::size_t per_block) {
  const std::size_t g = ceil_div(n, per_block);
  if (g > 0x7FFFFFFFu) throw Unsupported("grid of " + std::to_string(g) + " blocks exceeds 2^31-1");
  return static_cast<unsigned>(g == 0 ? 1 : g);
}

// The current device's SM count (asked once).
int sm_count();

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

// Room for one partial per resident block: 2048 threads / 64-thread blocks = 32
// blocks per SM at most.
constexpr int kMaxResidentPerSm = 32;

// ---- the SM-sized grid with its second pass (Harris v8) ----------------------
// The first pass runs min(SMs x resident blocks, blocks needed, partials that
// fit the workspace) blocks, each writing one partial; one block of the second
// pass then combines the partials into *a.out. A single block writes *a.out
// itself. `a` is a family's Args (block, out, workspace); the partials have the
// result's type.
//   first(grid, out):            launch the first pass on `grid` blocks into out
//   second(partials, count):     launch one block combining count partials into *a.out
template <class P>
std::size_t sm_grid_workspace() {
  return std::size_t(sm_count()) * kMaxResidentPerSm * sizeof(P);
}

template <class A, class Kernel, class First, class Second>
void sm_grid_two_pass(const A& a, Kernel first_kernel, std::size_t needed_blocks, First&& first, Second&& second) {
  using P = std::remove_pointer_t<decltype(a.out)>;
  const std::size_t resident =
      std::min<std::size_t>(std::size_t(sm_count()) * resident_blocks_per_sm(first_kernel, a.block, 0),
                            a.workspace_size / sizeof(P));  // never more partials than room
  const unsigned grid = static_cast<unsigned>(std::max<std::size_t>(1, std::min(resident, needed_blocks)));
  P* partials = static_cast<P*>(a.workspace);
  first(grid, grid == 1 ? a.out : partials);
  if (grid > 1) second(static_cast<const P*>(partials), grid);
}

// ---- multi-pass reduction (Harris; PMPP's multi-level reduction) -------------
// `first(in, out, n)` reduces each run of `per_block` inputs into
// out[blockIdx.x]; `next`, the same shape over partials, runs on them until one
// value is left, which lands in *a.out. Both launch with a.block threads and
// `smem` bytes of dynamic shared memory. Workspace: multi_pass_workspace bytes.
template <class P>
std::size_t multi_pass_workspace(std::size_t n, std::size_t per_block) {
  return 2 * ceil_div(n, per_block) * sizeof(P);
}

// Partials multi_pass writes (and the pass after reads back) for n inputs:
// one per block of every pass but the last.
inline std::size_t multi_pass_partials(std::size_t n, std::size_t per_block) {
  std::size_t partials = 0;
  for (std::size_t grid = ceil_div(n, per_block); grid > 1; grid = ceil_div(grid, per_block)) partials += grid;
  return partials;
}

template <class A, class First, class Next>
void multi_pass(const A& a, First first, Next next, std::size_t per_block, std::size_t smem, const char* name) {
  using P = std::remove_pointer_t<decltype(a.out)>;
  P* buffers[2] = {static_cast<P*>(a.workspace), static_cast<P*>(a.workspace) + ceil_div(a.n, per_block)};
  unsigned grid = grid_for(a.n, per_block);
  first<<<grid, a.block, smem, a.stream>>>(a.in, grid == 1 ? a.out : buffers[0], a.n);
  cuda_check(cudaGetLastError(), name, __FILE__, __LINE__);
  for (int pass = 1; grid > 1; ++pass) {
    const std::size_t count = grid;
    grid = grid_for(count, per_block);
    next<<<grid, a.block, smem, a.stream>>>(buffers[(pass - 1) & 1], grid == 1 ? a.out : buffers[pass & 1], count);
    cuda_check(cudaGetLastError(), name, __FILE__, __LINE__);
  }
}

}  // namespace bench
