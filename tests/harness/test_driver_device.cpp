// What the driver says about the GPU (src/harness/device.cpp): a build without
// code for it, no usable GPU, its identity, and the per-clock rates table.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <map>

#include "harness/device.hpp"

namespace bench {
namespace {

DeviceInfo a100() {
  DeviceInfo d;
  d.ordinal = 1;
  d.name = "NVIDIA A100-SXM4-80GB";
  d.cc_major = 8;
  d.cc_minor = 0;
  return d;
}

TEST(DriverDevice, ArchMismatchNamesBuildGpuAndRebuild) {
  EXPECT_EQ(arch_mismatch_message("90", a100(), "build"),
            "GPU 1 (NVIDIA A100-SXM4-80GB, compute capability 8.0) has no code in this build, which is for sm_90; "
            "rebuild: cmake -B build -DCMAKE_CUDA_ARCHITECTURES=\"80;90\" && cmake --build build");
  // The GPU's own architecture joins what the build had (other GPUs of the host).
  EXPECT_NE(arch_mismatch_message("86,90-real", a100(), "/b").find(
                "for sm_86, sm_90; rebuild: cmake -B /b -DCMAKE_CUDA_ARCHITECTURES=\"80;86;90\" && cmake --build /b"),
            std::string::npos);
  // A non-numeric choice is shown as given; the rebuild names this GPU alone.
  EXPECT_NE(arch_mismatch_message("native", a100(), "build").find(
                "which is for 'native'; rebuild: cmake -B build -DCMAKE_CUDA_ARCHITECTURES=80 &&"),
            std::string::npos);
  EXPECT_EQ(arch_mismatch_message("90", a100(), "b").find('\n'), std::string::npos);  // one line
  EXPECT_FALSE(built_cuda_architectures().empty());
}

TEST(DriverDevice, NoGpuNamesTheCause) {
  EXPECT_EQ(describe_no_gpu(cudaErrorInsufficientDriver, "x", 0, 13000, nullptr),
            "no NVIDIA driver installed (libcuda.so.1 not found); this build needs one supporting CUDA 13.0");
  EXPECT_EQ(describe_no_gpu(cudaErrorInsufficientDriver, "x", 12020, 13000, nullptr),
            "the NVIDIA driver supports CUDA 12.2, older than this build's runtime, CUDA 13.0: update the driver");
  EXPECT_EQ(describe_no_gpu(cudaErrorNoDevice, "x", 13000, 13000, nullptr),
            "no CUDA device found (NVIDIA driver for CUDA 13.0 installed)");
  EXPECT_EQ(describe_no_gpu(cudaErrorNoDevice, "x", 13000, 13000, ""),
            "no CUDA device found (NVIDIA driver for CUDA 13.0 installed); CUDA_VISIBLE_DEVICES='' selects none");
  EXPECT_NE(describe_no_gpu(cudaErrorSystemDriverMismatch, "cudaErrorSystemDriverMismatch: m", 13000, 13000, nullptr)
                .find("kernel module and driver library are different versions"),
            std::string::npos);
  EXPECT_EQ(describe_no_gpu(cudaErrorUnknown, "cudaErrorUnknown: unknown error", 13000, 13000, nullptr),
            "cudaGetDeviceCount failed: cudaErrorUnknown: unknown error (driver CUDA 13.0, runtime CUDA 13.0)");
  // On this machine (no GPU, no driver) the real query gives one of these causes.
  std::string why;
  if (count_devices(&why) == 0) EXPECT_FALSE(why.empty());
}

TEST(DriverDevice, UuidAsNvidiaSmiPrintsIt) {
  const unsigned char bytes[16] = {0x8a, 0x1b, 0x2c, 0x3d, 0x4e, 0x5f, 0x60, 0x71,
                                   0x82, 0x93, 0xa4, 0xb5, 0xc6, 0xd7, 0xe8, 0xf9};
  EXPECT_EQ(format_gpu_uuid(bytes), "GPU-8a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9");
}

TEST(DriverDevice, RatesCoverCuda13ArchitecturesOrSayUnknown) {
  for (auto [major, minor] : {std::pair{7, 5}, {8, 0}, {8, 6}, {8, 7}, {8, 9}, {9, 0}, {10, 0}, {10, 3}, {11, 0},
                              {12, 0}, {12, 1}}) {
    const SmRates r = sm_rates(major, minor);
    EXPECT_GT(r.fp32_fma, 0) << major << "." << minor;
    EXPECT_STRNE(r.source, "") << major << "." << minor;
  }
  EXPECT_EQ(sm_rates(8, 0).fp32_fma, 64);   // A100: 64 FP32 lanes per SM
  EXPECT_EQ(sm_rates(8, 6).fp16_fma, 128);  // GA10x: FP16 at the FP32 rate
  EXPECT_EQ(sm_rates(7, 0).fp32_fma, 0);    // not a CUDA 13 target
  // An unknown rate is "unknown" in the JSON, never a number.
  DeviceInfo b200;
  b200.cc_major = 10;
  b200.sm_count = 148;
  b200.sm_clock_khz = 1'965'000;
  const auto entries = context_entries(b200, "3.0", "c");
  const std::map<std::string, std::string> m(entries.begin(), entries.end());
  EXPECT_NE(m.at("gpu_peak_fp32_flops"), "unknown");
  EXPECT_EQ(m.at("gpu_peak_fp16_flops"), "unknown");
  EXPECT_EQ(m.at("gpu_peak_int32_ops"), "unknown");
  EXPECT_NE(m.at("gpu_peak_compute_formula").find("cc 10.0: 128, unknown, unknown"), std::string::npos);
}

TEST(DriverDevice, ContextNamesOrdinalUuidAndBus) {
  DeviceInfo d = a100();
  d.uuid = "GPU-8a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9";
  d.pci_bus_id = "0000:3B:00.0";
  const auto entries = context_entries(d, "3.0", "c");
  const std::map<std::string, std::string> m(entries.begin(), entries.end());
  EXPECT_EQ(m.size(), entries.size()) << "duplicate context keys";
  EXPECT_EQ(m.at("device_ordinal"), "1");
  EXPECT_EQ(m.at("gpu_uuid"), d.uuid);
  EXPECT_EQ(m.at("gpu_pci_bus_id"), "0000:3B:00.0");
}

}  // namespace
}  // namespace bench
