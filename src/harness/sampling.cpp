#include "harness/sampling.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>
#include <stdexcept>
#include <string>

namespace bench {
namespace {

constexpr double kTail = 0.025;                 // each side of a 95% interval
constexpr double kZ = 1.959963984540054;        // the standard normal's 97.5% point
constexpr std::size_t kExactBinomialUpTo = 1000;

// The largest j with P(B < j) <= kTail, B ~ Binomial(n, 1/2): the CDF summed
// term by term in log space (C(1000, 500) / 2^1000 is fine in double this way).
std::size_t exact_lower_rank(std::size_t n) {
  const double nd = static_cast<double>(n);
  const double log_all = std::lgamma(nd + 1) - nd * std::log(2.0);
  double cdf = 0;  // P(B <= i)
  for (std::size_t i = 0; i <= n; ++i) {
    const double id = static_cast<double>(i);
    cdf += std::exp(log_all - std::lgamma(id + 1) - std::lgamma(nd - id + 1));
    if (cdf > kTail) return i;  // P(B < i) <= kTail < P(B <= i)
  }
  return n;  // not reached for n >= 6
}

// P(B <= j - 1) ~ Phi((j - 1 + 1/2 - n/2) / (sqrt(n)/2)) <= kTail.
std::size_t normal_lower_rank(std::size_t n) {
  const double nd = static_cast<double>(n);
  return static_cast<std::size_t>(std::floor(nd / 2 + 0.5 - kZ * std::sqrt(nd) / 2));
}

}  // namespace

std::pair<std::size_t, std::size_t> median_interval_ranks(std::size_t n) {
  if (n < kMinSamplesForInterval)
    throw std::invalid_argument("a 95% interval of the median needs at least " +
                                std::to_string(kMinSamplesForInterval) + " samples, got " + std::to_string(n));
  const std::size_t j = n <= kExactBinomialUpTo ? exact_lower_rank(n) : normal_lower_rank(n);
  return {j, n + 1 - j};
}

double median_of_sorted(const std::vector<double>& sorted) {
  const std::size_t n = sorted.size();
  if (n == 0) return 0;
  return n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
}

double Summary::relative_half_width() const {
  if (!(median > 0)) return 0;
  return std::max(ci_high - median, median - ci_low) / median;
}

Summary summarize(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  Summary s;
  s.n = samples.size();
  const auto [j, k] = median_interval_ranks(s.n);
  s.median = median_of_sorted(samples);
  s.ci_low = samples[j - 1];
  s.ci_high = samples[k - 1];
  for (std::size_t i = 1; i < samples.size(); ++i) {
    const double gap = samples[i] - samples[i - 1];
    if (gap > 0 && (s.step == 0 || gap < s.step)) s.step = gap;
  }
  return s;
}

const char* to_string(SampleStop stop) {
  switch (stop) {
    case SampleStop::none: return "none";
    case SampleStop::precision: return "precision";
    case SampleStop::time: return "time";
    case SampleStop::samples: return "samples";
  }
  return "?";
}

double target_half_width(const Summary& s, double precision) {
  // One reading step, with 1% to spare: the step is the smallest gap seen, and
  // the float milliseconds of cudaEventElapsedTime make equal steps differ in
  // their last bits (a half-width of exactly one step must pass).
  const double step = s.median > 0 ? s.step / s.median * 1.01 : 0;
  return std::max(precision, step);
}

bool precise_enough(const Summary& s, double precision) {
  return s.median > 0 && s.relative_half_width() <= target_half_width(s, precision);
}

namespace {

// A group of `members` sampled round-robin may sample max-time x members.
double time_cap(std::size_t members, const SamplingOptions& options) {
  return options.max_time_seconds * static_cast<double>(std::max<std::size_t>(members, 1));
}

// How long the samples must span before precision may stop them: the minimum,
// or the time cap where that is sooner.
double min_time(std::size_t members, const SamplingOptions& options) {
  return std::min(options.min_time_seconds, time_cap(members, options));
}

}  // namespace

bool spans_min_time(double elapsed, std::size_t members, const SamplingOptions& options) {
  return elapsed >= min_time(members, options);
}

SampleStop stop_reason(std::size_t n, bool all_precise, double elapsed, std::size_t members,
                       const SamplingOptions& options) {
  // The time cap binds as soon as an interval exists (a slow call, such as a
  // CPU reference at 2^30, would otherwise cost min_samples x its time);
  // precision is claimed only from min_samples on.
  if (n < kMinSamplesForInterval) return SampleStop::none;
  if (n >= options.min_samples && all_precise && spans_min_time(elapsed, members, options))
    return SampleStop::precision;
  if (n >= options.max_samples) return SampleStop::samples;
  if (elapsed >= time_cap(members, options)) return SampleStop::time;
  return SampleStop::none;
}

std::size_t next_rounds(std::size_t n, double worst_half_width_over_target, double seconds_per_round,
                        double elapsed, std::size_t members, const SamplingOptions& options) {
  if (n >= options.max_samples) return 0;
  const double nd = static_cast<double>(n);
  const double ratio = std::isfinite(worst_half_width_over_target) ? worst_half_width_over_target : 4.0;
  const double wanted = nd * ratio * ratio - nd;
  double rounds = std::clamp(wanted, std::max(4.0, nd / 4), std::max(4.0, 3 * nd));
  const double needed = min_time(members, options);
  if (seconds_per_round > 0 && elapsed < needed)  // precision waits for the samples to span the minimum
    rounds = std::max(rounds, std::ceil((needed - elapsed) / seconds_per_round));
  rounds = std::min(rounds, static_cast<double>(kMaxRoundsPerBatch));
  rounds = std::min(rounds, static_cast<double>(options.max_samples - n));
  if (seconds_per_round > 0)
    rounds = std::min(rounds, std::floor((time_cap(members, options) - elapsed) / seconds_per_round));
  return rounds > 0 ? static_cast<std::size_t>(rounds) : 0;
}

std::string format_number(double v) {
  std::ostringstream out;
  out << std::setprecision(15) << v;
  return out.str();
}

std::string sampling_options_problem(const SamplingOptions& options) {
  if (options.min_samples < kMinSamplesForInterval)
    return "--min-samples=" + std::to_string(options.min_samples) + ": at least " +
           std::to_string(kMinSamplesForInterval) + " (a 95% interval of the median needs " +
           std::to_string(kMinSamplesForInterval) + " samples)";
  if (options.placements < 1 || options.placements > kMaxPlacements)
    return "--placements=" + std::to_string(options.placements) + ": from 1 (every sample on one copy of the case) to " +
           std::to_string(kMaxPlacements);
  if (options.max_samples < options.min_samples)
    return "--max-samples=" + std::to_string(options.max_samples) + ": below --min-samples=" +
           std::to_string(options.min_samples);
  if (!std::isfinite(options.min_time_seconds) || options.min_time_seconds < 0)
    return "--min-time=" + format_number(options.min_time_seconds) + ": expected a finite number >= 0";
  if (options.min_time_seconds > options.max_time_seconds)
    return "--min-time=" + format_number(options.min_time_seconds) + ": above --max-time=" +
           format_number(options.max_time_seconds) + " (precision is claimed only after --min-time of sampling)";
  return "";
}

int placements_for(double footprint_bytes, bool hot, double l2_bytes, int asked) {
  const int wanted = std::clamp(asked, 1, kMaxPlacements);
  const double budget = hot ? l2_bytes / 2 : kPlacementBudgetBytes;
  if (!(footprint_bytes > 0)) return wanted;
  const double fit = std::floor(budget / footprint_bytes);
  return fit < 1 ? 1 : static_cast<int>(std::min<double>(wanted, fit));
}

}  // namespace bench
