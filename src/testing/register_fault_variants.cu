// Only with -DCUDABENCH_FAULT_VARIANTS=ON: cuda_bench registers the test-only
// faulty declarations, and its results say so.
#include <benchmark/benchmark.h>

#include "testing/fault_variants.cuh"

namespace {
const bool registered = [] {
  for (auto& d : bench::testing::fault_declarations()) bench::declare(std::move(d));
  benchmark::AddCustomContext("fault_variants", "test_fault/i32/* registered (test-only build)");
  return true;
}();
}  // namespace
