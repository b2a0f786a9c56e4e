// The one timer. Every benchmark's timed region goes through GpuTimer::measure:
//   - CUDA events recorded on one explicit stream around the launch only,
//   - warm-up launches before timing (module load, first-touch, clocks),
//   - by default an L2 flush before every timed iteration ("cold": inputs smaller
//     than L2 would otherwise measure L2, not HBM), or no flush ("hot"),
//   - each iteration's elapsed time handed to Google Benchmark (UseManualTime).
// What is timed, in both modes:
//   - GPU work: the device time from the start event to the stop event. The
//     stream is kept busy ahead of the start event (the flush, or in hot mode a
//     short spin), so the host's launch latency is hidden the same way in both
//     modes and never counted.
//   - Host work (a library call that allocates and copies its result to the
//     host, a CPU reference): the stream is drained before the start event, so
//     the events bracket all of the host's work, none of it hidden behind the flush.
// A failed CUDA call or launch throws CudaError naming it.
#pragma once

#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <functional>

#include "harness/device.hpp"
#include "harness/device_buffer.hpp"

namespace bench {

enum class CacheMode { cold, hot };

const char* to_string(CacheMode mode);

// Enqueues a one-thread kernel that waits `ns` of GPU global time on `stream`.
void launch_spin(cudaStream_t stream, unsigned long long ns);

class GpuTimer {
 public:
  // Allocates the flush buffer (2 x L2) and creates the stream and events.
  explicit GpuTimer(const DeviceInfo& device);
  ~GpuTimer();
  GpuTimer(const GpuTimer&) = delete;
  GpuTimer& operator=(const GpuTimer&) = delete;

  cudaStream_t stream() const { return stream_; }

  // Evicts the L2 by reading a buffer twice its size (reads leave no dirty lines
  // to be written back during the next timed launch).
  void flush_l2();

  // Keeps the stream busy for about `ns` of device time (no memory traffic).
  void spin(unsigned long long ns);

  // Warm-up, then the Google Benchmark loop timing `launch` with events.
  // `host_work`: the launch does work on the host inside the timed region.
  // Returns the total measured seconds (the sum handed to SetIterationTime).
  double measure(benchmark::State& state, const std::function<void(cudaStream_t)>& launch,
               CacheMode mode, bool host_work, int warmup_launches = 2);

 private:
  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  DeviceBuffer<unsigned char> flush_buffer_;
  DeviceBuffer<unsigned int> flush_sink_;
};

}  // namespace bench
