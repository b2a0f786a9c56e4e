// Test-only declarations whose faults prove the runner's error recovery
// (docs/faults.md). Never registered by a default build: the GPU tests use them
// directly, and -DCUDABENCH_FAULT_VARIANTS=ON registers them in cuda_bench.
//   test_fault/i32/fill             healthy: fills its output with 1s
//   test_fault/i32/illegal_address  writes through a bad pointer: a sticky error
//   test_fault/i32/oom              asks for 1 GiB more than the GPU has, every time
//   test_fault/i32/oom_once         asks for too much on its first case per N only,
//                                   so the runner's one retry succeeds
#pragma once

#include <vector>

#include "harness/registry.hpp"

namespace bench::testing {

std::vector<Declaration> fault_declarations();

}  // namespace bench::testing
