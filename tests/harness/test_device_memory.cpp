// The experiment switch of device allocations (CUDABENCH_PAGE_PER_ALLOCATION):
// its values, and a bad one refused with the variable named.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "harness/device_memory.hpp"

namespace bench {
namespace {

TEST(DeviceMemory, PagePerAllocationIsOffUnlessOneAndBadValuesAreNamed) {
  EXPECT_FALSE(page_per_allocation_from(nullptr));
  EXPECT_FALSE(page_per_allocation_from(""));
  EXPECT_FALSE(page_per_allocation_from("0"));
  EXPECT_TRUE(page_per_allocation_from("1"));
  for (const char* bad : {"yes", "2", "1 ", "on"}) {
    try {
      page_per_allocation_from(bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()), std::string("CUDABENCH_PAGE_PER_ALLOCATION=") + bad +
                                           ": expected 1 (every allocation in whole 2 MiB pages, an experiment) or 0");
    }
  }
}

}  // namespace
}  // namespace bench
