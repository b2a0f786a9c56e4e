// vector_add on the host: its bytes/ops model (the roofline places it at 1/12
// op/byte for f32 and 1/6 for f16/bf16) and its element check, which must pass a
// correctly rounded half result and fail a wrong one.
#include <gtest/gtest.h>

#include <cmath>

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

TEST(VectorAddCheck, UnwrittenElementsFail) {
  const std::vector<float> a{1, 2, 3}, b{1, 1, 1};
  std::vector<float> out{2, 3, std::nanf("")};
  EXPECT_NE(vector_add::add_check(a.data(), b.data(), out.data(), 3).find("first at index 2"), std::string::npos);
}

}  // namespace
}  // namespace bench
