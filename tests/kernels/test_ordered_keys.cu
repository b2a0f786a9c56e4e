// floor_max/floor_min reduce a float warp in one redux.sync on ordered keys
// (ExtremumPolicy::ordered_key, floor_minmax.cuh): the keys must compare as
// unsigned integers exactly as the floats compare (-0 below +0), and map back
// to the same bits. Host test: the key functions are host-callable, so this
// runs in CI without a GPU; the GPU tests (test_floor_ops.cu) check the kernels.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "kernels/reduce/floor_minmax.cuh"

namespace {

using Max = bench::launch_floor::ExtremumPolicy<float, true>;

unsigned bits(float f) {
  unsigned u;
  std::memcpy(&u, &f, 4);
  return u;
}

TEST(OrderedKeys, AscendingFloatsGiveAscendingKeys) {
  const float inf = std::numeric_limits<float>::infinity(), big = std::numeric_limits<float>::max();
  const float tiny = std::numeric_limits<float>::denorm_min(), least = std::numeric_limits<float>::min();
  const std::vector<float> ascending = {-inf, -big, -1e30f, -2.5f, -1.0f, -least, -tiny, -0.0f,
                                        0.0f, tiny, least, 1.0f, 2.5f, 1e30f, big, inf};
  for (std::size_t i = 1; i < ascending.size(); ++i)
    EXPECT_LT(Max::ordered_key(ascending[i - 1]), Max::ordered_key(ascending[i]))
        << ascending[i - 1] << " then " << ascending[i];
}

TEST(OrderedKeys, RandomPairsCompareAsTheFloatsDoAndMapBack) {
  std::mt19937 rng(20261126);
  std::uniform_int_distribution<unsigned> any_bits;
  int compared = 0;
  for (int i = 0; i < 200000; ++i) {
    float a, b;
    const unsigned ua = any_bits(rng), ub = any_bits(rng);
    std::memcpy(&a, &ua, 4);
    std::memcpy(&b, &ub, 4);
    if (std::isnan(a) || std::isnan(b)) continue;   // warp_all folds NaN into the identity first
    const unsigned ka = Max::ordered_key(a), kb = Max::ordered_key(b);
    EXPECT_EQ(bits(Max::from_ordered_key(ka)), ua);
    if (a < b) EXPECT_LT(ka, kb) << a << " < " << b;
    if (a > b) EXPECT_GT(ka, kb) << a << " > " << b;
    if (a == b && ua == ub) EXPECT_EQ(ka, kb);
    ++compared;
  }
  EXPECT_GT(compared, 190000);
}

}  // namespace
