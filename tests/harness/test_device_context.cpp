// The device context written into every results file, and the file naming.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "harness/device.hpp"
#include "harness/results_file.hpp"
#include "harness/versions.hpp"

namespace bench {
namespace {

DeviceInfo h200_like() {
  DeviceInfo d;
  d.name = "NVIDIA H200";
  d.cc_major = 9;
  d.sm_count = 132;
  d.l2_bytes = 60 * 1024 * 1024;
  d.mem_clock_khz = 3'201'000;
  d.sm_clock_khz = 1'980'000;
  d.bus_width_bits = 6144;
  d.driver_version = 13000;
  d.runtime_version = 13000;
  return d;
}

TEST(DeviceContext, PeakBandwidthIsDdrClockTimesBusWidth) {
  // 2 x 3.201 GHz x 768 bytes = 4916.7 GB/s
  EXPECT_NEAR(h200_like().peak_bandwidth_bytes_per_s(), 4916.736e9, 1e6);
}

TEST(DeviceContext, EntriesNameTheGpuAndVersions) {
  const auto entries = context_entries(h200_like(), "3.0.1", "abc123");
  const std::map<std::string, std::string> m(entries.begin(), entries.end());
  EXPECT_EQ(m.size(), entries.size()) << "duplicate context keys";
  EXPECT_EQ(m.at("gpu_name"), "NVIDIA H200");
  EXPECT_EQ(m.at("gpu_sm_count"), "132");
  EXPECT_EQ(m.at("gpu_l2_bytes"), "62914560");
  EXPECT_EQ(m.at("gpu_mem_clock_khz"), "3201000");
  EXPECT_EQ(m.at("gpu_bus_width_bits"), "6144");
  EXPECT_EQ(m.at("gpu_peak_bandwidth_gbps"), "4916.7");
  EXPECT_EQ(m.at("gpu_compute_capability"), "9.0");
  EXPECT_EQ(m.at("cuda_driver_version"), "13.0");
  EXPECT_EQ(m.at("cuda_runtime_version"), "13.0");
  EXPECT_EQ(m.at("cccl_version"), "3.0.1");
  EXPECT_EQ(m.at("git_commit"), "abc123");
}

TEST(DeviceContext, TheSourceHashIsSixteenHexDigits) {
  // cmake/GitCommit.cmake's hash of what the binaries are built from; bench/main.cpp writes
  // it into every run's context as "source_hash", and the gate pools A/A runs by it.
  const std::string h = source_hash();
  ASSERT_EQ(h.size(), 16u) << h;
  for (char c : h) EXPECT_TRUE((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')) << h;
}

TEST(DeviceContext, TheoreticalComputePeaksFollowTheStatedFormula) {
  // 132 SMs x 1.98 GHz x 128 FMA x 2 flop = 66.9 TFLOP/s (the H100/H200 FP32 datasheet figure)
  const ComputePeaks p = compute_peaks(h200_like());
  EXPECT_NEAR(p.fp32_flops, 132 * 1.98e9 * 128 * 2, 1e6);
  EXPECT_NEAR(p.fp16_flops, 2 * p.fp32_flops, 1e6);
  EXPECT_NEAR(p.int32_ops, 132 * 1.98e9 * 64, 1e6);
  const auto entries = context_entries(h200_like(), "3.0.1", "x");
  const std::map<std::string, std::string> m(entries.begin(), entries.end());
  EXPECT_EQ(m.at("gpu_peak_fp32_flops"), "6.69082e+13");
  EXPECT_NE(m.at("gpu_peak_compute_formula").find("cc 9.0: 128, 256, 64"), std::string::npos);
  DeviceInfo unknown = h200_like();
  unknown.cc_major = 5;
  const auto e2 = context_entries(unknown, "3.0.1", "x");
  const std::map<std::string, std::string> m2(e2.begin(), e2.end());
  EXPECT_EQ(m2.at("gpu_peak_fp32_flops"), "unknown");  // no rate known: no number
}

TEST(DeviceContext, CudaVersionString) {
  EXPECT_EQ(cuda_version_string(12080), "12.8");
  EXPECT_EQ(cuda_version_string(13000), "13.0");
}

TEST(ResultsFile, SlugAndTimestampName) {
  EXPECT_EQ(slug("NVIDIA H200"), "nvidia-h200");
  EXPECT_EQ(slug("NVIDIA GeForce RTX 4090 (Laptop)"), "nvidia-geforce-rtx-4090-laptop");
  EXPECT_EQ(slug("***"), "unknown-gpu");
  const std::time_t t = 1795219200;  // 2026-11-21T00:00:00Z
  EXPECT_EQ(std::filesystem::path(new_results_path("/nonexistent", "NVIDIA H200", t)).filename(),
            "nvidia-h200_20261121T000000Z.json");
}

TEST(ResultsFile, NeverReusesAnExistingName) {
  const auto dir = std::filesystem::temp_directory_path() / "cudabench_results_test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::time_t t = 1795219200;
  const std::string first = new_results_path(dir.string(), "GPU", t);
  std::ofstream(first) << "{}";
  const std::string second = new_results_path(dir.string(), "GPU", t);
  EXPECT_NE(first, second);
  EXPECT_EQ(std::filesystem::path(second).filename(), "gpu_20261121T000000Z_2.json");
  std::ofstream(second) << "{}";
  EXPECT_EQ(std::filesystem::path(new_results_path(dir.string(), "GPU", t)).filename(),
            "gpu_20261121T000000Z_3.json");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace bench
