// scan on the host: its bytes/ops model, its declarations, and its element
// check, which must pass exact (wrapped) int32 prefixes and float32 prefixes
// within the stated tolerance, and fail anything else.
#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <vector>

#include "families/scan.cuh"
#include "harness/registry.hpp"

namespace bench {
namespace {

TEST(ScanModel, ReadsNWritesNAndIsComparedWithCub) {
  int seen = 0;
  for (const auto& d : declarations()) {
    if (d.family != "scan") continue;
    ++seen;
    const Work w = d.work(1000003);
    EXPECT_EQ(w.bytes_read, 4.0 * 1000003) << d.id();
    EXPECT_EQ(w.bytes_written, 4.0 * 1000003) << d.id();
    EXPECT_EQ(w.ops, 1000002) << d.id();
    EXPECT_EQ(d.inputs, 1) << d.id();
    EXPECT_TRUE(d.array_output) << d.id();
    EXPECT_EQ(reference_of(declarations(), d), "scan/" + d.type + "/cub_device_scan") << d.id();
    EXPECT_EQ(d.host_work, d.variant == "thrust_inclusive_scan") << d.id();
  }
  EXPECT_EQ(seen, 2 * 7);  // i32, f32: reduce_then_scan, decoupled_lookback, floor_scan(_fixed), cub sum and scan, thrust
}

std::vector<int> wrapped_prefix(const std::vector<int>& x) {
  std::vector<int> out(x.size());
  unsigned s = 0;
  for (std::size_t i = 0; i < x.size(); ++i) out[i] = static_cast<int>(s += static_cast<unsigned>(x[i]));
  return out;
}

TEST(ScanCheck, Int32IsExactWithTwosComplementWrap) {
  const std::vector<int> x{INT_MAX, 1, -5, 7};
  auto out = wrapped_prefix(x);
  EXPECT_EQ(out[1], INT_MIN);  // wrapped, as the GPU adds
  EXPECT_EQ(scan::scan_check(x.data(), out.data(), x.size()), "");
  out[2] += 1;
  const std::string msg = scan::scan_check(x.data(), out.data(), x.size());
  EXPECT_NE(msg.find("1 of 4 prefix sums wrong; first at index 2"), std::string::npos) << msg;
}

TEST(ScanCheck, EveryChunkStartsFromThePrefixBeforeIt) {
  // Large enough to be checked in parallel chunks.
  std::vector<int> x(std::size_t(1) << 20);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<int>(i % 33) - 16;
  auto out = wrapped_prefix(x);
  EXPECT_EQ(scan::scan_check(x.data(), out.data(), x.size()), "");
  out[777777] = out[777777] + 1;
  out.back() = out.back() - 1;
  const std::string msg = scan::scan_check(x.data(), out.data(), x.size());
  EXPECT_NE(msg.find("2 of 1048576 prefix sums wrong; first at index 777777"), std::string::npos) << msg;
}

TEST(FloatSum, IntegerCeilLog2IsTheFormulasCeilOfLog2) {
  // The tolerance's level count, in integers, equals ceil(log2 n) + 1 as written
  // with std::log2 for every n it is asked about: all n to 2^20, and each power of
  // two and its neighbours to 2^40.
  auto formula = [](std::size_t n) { return static_cast<int>(std::ceil(std::log2(static_cast<double>(n)))); };
  for (std::size_t n = 1; n <= (std::size_t{1} << 20); ++n) ASSERT_EQ(ceil_log2(n), formula(n)) << "n " << n;
  for (int k = 1; k <= 40; ++k) {
    const std::size_t p = std::size_t{1} << k;
    for (std::size_t n : {p - 1, p, p + 1}) ASSERT_EQ(ceil_log2(n), formula(n)) << "n " << n;
  }
  EXPECT_EQ(float_sum_tolerance(1, 1.0), float_sum_tolerance(2, 1.0)) << "one term counts as two";
}

TEST(ScanCheck, Float32WithinTheToleranceOfEachPrefix) {
  const std::vector<float> x{1.5f, -0.75f, 1.0f, -1.25f};
  std::vector<float> out{1.5f, 0.75f, 1.75f, 0.5f};  // exact
  EXPECT_EQ(scan::scan_check(x.data(), out.data(), x.size()), "");
  // Element 3: 4 terms, sum|x| = 4.5: tolerance 2 eps (2 + 1) 4.5.
  const double tol = float_sum_tolerance(4, 4.5);
  EXPECT_NEAR(tol, 2 * 1.1920929e-7 * 3 * 4.5, 1e-12);
  out[3] = 0.5f + static_cast<float>(0.5 * tol);
  EXPECT_EQ(scan::scan_check(x.data(), out.data(), x.size()), "");
  out[3] = 0.5f + static_cast<float>(2 * tol);
  EXPECT_NE(scan::scan_check(x.data(), out.data(), x.size()).find("first at index 3"), std::string::npos);
  out[3] = std::nanf("");  // an unwritten (poisoned) element
  EXPECT_NE(scan::scan_check(x.data(), out.data(), x.size()), "");
}

TEST(ScanCheck, TheToleranceFollowsEachPrefixNotTheWholeInput) {
  // A large late element must not widen the check of the early prefixes.
  const std::vector<float> x{1.0f, 1.0f, 1e6f};
  std::vector<float> out{1.0f, 2.0f + 1e-3f, 1e6f + 2.0f};
  EXPECT_NE(scan::scan_check(x.data(), out.data(), x.size()).find("first at index 1"), std::string::npos);
}

}  // namespace
}  // namespace bench
