// The host's half conversions: the F16C path (where this CPU has it) and the
// software path give the same bits, for every half and for floats at and
// between every pair of neighbouring halves (ties to even), beyond the range,
// and at random.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "harness/half_host.hpp"

namespace bench {
namespace {

bool same(float x, float y) {
  if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
  return std::memcmp(&x, &y, sizeof x) == 0;
}

bool is_nan_half(std::uint16_t h) { return (h & 0x7C00) == 0x7C00 && (h & 0x03FF) != 0; }

TEST(HalfHost, EveryHalfWidensToTheSameFloat) {
  std::vector<std::uint16_t> all(65536);
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<std::uint16_t>(i);
  std::vector<float> fast(all.size()), soft(all.size());
  halves_to_floats(all.data(), fast.data(), all.size());
  halves_to_floats_software(all.data(), soft.data(), all.size());
  for (std::size_t i = 0; i < all.size(); ++i) ASSERT_TRUE(same(fast[i], soft[i])) << "half 0x" << std::hex << i;
  EXPECT_EQ(soft[0x3C00], 1.0f);
  EXPECT_EQ(soft[0x0001], std::ldexp(1.0f, -24));  // the smallest subnormal
}

TEST(HalfHost, FloatsRoundToTheSameHalves) {
  // Every half's value, the midpoints between neighbours (ties), a quarter past
  // them, beyond the largest half, and random floats of every magnitude.
  std::vector<std::uint16_t> all(65536);
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<std::uint16_t>(i);
  std::vector<float> v(all.size());
  halves_to_floats_software(all.data(), v.data(), all.size());
  std::vector<float> in;
  for (std::size_t i = 0; i + 1 < v.size(); ++i) {
    if (std::isnan(v[i]) || std::isnan(v[i + 1]) || std::isinf(v[i]) || std::isinf(v[i + 1])) continue;
    if ((i & 0x7FFF) == 0x7FFF) continue;  // +max -> -0: not neighbours
    in.push_back(v[i]);
    in.push_back(0.5f * (v[i] + v[i + 1]));
    in.push_back(v[i] + 0.25f * (v[i + 1] - v[i]));
  }
  for (float x : {65504.0f, 65519.99f, 65520.0f, 1e6f, -65520.0f, 0.0f, -0.0f, INFINITY, -INFINITY, NAN})
    in.push_back(x);
  std::mt19937 rng(12345);
  std::uniform_int_distribution<std::uint32_t> bits;
  for (int k = 0; k < 1'000'000; ++k) {
    const std::uint32_t b = bits(rng);
    float x;
    std::memcpy(&x, &b, sizeof x);
    in.push_back(x);
  }
  std::vector<std::uint16_t> fast(in.size()), soft(in.size());
  floats_to_halves(in.data(), fast.data(), in.size());
  floats_to_halves_software(in.data(), soft.data(), in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (is_nan_half(soft[i])) {
      ASSERT_TRUE(is_nan_half(fast[i])) << in[i];
      continue;
    }
    ASSERT_EQ(fast[i], soft[i]) << "float " << in[i] << " (input " << i << ")";
  }
  std::cout << "[          ] F16C path " << (host_has_f16c() ? "used" : "not available: software both times")
            << "; " << in.size() << " floats\n";
}

}  // namespace
}  // namespace bench
