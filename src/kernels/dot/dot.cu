// Dot product (PMPP chapter 10's dotProduct): a reduction whose load multiplies
// two inputs. Naive: PMPP's grid-stride kernel, shared-memory tree, an atomicAdd
// per block. Tuned: 16-byte loads of both inputs over an SM-sized grid, shuffle
// block reduce, and one small second launch (no atomics, deterministic order).
#include "common/axes.hpp"
#include "common/block_reduce.cuh"
#include "common/launch.cuh"
#include "common/ops.cuh"
#include "common/span.cuh"
#include "families/dot.cuh"

namespace bench::dot {
namespace {

__global__ void dot_grid_stride_kernel(const float* __restrict__ a, const float* __restrict__ b, float* out,
                                       std::size_t n) {
  float sum = 0;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
    sum += a[i] * b[i];
  sum = block_tree<Sum>(sum);
  if (threadIdx.x == 0) atomicAdd(out, sum);
}

// a and b share their misalignment (checked on the host), so a's split serves both.
__global__ void dot_vec16_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ out,
                                 std::size_t n) {
  float sum = 0;
  for_each_vec16(
      a, n, [&](std::size_t i) { sum += a[i] * b[i]; },
      [&](std::size_t i) {
        const float4 x = *reinterpret_cast<const float4*>(a + i), y = *reinterpret_cast<const float4*>(b + i);
        sum += (x.x * y.x + x.y * y.y) + (x.z * y.z + x.w * y.w);
      });
  sum = block_reduce_shfl<Sum>(sum);
  if (threadIdx.x == 0) out[blockIdx.x] = sum;
}

// Sums the partials of dot_vec16_kernel (one block).
__global__ void sum_partials_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t n) {
  float sum = 0;
  for (std::size_t i = threadIdx.x; i < n; i += blockDim.x) sum += in[i];
  sum = block_reduce_shfl<Sum>(sum);
  if (threadIdx.x == 0) *out = sum;
}

struct DotGridStride : KernelVariant {
  static void launch(const Args& a) {
    BENCH_CUDA_CHECK(cudaMemsetAsync(a.out, 0, sizeof(float), a.stream));
    const unsigned grid = grid_for(a.n, std::size_t(a.block) * a.batch);
    dot_grid_stride_kernel<<<grid, a.block, a.block * sizeof(float), a.stream>>>(a.a, a.b, a.out, a.n);
    BENCH_CHECK_LAUNCH("dot_grid_stride_kernel");
  }
};

struct DotVec16 : KernelVariant {
  static std::size_t workspace_bytes(const Args&) { return sm_grid_workspace<float>(); }
  static void launch(const Args& a) {
    if (reinterpret_cast<std::uintptr_t>(a.a) % 16 != reinterpret_cast<std::uintptr_t>(a.b) % 16)
      throw Unsupported("a and b must share their 16-byte alignment");
    sm_grid_two_pass(
        a, dot_vec16_kernel, ceil_div(a.n, std::size_t(a.block) * 4),
        [&](unsigned grid, float* out) {
          dot_vec16_kernel<<<grid, a.block, 0, a.stream>>>(a.a, a.b, out, a.n);
          BENCH_CHECK_LAUNCH("dot_vec16_kernel");
        },
        [&](const float* partials, unsigned count) {
          sum_partials_kernel<<<1, 1024, 0, a.stream>>>(partials, a.out, count);
          BENCH_CHECK_LAUNCH("sum_partials_kernel");
        });
  }
};

}  // namespace

BENCH_DECLARE(Dot, DotGridStride, DotTypes, "grid_stride_tree",
              "naive dot (PMPP dotProduct): grid-stride multiply-add, block tree, atomicAdd per block",
              block_axis(), batch_axis({8}, {1, 4, 8, 16}));
BENCH_DECLARE(Dot, DotVec16, DotTypes, "vec16_sm_grid",
              "tuned dot: float4 loads of a and b, SM-sized grid, shuffle block reduce, second pass of one block; "
              "refuses a and b of different alignments",
              block_axis(), {});

}  // namespace bench::dot
