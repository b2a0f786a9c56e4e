// Experiment (not part of the product): where floor_sum loses to CUB at small N.
// Events, cold L2 (the harness's flush), medians of 300; i32.
//   loop     : the product's floor_sum_kernel (through the API, explicit Config)
//   loopP    : a copy with block 0 prefetching the workspace slots into L2 at its start
//   tile     : a straight-line one-block kernel (no loop, no combine code), __ldg
//   tileG    : the same with plain loads
//   cub      : cub::DeviceReduce::Sum, temp storage allocated once
#include "kernels/reduce/floor_sum.cuh"

#include <cub/device/device_reduce.cuh>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#define CK(...)                                                                                 \
  do {                                                                                          \
    cudaError_t e_ = (__VA_ARGS__);                                                                       \
    if (e_ != cudaSuccess) {                                                                    \
      std::printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__);      \
      std::exit(1);                                                                             \
    }                                                                                           \
  } while (0)

using namespace bench::launch_floor;
using namespace bench::launch_floor::detail;

__global__ void flush_kernel(const uint4* __restrict__ buf, std::size_t count, unsigned* sink) {
  unsigned acc = 0;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count; i += std::size_t{gridDim.x} * blockDim.x) {
    const uint4 v = buf[i];
    acc |= v.x | v.y | v.z | v.w;
  }
  if (acc == 0xFFFFFFFFu) *sink = acc;
}
__global__ void empty_kernel() {}

template <int Block, int Batch, bool Ldg>
__global__ void __launch_bounds__(Block, 1) tile_kernel(const int* __restrict__ in, std::size_t n, int* __restrict__ out) {
  __shared__ int scratch[Block / 32];
  const std::size_t misalign = reinterpret_cast<std::uintptr_t>(in) % 16;
  const std::size_t to_boundary = misalign == 0 ? 0 : (16 - misalign) / 4;
  const std::size_t head = to_boundary < n ? to_boundary : n;
  const unsigned vectors = static_cast<unsigned>((n - head) / 4);
  const std::size_t tail = head + std::size_t{vectors} * 4;
  const uint4* __restrict__ body = reinterpret_cast<const uint4*>(in + head);
  const unsigned t = threadIdx.x;
  uint4 v[Batch];
#pragma unroll
  for (int b = 0; b < Batch; ++b) {
    const unsigned i = t + b * Block;
    if (i < vectors) v[b] = Ldg ? __ldg(body + i) : body[i]; else v[b] = make_uint4(0, 0, 0, 0);
  }
  int extra = 0;
  if (t < head) extra = in[t];
  if (t < n - tail) extra = add(extra, in[tail + t]);
  int acc[Batch];
#pragma unroll
  for (int b = 0; b < Batch; ++b) acc[b] = sum16<int>(v[b]);
#pragma unroll
  for (int width = Batch / 2; width > 0; width /= 2)
#pragma unroll
    for (int b = 0; b < width; ++b) acc[b] = add(acc[b], acc[b + width]);
  int sum = block_sum<Block>(add(acc[0], extra), scratch);
  if (t == 0) *out = sum;
}

