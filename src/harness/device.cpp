#include "harness/device.hpp"

#include <cuda_runtime_api.h>

#include <cctype>
#include <cstdio>

namespace bench {

std::optional<DeviceInfo> query_device(std::string* why) {
  int count = 0;
  cudaError_t st = cudaGetDeviceCount(&count);
  if (st != cudaSuccess || count == 0) {
    if (why) {
      *why = st != cudaSuccess ? std::string("cudaGetDeviceCount: ") + cudaGetErrorString(st)
                               : std::string("cudaGetDeviceCount found 0 devices");
    }
    return std::nullopt;
  }
  DeviceInfo d;
  auto attr = [&](cudaDeviceAttr a) {
    int v = 0;
    return cudaDeviceGetAttribute(&v, a, d.ordinal) == cudaSuccess ? v : 0;
  };
  if (cudaGetDevice(&d.ordinal) != cudaSuccess) d.ordinal = 0;
  cudaDeviceProp prop{};
  st = cudaGetDeviceProperties(&prop, d.ordinal);
  if (st != cudaSuccess) {
    if (why) *why = std::string("cudaGetDeviceProperties: ") + cudaGetErrorString(st);
    return std::nullopt;
  }
  d.name = prop.name;
  d.cc_major = prop.major;
  d.cc_minor = prop.minor;
  d.sm_count = prop.multiProcessorCount;
  d.l2_bytes = prop.l2CacheSize;
  d.global_mem_bytes = static_cast<long long>(prop.totalGlobalMem);
  d.bus_width_bits = prop.memoryBusWidth;
  // The clock fields left cudaDeviceProp in CUDA 13; attributes still carry them.
  d.sm_clock_khz = attr(cudaDevAttrClockRate);
  d.mem_clock_khz = attr(cudaDevAttrMemoryClockRate);
  cudaDriverGetVersion(&d.driver_version);
  cudaRuntimeGetVersion(&d.runtime_version);
  return d;
}

SmRates sm_rates(int major, int minor) {
  switch (major * 10 + minor) {
    case 80: return {64, 256, 64};    // A100
    case 86:
    case 87:
    case 89: return {128, 256, 64};   // Ampere consumer, Ada
    case 90: return {128, 256, 64};   // Hopper: H100, H200
    case 100: return {128, 256, 64};  // Blackwell
    default: return {};
  }
}

ComputePeaks compute_peaks(const DeviceInfo& d) {
  const SmRates r = sm_rates(d.cc_major, d.cc_minor);
  const double sm_hz = static_cast<double>(d.sm_count) * d.sm_clock_khz * 1e3;
  return {2.0 * r.fp32_fma * sm_hz, 2.0 * r.fp16_fma * sm_hz, 1.0 * r.int32_add * sm_hz};
}

std::string cuda_version_string(int version) {
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

std::vector<std::pair<std::string, std::string>> context_entries(const DeviceInfo& d,
                                                                 const std::string& cccl_version,
                                                                 const std::string& git_commit) {
  char peak[32];
  std::snprintf(peak, sizeof peak, "%.1f", d.peak_bandwidth_bytes_per_s() / 1e9);
  const ComputePeaks c = compute_peaks(d);
  auto num = [](double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return std::string(buf);
  };
  std::vector<std::pair<std::string, std::string>> entries{
      {"gpu_name", d.name},
      {"gpu_ordinal", std::to_string(d.ordinal)},
      {"gpu_compute_capability", std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor)},
      {"gpu_sm_count", std::to_string(d.sm_count)},
      {"gpu_l2_bytes", std::to_string(d.l2_bytes)},
      {"gpu_global_mem_bytes", std::to_string(d.global_mem_bytes)},
      {"gpu_sm_clock_khz", std::to_string(d.sm_clock_khz)},
      {"gpu_mem_clock_khz", std::to_string(d.mem_clock_khz)},
      {"gpu_bus_width_bits", std::to_string(d.bus_width_bits)},
      {"gpu_peak_bandwidth_gbps", peak},
      {"gpu_peak_bandwidth_formula", "2 * mem_clock * bus_width / 8"},
      {"cuda_driver_version", cuda_version_string(d.driver_version)},
      {"cuda_runtime_version", cuda_version_string(d.runtime_version)},
      {"cccl_version", cccl_version},
      {"git_commit", git_commit},
  };
  if (c.fp32_flops > 0) {
    entries.insert(entries.end(), {
        {"gpu_peak_fp32_flops", num(c.fp32_flops)},
        {"gpu_peak_fp16_flops", num(c.fp16_flops)},
        {"gpu_peak_int32_ops", num(c.int32_ops)},
        {"gpu_peak_compute_formula",
         "SMs * SM clock * per-SM rate per clock (FP32 FMA x2 flop; FP16 FMA lanes x2 flop; int32 adds); rates for "
         "cc " + std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor) + ": " +
             std::to_string(sm_rates(d.cc_major, d.cc_minor).fp32_fma) + ", " +
             std::to_string(sm_rates(d.cc_major, d.cc_minor).fp16_fma) + ", " +
             std::to_string(sm_rates(d.cc_major, d.cc_minor).int32_add)},
    });
  }
  return entries;
}

std::string slug(const std::string& text) {
  std::string out;
  for (char c : text) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (std::isalnum(u)) {
      out += static_cast<char>(std::tolower(u));
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "unknown-gpu" : out;
}

}  // namespace bench
