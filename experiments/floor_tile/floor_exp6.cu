// Experiment 6 (not part of the product), after experiment 5: the combine's detection latency. Candidates, int32, cold L2, events, interleaved rounds:
//   floor_auto      the product (publish/poll through L2 slots)
//   part_BxK        each block reads one tile and writes its own sum: no combine at all (the bound)
//   pub_BxK         one tile per block, straight-line, then floor_sum's publish/poll (block 0 prefetches the slots)
//   pubW_BxK        as pub, block 0's warp 0 alone polls and adds (no second block reduction)
//   pubS<k>_BxK     as pub, every warp of block 0 polls every slot, warp w k x w clocks later (below)
//   tick_BxK        int only: one 64-bit atomic per block carries value and count; the last block writes *out
//   cub30           the toolkit's cub::DeviceReduce::Sum, temp storage allocated once
// Build (toolkit CCCL): nvcc -std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr -I src -o floor_exp6 floor_exp6.cu
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
__global__ void empty_kernel() {}

template <int Block, int Batch>
__device__ inline int tile_sum(const int* __restrict__ in, unsigned vectors, int* scratch) {
  const uint4* __restrict__ body = reinterpret_cast<const uint4*>(in);
  const unsigned base = blockIdx.x * unsigned(Block * Batch) + threadIdx.x;
  uint4 v[Batch];
#pragma unroll
  for (int b = 0; b < Batch; ++b) {
    const unsigned i = base + unsigned(b * Block);
    v[b] = i < vectors ? __ldg(body + i) : make_uint4(0, 0, 0, 0);
  }
  int acc[Batch];
#pragma unroll
  for (int b = 0; b < Batch; ++b) acc[b] = sum16<int>(v[b]);
#pragma unroll
  for (int w = Batch / 2; w > 0; w /= 2)
#pragma unroll
    for (int b = 0; b < w; ++b) acc[b] = add(acc[b], acc[b + w]);
  return block_sum<Block>(acc[0], scratch);
}

template <int Block, int Batch>
__global__ void __launch_bounds__(Block, 1) part_kernel(const int* __restrict__ in, unsigned vectors, int* __restrict__ out) {
  __shared__ int scratch[Block / 32];
  const int s = tile_sum<Block, Batch>(in, vectors, scratch);
  if (threadIdx.x == 0) out[blockIdx.x] = s;
}

// One tile per block (straight-line, as the tile kernel), then floor_sum's combine: block b > 0 publishes,
// block 0 polls. Prefetch: block 0 pulls the slots into L2 first. Warp: block 0's warp 0 polls (lane l
// slots l, l + 32, ...) and adds by shuffles, no second block reduction.
template <int Block, int Batch, bool Prefetch, bool Warp>
__global__ void __launch_bounds__(Block, 1) pub_kernel(const int* __restrict__ in, unsigned vectors, int* __restrict__ out) {
  __shared__ int scratch[Block / 32];
  unsigned long long* slots = builtin_slots;
  if (Prefetch && blockIdx.x == 0)
    for (unsigned u = threadIdx.x + 1; u < gridDim.x; u += Block) asm volatile("prefetch.global.L2 [%0];" ::"l"(slots + 2 * std::size_t{u}));
  int s = tile_sum<Block, Batch>(in, vectors, scratch);
  if (blockIdx.x != 0) { if (threadIdx.x == 0) publish(slots + 2 * std::size_t{blockIdx.x}, s); return; }
  if constexpr (Warp) {
    if (threadIdx.x >= 32) return;
    const unsigned lane = threadIdx.x;
    int acc;
    for (;;) {
      bool full = true;
      acc = lane == 0 ? s : 0;
      for (unsigned u = lane == 0 ? 32 : lane; u < gridDim.x; u += 32) {
        int v = 0;
        full &= peek<int>(slots + 2 * std::size_t{u}, &v);
        acc = add(acc, v);
      }
      if (__all_sync(0xFFFFFFFFu, full)) break;
    }
    for (unsigned u = lane == 0 ? 32 : lane; u < gridDim.x; u += 32) clear(slots + 2 * std::size_t{u}, 4);
    acc = warp_sum(acc);
    if (lane == 0) *out = acc;
  } else {
    s = gather<int, Block>(slots, gridDim.x, s);
    __syncthreads();
    s = block_sum<Block>(s, scratch);
    if (threadIdx.x == 0) *out = s;
  }
}

