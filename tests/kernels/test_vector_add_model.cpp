// vector_add on the host: its bytes/ops model (the roofline places it at 1/12
// op/byte for f32 and 1/6 for f16/bf16) and its element check, which must pass a
// correctly rounded half result and fail a wrong one.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "families/vector_add.cuh"
#include "harness/registry.hpp"

namespace bench {
namespace {

TEST(VectorAddModel, IntensityIsOneTwelfthForF32AndOneSixthFor16Bit) {
  int seen = 0;
  for (const auto& d : declarations()) {
    if (d.family != "vector_add") continue;
    ++seen;
    const Work w = d.work(1 << 20);
    const double size = d.type == "f32" ? 4 : 2;
    EXPECT_EQ(w.bytes(), 3.0 * size * (1 << 20)) << d.id();
    EXPECT_EQ(w.ops, 1 << 20) << d.id();
    EXPECT_DOUBLE_EQ(w.intensity(), d.type == "f32" ? 1.0 / 12 : 1.0 / 6) << d.id();
    EXPECT_EQ(d.max_n, std::size_t(1) << 28) << d.id();
  }
  EXPECT_EQ(seen, 5 + 7 + 7);  // f32: elem x4 thrust cub cpu; f16, bf16: elem x2 x8 x8_pack thrust cub cpu
}

TEST(VectorAddCheck, CorrectlyRoundedHalfSumsPassAndWrongOnesFail) {
  // 1 + 2^-11 is not representable in half: the sum rounds (to even) to 1.0.
  const std::vector<__half> a{__float2half(1.0f), __float2half(0.5f)};
  const std::vector<__half> b{__float2half(0x1p-11f), __float2half(0.25f)};
  std::vector<__half> out{__float2half(1.0f), __float2half(0.75f)};
  EXPECT_EQ(vector_add::add_check(a.data(), b.data(), out.data(), 2), "");
  out[0] = __float2half(1.0009765625f);  // the next half up: off by one ulp
  const std::string msg = vector_add::add_check(a.data(), b.data(), out.data(), 2);
  EXPECT_NE(msg.find("1 of 2 elements wrong; first at index 0"), std::string::npos) << msg;
}

// host_add rounds through float: for half and bfloat16 that is the exact sum
// rounded once, the same bits as the sum in double rounded once (the reference
// before it), for random pairs of every magnitude, ties, and the range's ends.
template <class T>
void expect_host_add_is_the_double_path(std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<unsigned> bits(0, 0xFFFF);
  std::vector<T> a, b;
  auto from_bits = [](unsigned u) {
    T x;
    const std::uint16_t h = static_cast<std::uint16_t>(u);
    std::memcpy(&x, &h, sizeof x);
    return x;
  };
  for (int k = 0; k < 2'000'000; ++k) {
    const T x = from_bits(bits(rng)), y = from_bits(bits(rng));
    if (std::isnan(widen(x)) || std::isnan(widen(y))) continue;
    a.push_back(x);
    b.push_back(y);
  }
  std::vector<T> got(a.size());
  vector_add::host_add(a.data(), b.data(), got.data(), a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    const T want = round_to<T>(widen(a[i]) + widen(b[i]));
    if (std::isnan(widen(want))) continue;  // inf + -inf
    ASSERT_EQ(std::memcmp(&got[i], &want, sizeof(T)), 0)
        << widen(a[i]) << " + " << widen(b[i]) << ": " << widen(got[i]) << ", want " << widen(want);
  }
}

TEST(VectorAddCheck, HostAddIsTheExactSumRoundedOnce) {
  expect_host_add_is_the_double_path<__half>(1);
  expect_host_add_is_the_double_path<__nv_bfloat16>(2);
}

TEST(VectorAddCheck, UnwrittenElementsFail) {
  const std::vector<float> a{1, 2, 3}, b{1, 1, 1};
  std::vector<float> out{2, 3, std::nanf("")};
  EXPECT_NE(vector_add::add_check(a.data(), b.data(), out.data(), 3).find("first at index 2"), std::string::npos);
}

}  // namespace
}  // namespace bench
