#include "harness/device.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

namespace bench {

int count_devices(std::string* why) {
  int count = 0;
  const cudaError_t st = cudaGetDeviceCount(&count);
  if (st == cudaSuccess && count > 0) return count;
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);  // 0 when no driver is installed
  cudaRuntimeGetVersion(&runtime);
  cudaGetLastError();
  if (why) {
    const std::string text =
        st == cudaSuccess ? std::string() : std::string(cudaGetErrorName(st)) + ": " + cudaGetErrorString(st);
    *why = describe_no_gpu(st, text, driver, runtime, std::getenv("CUDA_VISIBLE_DEVICES"));
  }
  return 0;
}

std::string describe_no_gpu(int cuda_error, const std::string& error_text, int driver_version,
                            int runtime_version, const char* visible_devices) {
  const std::string runtime = "CUDA " + cuda_version_string(runtime_version);
  const std::string driver = "CUDA " + cuda_version_string(driver_version);
  if (driver_version == 0 &&
      (cuda_error == cudaErrorInsufficientDriver || cuda_error == cudaErrorStubLibrary))
    return "no NVIDIA driver installed (libcuda.so.1 not found); this build needs one supporting " + runtime;
  if (cuda_error == cudaErrorInsufficientDriver && driver_version < runtime_version)
    return "the NVIDIA driver supports " + driver + ", older than this build's runtime, " + runtime +
           ": update the driver";
  if (cuda_error == cudaSuccess || cuda_error == cudaErrorNoDevice) {
    std::string s = "no CUDA device found (NVIDIA driver for " + driver + " installed)";
    if (visible_devices) s += "; CUDA_VISIBLE_DEVICES='" + std::string(visible_devices) + "' selects none";
    return s;
  }
  if (cuda_error == cudaErrorSystemDriverMismatch)
    return "the NVIDIA kernel module and driver library are different versions (" + error_text +
           "): reload the driver or reboot";
  return "cudaGetDeviceCount failed: " + error_text + " (driver " + driver + ", runtime " + runtime + ")";
}

std::optional<DeviceInfo> query_device(int ordinal, std::string* why) {
  const int count = count_devices(why);
  if (count == 0) return std::nullopt;
  if (ordinal < 0 || ordinal >= count) {
    if (why) *why = "no GPU " + std::to_string(ordinal) + " (this machine has " + std::to_string(count) + ")";
    return std::nullopt;
  }
  DeviceInfo d;
  d.ordinal = ordinal;
  auto attr = [&](cudaDeviceAttr a) {
    int v = 0;
    return cudaDeviceGetAttribute(&v, a, d.ordinal) == cudaSuccess ? v : 0;
  };
  cudaDeviceProp prop{};
  const cudaError_t st = cudaGetDeviceProperties(&prop, d.ordinal);
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
  unsigned char uuid[16];
  std::memcpy(uuid, prop.uuid.bytes, sizeof uuid);
  d.uuid = format_gpu_uuid(uuid);
  char bus[32] = "";
  if (cudaDeviceGetPCIBusId(bus, sizeof bus, d.ordinal) == cudaSuccess) d.pci_bus_id = bus;
  cudaDriverGetVersion(&d.driver_version);
  cudaRuntimeGetVersion(&d.runtime_version);
  return d;
}

std::optional<DeviceInfo> query_device(std::string* why) {
  int current = 0;
  if (count_devices(why) == 0) return std::nullopt;
  if (cudaGetDevice(&current) != cudaSuccess) current = 0;
  return query_device(current, why);
}

std::string format_gpu_uuid(const unsigned char (&bytes)[16]) {
  std::string s = "GPU-";
  char hex[3];
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s += '-';
    std::snprintf(hex, sizeof hex, "%02x", bytes[i]);
    s += hex;
  }
  return s;
}

std::string built_cuda_architectures() { return CUDABENCH_CUDA_ARCHITECTURES; }
std::string build_directory() { return CUDABENCH_BINARY_DIR; }

std::string arch_mismatch_message(const std::string& built_archs, const DeviceInfo& dev,
                                  const std::string& build_dir) {
  // "86,90-real" -> sm_86, sm_90; anything else (native, all) is named as given.
  std::vector<int> numbers;
  std::string shown;
  bool all_numeric = true;
  std::stringstream ss(built_archs);
  for (std::string item; std::getline(ss, item, ',');) {
    const std::string number = item.substr(0, item.find_first_not_of("0123456789"));
    if (number.empty()) {
      all_numeric = false;
      shown += (shown.empty() ? "'" : ", '") + item + "'";
    } else {
      numbers.push_back(std::stoi(number));
      shown += (shown.empty() ? "sm_" : ", sm_") + number;
    }
  }
  const int own = dev.cc_major * 10 + dev.cc_minor;
  // Keep what the build covers (other GPUs of the host) and add this one.
  std::vector<int> wanted = all_numeric ? numbers : std::vector<int>{};
  wanted.push_back(own);
  std::sort(wanted.begin(), wanted.end());
  wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
  std::string list;
  for (int a : wanted) list += (list.empty() ? "" : ";") + std::to_string(a);
  if (wanted.size() > 1) list = "\"" + list + "\"";
  return "GPU " + std::to_string(dev.ordinal) + " (" + dev.name + ", compute capability " +
         std::to_string(dev.cc_major) + "." + std::to_string(dev.cc_minor) + ") has no code in this build, which is for " +
         (shown.empty() ? "'" + built_archs + "'" : shown) + "; rebuild: cmake -B " + build_dir +
         " -DCMAKE_CUDA_ARCHITECTURES=" + list + " && cmake --build " + build_dir;
}

