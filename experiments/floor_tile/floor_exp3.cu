// Experiment 3 (not part of the product): large N. The grid-stride loop of floor_sum against a block-contiguous
// partition (CUB's even share: each block a contiguous run of tiles), against CUB 3.5's not_guaranteed single pass.
// Build against the wheel's CCCL: nvcc -I .cccl/include -I src. Events, cold L2, interleaved rounds, int32.
#include "kernels/reduce/floor_sum.cuh"
#include <cub/device/device_reduce.cuh>
#include <cuda/execution>
#include <cuda/memory_resource>
#include <cuda/std/execution>
#include <cuda/stream_ref>
#include <algorithm>
#include <cstdio>
#include <functional>
#include <new>
#include <random>
#include <string>
#include <vector>
#define CK(...) do { cudaError_t e_ = (__VA_ARGS__); if (e_ != cudaSuccess) { std::printf("CUDA error %s line %d\n", cudaGetErrorString(e_), __LINE__); std::exit(1); } } while (0)
using namespace bench::launch_floor;
using namespace bench::launch_floor::detail;

__global__ void flush_kernel(const uint4* __restrict__ buf, std::size_t count, unsigned* sink) {
  unsigned acc = 0;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count; i += std::size_t{gridDim.x} * blockDim.x) {
    const uint4 v = buf[i]; acc |= v.x | v.y | v.z | v.w;
  }
  if (acc == 0xFFFFFFFFu) *sink = acc;
}

template <int Block, int Batch>
__global__ void __launch_bounds__(Block, (kMinBlocksPerSm<Block, Batch>))
    contig_kernel(const int* __restrict__ in, std::size_t n, int* __restrict__ out, unsigned long long* slots) {
  __shared__ int scratch[Block / 32];
  if (blockIdx.x == 0)
    for (unsigned u = threadIdx.x + 1; u < gridDim.x; u += Block) asm volatile("prefetch.global.L2 [%0];" ::"l"(slots + 2 * std::size_t{u}));
  const uint4* __restrict__ body = reinterpret_cast<const uint4*>(in);  // aligned, n % 4 == 0 here
  const std::size_t vectors = n / 4;
  constexpr std::size_t kTile = std::size_t{Block} * Batch;
  const std::size_t tiles = (vectors + kTile - 1) / kTile;
  const std::size_t per = tiles / gridDim.x, extra = tiles % gridDim.x;
  const std::size_t first = blockIdx.x * per + std::min<std::size_t>(blockIdx.x, extra);
  const std::size_t count = per + (blockIdx.x < extra ? 1 : 0);
  int acc[Batch];
#pragma unroll
  for (int b = 0; b < Batch; ++b) acc[b] = 0;
  for (std::size_t k = 0; k < count; ++k) {
    const std::size_t base = (first + k) * kTile + threadIdx.x;
    uint4 v[Batch];
    if ((first + k + 1) * kTile <= vectors) {
#pragma unroll
      for (int b = 0; b < Batch; ++b) v[b] = __ldg(body + base + b * Block);
    } else {
#pragma unroll
      for (int b = 0; b < Batch; ++b) v[b] = base + b * Block < vectors ? __ldg(body + base + b * Block) : make_uint4(0, 0, 0, 0);
    }
#pragma unroll
    for (int b = 0; b < Batch; ++b) acc[b] = add(acc[b], sum16<int>(v[b]));
  }
#pragma unroll
  for (int w = Batch / 2; w > 0; w /= 2)
#pragma unroll
    for (int b = 0; b < w; ++b) acc[b] = add(acc[b], acc[b + w]);
  int sum = block_sum<Block>(acc[0], scratch);
  if (blockIdx.x != 0) { if (threadIdx.x == 0) publish(slots + 2 * std::size_t{blockIdx.x}, sum); return; }
  if (gridDim.x > 1) { sum = gather<int, Block>(slots, gridDim.x, sum); __syncthreads(); sum = block_sum<Block>(sum, scratch); }
  if (threadIdx.x == 0) *out = sum;
}

class Pre {
 public:
  Pre(void* b, std::size_t n) : b_(b), n_(n) {}
  void* allocate(::cuda::stream_ref, std::size_t bytes, std::size_t = alignof(std::max_align_t)) { return take(bytes); }
  void deallocate(::cuda::stream_ref, void*, std::size_t, std::size_t = alignof(std::max_align_t)) noexcept {}
  void* allocate_sync(std::size_t bytes, std::size_t = alignof(std::max_align_t)) { return take(bytes); }
  void deallocate_sync(void*, std::size_t, std::size_t = alignof(std::max_align_t)) noexcept {}
  bool operator==(const Pre& o) const { return b_ == o.b_; }
  bool operator!=(const Pre& o) const { return b_ != o.b_; }
 private:
  void* take(std::size_t bytes) const { if (bytes > n_) throw std::bad_alloc(); return b_; }
  void* b_; std::size_t n_;
};

auto not_guaranteed() { return ::cuda::execution::require(::cuda::execution::determinism::not_guaranteed); }
template <class T>
void cub_nd(const T* in, T* out, std::size_t n, cudaStream_t s, void* temp, std::size_t tb) {
  const ::cuda::stream_ref stream{s};
  const auto env = ::cuda::std::execution::env{
      stream, not_guaranteed(), ::cuda::std::execution::prop{::cuda::mr::get_memory_resource, Pre{temp, tb}}};
  const cudaError_t e = cub::DeviceReduce::Sum(in, out, static_cast<std::int64_t>(n), env);
  CK(e);
}

