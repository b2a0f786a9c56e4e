#include "harness/clocks.hpp"
#include "harness/cuda_check.hpp"

namespace bench {
namespace {

// Cycles of this SM's clock over nanoseconds of the GPU's global timer, across
// a spin long enough that the timer's granularity (up to 1 us) stays below 1%.
__global__ void clock_probe_kernel(unsigned long long spin_ns, unsigned long long* out) {
  unsigned long long t0, t1;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  const long long c0 = clock64();
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
  } while (t1 - t0 < spin_ns);
  const long long c1 = clock64();
  out[0] = static_cast<unsigned long long>(c1 - c0);
  out[1] = t1 - t0;
}

constexpr unsigned long long kProbeSpinNs = 200'000;

}  // namespace

double kernel_sm_clock_mhz(cudaStream_t stream, unsigned long long* scratch) {
  clock_probe_kernel<<<1, 1, 0, stream>>>(kProbeSpinNs, scratch);
  BENCH_CHECK_LAUNCH("clock_probe_kernel");
  unsigned long long host[2] = {0, 0};
  BENCH_CUDA_CHECK(cudaMemcpyAsync(host, scratch, sizeof host, cudaMemcpyDeviceToHost, stream));
  BENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
  return host[1] > 0 ? 1e3 * static_cast<double>(host[0]) / static_cast<double>(host[1]) : -1;
}

}  // namespace bench
