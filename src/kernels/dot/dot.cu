// Dot product (PMPP chapter 10's dotProduct): a reduction whose load multiplies
// two inputs. Naive: PMPP's grid-stride kernel, shared-memory tree, an atomicAdd
// per block. Tuned: 16-byte loads of both inputs over an SM-sized grid, shuffle
// block reduce, and one small second launch (no atomics, deterministic order).
#include "families/dot.cuh"
#include "kernels/reduce/common.cuh"

namespace bench::dot {
namespace {

using reduce::Sum;

__global__ void dot_grid_stride_kernel(const float* __restrict__ a, const float* __restrict__ b, float* out,
                                       std::size_t n) {
  float sum = 0;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
    sum += a[i] * b[i];
  sum = reduce::block_tree<Sum>(sum);
  if (threadIdx.x == 0) atomicAdd(out, sum);
}

// a and b share their misalignment (checked on the host), so one head count serves both.
__global__ void dot_vec16_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ out,
                                 std::size_t n) {
  const std::size_t misaligned = (reinterpret_cast<std::uintptr_t>(a) % 16) / sizeof(float);
  const std::size_t head = misaligned ? (4 - misaligned < n ? 4 - misaligned : n) : 0;
  const std::size_t tid = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  float sum = 0;
  if (tid < head) sum += a[tid] * b[tid];
  const std::size_t vectors = (n - head) / 4;
  const float4* va = reinterpret_cast<const float4*>(a + head);
  const float4* vb = reinterpret_cast<const float4*>(b + head);
#pragma unroll 4
  for (std::size_t v = tid; v < vectors; v += stride) {
    const float4 x = va[v], y = vb[v];
    sum += (x.x * y.x + x.y * y.y) + (x.z * y.z + x.w * y.w);
  }
  const std::size_t tail = head + vectors * 4;
  if (tid < n - tail) sum += a[tail + tid] * b[tail + tid];
  sum = reduce::block_reduce_shfl<Sum>(sum);
  if (threadIdx.x == 0) out[blockIdx.x] = sum;
}

// Sums the partials of dot_vec16_kernel (one block).
__global__ void sum_partials_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t n) {
  float sum = 0;
  for (std::size_t i = threadIdx.x; i < n; i += blockDim.x) sum += in[i];
  sum = reduce::block_reduce_shfl<Sum>(sum);
  if (threadIdx.x == 0) *out = sum;
}

struct DotGridStride : VariantBase {
  static void launch(const DotArgs& a) {
    BENCH_CUDA_CHECK(cudaMemsetAsync(a.out, 0, sizeof(float), a.stream));
    const unsigned grid = reduce::grid_for(a.n, std::size_t(a.block) * a.batch);
    dot_grid_stride_kernel<<<grid, a.block, a.block * sizeof(float), a.stream>>>(a.a, a.b, a.out, a.n);
    BENCH_CHECK_LAUNCH("dot_grid_stride_kernel");
  }
};

struct DotVec16 : VariantBase {
  static std::size_t workspace_bytes(std::size_t, int, int) {
    return std::size_t(reduce::sm_count()) * reduce::kMaxResidentPerSm * sizeof(float);
  }
  static void launch(const DotArgs& a) {
    if (reinterpret_cast<std::uintptr_t>(a.a) % 16 != reinterpret_cast<std::uintptr_t>(a.b) % 16)
      throw Unsupported("a and b must share their 16-byte alignment");
    const std::size_t resident =
        std::min<std::size_t>(std::size_t(reduce::sm_count()) * reduce::resident_blocks_per_sm(dot_vec16_kernel, a.block, 0),
                              a.workspace_size / sizeof(float));  // never more partials than room
    const unsigned grid = static_cast<unsigned>(std::max<std::size_t>(1, std::min(resident, reduce::ceil_div(a.n, a.block * 4))));
    auto* partials = static_cast<float*>(a.workspace);
    dot_vec16_kernel<<<grid, a.block, 0, a.stream>>>(a.a, a.b, partials, a.n);
    BENCH_CHECK_LAUNCH("dot_vec16_kernel");
    sum_partials_kernel<<<1, 1024, 0, a.stream>>>(partials, a.out, grid);
    BENCH_CHECK_LAUNCH("sum_partials_kernel");
  }
};

}  // namespace

BENCH_DECLARE_DOT(DotGridStride, "grid_stride_tree",
                  "naive dot (PMPP dotProduct): grid-stride multiply-add, block tree, atomicAdd per block",
                  reduce::block_axis(), reduce::batch_axis({8}, {1, 4, 8, 16}));
BENCH_DECLARE_DOT(DotVec16, "vec16_sm_grid",
                  "tuned dot: float4 loads of a and b, SM-sized grid, shuffle block reduce, second pass of one block",
                  reduce::block_axis(), {});

}  // namespace bench::dot
