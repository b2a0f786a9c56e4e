// Shared by GPU tests: skip (not pass) when no CUDA device is present.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "harness/device.hpp"

#define BENCH_REQUIRE_GPU()                                         \
  do {                                                              \
    std::string why_no_gpu;                                         \
    if (!::bench::query_device(&why_no_gpu))                        \
      GTEST_SKIP() << "no CUDA GPU: " << why_no_gpu;                \
  } while (0)
