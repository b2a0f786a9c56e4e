// The profile-one mode's host side: NVTX range names the audit maps back to
// benchmarks, and the declared bytes it compares against.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "harness/annotations.hpp"
#include "harness/profile.hpp"
#include "harness/timer.hpp"

namespace bench {
namespace {

TEST(Profile, NvtxRangeNameAvoidsNcuSeparators) {
  EXPECT_EQ(nvtx_range_name("reduce_sum/i32/two_pass_tree/N:67108864/block:512"),
            "reduce_sum.i32.two_pass_tree.N=67108864.block=512");
  EXPECT_EQ(nvtx_range_name("vector_add/f16/x8_pack/N:1024/block:256/batch:8"),
            "vector_add.f16.x8_pack.N=1024.block=256.batch=8");
}

// The profiler start-up window's range must never read as a benchmark's: the
// audit (benchtools/ncu.py) tells them apart by the ".N=" every benchmark range has.
TEST(Profile, StartUpRangeIsNoBenchmarkRange) {
  const std::string start = kProfilerStartRange;
  EXPECT_EQ(start, "cuda_bench.profiler_start");  // benchtools/ncu.py PROFILER_START_RANGE
  EXPECT_EQ(start.find(".N="), std::string::npos);
  EXPECT_NE(nvtx_range_name("ceiling/f16/hfma2/N:67108864").find(".N="), std::string::npos);
}

TEST(Profile, DeclaredBytesAnnotatedPerBenchmark) {
  Declaration d;
  d.family = "profile_test";
  d.type = "f32";
  d.variant = "copy";
  d.description = "test";
  d.block = Axis{{256}, {128, 256}};
  d.work = [](std::size_t n) { return Work{8.0 * n, 4.0 * n + 4, 0}; };
  RegistrationOptions options;
  options.sizes = {1024, std::size_t{1} << 33};
  options.suite = Suite::full;
  annotate_declared_bytes({d}, options);
  const auto small = annotations_for("profile_test/f32/copy/N:1024/block:128");
  EXPECT_EQ(small.at("bytes_read").get<long long>(), 8192);
  EXPECT_EQ(small.at("bytes_written").get<long long>(), 4100);
  // Past 2^32 elements the count is still exact (an integer, not a rounded float).
  const auto big = annotations_for("profile_test/f32/copy/N:8589934592/block:256");
  EXPECT_EQ(big.at("bytes_read").dump(), "68719476736");
  EXPECT_TRUE(annotations_for("profile_test/f32/copy/N:2048/block:128").empty());
}

TEST(Profile, StatedExtraTrafficAnnotatedOnlyWhereThereIsSome) {
  Declaration d;
  d.family = "profile_test";
  d.type = "i32";
  d.variant = "two_pass";
  d.description = "test";
  d.block = Axis{{256}, {256}};
  d.work = [](std::size_t n) { return Work{4.0 * n, 4, 0}; };
  d.extra = [](const Point& p) {
    if (p.n <= static_cast<std::size_t>(p.block)) return ExtraTraffic{};
    const double partials = 4.0 * ((p.n + p.block - 1) / p.block);
    return ExtraTraffic{partials, partials, "partials"};
  };
  RegistrationOptions options;
  options.sizes = {256, 1 << 20};
  annotate_declared_bytes({d}, options);
  const auto big = annotations_for("profile_test/i32/two_pass/N:1048576/block:256");
  EXPECT_EQ(big.at("bytes_read").get<long long>(), 4 << 20);  // the compulsory bytes stay as they were
  EXPECT_EQ(big.at("extra_bytes_read").get<long long>(), 16384);
  EXPECT_EQ(big.at("extra_bytes_written").get<long long>(), 16384);
  EXPECT_EQ(big.at("extra_traffic").get<std::string>(), "partials");
  const auto one_block = annotations_for("profile_test/i32/two_pass/N:256/block:256");
  EXPECT_EQ(one_block.at("bytes_written").get<long long>(), 4);
  EXPECT_FALSE(one_block.contains("extra_bytes_read"));
  EXPECT_FALSE(one_block.contains("extra_traffic"));
}

TEST(Profile, OffUnlessAskedFor) {
  if (std::getenv("CUDABENCH_PROFILE") != nullptr) GTEST_SKIP() << "CUDABENCH_PROFILE is set here";
  EXPECT_FALSE(profile_one_enabled());
  set_profile_one(true);
  EXPECT_TRUE(profile_one_enabled());
  set_profile_one(false);
  EXPECT_FALSE(profile_one_enabled());
}

// The audit's closing flush must write back every dirty line of the call: in
// profile-one mode the flush reads kProfileFlushFactor L2 sizes, not the cold
// runs' 1.5; the experiment variable still wins.
TEST(Profile, TheFlushIsLargerInProfileOneMode) {
  if (std::getenv("CUDABENCH_PROFILE") != nullptr || std::getenv("CUDABENCH_L2_FLUSH_FACTOR") != nullptr)
    GTEST_SKIP() << "CUDABENCH_PROFILE or CUDABENCH_L2_FLUSH_FACTOR is set here";
  EXPECT_EQ(l2_flush_factor(), 1.5);
  set_profile_one(true);
  EXPECT_EQ(l2_flush_factor(), kProfileFlushFactor);
  EXPECT_GE(kProfileFlushFactor, 4);
  setenv("CUDABENCH_L2_FLUSH_FACTOR", "2", 1);
  EXPECT_EQ(l2_flush_factor(), 2);
  unsetenv("CUDABENCH_L2_FLUSH_FACTOR");
  set_profile_one(false);
  EXPECT_EQ(l2_flush_factor(), 1.5);
}

}  // namespace
}  // namespace bench