// Block 0's warps each poll every slot (lane l: slots l, l + 32, ...; lane 0 starts with block 0's own
// sum), warp w starting w x Stagger clocks after warp 0, so a poll reaches L2 every RTT / warps rather than
// every RTT; the first warp to see every slot full adds by shuffles (a fixed tree: the same sum whichever
// warp), claims the finish in shared memory, writes *out and clears the slots.
template <int Block, int Batch, int Stagger>
__global__ void __launch_bounds__(Block, 1) pubs_kernel(const int* __restrict__ in, unsigned vectors, int* __restrict__ out) {
  __shared__ int scratch[Block / 32];
  __shared__ int own_s, done;
  unsigned long long* slots = builtin_slots;
  if (blockIdx.x == 0)
    for (unsigned u = threadIdx.x + 1; u < gridDim.x; u += Block) asm volatile("prefetch.global.L2 [%0];" ::"l"(slots + 2 * std::size_t{u}));
  const int s = tile_sum<Block, Batch>(in, vectors, scratch);
  if (blockIdx.x != 0) { if (threadIdx.x == 0) publish(slots + 2 * std::size_t{blockIdx.x}, s); return; }
  if (threadIdx.x == 0) { own_s = s; done = 0; }
  __syncthreads();
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (Stagger > 0) { const long long t0 = clock64(); while (clock64() - t0 < (long long)warp * Stagger) {} }
  const int own = own_s;
  for (;;) {
    bool full = true;
    int acc = lane == 0 ? own : 0;
    for (unsigned u = lane == 0 ? 32 : lane; u < gridDim.x; u += 32) {
      int v = 0;
      full &= peek<int>(slots + 2 * std::size_t{u}, &v);
      acc = add(acc, v);
    }
    if (__all_sync(0xFFFFFFFFu, full)) {
      acc = warp_sum(acc);
      int mine = 0;
      if (lane == 0) mine = atomicCAS(&done, 0, 1) == 0;
      if (__shfl_sync(0xFFFFFFFFu, mine, 0)) {
        if (lane == 0) *out = acc;
        for (unsigned u = lane == 0 ? 32 : lane; u < gridDim.x; u += 32) clear(slots + 2 * std::size_t{u}, 4);
      }
      return;
    }
    if (*static_cast<volatile int*>(&done)) return;
  }
}

// int only: one 64-bit atomic per block carries the value and the count together (bits 0-31 the sum mod
// 2^32, 32-39 its carries, 40-63 the blocks counted); the block that counts last writes *out and zeroes it.
__device__ unsigned long long ticket_word;
template <int Block, int Batch>
__global__ void __launch_bounds__(Block, 1) tick_kernel(const int* __restrict__ in, unsigned vectors, int* __restrict__ out) {
  __shared__ int scratch[Block / 32];
  const int s = tile_sum<Block, Batch>(in, vectors, scratch);
  if (threadIdx.x == 0) {
    const unsigned long long mine = (1ull << 40) + static_cast<unsigned>(s);
    const unsigned long long old = atomicAdd(&ticket_word, mine);
    if ((old >> 40) == gridDim.x - 1) { *out = static_cast<int>(static_cast<unsigned>(old + mine)); ticket_word = 0; }
  }
}

struct Ctx { cudaStream_t s; const uint4* flush; std::size_t fc; unsigned* sink; cudaEvent_t a, b; };

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 20;
  cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
  std::printf("# %s, %d SMs, CUB %d\n", p.name, p.multiProcessorCount, CUB_VERSION);
  Ctx c; CK(cudaStreamCreateWithFlags(&c.s, cudaStreamNonBlocking)); CK(cudaEventCreate(&c.a)); CK(cudaEventCreate(&c.b));
  std::size_t fb = 2 * std::size_t(p.l2CacheSize); void* f; CK(cudaMalloc(&f, fb)); CK(cudaMemset(f, 0, fb));
  c.flush = static_cast<const uint4*>(f); c.fc = fb / 16; CK(cudaMalloc(&c.sink, 4));
  const std::size_t maxn = 1 << 20; int *in, *out; CK(cudaMalloc(&in, maxn * 4)); CK(cudaMalloc(&out, 4096 * 4));
  std::vector<int> h(maxn); std::mt19937 g(7); for (auto& x : h) x = int(g() % 2001) - 1000;
  CK(cudaMemcpy(in, h.data(), maxn * 4, cudaMemcpyHostToDevice));
  void* temp = nullptr; std::size_t tb = 0; CK(cub::DeviceReduce::Sum(nullptr, tb, in, out, int(maxn))); CK(cudaMalloc(&temp, tb));

  struct V { std::string name; std::size_t n; std::function<void()> L; bool partial; std::vector<double> t; };
  std::vector<V> vs;
  const std::size_t N14 = 1 << 14, N16 = 1 << 16, N18 = 1 << 18, N20 = 1 << 20;
  for (std::size_t n : {N14, N16, N18, N20}) {
    vs.push_back({"empty", n, [&] { empty_kernel<<<1, 32, 0, c.s>>>(); }, false, {}});
    vs.push_back({"cub30", n, [&, n] { std::size_t b = tb; CK(cub::DeviceReduce::Sum(temp, b, in, out, int(n), c.s)); }, false, {}});
    vs.push_back({"floor_auto", n, [&, n] { CK(floor_sum(in, n, out, c.s)); }, false, {}});
  }
