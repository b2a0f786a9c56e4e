// The JSON contract that tools/benchtools reads: Google Benchmark's format with
// our context keys and counters. A CPU-only benchmark stands in for a GPU one;
// the counters come from the same set_counters the runner uses (work over the
// median seconds of one call, plain values whatever the iteration count).
#include <benchmark/benchmark.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "harness/device.hpp"
#include "harness/results_file.hpp"
#include "harness/runner.hpp"

namespace bench {
namespace {

TEST(ResultsJson, ContextCountersAndNamesFollowTheContract) {
  DeviceInfo dev;
  dev.name = "Fake GPU";
  dev.mem_clock_khz = 1'000'000;
  dev.bus_width_bits = 8000;  // peak = 2e9 * 1000 B = 2 TB/s
  for (const auto& [k, v] : context_entries(dev, "3.0.1", "deadbeef")) benchmark::AddCustomContext(k, v);

  const Work work{1e9, 0, 2.5e8};  // 1 GB moved, 0.25 Gop per call
  benchmark::RegisterBenchmark("json_contract/i32/fake/N:250000000/block:256",
                               [&](benchmark::State& state) {
                                 for (auto _ : state) state.SetIterationTime(1e-3);  // 1 ms
                                 set_counters(state, work, 250000000, 1e-3, dev.peak_bandwidth_bytes_per_s());
                               })
      ->UseManualTime();
  benchmark::RegisterBenchmark("json_contract/i32/broken/N:1", [](benchmark::State& state) {
    state.SkipWithError("verification failed: expected 1, got 2");
  })->UseManualTime();

  std::stringstream out, err;
  FlushingJsonReporter reporter;
  reporter.SetOutputStream(&out);
  reporter.SetErrorStream(&err);
  ASSERT_EQ(benchmark::RunSpecifiedBenchmarks(&reporter, "^json_contract/"), 2u);

  const auto j = nlohmann::json::parse(out.str());
  EXPECT_EQ(j["context"]["gpu_name"], "Fake GPU");
  EXPECT_EQ(j["context"]["gpu_peak_bandwidth_gbps"], "2000.0");
  EXPECT_EQ(j["context"]["git_commit"], "deadbeef");
  ASSERT_EQ(j["benchmarks"].size(), 2u);

  const auto& ok = j["benchmarks"][0];
  EXPECT_EQ(ok["run_name"], "json_contract/i32/fake/N:250000000/block:256/manual_time");
  EXPECT_EQ(ok["time_unit"], "ns");
  EXPECT_NEAR(ok["real_time"].get<double>(), 1e6, 1);                  // 1 ms in ns
  EXPECT_NEAR(ok["bytes_per_second"].get<double>(), 1e12, 1e6);        // 1 GB / 1 ms
  EXPECT_NEAR(ok["items_per_second"].get<double>(), 2.5e11, 1e5);      // 2.5e8 elements / 1 ms
  EXPECT_NEAR(ok["ops_per_second"].get<double>(), 2.5e11, 1e5);
  EXPECT_NEAR(ok["bw_util"].get<double>(), 0.5, 1e-9);                 // 1 TB/s of 2 TB/s

  const auto& bad = j["benchmarks"][1];
  EXPECT_TRUE(bad["error_occurred"].get<bool>());
  EXPECT_EQ(bad["error_message"], "verification failed: expected 1, got 2");
}

}  // namespace
}  // namespace bench
