// The one timer. Every benchmark's timed region goes through GpuTimer::measure:
//   - CUDA events recorded on one explicit stream around the launch only,
//   - warm-up launches before timing (module load, first-touch, clocks),
//   - by default an L2 flush before every timed iteration ("cold": inputs smaller
//     than L2 would otherwise measure L2, not HBM), or no flush ("hot"),
//   - each iteration's elapsed time handed to Google Benchmark (UseManualTime).
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

  // Warm-up, then the Google Benchmark loop timing `launch` with events.
  // Returns the total measured seconds (the sum handed to SetIterationTime).
  double measure(benchmark::State& state, const std::function<void(cudaStream_t)>& launch,
               CacheMode mode, int warmup_launches = 2);

 private:
  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  DeviceBuffer<unsigned char> flush_buffer_;
  DeviceBuffer<unsigned int> flush_sink_;
};

}  // namespace bench
