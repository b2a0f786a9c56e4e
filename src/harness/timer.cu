#include "harness/timer.hpp"

namespace bench {
namespace {

// Streams through the flush buffer with 16-byte loads. The store is never taken
// (the buffer is zeroed) but keeps the compiler from dropping the loads.
__global__ void l2_flush_kernel(const uint4* __restrict__ buf, std::size_t count, unsigned int* sink) {
  unsigned int acc = 0;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const uint4 v = buf[i];
    acc |= v.x | v.y | v.z | v.w;
  }
  if (acc == 0xFFFFFFFFu) *sink = acc;
}

// Waits `ns` of GPU global time: holds the stream while the host enqueues.
__global__ void spin_kernel(unsigned long long ns) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}

// Longer than the host needs to record an event and enqueue a launch.
constexpr unsigned long long kHotSpinNs = 20'000;

}  // namespace

const char* to_string(CacheMode mode) { return mode == CacheMode::cold ? "cold" : "hot"; }

GpuTimer::GpuTimer(const DeviceInfo& device)
    : flush_buffer_(static_cast<std::size_t>(2 * std::max<long long>(device.l2_bytes, 1 << 20))),
      flush_sink_(1) {
  BENCH_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  BENCH_CUDA_CHECK(cudaEventCreate(&start_));
  BENCH_CUDA_CHECK(cudaEventCreate(&stop_));
  BENCH_CUDA_CHECK(cudaMemset(flush_buffer_.get(), 0, flush_buffer_.bytes()));
  BENCH_CUDA_CHECK(cudaDeviceSynchronize());
}

GpuTimer::~GpuTimer() {
  if (start_) cudaEventDestroy(start_);
  if (stop_) cudaEventDestroy(stop_);
  if (stream_) cudaStreamDestroy(stream_);
}

void GpuTimer::flush_l2() {
  const std::size_t count = flush_buffer_.bytes() / sizeof(uint4);
  l2_flush_kernel<<<1024, 512, 0, stream_>>>(reinterpret_cast<const uint4*>(flush_buffer_.get()),
                                              count, flush_sink_.get());
  BENCH_CHECK_LAUNCH("l2_flush_kernel");
}

void launch_spin(cudaStream_t stream, unsigned long long ns) {
  spin_kernel<<<1, 1, 0, stream>>>(ns);
  BENCH_CHECK_LAUNCH("spin_kernel");
}

void GpuTimer::spin(unsigned long long ns) { launch_spin(stream_, ns); }

double GpuTimer::measure(benchmark::State& state, const std::function<void(cudaStream_t)>& launch,
                         CacheMode mode, bool host_work, int warmup_launches) {
  for (int i = 0; i < warmup_launches; ++i) launch(stream_);
  BENCH_CUDA_CHECK(cudaStreamSynchronize(stream_));
  BENCH_CUDA_CHECK(cudaGetLastError());

  double total_seconds = 0;
  for (auto _ : state) {
    if (mode == CacheMode::cold) flush_l2();
    if (host_work) {
      BENCH_CUDA_CHECK(cudaStreamSynchronize(stream_));  // nothing may hide the host's work
    } else if (mode == CacheMode::hot) {
      spin(kHotSpinNs);  // as the flush does in cold mode: the launch latency stays out
    }
    BENCH_CUDA_CHECK(cudaEventRecord(start_, stream_));
    launch(stream_);
    BENCH_CUDA_CHECK(cudaEventRecord(stop_, stream_));
    BENCH_CUDA_CHECK(cudaEventSynchronize(stop_));
    float ms = 0;
    BENCH_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    const double seconds = static_cast<double>(ms) * 1e-3;
    state.SetIterationTime(seconds);
    total_seconds += seconds;
  }
  BENCH_CUDA_CHECK(cudaGetLastError());
  return total_seconds;
}

}  // namespace bench
