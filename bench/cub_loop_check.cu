// Cross-check of the harness's timer: cub::DeviceReduce::Sum on int32, timed
// with plain CUDA events in a loop, outside Google Benchmark and the harness.
// Compare its median with `cuda_bench --benchmark_filter=reduce_sum/i32/cub_device_reduce/N:<n>$`.
//
//   cub_loop_check [log2 N = 30] [iterations = 200]
#include <cub/device/device_reduce.cuh>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                          \
  do {                                                                                       \
    cudaError_t e = (call);                                                                  \
    if (e != cudaSuccess) {                                                                  \
      std::fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(e));                 \
      std::exit(1);                                                                          \
    }                                                                                        \
  } while (0)

__global__ void fill(int* x, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
    x[i] = static_cast<int>(i % 7) - 3;
}

int main(int argc, char** argv) {
  const int log2n = argc > 1 ? std::atoi(argv[1]) : 30;
  const int iters = argc > 2 ? std::atoi(argv[2]) : 200;
  if (log2n < 1 || log2n > 32 || iters < 1) {
    std::fprintf(stderr, "usage: cub_loop_check [log2 N in 1..32] [iterations >= 1]\n");
    return 2;
  }
  const std::size_t n = std::size_t{1} << log2n;
  int *in = nullptr, *out = nullptr;
  CHECK(cudaMalloc(&in, n * sizeof(int)));
  CHECK(cudaMalloc(&out, sizeof(int)));
  fill<<<1024, 256>>>(in, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());  // the timed stream is non-blocking: order the fill first
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  std::size_t temp_bytes = 0;
  CHECK(cub::DeviceReduce::Sum(nullptr, temp_bytes, in, out, static_cast<std::int64_t>(n), s));
  void* temp = nullptr;
  CHECK(cudaMalloc(&temp, temp_bytes));
  for (int i = 0; i < 5; ++i) CHECK(cub::DeviceReduce::Sum(temp, temp_bytes, in, out, static_cast<std::int64_t>(n), s));
  CHECK(cudaStreamSynchronize(s));

  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  std::vector<float> ms(iters);
  for (int i = 0; i < iters; ++i) {
    CHECK(cudaEventRecord(a, s));
    CHECK(cub::DeviceReduce::Sum(temp, temp_bytes, in, out, static_cast<std::int64_t>(n), s));
    CHECK(cudaEventRecord(b, s));
    CHECK(cudaEventSynchronize(b));
    CHECK(cudaEventElapsedTime(&ms[i], a, b));
  }
  // Back-to-back launches between one pair of events, as a second opinion.
  CHECK(cudaEventRecord(a, s));
  for (int i = 0; i < iters; ++i) CHECK(cub::DeviceReduce::Sum(temp, temp_bytes, in, out, static_cast<std::int64_t>(n), s));
  CHECK(cudaEventRecord(b, s));
  CHECK(cudaEventSynchronize(b));
  float loop_ms = 0;
  CHECK(cudaEventElapsedTime(&loop_ms, a, b));

  std::vector<float> sorted = ms;
  std::sort(sorted.begin(), sorted.end());
  double mean = 0;
  for (float v : ms) mean += v;
  mean /= iters;
  const double median = sorted[iters / 2];
  std::printf("cub::DeviceReduce::Sum int32 N=2^%d: per-call events median %.2f us, mean %.2f us, "
              "min %.2f us; back-to-back loop %.2f us/call; %.1f GB/s at the median\n",
              log2n, median * 1e3, mean * 1e3, sorted[0] * 1e3, loop_ms * 1e3 / iters,
              n * sizeof(int) / (median * 1e-3) / 1e9);
  return 0;
}
