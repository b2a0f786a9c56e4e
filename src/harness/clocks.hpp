// The GPU's clocks while each benchmark is timed: SM and memory clock,
// temperature, power and the driver's reasons for holding clocks down, read
// through NVML (libnvidia-ml.so.1, loaded at run time, never linked) on a
// sampler thread, so the timed region is untouched. Without NVML, one
// in-kernel sample after the timed loop (clock64() cycles over %globaltimer
// nanoseconds, as nvbench does) gives the SM clock alone.
//
// Each benchmark's record goes into its JSON object as "clocks" and
// "throttled" (docs/faults.md has the schema). A benchmark whose SM clock fell
// below kThrottleFraction of the maximum while the GPU was busy is throttled:
// its time says more about the GPU's power or temperature than about the code.
#pragma once

#include <cuda_runtime_api.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "harness/device.hpp"

namespace bench {

// Boost clocks under load sit at or near the maximum; a 10% drop moves a
// compute-bound time by about as much, more than the noise the regression gate
// allows, while the few-percent wobble of power management stays above it.
constexpr double kThrottleFraction = 0.90;

// Every reading may be unknown (< 0), e.g. NVML not permitted to read power.
struct ClockSample {
  double sm_mhz = -1, mem_mhz = -1, temperature_c = -1, power_w = -1;
  unsigned long long reasons = 0;  // NVML's clocks event (throttle) reasons, a bit mask
  bool reasons_known = false;
  bool idle() const { return reasons_known && (reasons & 1ull); }  // nvmlClocksEventReasonGpuIdle
};

// Names of the reason bits ("sw_power_cap", "hw_slowdown", ...), idle left out.
std::vector<std::string> reason_names(unsigned long long reasons);

class ClockMonitor {
 public:
  explicit ClockMonitor(const DeviceInfo& device);
  ~ClockMonitor();
  ClockMonitor(const ClockMonitor&) = delete;
  ClockMonitor& operator=(const ClockMonitor&) = delete;

  bool nvml() const;
  const char* source() const { return nvml() ? "nvml" : "kernel"; }
  double max_sm_mhz() const;

  // For the results' context: clock_source (and why NVML is not used),
  // gpu_sm_clock_max_mhz, gpu_mem_clock_max_mhz, gpu_driver_version,
  // nvml_version, throttle_fraction.
  std::vector<std::pair<std::string, std::string>> context_entries() const;

  // Begins sampling every 10 ms (NVML only); the first sample lands 10 ms in.
  void start();
  // Ends sampling: the samples since start() and one taken now. Without NVML,
  // one in-kernel SM clock sample on `stream` (a CUDA call: throws CudaError).
  std::vector<ClockSample> stop(cudaStream_t stream);
  // Ends sampling, keeps nothing, makes no CUDA call.
  void cancel();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Writes the benchmark's "clocks" and "throttled" annotations from all its
// samples so far. Returns "" when not throttled, else what fell and why
// ("SM clock fell to 1710 MHz, 86% of 1980 MHz; sw_power_cap").
std::string record_clocks(const std::string& benchmark, const std::vector<ClockSample>& samples,
                          const char* source, double max_sm_mhz);

// The SM clock (MHz) of the SM that runs a short probe kernel on `stream`:
// clock64() cycles over %globaltimer nanoseconds across a ~200 us spin.
// `scratch` holds two 64-bit values of device memory.
double kernel_sm_clock_mhz(cudaStream_t stream, unsigned long long* scratch);

}  // namespace bench
