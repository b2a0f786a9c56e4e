// Host side of "every declaration is a test": fails when a family, or a
// declaration, would not be run by the GPU tests (kernels/test_every_declaration.cpp),
// e.g. a family registered only above the sizes the tests use.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "coverage.hpp"

namespace bench::testing {
namespace {

TEST(GpuCoverage, EveryFamilyAndEveryDeclarationIsRunByTheGpuTests) {
  const auto ids = gpu_test_ids();
  std::map<std::string, std::size_t> points_per_family;
  for (const auto& d : declarations()) points_per_family[d.family];  // every family, 0 until counted
  for (const auto& d : declarations()) {
    const bool parameter = std::find(ids.begin(), ids.end(), d.id()) != ids.end();
    EXPECT_TRUE(parameter) << d.id() << " is not a parameter of the GPU tests";
    const std::size_t points = sized_points(d).size();
    EXPECT_GT(points, 0u) << d.id() << ": no GPU test size lies in [" << d.min_n << ", " << d.max_n << "]";
    if (parameter) points_per_family[d.family] += points;
  }
  for (const auto& [family, points] : points_per_family)
    EXPECT_GT(points, 0u) << "family " << family << " has no GPU coverage";
}

TEST(GpuCoverage, EachInputAndTheOutputIsMisalignedAloneAndAllTogether) {
  for (const auto& d : declarations()) {
    const int arrays = misalignable_arrays(d);
    if (arrays == 0) continue;  // a ceiling owns its data
    std::set<std::vector<bool>> seen;  // which arrays a point misaligns
    for (const Point& p : misaligned_points(d)) {
      std::vector<bool> moved;
      for (int i = 0; i < d.inputs; ++i) moved.push_back(p.in_offset[i] != 0);
      if (d.array_output) moved.push_back(p.out_offset != 0);
      seen.insert(moved);
    }
    for (int j = 0; j < arrays; ++j) {
      std::vector<bool> alone(arrays, false);
      alone[j] = true;
      EXPECT_TRUE(seen.count(alone)) << d.id() << ": array " << j << " never misaligned alone";
    }
    if (arrays > 1) EXPECT_TRUE(seen.count(std::vector<bool>(arrays, true))) << d.id() << ": never all misaligned";
  }
}

TEST(GpuCoverage, ArrayFamiliesAndTwoInputFamiliesAreDeclaredSo) {
  // The misaligned tests need to know each family's arrays: spot-check them.
  const std::map<std::string, std::pair<int, bool>> expected{
      {"reduce_sum", {1, false}}, {"reduce_argmax", {1, false}}, {"dot", {2, false}},
      {"vector_add", {2, true}},  {"ceiling", {0, false}}};
  for (const auto& d : declarations()) {
    auto it = expected.find(d.family);
    if (it == expected.end()) continue;
    EXPECT_EQ(d.inputs, it->second.first) << d.id();
    EXPECT_EQ(d.array_output, it->second.second) << d.id();
  }
}

}  // namespace
}  // namespace bench::testing
