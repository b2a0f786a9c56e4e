// Random non-zero inputs shared by every variant of a family: made once per
// (element type, N) on the host, so references read the exact values, and
// uploaded once. Deterministic: element i depends only on (seed, i).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "harness/device_buffer.hpp"

namespace bench {

template <typename T>
struct Dataset {
  std::vector<T> host;
  DeviceBuffer<T> device;
};

// Element values:
//   int32: uniform in [-16, 16] without 0 (sums stay far from overflow; a wrong
//          index or a lost element changes an exact integer result).
//   float: sign * uniform [0.5, 1.5): non-zero, zero-mean, so rounding error in
//          any summation order stays far below the documented tolerance.
//   half, bfloat16: the float values rounded once to the type.
template <typename T>
T random_element(std::uint64_t seed, std::size_t index);

// The cached dataset for (T, n). `seed` distinguishes independent inputs of one
// case (a and b of a vector add). Pointers stay valid until clear_datasets().
template <typename T>
const Dataset<T>& random_dataset(std::size_t n, std::uint64_t seed = 0);

// Frees every cached dataset (host and device); returns the device bytes freed.
// Only where no case holds dataset pointers (the runner: between benchmarks).
std::size_t clear_datasets();

}  // namespace bench