template <int Block, int Batch>
__global__ void __launch_bounds__(Block, (kMinBlocksPerSm<Block, Batch>))
    loopP_kernel(const int* __restrict__ in, std::size_t n, int* __restrict__ out, unsigned long long* slots) {
  using T = int;
  constexpr std::size_t kPerVec = 4;
  __shared__ T scratch[Block / 32];
  if (blockIdx.x == 0) {
    for (unsigned u = threadIdx.x; u < gridDim.x; u += Block)
      asm volatile("prefetch.global.L2 [%0];" ::"l"(slots + 2 * std::size_t{u}));
  }
  const std::size_t misalign = reinterpret_cast<std::uintptr_t>(in) % 16;
  const std::size_t to_boundary = misalign == 0 ? 0 : (16 - misalign) / sizeof(T);
  const std::size_t head = to_boundary < n ? to_boundary : n;
  const std::size_t vectors = (n - head) / kPerVec;
  const std::size_t tail = head + vectors * kPerVec;
  const uint4* __restrict__ body = reinterpret_cast<const uint4*>(in + head);
  const std::size_t stride = std::size_t{gridDim.x} * Block;
  const std::size_t t = std::size_t{blockIdx.x} * Block + threadIdx.x;
  T acc[Batch];
#pragma unroll
  for (int b = 0; b < Batch; ++b) acc[b] = T(0);
  std::size_t i = t;
  for (; i + (Batch - 1) * stride < vectors; i += Batch * stride) {
    uint4 v[Batch];
#pragma unroll
    for (int b = 0; b < Batch; ++b) v[b] = __ldg(body + i + b * stride);
#pragma unroll
    for (int b = 0; b < Batch; ++b) acc[b] = add(acc[b], sum16<T>(v[b]));
  }
  if constexpr (Batch > 1) {
    for (; i < vectors; i += stride) acc[0] = add(acc[0], sum16<T>(__ldg(body + i)));
  }
#pragma unroll
  for (int width = Batch / 2; width > 0; width /= 2) {
#pragma unroll
    for (int b = 0; b < width; ++b) acc[b] = add(acc[b], acc[b + width]);
  }
  T sum = acc[0];
  if (t < head) sum = add(sum, in[t]);
  if (t < n - tail) sum = add(sum, in[tail + t]);
  sum = block_sum<Block>(sum, scratch);
  if (blockIdx.x != 0) {
    if (threadIdx.x == 0) publish(slots + 2 * std::size_t{blockIdx.x}, sum);
    return;
  }
  if (gridDim.x > 1) {
    sum = gather<T, Block>(slots, gridDim.x, sum);
    __syncthreads();
    sum = block_sum<Block>(sum, scratch);
  }
  if (threadIdx.x == 0) *out = sum;
}

struct Ctx {
  cudaStream_t s;
  const uint4* flush;
  std::size_t flush_count;
  unsigned* sink;
  cudaEvent_t a, b;
};

