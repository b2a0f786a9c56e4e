// Experiment 2 (not part of the product): the one-block tile against CUB 3.5's single tile at 2^12.
// Build against the wheel's CCCL: nvcc -I .cccl/include ... Events, cold L2, interleaved rounds.
#include "kernels/reduce/floor_sum.cuh"
#include <cub/device/device_reduce.cuh>
#include <algorithm>
#include <cstdio>
#include <functional>
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

// A full aligned tile takes a branch with unguarded loads (CUB's full-tile path); anything else the product's code.
template <int Block, int Batch>
__global__ void __launch_bounds__(Block, 1) full_tile_kernel(const int* __restrict__ in, unsigned n, int* __restrict__ out) {
  __shared__ int scratch[Block / 32];
  const unsigned t = threadIdx.x;
  if ((reinterpret_cast<std::uintptr_t>(in) & 15) == 0 && n == unsigned(Block * Batch * 4)) {
    const uint4* __restrict__ body = reinterpret_cast<const uint4*>(in);
    uint4 v[Batch];
#pragma unroll
    for (int b = 0; b < Batch; ++b) v[b] = __ldg(body + t + b * Block);
    int acc[Batch];
#pragma unroll
    for (int b = 0; b < Batch; ++b) acc[b] = sum16<int>(v[b]);
#pragma unroll
    for (int w = Batch / 2; w > 0; w /= 2)
#pragma unroll
      for (int b = 0; b < w; ++b) acc[b] = add(acc[b], acc[b + w]);
    const int s = block_sum<Block>(acc[0], scratch);
    if (t == 0) *out = s;
    return;
  }
  *out = -1;  // not exercised here
}

struct Ctx { cudaStream_t s; const uint4* flush; std::size_t fc; unsigned* sink; cudaEvent_t a, b; };

int main() {
  cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
  std::printf("# %s, CUB %d\n", p.name, CUB_VERSION);
  Ctx c; CK(cudaStreamCreateWithFlags(&c.s, cudaStreamNonBlocking)); CK(cudaEventCreate(&c.a)); CK(cudaEventCreate(&c.b));
  std::size_t fb = 2 * std::size_t(p.l2CacheSize); void* f; CK(cudaMalloc(&f, fb)); CK(cudaMemset(f, 0, fb));
  c.flush = static_cast<const uint4*>(f); c.fc = fb / 16; CK(cudaMalloc(&c.sink, 4));
  const std::size_t maxn = 1 << 16; int *in, *out; CK(cudaMalloc(&in, maxn * 4)); CK(cudaMalloc(&out, 64));
  std::vector<int> h(maxn); std::mt19937 g(7); for (auto& x : h) x = int(g() % 2001) - 1000;
  CK(cudaMemcpy(in, h.data(), maxn * 4, cudaMemcpyHostToDevice));
  void* temp = nullptr; std::size_t tb = 0; CK(cub::DeviceReduce::Sum(nullptr, tb, in, out, int(maxn))); CK(cudaMalloc(&temp, tb));
  struct V { std::string name; std::size_t n; std::function<void()> L; std::vector<double> t; };
  std::vector<V> vs;
  for (std::size_t n : {std::size_t{1024}, std::size_t{4096}, std::size_t{16384}}) {
    vs.push_back({"cub35", n, [&, n] { std::size_t b = tb; CK(cub::DeviceReduce::Sum(temp, b, in, out, int(n), c.s)); }, {}});
    vs.push_back({"floor_auto", n, [&, n] { CK(floor_sum(in, n, out, c.s)); }, {}});
  }
  vs.push_back({"tile_256x4", 4096, [&] { CK(floor_sum(in, 4096, out, c.s, Config{256, 4})); }, {}});
  vs.push_back({"tile_128x8", 4096, [&] { CK(floor_sum(in, 4096, out, c.s, Config{128, 8})); }, {}});
  vs.push_back({"tile_512x2", 4096, [&] { CK(floor_sum(in, 4096, out, c.s, Config{512, 2})); }, {}});
  vs.push_back({"full_256x4", 4096, [&] { full_tile_kernel<256, 4><<<1, 256, 0, c.s>>>(in, 4096, out); }, {}});
  vs.push_back({"full_128x8", 4096, [&] { full_tile_kernel<128, 8><<<1, 128, 0, c.s>>>(in, 4096, out); }, {}});
  vs.push_back({"full_512x8", 16384, [&] { full_tile_kernel<512, 8><<<1, 512, 0, c.s>>>(in, 16384, out); }, {}});
  vs.push_back({"full_128x2", 1024, [&] { full_tile_kernel<128, 2><<<1, 128, 0, c.s>>>(in, 1024, out); }, {}});
  for (auto& v : vs) {  // correctness first
    v.L(); CK(cudaStreamSynchronize(c.s)); int got; CK(cudaMemcpy(&got, out, 4, cudaMemcpyDeviceToHost));
    long long want = 0; for (std::size_t i = 0; i < v.n; ++i) want += h[i];
    if (got != int(want)) std::printf("WRONG %s n=%zu got %d want %lld\n", v.name.c_str(), v.n, got, want);
  }
  for (int round = 0; round < 20; ++round)
    for (auto& v : vs) {
      for (int i = 0; i < 3; ++i) v.L();
      for (int r = 0; r < 40; ++r) {
        flush_kernel<<<1024, 512, 0, c.s>>>(c.flush, c.fc, c.sink);
        CK(cudaEventRecord(c.a, c.s)); v.L(); CK(cudaEventRecord(c.b, c.s)); CK(cudaEventSynchronize(c.b));
        float ms; CK(cudaEventElapsedTime(&ms, c.a, c.b)); v.t.push_back(ms * 1e3);
      }
    }
  for (auto& v : vs) {
    std::sort(v.t.begin(), v.t.end());
    std::printf("%-12s N=%6zu median %.3f us  p25 %.3f  p75 %.3f  (%zu)\n", v.name.c_str(), v.n, v.t[v.t.size() / 2],
                v.t[v.t.size() / 4], v.t[3 * v.t.size() / 4], v.t.size());
  }
  return 0;
}
