// What the harness knows about the GPU: queried once, written into the JSON
// context, and used for the bandwidth-utilisation counter and the L2 flush.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace bench {

struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  long long l2_bytes = 0;
  long long global_mem_bytes = 0;
  int sm_clock_khz = 0;
  int mem_clock_khz = 0;     // peak memory clock
  int bus_width_bits = 0;
  int driver_version = 0;    // e.g. 13000
  int runtime_version = 0;

  // Theoretical peak DRAM bandwidth: 2 transfers per clock (DDR) x memory
  // clock x bus width in bytes.
  double peak_bandwidth_bytes_per_s() const {
    return 2.0 * mem_clock_khz * 1e3 * (bus_width_bits / 8.0);
  }
};

// Per-SM, per-clock issue rates of the architecture (CUDA C++ Programming
// Guide, arithmetic instruction throughput): FP32 FMAs, FP16 FMA lanes (a half2
// FMA counts two), int32 adds. Zero when the compute capability is not in the table.
struct SmRates {
  int fp32_fma = 0;
  int fp16_fma = 0;
  int int32_add = 0;
};
SmRates sm_rates(int cc_major, int cc_minor);

// Theoretical peaks: SMs x SM clock x per-SM rate (x 2 flop per FMA).
struct ComputePeaks {
  double fp32_flops = 0, fp16_flops = 0, int32_ops = 0;
};
ComputePeaks compute_peaks(const DeviceInfo& dev);

// The current device, or nullopt with the reason in *why (no GPU, no driver...).
std::optional<DeviceInfo> query_device(std::string* why);

// "13.0" from 13000.
std::string cuda_version_string(int version);

// The key/value pairs written into the results JSON "context" (all strings, as
// Google Benchmark's custom context requires). Keys are the JSON contract that
// tools/benchtools reads; see README "Output".
std::vector<std::pair<std::string, std::string>> context_entries(const DeviceInfo& dev,
                                                                 const std::string& cccl_version,
                                                                 const std::string& git_commit);

// "NVIDIA H200" -> "nvidia-h200": used in result file names.
std::string slug(const std::string& text);

}  // namespace bench
