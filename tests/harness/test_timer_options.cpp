// The timer's experiment switch for gated batches (CUDABENCH_GATE_SAMPLES):
// its default, its range, and a bad value refused with the variable named.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "harness/timer.hpp"

namespace bench {
namespace {

TEST(TimerOptions, SamplesPerGateDefaultsTo32AndBadValuesAreNamed) {
  EXPECT_EQ(samples_per_gate_from(nullptr), 32u);
  EXPECT_EQ(samples_per_gate_from(""), 32u);
  EXPECT_EQ(samples_per_gate_from("0"), 0u);
  EXPECT_EQ(samples_per_gate_from("1"), 1u);
  EXPECT_EQ(samples_per_gate_from("256"), 256u);
  for (const char* bad : {"257", "-1", "32x", "many", " "}) {
    try {
      samples_per_gate_from(bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()),
                std::string("CUDABENCH_GATE_SAMPLES=") + bad +
                    ": not a whole number from 0 to 256 (event-timed samples per gate; 0: no gate; default 32)");
    }
  }
}

}  // namespace
}  // namespace bench
