// Compile-time axes: one list feeds the declared axis and the dispatch.
#include <gtest/gtest.h>

#include <vector>

#include "common/axes.hpp"

namespace bench {
namespace {

using Blocks = Compiled<64, 128, 256>;

TEST(CompiledAxis, DeclaresEveryCompiledValueAndTheCuratedOnes) {
  const Axis a = axis<Blocks, 128>();
  EXPECT_EQ(a.curated, (std::vector<int>{128}));
  EXPECT_EQ(a.full, (std::vector<int>{64, 128, 256}));
  static_assert(Blocks::contains(256) && !Blocks::contains(512));
}

TEST(CompiledAxis, DispatchReachesTheInstantiationOfEachDeclaredValue) {
  for (int v : axis<Blocks, 64>().full) {
    int reached = 0;
    Blocks::dispatch(v, "block", [&](auto b) { reached = decltype(b)::value; });
    EXPECT_EQ(reached, v);
  }
  EXPECT_THROW(Blocks::dispatch(512, "block", [](auto) {}), Unsupported);
}

}  // namespace
}  // namespace bench