double time_us(Ctx& c, bool cold, const std::function<void()>& launch, int reps = 300) {
  for (int i = 0; i < 5; ++i) launch();
  CK(cudaStreamSynchronize(c.s));
  std::vector<double> v;
  for (int r = 0; r < reps; ++r) {
    if (cold) flush_kernel<<<1024, 512, 0, c.s>>>(c.flush, c.flush_count, c.sink);
    CK(cudaEventRecord(c.a, c.s));
    launch();
    CK(cudaEventRecord(c.b, c.s));
    CK(cudaEventSynchronize(c.b));
    float ms;
    CK(cudaEventElapsedTime(&ms, c.a, c.b));
    v.push_back(ms * 1e3);
  }
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main(int argc, char**) {
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  std::printf("# %s, L2 %d MiB\n", p.name, p.l2CacheSize >> 20);
  Ctx c;
  CK(cudaStreamCreateWithFlags(&c.s, cudaStreamNonBlocking));
  CK(cudaEventCreate(&c.a));
  CK(cudaEventCreate(&c.b));
  std::size_t fb = 2 * std::size_t(p.l2CacheSize);
  void* f;
  CK(cudaMalloc(&f, fb));
  CK(cudaMemset(f, 0, fb));
  c.flush = static_cast<const uint4*>(f);
  c.flush_count = fb / 16;
  CK(cudaMalloc(&c.sink, 4));
  const std::size_t maxn = std::size_t{1} << 22;
  int *in, *out;
  CK(cudaMalloc(&in, maxn * 4 + 64));
  CK(cudaMalloc(&out, 64));
  unsigned long long* slots;
  CK(cudaMalloc(&slots, 16 * 8192));
  CK(cudaMemset(slots, 0, 16 * 8192));
  std::vector<int> h(maxn);
  std::mt19937 g(7);
  for (auto& x : h) x = int(g() % 2001) - 1000;
  CK(cudaMemcpy(in, h.data(), maxn * 4, cudaMemcpyHostToDevice));
  void* temp = nullptr;
  std::size_t temp_bytes = 0;
  CK(cub::DeviceReduce::Sum(nullptr, temp_bytes, in, out, int(maxn)));
  CK(cudaMalloc(&temp, temp_bytes));

  auto check = [&](const char* what, std::size_t n) {
    int got = 0;
    CK(cudaStreamSynchronize(c.s));
    CK(cudaMemcpy(&got, out, 4, cudaMemcpyDeviceToHost));
    long long want = 0;
    for (std::size_t i = 0; i < n; ++i) want += h[i];
    if (got != int(want)) std::printf("WRONG %s n=%zu got %d want %lld\n", what, n, got, want);
  };
  auto row = [&](const char* name, std::size_t n, const std::function<void()>& L) {
    L();
    if (std::string(name) != "empty") check(name, n);
    const double cold = time_us(c, true, L), hot = time_us(c, false, L);
    std::printf("%-22s N=2^%-2d cold %7.3f us  hot %7.3f us\n", name, __builtin_ctzll(n), cold, hot);
  };
  if (argc > 1) {  // one launch each at 2^12, for ncu
    const std::size_t n = 4096;
    std::size_t tb = temp_bytes;
    CK(cub::DeviceReduce::Sum(temp, tb, in, out, int(n), c.s));
    CK(floor_sum(in, n, out, c.s));
    CK(floor_sum(in, n, out, c.s, Config{256, 4}));
    tile_kernel<256, 4, true><<<1, 256, 0, c.s>>>(in, n, out);
    tile_kernel<1024, 1, true><<<1, 1024, 0, c.s>>>(in, n, out);
    CK(floor_sum(in, std::size_t{1} << 16, out, c.s));
    CK(cub::DeviceReduce::Sum(temp, tb, in, out, 1 << 16, c.s));
    CK(cudaStreamSynchronize(c.s));
    return 0;
  }
  row("empty", 1024, [&] { empty_kernel<<<1, 32, 0, c.s>>>(); int z = 0; (void)z; });
  for (int e : {10, 12, 14, 16, 18, 20, 22}) {
    const std::size_t n = std::size_t{1} << e;
    row("cub", n, [&] { std::size_t tb = temp_bytes; CK(cub::DeviceReduce::Sum(temp, tb, in, out, int(n), c.s)); });
    row("floor_auto", n, [&] { CK(floor_sum(in, n, out, c.s)); });
    const Config a = choose(n / 4);
    char nm[64];
    std::snprintf(nm, sizeof nm, "loopP_%dx%d", a.block, a.batch);
    dispatch(a, [&](auto B, auto K) {
      constexpr int Bv = decltype(B)::value, Kv = decltype(K)::value;
      if (e >= 14) row(nm, n, [&] {
        unsigned resident = 0;
        CK(resident_grid<int, Bv, Kv>(&resident));
        std::size_t grid = std::max<std::size_t>(1, std::min<std::size_t>((n / 4 + Bv * Kv - 1) / (Bv * Kv), resident));
        loopP_kernel<Bv, Kv><<<unsigned(grid), Bv, 0, c.s>>>(in, n, out, slots);
      });
    }, BlockSizes{}, Batches{});
    if (e <= 14) {
      auto T = [&](auto B, auto K, auto L) {
        constexpr int Bv = decltype(B)::value, Kv = decltype(K)::value;
        constexpr bool Lv = decltype(L)::value;
        if (std::size_t{Bv} * Kv * 4 < n) return;
        char nm2[64];
        std::snprintf(nm2, sizeof nm2, "tile%s_%dx%d", Lv ? "" : "G", Bv, Kv);
        row(nm2, n, [&] { tile_kernel<Bv, Kv, Lv><<<1, Bv, 0, c.s>>>(in, n, out); });
        char nm3[64];
        std::snprintf(nm3, sizeof nm3, "loop_%dx%d", Bv, Kv);
        if (Lv && Bv >= 128) row(nm3, n, [&] { CK(floor_sum(in, n, out, c.s, Config{Bv, Kv})); });
      };
      using std::integral_constant;
      using I = integral_constant<int, 0>;
      (void)sizeof(I);
#define TT(B, K) T(integral_constant<int, B>{}, integral_constant<int, K>{}, std::true_type{}); \
                 T(integral_constant<int, B>{}, integral_constant<int, K>{}, std::false_type{})
      if (e == 10) { TT(256, 1); TT(128, 2); TT(64, 4); }
      if (e == 12) { TT(1024, 1); TT(512, 2); TT(256, 4); TT(128, 8); }
      if (e == 14) { TT(1024, 4); TT(512, 8); }
#undef TT
    }
  }
  return 0;
}
