// The clock record (no GPU: synthetic samples). The GPU side, NVML and the
// in-kernel probe, is in test_fault_recovery.cu.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "harness/annotations.hpp"
#include "harness/clocks.hpp"

namespace bench {
namespace {

constexpr unsigned long long kIdle = 0x1, kSwPowerCap = 0x4, kHwSlowdown = 0x8;

ClockSample nvml_sample(double sm, unsigned long long reasons = 0) {
  ClockSample s;
  s.sm_mhz = sm;
  s.mem_mhz = 2619;
  s.temperature_c = 40;
  s.power_w = 350.5;
  s.reasons = reasons;
  s.reasons_known = true;
  return s;
}

TEST(Clocks, AtFullClockNothingIsFlagged) {
  const std::string name = "clock_test/i32/full/N:1";
  EXPECT_EQ(record_clocks(name, {nvml_sample(1980), nvml_sample(1965), nvml_sample(1980)}, "nvml", 1980), "");
  const auto a = annotations_for(name);
  EXPECT_EQ(a["throttled"], false);
  const auto& c = a["clocks"];
  EXPECT_EQ(c["source"], "nvml");
  EXPECT_EQ(c["samples"], 3);
  EXPECT_EQ(c["idle_samples"], 0);
  EXPECT_EQ(c["sm_mhz"]["min"], 1965.0);
  EXPECT_EQ(c["sm_mhz"]["median"], 1980.0);
  EXPECT_EQ(c["sm_mhz"]["max"], 1980.0);
  EXPECT_EQ(c["sm_max_mhz"], 1980.0);
  EXPECT_NEAR(c["sm_min_fraction"].get<double>(), 0.992, 1e-9);
  EXPECT_EQ(c["mem_mhz"]["median"], 2619.0);
  EXPECT_EQ(c["temperature_c"]["max"], 40.0);
  EXPECT_EQ(c["power_w"]["max"], 350.5);
  EXPECT_EQ(c["reasons"], nlohmann::json::array());
}

TEST(Clocks, BelowTheThresholdWhileBusyIsThrottledWithItsReasons) {
  const std::string name = "clock_test/i32/capped/N:1";
  static_assert(kThrottleFraction == 0.90, "the numbers below assume 0.90");
  const double low = 1781;  // just below 0.90 x 1980 = 1782
  const std::string why =
      record_clocks(name, {nvml_sample(1980), nvml_sample(low, kSwPowerCap | kHwSlowdown)}, "nvml", 1980);
  EXPECT_NE(why.find("SM clock fell to 1781 MHz, 89.9% of 1980 MHz; sw_power_cap, hw_slowdown"), std::string::npos)
      << why;
  const auto a = annotations_for(name);
  EXPECT_EQ(a["throttled"], true);
  EXPECT_EQ(a["clocks"]["reasons"], nlohmann::json({"sw_power_cap", "hw_slowdown"}));
  EXPECT_EQ(record_clocks("clock_test/i32/at/N:1", {nvml_sample(1782)}, "nvml", 1980), "")
      << "exactly at the threshold is not below it";
}

// An idle GPU (waiting on the host, e.g. a CPU reference) drops its clocks;
// that is no throttling, and those samples are not the clock "during" the work.
TEST(Clocks, IdleSamplesAreNotThrottling) {
  const std::string name = "clock_test/i32/idle/N:1";
  EXPECT_EQ(record_clocks(name, {nvml_sample(1980), nvml_sample(345, kIdle)}, "nvml", 1980), "");
  auto a = annotations_for(name);
  EXPECT_EQ(a["clocks"]["idle_samples"], 1);
  EXPECT_EQ(a["clocks"]["sm_mhz"]["min"], 1980.0) << "the busy samples give the clock";
  EXPECT_EQ(a["clocks"]["reasons"], nlohmann::json::array()) << "gpu_idle is not a reason";

  const std::string cpu = "clock_test/i32/all_idle/N:1";
  EXPECT_EQ(record_clocks(cpu, {nvml_sample(345, kIdle)}, "nvml", 1980), "");
  a = annotations_for(cpu);
  EXPECT_EQ(a["throttled"], false);
  EXPECT_EQ(a["clocks"]["sm_mhz"]["min"], 345.0) << "with no busy sample, all of them are recorded";
}

TEST(Clocks, KernelFallbackRecordsTheSmClockAlone) {
  const std::string name = "clock_test/i32/kernel/N:1";
  ClockSample s;
  s.sm_mhz = 1500;
  EXPECT_NE(record_clocks(name, {s}, "kernel", 1980), "");
  const auto a = annotations_for(name);
  EXPECT_EQ(a["clocks"]["source"], "kernel");
  EXPECT_EQ(a["clocks"]["sm_mhz"]["min"], 1500.0);
  EXPECT_TRUE(a["clocks"]["mem_mhz"].is_null());
  EXPECT_TRUE(a["clocks"]["power_w"].is_null());
  EXPECT_EQ(a["throttled"], true);
}

TEST(Clocks, ReasonNames) {
  EXPECT_EQ(reason_names(0), std::vector<std::string>{});
  EXPECT_EQ(reason_names(kIdle), std::vector<std::string>{});
  EXPECT_EQ(reason_names(0x20 | 0x40 | 0x80),
            (std::vector<std::string>{"sw_thermal_slowdown", "hw_thermal_slowdown", "hw_power_brake_slowdown"}));
  EXPECT_EQ(reason_names(0x1000), std::vector<std::string>{"other_0x1000"});
}

}  // namespace
}  // namespace bench