SmRates sm_rates(int major, int minor) {
  // FP32 FMAs, FP16 FMA lanes, int32 adds per SM per clock; 0 where no
  // published figure pins the rate down. From the architecture whitepapers'
  // per-SM unit counts and non-tensor peaks (FP16 at 2x FP32 on A100 and H100,
  // at 1x on GA10x, AD10x and GB20x); int32 is the integer pipe alone (the
  // compiler may also issue adds on the FMA pipe, see README).
  switch (major * 10 + minor) {
    case 75: return {64, 128, 64, "Turing whitepaper: 64 FP32 + 64 INT32 cores per SM, FP16 at 2x"};
    case 80: return {64, 256, 64, "A100 whitepaper: 64 FP32 + 64 INT32 cores per SM, FP16 at 4x"};
    case 86: return {128, 128, 64, "GA102 whitepaper: 128 FP32 cores per SM, 64 of them INT32, FP16 at 1x"};
    case 87: return {128, 0, 0, "Jetson Orin: 128 CUDA cores per SM; FP16, INT32 rates not published"};
    case 89: return {128, 128, 64, "Ada whitepaper: 128 FP32 cores per SM, 64 of them INT32, FP16 at 1x"};
    case 90: return {128, 256, 64, "H100 whitepaper: 128 FP32 + 64 INT32 cores per SM, FP16 at 2x"};
    case 100: return {128, 0, 0, "B200: 128 FP32 cores per SM; FP16, INT32 rates not published"};
    case 103: return {128, 0, 0, "B300: 128 FP32 cores per SM; FP16, INT32 rates not published"};
    case 110: return {128, 0, 0, "Jetson Thor: 128 CUDA cores per SM; FP16, INT32 rates not published"};
    case 120: return {128, 128, 128, "RTX Blackwell whitepaper: 128 FP32/INT32 cores per SM, FP16 at 1x"};
    case 121: return {128, 0, 0, "GB10: 128 CUDA cores per SM; FP16, INT32 rates not published"};
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
  const SmRates rates = sm_rates(d.cc_major, d.cc_minor);
  // A peak whose per-clock rate is not known is "unknown", never a guess.
  auto num = [](double v) {
    if (!(v > 0)) return std::string("unknown");
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return std::string(buf);
  };
  auto rate = [](int r) { return r > 0 ? std::to_string(r) : std::string("unknown"); };
  const std::string cc = std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor);
  std::vector<std::pair<std::string, std::string>> entries{
      {"gpu_name", d.name},
      {"gpu_ordinal", std::to_string(d.ordinal)},  // kept for older readers; same as device_ordinal
      {"device_ordinal", std::to_string(d.ordinal)},
      {"gpu_uuid", d.uuid},
      {"gpu_pci_bus_id", d.pci_bus_id},
      {"gpu_compute_capability", cc},
      {"gpu_sm_count", std::to_string(d.sm_count)},
      {"gpu_l2_bytes", std::to_string(d.l2_bytes)},
      {"gpu_global_mem_bytes", std::to_string(d.global_mem_bytes)},
      {"gpu_sm_clock_khz", std::to_string(d.sm_clock_khz)},
      {"gpu_mem_clock_khz", std::to_string(d.mem_clock_khz)},
      {"gpu_bus_width_bits", std::to_string(d.bus_width_bits)},
      {"gpu_peak_bandwidth_gbps", peak},
      {"gpu_peak_bandwidth_formula", "2 * mem_clock * bus_width / 8"},
      {"gpu_peak_fp32_flops", num(c.fp32_flops)},
      {"gpu_peak_fp16_flops", num(c.fp16_flops)},
      {"gpu_peak_int32_ops", num(c.int32_ops)},
      {"gpu_peak_compute_formula",
       "SMs * SM clock * per-SM rate per clock (FP32 FMA x2 flop; FP16 FMA lanes x2 flop; int32 adds); rates for cc " +
           cc + ": " + rate(rates.fp32_fma) + ", " + rate(rates.fp16_fma) + ", " + rate(rates.int32_add) + " (" +
           (*rates.source ? rates.source : "architecture not in the table") + ")"},
      {"cuda_driver_version", cuda_version_string(d.driver_version)},
      {"cuda_runtime_version", cuda_version_string(d.runtime_version)},
      {"cccl_version", cccl_version},
      {"git_commit", git_commit},
  };
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
