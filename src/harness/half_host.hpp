// IEEE binary16 <-> float on the host, for the references and the CPU variant:
// the CPU's F16C instructions where it has them (asked once, at run time), else
// cuda_fp16's software conversions. Both convert exactly (half -> float) and
// round to nearest even (float -> half), so the two paths give the same bits
// (tests/harness/test_half_host.cpp); F16C is 4-5 times faster.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace bench {

// The host loops that convert halves work a block at a time through a float
// buffer of this many elements on their stack: f(i, m) for each block
// [i, i + m) of [lo, hi), m <= kHalfBlock.
constexpr std::size_t kHalfBlock = 1024;
template <class F>
void for_each_half_block(std::size_t lo, std::size_t hi, F&& f) {
  for (std::size_t i = lo; i < hi; i += kHalfBlock) f(i, std::min(kHalfBlock, hi - i));
}

void halves_to_floats(const std::uint16_t* in, float* out, std::size_t n);
void floats_to_halves(const float* in, std::uint16_t* out, std::size_t n);

// Whether this CPU takes the F16C path.
bool host_has_f16c();

// The software path alone (the tests compare the two).
void halves_to_floats_software(const std::uint16_t* in, float* out, std::size_t n);
void floats_to_halves_software(const float* in, std::uint16_t* out, std::size_t n);

}  // namespace bench
