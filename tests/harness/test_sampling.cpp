// The statistics of precision-driven sampling (src/harness/sampling.hpp):
// order-statistic ranks checked against hand-computed binomial sums, the
// interval on known samples, the stopping rule and the batch plan.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include "harness/sampling.hpp"

namespace bench {
namespace {

// P(B <= i) for B ~ Binomial(n, 1/2), term by term in log space.
double binomial_cdf(std::size_t n, std::size_t i) {
  double cdf = 0;
  const double nd = static_cast<double>(n);
  for (std::size_t t = 0; t <= i; ++t) {
    const double td = static_cast<double>(t);
    cdf += std::exp(std::lgamma(nd + 1) - std::lgamma(td + 1) - std::lgamma(nd - td + 1) - nd * std::log(2.0));
  }
  return cdf;
}

TEST(Sampling, RanksMatchHandComputedBinomialSums) {
  // n = 6: P(B < 1) = 1/64 = 0.016 <= 0.025 < P(B < 2) = 7/64 = 0.109.
  EXPECT_EQ(median_interval_ranks(6), std::make_pair(std::size_t{1}, std::size_t{6}));
  // n = 10: P(B < 2) = 11/1024 = 0.011 <= 0.025 < P(B < 3) = 56/1024 = 0.055.
  EXPECT_EQ(median_interval_ranks(10), std::make_pair(std::size_t{2}, std::size_t{9}));
  // n = 16 (the default minimum): P(B < 4) = 697/65536 = 0.0106, P(B < 5) = 2517/65536 = 0.0384.
  EXPECT_EQ(median_interval_ranks(16), std::make_pair(std::size_t{4}, std::size_t{13}));
  // n = 100: P(B < 40) = 0.0176 <= 0.025 < P(B < 41) = 0.0284.
  EXPECT_EQ(median_interval_ranks(100), std::make_pair(std::size_t{40}, std::size_t{61}));
  EXPECT_NEAR(binomial_cdf(100, 39), 0.0176, 1e-4);
  EXPECT_NEAR(binomial_cdf(100, 40), 0.0284, 1e-4);
}

TEST(Sampling, FewerThanSixSamplesHaveNoInterval) {
  EXPECT_THROW(median_interval_ranks(5), std::invalid_argument);
  EXPECT_THROW(summarize({1, 2, 3}), std::invalid_argument);
}

TEST(Sampling, ExactRanksAreTheWidestWithinTheTails) {
  for (std::size_t n = 6; n <= 1000; n += (n < 60 ? 1 : 37)) {
    const auto [j, k] = median_interval_ranks(n);
    EXPECT_EQ(k, n + 1 - j) << n;
    EXPECT_LE(binomial_cdf(n, j - 1), 0.025) << n;  // P(B < j)
    EXPECT_GT(binomial_cdf(n, j), 0.025) << n;      // one rank closer would not hold
  }
}

TEST(Sampling, NormalApproximationIsNeverNarrowerThanExact) {
  for (std::size_t n = 1001; n <= 20000; n += 997) {
    const auto [j, k] = median_interval_ranks(n);
    EXPECT_LE(binomial_cdf(n, j - 1), 0.025) << n;      // still a 95% interval
    EXPECT_GT(binomial_cdf(n, j + 1), 0.025) << n;      // at most one rank wider than exact
    EXPECT_EQ(k, n + 1 - j);
  }
}

TEST(Sampling, SummaryOfKnownSamples) {
  // 1..10 shuffled: median 5.5, ranks 2 and 9.
  const Summary s = summarize({7, 3, 10, 1, 5, 9, 2, 8, 4, 6});
  EXPECT_EQ(s.n, 10u);
  EXPECT_DOUBLE_EQ(s.median, 5.5);
  EXPECT_DOUBLE_EQ(s.ci_low, 2);
  EXPECT_DOUBLE_EQ(s.ci_high, 9);
  EXPECT_DOUBLE_EQ(s.step, 1);
  EXPECT_NEAR(s.relative_half_width(), 3.5 / 5.5, 1e-12);
  const Summary odd = summarize({5, 1, 4, 2, 3, 6, 7});
  EXPECT_DOUBLE_EQ(odd.median, 4);
  EXPECT_DOUBLE_EQ(odd.ci_low, 1);
  EXPECT_DOUBLE_EQ(odd.ci_high, 7);
}

TEST(Sampling, CoversTheMedianAbout95PercentOfTheTime) {
  // Exponential samples (skewed, nothing normal about them): true median ln 2.
  std::mt19937_64 rng(42);
  std::exponential_distribution<double> dist(1.0);
  int covered = 0;
  const int trials = 4000;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> x(40);
    for (auto& v : x) v = dist(rng);
    const Summary s = summarize(x);
    covered += s.ci_low <= std::log(2.0) && std::log(2.0) <= s.ci_high;
  }
  const double rate = static_cast<double>(covered) / trials;
  EXPECT_GE(rate, 0.95 - 0.01);  // exact coverage at n = 40 is 96.2%
  EXPECT_LE(rate, 0.975);
}

TEST(Sampling, TiesAndReadingSteps) {
  // Readings in 32 ns steps around 3.84 us: the interval may collapse onto one
  // reading; the target is then one step, not ±0.5% (19 ns).
  std::vector<double> x(20, 3.840e-6);
  x[0] = 3.808e-6;
  x[19] = 3.872e-6;
  const Summary s = summarize(x);
  EXPECT_DOUBLE_EQ(s.median, 3.840e-6);
  EXPECT_DOUBLE_EQ(s.ci_low, 3.840e-6);
  EXPECT_DOUBLE_EQ(s.ci_high, 3.840e-6);
  EXPECT_NEAR(s.step, 32e-9, 1e-15);
  EXPECT_TRUE(precise_enough(s, 0.005));
  EXPECT_NEAR(target_half_width(s, 0.005), 1.01 * 32e-9 / 3.84e-6, 1e-12);  // one step, 1% to spare
  // One step wide on one side: still as precise as the readings allow.
  std::vector<double> y(16, 3.840e-6);
  for (int i = 0; i < 6; ++i) y[i] = 3.808e-6;
  EXPECT_TRUE(precise_enough(summarize(y), 0.005));
  // Two steps (the step, 32 ns, seen between 3.808 and 3.840): not.
  for (int i = 0; i < 5; ++i) y[i] = 3.776e-6;
  EXPECT_FALSE(precise_enough(summarize(y), 0.005));
  // Float readings: one step seen as 31.99 ns, the interval's half 32.0 ns.
  std::vector<double> f(40, 3.87200e-6);
  for (int i = 0; i < 12; ++i) f[i] = 3.84001e-6, f[39 - i] = 3.90400e-6;
  EXPECT_TRUE(precise_enough(summarize(f), 0.005)) << "a half-width of one step passes in float readings";
  // All equal: no step, a zero-width interval.
  EXPECT_TRUE(precise_enough(summarize(std::vector<double>(8, 1e-6)), 0.005));
}

TEST(Sampling, StoppingRule) {
  SamplingOptions o;  // 0.5%, 0.03 s, 16 .. 10000
  o.max_time_seconds = 0.5;
  o.min_time_seconds = 0;  // the minimum time: PrecisionWaitsForTheMinimumTime
  EXPECT_EQ(stop_reason(15, true, 0.0, 1, o), SampleStop::none) << "never below min_samples";
  EXPECT_EQ(stop_reason(5, false, 9.0, 1, o), SampleStop::none) << "no interval below 6 samples";
  EXPECT_EQ(stop_reason(6, false, 9.0, 1, o), SampleStop::time) << "the time cap binds once an interval exists";
  EXPECT_EQ(stop_reason(16, true, 0.0, 1, o), SampleStop::precision);
  EXPECT_EQ(stop_reason(64, false, 0.1, 1, o), SampleStop::none);
  EXPECT_EQ(stop_reason(64, false, 0.5, 1, o), SampleStop::time);
  EXPECT_EQ(stop_reason(64, false, 0.9, 2, o), SampleStop::none) << "a group's cap is max-time x members";
  EXPECT_EQ(stop_reason(10000, false, 0.1, 1, o), SampleStop::samples);
  EXPECT_EQ(stop_reason(10000, true, 9.0, 1, o), SampleStop::precision) << "precision reached is said first";
  EXPECT_STREQ(to_string(SampleStop::time), "time");
}

// Precision waits until the samples span min_time (default 0.005 s): the first
// millisecond of samples reads fast and would claim it too soon.
TEST(Sampling, PrecisionWaitsForTheMinimumTime) {
  SamplingOptions o;  // 0.5%, 0.03 s, min time 0.005 s
  EXPECT_DOUBLE_EQ(o.min_time_seconds, 0.005);
  o.min_time_seconds = 0.01;
  EXPECT_EQ(stop_reason(18, true, 0.001, 1, o), SampleStop::none) << "precise after 1 ms: not yet";
  EXPECT_EQ(stop_reason(18, true, 0.0099, 1, o), SampleStop::none);
  EXPECT_EQ(stop_reason(18, true, 0.01, 1, o), SampleStop::precision);
  EXPECT_EQ(stop_reason(10000, true, 0.001, 1, o), SampleStop::samples) << "the sample cap still binds";
  o.min_time_seconds = 0;
  EXPECT_EQ(stop_reason(18, true, 0.0, 1, o), SampleStop::precision) << "0: precision stops at once";
  // A time cap below the minimum: precision may be claimed at the cap.
  o.min_time_seconds = 0.5;
  o.max_time_seconds = 0.1;
  EXPECT_EQ(stop_reason(18, true, 0.1, 1, o), SampleStop::precision);
  EXPECT_EQ(stop_reason(18, false, 0.1, 1, o), SampleStop::time);
  // A group's members all span the group's elapsed time: the minimum is not times members.
  o = SamplingOptions{};
  EXPECT_EQ(stop_reason(18, true, 0.006, 4, o), SampleStop::precision);
  // The one test both the stop and the final label use.
  EXPECT_FALSE(spans_min_time(0.004, 1, o));
  EXPECT_TRUE(spans_min_time(0.005, 1, o));
  o.max_time_seconds = 0.001;  // a cap below the minimum: the cap
  EXPECT_FALSE(spans_min_time(0.0009, 1, o));
  EXPECT_TRUE(spans_min_time(0.001, 1, o));
  EXPECT_FALSE(spans_min_time(0.001, 2, o)) << "a group's cap is max-time x members";
}

TEST(Sampling, NextBatch) {
  SamplingOptions o;
  o.max_time_seconds = 0.5;
  o.min_time_seconds = 0;  // below: with the minimum time
  // Interval twice the target at n = 16: about 16 * 4 = 64 in all, 48 more.
  EXPECT_EQ(next_rounds(16, 2.0, 1e-5, 0.0, 1, o), 48u);
  // Just short of the target: at least a quarter of n (and 4).
  EXPECT_EQ(next_rounds(16, 1.01, 1e-5, 0.0, 1, o), 4u);
  EXPECT_EQ(next_rounds(400, 1.01, 1e-5, 0.0, 1, o), 100u);
  // Far off: at most 3n, and at most kMaxRoundsPerBatch.
  EXPECT_EQ(next_rounds(16, 50.0, 1e-5, 0.0, 1, o), 48u);
  EXPECT_EQ(next_rounds(2000, 50.0, 1e-6, 0.0, 1, o), kMaxRoundsPerBatch);
  // Never past the time cap: 0.25 s left at 1/64 s a round.
  EXPECT_EQ(next_rounds(16, 2.0, 0.015625, 0.25, 1, o), 16u);
  EXPECT_EQ(next_rounds(16, 2.0, 0.2, 0.4, 1, o), 0u) << "not one more round fits";
  // Never past max_samples.
  EXPECT_EQ(next_rounds(9990, 2.0, 1e-6, 0.0, 1, o), 10u);
  // A group of 4 has 4 x 0.5 s: 1.5 s left at 1/8 s a round.
  EXPECT_EQ(next_rounds(16, 2.0, 0.125, 0.5, 4, o), 12u);
  // Precise already but short of min_time (0.01 s): enough rounds to reach it, not just n / 4.
  o.min_time_seconds = 0.01;
  EXPECT_EQ(next_rounds(18, 0.5, 6e-5, 0.0011, 1, o), 149u);  // ceil(0.0089 / 6e-5)
  EXPECT_EQ(next_rounds(400, 0.5, 6e-5, 0.02, 1, o), 100u) << "past min_time: a quarter of n as before";
  o.min_time_seconds = 0;
  EXPECT_EQ(next_rounds(18, 0.5, 6e-5, 0.0011, 1, o), 4u);  // a quarter of n
}

TEST(Sampling, OptionProblems) {
  SamplingOptions o;
  EXPECT_EQ(sampling_options_problem(o), "");
  o.min_samples = 5;
  EXPECT_NE(sampling_options_problem(o).find("--min-samples=5: at least 6"), std::string::npos);
  o.min_samples = 100;
  o.max_samples = 50;
  EXPECT_NE(sampling_options_problem(o).find("--max-samples=50: below --min-samples=100"), std::string::npos);
  o = SamplingOptions{};
  o.min_time_seconds = -0.001;
  EXPECT_NE(sampling_options_problem(o).find("--min-time=-0.001: expected a finite number >= 0"), std::string::npos);
  o.min_time_seconds = 0.05;
  EXPECT_NE(sampling_options_problem(o).find("--min-time=0.05: above --max-time=0.03"), std::string::npos);
  o.min_time_seconds = 0.03000001;  // shown as given, not rounded to the cap
  EXPECT_NE(sampling_options_problem(o).find("--min-time=0.03000001: above --max-time=0.03 "), std::string::npos);
  o = SamplingOptions{};
  o.placements = 0;
  EXPECT_NE(sampling_options_problem(o).find("--placements=0: from 1"), std::string::npos);
  o.placements = kMaxPlacements + 1;
  EXPECT_NE(sampling_options_problem(o).find("to 64"), std::string::npos);
}

TEST(Sampling, PlacementsFitTheBudget) {
  constexpr double MiB = 1024.0 * 1024;
  const double l2 = 50 * MiB;
  // Cold: as many as asked while every copy fits 256 MiB together.
  EXPECT_EQ(placements_for(4 * 1024, false, l2, 8), 8) << "a 2^10 reduction: asked";
  EXPECT_EQ(placements_for(64 * MiB, false, l2, 8), 4) << "a 2^24 reduction: 4 x 64 MiB";
  EXPECT_EQ(placements_for(100 * MiB, false, l2, 8), 2);
  EXPECT_EQ(placements_for(200 * MiB, false, l2, 8), 1);
  EXPECT_EQ(placements_for(4.0 * 1024 * MiB, false, l2, 8), 1) << "2^30: one, whatever is asked";
  EXPECT_EQ(placements_for(1 * MiB, false, l2, 64), 64);
  EXPECT_EQ(placements_for(1 * MiB, false, l2, 1), 1) << "--placements=1 turns it off";
  // Hot: every copy must stay in L2 (half of it, room for the rest).
  EXPECT_EQ(placements_for(4 * MiB, true, l2, 8), 6);
  EXPECT_EQ(placements_for(16 * MiB, true, l2, 8), 1);
  EXPECT_EQ(placements_for(40 * MiB, true, l2, 8), 1);
  EXPECT_EQ(placements_for(0, false, l2, 8), 8) << "no bytes stated: as asked";
}


// A cold graph-timing sample whose replay was not slower than its flushes alone is the
// flushes' spread: taken again, up to kColdReplayAttempts in a row, then an error that
// names the last replay (never a zero or negative time).
TEST(ColdReplay, ANonPositiveReplayIsTakenAgainThenRefused) {
  std::vector<ColdReplay> replays = {{300e-6, 290e-6}, {300e-6, 300e-6}, {300e-6, 317e-6}};
  std::size_t taken = 0;
  auto next = [&] { return replays.at(taken++); };
  EXPECT_NEAR(cold_per_launch_seconds(next, 10), 1.7e-6, 1e-15);
  EXPECT_EQ(taken, 3u);
  taken = 0;
  replays = {{300e-6, 317e-6}};
  EXPECT_NEAR(cold_per_launch_seconds(next, 10), 1.7e-6, 1e-15);  // the first, when it is positive
  EXPECT_EQ(taken, 1u);
  taken = 0;
  replays = {{303e-6, 292.8e-6}, {303e-6, 301e-6}, {303.007990e-6, 292.800009e-6}, {300e-6, 317e-6}};
  try {
    cold_per_launch_seconds(next, 10);
    FAIL() << "expected an error";
  } catch (const BelowNoise& e) {  // the benchmark's own failure: its group samples on (GpuTimer::sample)
    EXPECT_STREQ(e.what(),
                 "graph timing: 3 cold replays in a row were not slower than their 10 flushes alone (the last: "
                 "292.800009 us against 303.007990 us): the launch is below the flush's noise; time it with "
                 "--cache=hot");
  }
  EXPECT_EQ(taken, static_cast<std::size_t>(kColdReplayAttempts));
}

}  // namespace
}  // namespace bench