template <int Block, int Batch>
unsigned contig_grid() {
  int sms = 0, per = 0; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, contig_kernel<Block, Batch>, Block, 0));
  return unsigned(sms * per);
}

int main() {
  cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
  std::printf("# %s, CUB %d\n", p.name, CUB_VERSION);
  cudaStream_t s; CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaEvent_t ea, eb; CK(cudaEventCreate(&ea)); CK(cudaEventCreate(&eb));
  std::size_t fb = 2 * std::size_t(p.l2CacheSize); void* f; CK(cudaMalloc(&f, fb)); CK(cudaMemset(f, 0, fb));
  unsigned* sink; CK(cudaMalloc(&sink, 4));
  const std::size_t maxn = std::size_t{1} << 30; int *in, *out; CK(cudaMalloc(&in, maxn * 4)); CK(cudaMalloc(&out, 64));
  std::vector<int> h(maxn); std::mt19937 g(7); for (std::size_t i = 0; i < maxn; ++i) h[i] = int(g() % 2001) - 1000;
  CK(cudaMemcpy(in, h.data(), maxn * 4, cudaMemcpyHostToDevice));
  unsigned long long* slots; CK(cudaMalloc(&slots, 16 * 8192)); CK(cudaMemset(slots, 0, 16 * 8192));
  std::size_t tb = 0; CK(cub::DeviceReduce::Sum(nullptr, tb, in, out, std::int64_t(maxn))); tb = std::max<std::size_t>(tb, 256);
  void* temp; CK(cudaMalloc(&temp, tb));
  const unsigned g1024 = contig_grid<1024, 8>(), g512 = contig_grid<512, 8>(), g256 = contig_grid<256, 8>();
  std::printf("# contig grids: 1024x8 %u, 512x8 %u, 256x8 %u\n", g1024, g512, g256);
  struct V { std::string name; std::size_t n; std::function<void()> L; std::vector<double> t; };
  std::vector<V> vs;
  for (int e : {24, 26, 28, 30}) {
    const std::size_t n = std::size_t{1} << e;
    vs.push_back({"cub35_nd", n, [=] { cub_nd(in, out, n, s, temp, tb); }, {}});
    vs.push_back({"floor_auto", n, [=] { CK(floor_sum(in, n, out, s)); }, {}});
    vs.push_back({"floor_1024x8", n, [=] { CK(floor_sum(in, n, out, s, Config{1024, 8})); }, {}});
    vs.push_back({"floor_512x8", n, [=] { CK(floor_sum(in, n, out, s, Config{512, 8})); }, {}});
    vs.push_back({"contig_1024x8", n, [=] { contig_kernel<1024, 8><<<g1024, 1024, 0, s>>>(in, n, out, slots); }, {}});
    vs.push_back({"contig_512x8", n, [=] { contig_kernel<512, 8><<<g512, 512, 0, s>>>(in, n, out, slots); }, {}});
    vs.push_back({"contig_256x8", n, [=] { contig_kernel<256, 8><<<g256, 256, 0, s>>>(in, n, out, slots); }, {}});
    vs.push_back({"contig_512x8_2x", n, [=] { contig_kernel<512, 8><<<2 * g512, 512, 0, s>>>(in, n, out, slots); }, {}});
  }
  std::vector<long long> want(31, 0);
  { long long acc = 0; for (std::size_t i = 0; i < maxn; ++i) { acc += h[i]; if (((i + 1) & i) == 0) want[__builtin_ctzll(i + 1)] = acc; } }
  for (auto& v : vs) {
    v.L(); CK(cudaStreamSynchronize(s)); int got; CK(cudaMemcpy(&got, out, 4, cudaMemcpyDeviceToHost));
    if (got != int(want[__builtin_ctzll(v.n)])) std::printf("WRONG %s n=%zu got %d want %lld\n", v.name.c_str(), v.n, got, want[__builtin_ctzll(v.n)]);
  }
  for (int round = 0; round < 8; ++round)
    for (auto& v : vs) {
      const int reps = v.n >= (std::size_t{1} << 30) ? 6 : 15;
      v.L();
      for (int r = 0; r < reps; ++r) {
        flush_kernel<<<1024, 512, 0, s>>>(static_cast<const uint4*>(f), fb / 16, sink);
        CK(cudaEventRecord(ea, s)); v.L(); CK(cudaEventRecord(eb, s)); CK(cudaEventSynchronize(eb));
        float ms; CK(cudaEventElapsedTime(&ms, ea, eb)); v.t.push_back(ms * 1e3);
      }
    }
  for (auto& v : vs) {
    std::sort(v.t.begin(), v.t.end());
    std::printf("%-16s N=2^%d median %9.3f us  p25 %9.3f  p75 %9.3f  (%zu)\n", v.name.c_str(), __builtin_ctzll(v.n), v.t[v.t.size() / 2],
                v.t[v.t.size() / 4], v.t[3 * v.t.size() / 4], v.t.size());
  }
  return 0;
}
