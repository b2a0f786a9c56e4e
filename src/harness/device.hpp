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
  std::string uuid;          // "GPU-8-4-4-4-12 hex", as nvidia-smi prints it
  std::string pci_bus_id;    // "0000:3B:00.0"

  // Theoretical peak DRAM bandwidth: 2 transfers per clock (DDR) x memory
  // clock x bus width in bytes.
  double peak_bandwidth_bytes_per_s() const {
    return 2.0 * mem_clock_khz * 1e3 * (bus_width_bits / 8.0);
  }
};

// Per-SM, per-clock rates of the architecture: FP32 FMAs, FP16 FMA lanes (a
// half2 FMA counts two), int32 adds; `source` names where they come from. A rate
// is 0 where no published figure pins it down ("unknown" in the JSON), and all
// are 0 for an architecture outside the table (CUDA 13's: 7.5 ... 12.1).
struct SmRates {
  int fp32_fma = 0;
  int fp16_fma = 0;
  int int32_add = 0;
  const char* source = "";
};
SmRates sm_rates(int cc_major, int cc_minor);

// Theoretical peaks: SMs x SM clock x per-SM rate (x 2 flop per FMA); 0 where
// the rate is unknown.
struct ComputePeaks {
  double fp32_flops = 0, fp16_flops = 0, int32_ops = 0;
};
ComputePeaks compute_peaks(const DeviceInfo& dev);

// How many CUDA devices there are; 0 with the cause in *why when none is
// usable (see describe_no_gpu).
int count_devices(std::string* why);

// The cause of "no GPU" in words, from cudaGetDeviceCount's error (0 when it
// succeeded with no device), the driver's and runtime's CUDA versions (driver 0:
// no driver installed) and CUDA_VISIBLE_DEVICES (null when unset).
std::string describe_no_gpu(int cuda_error, const std::string& error_text, int driver_version,
                            int runtime_version, const char* visible_devices);

// Device `ordinal` (the current device without one), or nullopt with the
// reason in *why.
std::optional<DeviceInfo> query_device(int ordinal, std::string* why);
std::optional<DeviceInfo> query_device(std::string* why);

// "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" from the 16 bytes CUDA reports.
std::string format_gpu_uuid(const unsigned char (&bytes)[16]);

// The CUDA architectures this binary was built for, as CMake was given them
// ("90", "86,90", "native").
std::string built_cuda_architectures();
// The build directory this binary came from (for the rebuild command).
std::string build_directory();

// Whether the current device can run this binary's kernels: 0, or the CUDA
// error of looking up a harness kernel (cudaErrorNoKernelImageForDevice when the
// build has no code for this GPU). Clears the error it causes.
int check_device_code();

// One line for a GPU without code in this build: what the build is for, what
// the GPU is, and the command that rebuilds for it (in `build_dir`).
std::string arch_mismatch_message(const std::string& built_archs, const DeviceInfo& dev,
                                  const std::string& build_dir);

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
