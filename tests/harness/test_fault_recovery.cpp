// The runner under faults, on a GPU, through Google Benchmark and the results
// writer as cuda_bench runs them: out of memory is one benchmark's error and
// the next runs normally; a sticky error stops the run with closed JSON and
// exit status 1 (in a child process: it breaks the context); every benchmark
// carries its clock record.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "gpu_test.hpp"
#include "harness/data.hpp"
#include "harness/results_file.hpp"
#include "harness/runner.hpp"
#include "testing/fault_variants.cuh"

namespace bench {
namespace {

const Declaration& fault(const std::string& variant) {
  static const std::vector<Declaration> decls = testing::fault_declarations();
  for (const auto& d : decls)
    if (d.variant == variant) return d;
  throw std::out_of_range(variant);
}

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs `decls` at N = 2^20 through Google Benchmark with the real runner and
// results writer, as cuda_bench does, into `path`.
void run_suite(const std::vector<const Declaration*>& decls, Runner& runner, const std::string& path) {
  std::vector<Declaration> copies;
  for (const auto* d : decls) copies.push_back(*d);
  RegistrationOptions opt;
  opt.sizes = {1 << 20};
  register_benchmarks(copies, opt, [&runner](benchmark::State& s, const Declaration& d, const Point& p) {
    runner.run(s, d, p);
  });
  std::remove(path.c_str());
  ResultsWriter writer(path);
  benchmark::RunSpecifiedBenchmarks(&writer, ".*");  // as the display reporter: no --benchmark_out needed
  benchmark::ClearRegisteredBenchmarks();
}

const nlohmann::json& entry(const nlohmann::json& results, const std::string& name) {
  for (const auto& b : results["benchmarks"])
    if (b["run_name"] == name + kRunNameSuffix) return b;
  throw std::out_of_range(name);
}

class FaultRecovery : public ::testing::Test {
 protected:
  void SetUp() override { BENCH_REQUIRE_GPU(); }
};

TEST_F(FaultRecovery, OutOfMemoryIsOneBenchmarksErrorAndTheNextRunsNormally) {
  Runner runner(*query_device(nullptr), CacheMode::cold);
  clear_datasets();
  (void)random_dataset<float>(1 << 20);  // cached; the retry must drop it
  const std::string path = ::testing::TempDir() + "cuda_bench_oom.json";
  ::testing::internal::CaptureStderr();
  run_suite({&fault("oom"), &fault("oom_once"), &testing::find("reduce_sum/i32/cub_device_reduce")}, runner, path);
  const std::string err = ::testing::internal::GetCapturedStderr();

  const auto results = nlohmann::json::parse(read(path));
  const auto& oom = entry(results, "test_fault/i32/oom/N:1048576");
  ASSERT_TRUE(oom.value("error_occurred", false)) << oom.dump();
  const std::string message = oom["error_message"];
  EXPECT_TRUE(std::regex_search(message, std::regex("^out of device memory: needs [0-9.]+ GiB, [0-9.]+ GiB free of "
                                                    "[0-9.]+ GiB .*; also after freeing the cached datasets$")))
      << message;
  EXPECT_NE(err.find("test_fault/i32/oom/N:1048576: out of device memory: needs"), std::string::npos) << err;
  EXPECT_NE(err.find("of cached datasets, trying once more"), std::string::npos) << err;

  const auto& retried = entry(results, "test_fault/i32/oom_once/N:1048576");
  EXPECT_FALSE(retried.value("error_occurred", false)) << retried.dump();
  EXPECT_GT(retried["real_time"].get<double>(), 0);

  const auto& next = entry(results, "reduce_sum/i32/cub_device_reduce/N:1048576");
  EXPECT_FALSE(next.value("error_occurred", false)) << next.dump();
  EXPECT_EQ(runner.failures().size(), 1u);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "the out-of-memory error was left behind";
  // Only the int32 input made after the retry is cached: the float one was dropped.
  EXPECT_EQ(clear_datasets(), std::size_t{4} << 20);
}

// In the death test's child (a fresh process): the run stops at the sticky error.
void run_into_a_sticky_error(const std::string& path) {
  Runner runner(*query_device(nullptr), CacheMode::cold);
  run_suite({&fault("fill"), &fault("illegal_address"), &testing::find("reduce_sum/i32/cub_device_reduce")}, runner,
            path);
  std::fprintf(stderr, "the run went on\n");
  std::exit(0);
}

TEST_F(FaultRecovery, StickyErrorStopsTheRunWithEveryFinishedResultInClosedJson) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // the child re-executes: a CUDA context of its own
  const std::string path = ::testing::TempDir() + "cuda_bench_sticky.json";
  std::remove(path.c_str());
  EXPECT_EXIT(run_into_a_sticky_error(path), ::testing::ExitedWithCode(1),
              "sticky CUDA error in test_fault/i32/illegal_address/N:1048576: sticky CUDA error "
              "\\(cudaErrorIllegalAddress\\).*stopped after 2 benchmarks; results in .* \\(closed, valid JSON\\)");
  const auto results = nlohmann::json::parse(read(path));  // strict JSON: closed
  ASSERT_EQ(results["benchmarks"].size(), 2u) << results.dump(2);
  EXPECT_FALSE(results["benchmarks"][0].value("error_occurred", false));
  const auto& bad = results["benchmarks"][1];
  EXPECT_EQ(bad["run_name"], std::string("test_fault/i32/illegal_address/N:1048576") + kRunNameSuffix);
  EXPECT_NE(bad["error_message"].get<std::string>().find("cudaErrorIllegalAddress"), std::string::npos);
}

TEST_F(FaultRecovery, EveryBenchmarkCarriesItsClockRecord) {
  Runner runner(*query_device(nullptr), CacheMode::cold);
  double max_mhz = 0;
  std::string source;
  for (const auto& [key, value] : runner.context_entries()) {
    if (key == "gpu_sm_clock_max_mhz") max_mhz = std::stod(value);
    if (key == "clock_source") source = value;
  }
  ASSERT_GT(max_mhz, 100) << "no maximum SM clock in the context";
  ASSERT_TRUE(source == "nvml" || source == "kernel") << source;
  RecordProperty("clock_source", source);

  const std::string path = ::testing::TempDir() + "cuda_bench_clocks.json";
  run_suite({&testing::find("reduce_sum/i32/cub_device_reduce"), &fault("fill")}, runner, path);
  const auto results = nlohmann::json::parse(read(path));
  ASSERT_EQ(results["benchmarks"].size(), 2u);
  for (const auto& b : results["benchmarks"]) {
    SCOPED_TRACE(b["run_name"].get<std::string>());
    ASSERT_TRUE(b.contains("clocks")) << b.dump();
    const auto& c = b["clocks"];
    EXPECT_EQ(c["source"], source);
    EXPECT_GE(c["samples"].get<int>(), 1);
    EXPECT_NEAR(c["sm_max_mhz"].get<double>(), max_mhz, 0.5);  // the context rounds to whole MHz
    const double lowest = c["sm_mhz"]["min"].get<double>();
    EXPECT_GT(lowest, 0.1 * max_mhz);
    EXPECT_LE(c["sm_mhz"]["max"].get<double>(), 1.05 * max_mhz);
    EXPECT_EQ(b["throttled"].get<bool>(), lowest < kThrottleFraction * max_mhz && c["idle_samples"] != c["samples"]);
    if (source == "nvml") {
      EXPECT_GT(c["mem_mhz"]["min"].get<double>(), 0);
      EXPECT_TRUE(c["reasons"].is_array());
    }
  }
}

// The fallback probe against the device's own maximum clock.
TEST_F(FaultRecovery, KernelClockProbeReadsAPlausibleSmClock) {
  const DeviceInfo dev = *query_device(nullptr);
  DeviceBuffer<unsigned long long> scratch(2);
  cudaStream_t stream;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  const double mhz = kernel_sm_clock_mhz(stream, scratch.get());
  EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
  const double max_mhz = dev.sm_clock_khz * 1e-3;
  ASSERT_GT(max_mhz, 0);
  EXPECT_GT(mhz, 0.1 * max_mhz);
  EXPECT_LT(mhz, 1.1 * max_mhz);
  RecordProperty("kernel_sm_clock_mhz", std::to_string(mhz));
}

}  // namespace
}  // namespace bench
