// The real registry, host-side: every declaration is sound, the expected
// variants exist for both types, and their bytes/ops models are right.
#include <gtest/gtest.h>

#include <set>

#include "families/reduce_sum.cuh"
#include "harness/registry.hpp"

namespace bench {
namespace {

TEST(Declarations, RegistryIsSound) {
  const auto errors = validate(declarations());
  for (const auto& e : errors) ADD_FAILURE() << e;
}

TEST(Declarations, ReduceSumVariantsExistForBothTypes) {
  std::set<std::string> ids;
  for (const auto& d : declarations()) ids.insert(d.id());
  for (const char* type : {"i32", "f32"})
    for (const char* v : {"interleaved_mod", "interleaved_strided", "sequential_addressing", "two_pass_tree",
                          "two_pass_syncwarp", "one_pass_atomic", "batched_atomic", "batched_vec16",
                          "cub_device_reduce", "thrust_reduce"})
      EXPECT_TRUE(ids.count(std::string("reduce_sum/") + type + "/" + v)) << type << "/" << v;
}

TEST(Declarations, ReduceSumBytesModelReadsInputOnceWritesOneResult) {
  for (const auto& d : declarations()) {
    if (d.family != "reduce_sum") continue;
    const double size = d.type == "i32" || d.type == "f32" ? 4 : 0;
    ASSERT_GT(size, 0) << d.id();
    const Work w = d.work(1000003);
    EXPECT_EQ(w.bytes_read, 1000003 * size) << d.id();
    EXPECT_EQ(w.bytes_written, size) << d.id();
    EXPECT_EQ(w.ops, 1000002) << d.id();
  }
}

TEST(Declarations, DefaultSuiteIsCurated) {
  // The default suite is what finishes in minutes; the full grid is larger.
  std::size_t curated = 0, full = 0;
  const auto sizes = pow2_sizes(10, 30);
  for (const auto& d : declarations()) {
    curated += expand(d, sizes, Suite::curated).size();
    full += expand(d, sizes, Suite::full).size();
  }
  EXPECT_LT(curated, full);
  EXPECT_LE(curated, 700u) << "default suite grew: check it still finishes in 10 minutes on the H200";
}

TEST(Declarations, NamesAreUniqueAcrossTheFullGrid) {
  std::set<std::string> names;
  for (const auto& d : declarations())
    for (const auto& p : expand(d, {1, 31, 1024}, Suite::full))
      EXPECT_TRUE(names.insert(benchmark_name(d, p)).second) << benchmark_name(d, p);
}

TEST(ReduceSumCheck, IntegersAreExact) {
  const reduce_sum::Reference<int> ref{10, 10.0, 30.0};
  EXPECT_EQ(reduce_sum::check(ref, 10, 3), "");
  const std::string msg = reduce_sum::check(ref, 11, 3);
  EXPECT_NE(msg.find("expected 10, got 11"), std::string::npos) << msg;
}

TEST(ReduceSumCheck, FloatsWithinDocumentedTolerance) {
  // n = 1024: tolerance = 2 * eps * (10 + 1) * sum|x|
  const double abs_sum = 1000.0;
  const double tol = reduce_sum::float_tolerance(1024, abs_sum);
  EXPECT_NEAR(tol, 2 * 1.1920929e-7 * 11 * abs_sum, 1e-9);
  const reduce_sum::Reference<float> ref{5.0f, 5.0, abs_sum};
  EXPECT_EQ(reduce_sum::check(ref, 5.0f + 0.5f * static_cast<float>(tol), 1024), "");
  EXPECT_NE(reduce_sum::check(ref, 5.0f + 2.0f * static_cast<float>(tol), 1024), "");
  EXPECT_NE(reduce_sum::check(ref, std::nanf(""), 1024), "");
}

TEST(ReduceSumCheck, ReferenceWrapsIntegersAndSumsFloatsInDouble) {
  const std::vector<int> big(3, 0x7FFFFFFF);
  const auto r = reduce_sum::compute_reference(big.data(), big.size());
  EXPECT_EQ(r.value, static_cast<int>(3u * 0x7FFFFFFFu));  // two's complement wrap, like the GPU
  const std::vector<float> f{1e8f, 1.0f, -1e8f};
  EXPECT_EQ(reduce_sum::compute_reference(f.data(), f.size()).exact, 1.0);
}

}  // namespace
}  // namespace bench