#define PART(B, K, n) vs.push_back({"part_" #B "x" #K, n, [&] { part_kernel<B, K><<<unsigned((n / 4 + B * K - 1) / (B * K)), B, 0, c.s>>>(in, unsigned(n / 4), out); }, true, {}})
#define K3(name, kern, B, K, n) vs.push_back({name, n, [&] { kern<<<unsigned((n / 4 + B * K - 1) / (B * K)), B, 0, c.s>>>(in, unsigned(n / 4), out); }, false, {}})
#define SET(B, K, n) do { \
    PART(B, K, n); \
    K3("pub_" #B "x" #K, (pub_kernel<B, K, true, false>), B, K, n); \
    K3("pubS0_" #B "x" #K, (pubs_kernel<B, K, 0>), B, K, n); \
    K3("pubS64_" #B "x" #K, (pubs_kernel<B, K, 64>), B, K, n); \
    K3("pubS128_" #B "x" #K, (pubs_kernel<B, K, 128>), B, K, n); \
    K3("pubS256_" #B "x" #K, (pubs_kernel<B, K, 256>), B, K, n); \
    K3("tick_" #B "x" #K, (tick_kernel<B, K>), B, K, n); \
  } while (0)
  SET(256, 1, N14); SET(256, 2, N16); SET(512, 1, N16); SET(256, 2, N18); SET(512, 2, N18); SET(512, 2, N20); SET(256, 4, N20);

  for (auto& v : vs) {  // correctness first (part_*: the per-block sums added on the host)
    if (v.name == "empty") continue;
    v.L(); CK(cudaStreamSynchronize(c.s));
    long long want = 0; for (std::size_t i = 0; i < v.n; ++i) want += h[i];
    long long got = 0;
    if (v.partial) {
      std::vector<int> o(4096); CK(cudaMemcpy(o.data(), out, o.size() * 4, cudaMemcpyDeviceToHost));
      const std::size_t blocks = std::stoul(v.name.substr(5, v.name.find('x') - 5)) * std::stoul(v.name.substr(v.name.find('x') + 1));
      for (std::size_t b = 0; b < (v.n / 4 + blocks - 1) / blocks; ++b) got += o[b];
    } else {
      int o; CK(cudaMemcpy(&o, out, 4, cudaMemcpyDeviceToHost)); got = o;
    }
    if (got != want) std::printf("WRONG %s n=%zu got %lld want %lld\n", v.name.c_str(), v.n, got, want);
  }
  for (int round = 0; round < rounds; ++round)
    for (auto& v : vs) {
      for (int i = 0; i < 3; ++i) v.L();
      for (int r = 0; r < 40; ++r) {
        flush_kernel<<<1024, 512, 0, c.s>>>(c.flush, c.fc, c.sink);
        CK(cudaEventRecord(c.a, c.s)); v.L(); CK(cudaEventRecord(c.b, c.s)); CK(cudaEventSynchronize(c.b));
        float ms; CK(cudaEventElapsedTime(&ms, c.a, c.b)); v.t.push_back(ms * 1e3);
      }
    }
  double cub[32] = {};
  for (auto& v : vs) {
    std::sort(v.t.begin(), v.t.end());
    const double med = v.t[v.t.size() / 2];
    int e = 0; while ((std::size_t{1} << e) < v.n) ++e;
    if (v.name == "cub30") cub[e] = med;
  }
  for (auto& v : vs) {
    const double med = v.t[v.t.size() / 2];
    int e = 0; while ((std::size_t{1} << e) < v.n) ++e;
    std::printf("%-18s N=2^%d median %.3f us  p25 %.3f  p75 %.3f  cub30/this %.3f  (%zu)\n", v.name.c_str(), e, med,
                v.t[v.t.size() / 4], v.t[3 * v.t.size() / 4], cub[e] / med, v.t.size());
  }
  return 0;
}
