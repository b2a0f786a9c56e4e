// The statistics of precision-driven sampling (docs/precision.md, "Sampling"):
// the median of a benchmark's samples, a distribution-free 95% confidence
// interval for it from order statistics, and the rule that says when to stop
// sampling and how many samples to take next. Host-only and pure: the timer
// (harness/timer.hpp) takes the samples, this decides what they say.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace bench {

// A 95% interval of the median needs at least this many samples: with fewer,
// even [min, max] covers the median with probability 1 - 2^(1-n) < 95%.
constexpr std::size_t kMinSamplesForInterval = 6;

// The 1-based ranks (j, k), j < k, of the order statistics x_(j), x_(k) that
// bound the median of n samples at 95% confidence: the largest j with
// P(B < j) <= 0.025 for B ~ Binomial(n, 1/2), and k = n + 1 - j (so
// P(B >= k) <= 0.025 too). Exact binomial sums up to n = 1000, the normal
// approximation with continuity correction beyond (never narrower than the
// exact ranks: tested). n >= kMinSamplesForInterval, else std::invalid_argument.
std::pair<std::size_t, std::size_t> median_interval_ranks(std::size_t n);

// What n samples say about their median.
struct Summary {
  std::size_t n = 0;
  double median = 0;
  double ci_low = 0;   // x_(j)
  double ci_high = 0;  // x_(k)
  // The smallest positive gap between two distinct samples: the timer's
  // reading step when readings come in steps (events: 32 ns on H100/H200);
  // 0 when every sample is equal.
  double step = 0;
  // The interval's larger half, relative to the median (0.003 = ±0.3%).
  double relative_half_width() const;
};

// Median, interval and step of `samples` (any order; n >= kMinSamplesForInterval).
Summary summarize(std::vector<double> samples);

// The median alone (any n >= 1): the middle sample, or the mean of the middle two.
double median_of_sorted(const std::vector<double>& sorted);

// What the caller asked for: --precision (as a fraction), --max-time,
// --min-time, --min-samples, --max-samples.
struct SamplingOptions {
  double precision = 0.005;     // the interval within ±0.5% of the median
  double max_time_seconds = 0.03;  // per benchmark (an interleaved group: times its members)
  // Precision is claimed only once the samples span this long (at most the
  // time cap): a benchmark's first samples, the first millisecond or so after
  // its setup, mostly read faster than the rest (up to 9%), and they alone
  // could claim ±0.5% (docs/precision.md, "The minimum sampling time").
  double min_time_seconds = 0.005;
  std::size_t min_samples = 16;
  std::size_t max_samples = 10000;
  int placements = 1;  // --placements: at most this many (placements_for); 1: off
};

// Placements (docs/precision.md, "Placements"): a benchmark's samples rotate
// over this many copies of its case, each with its own device copy of the
// inputs, output and workspace, so that where one allocation lands (which
// moves a few-microsecond kernel by up to a fifth from one process to the
// next) is sampled too, not fixed for the whole run. `asked` (--placements) at
// most, and only as many as keep every copy's bytes together within
// kPlacementBudgetBytes (cold), or within half the L2 (hot: every copy must
// stay in L2 for its samples to be hot); at least 1. `footprint_bytes`: one
// copy's inputs and outputs.
constexpr int kMaxPlacements = 64;
constexpr double kPlacementBudgetBytes = 256.0 * 1024 * 1024;
int placements_for(double footprint_bytes, bool hot, double l2_bytes, int asked);

// Why sampling ended (none: it goes on).
enum class SampleStop { none, precision, time, samples };
const char* to_string(SampleStop stop);

// True when both halves of the interval lie within the target: ±precision of
// the median, or one reading step where that is wider (readings that come in
// steps cannot pin a median closer than one step; docs/precision.md).
bool precise_enough(const Summary& s, double precision);

// Whether `elapsed` seconds of sampling (a group of `members`) span the minimum
// time: min_time_seconds, or the time cap where that is sooner.
bool spans_min_time(double elapsed, std::size_t members, const SamplingOptions& options);

// The stopping rule after n samples taken in `elapsed` seconds of sampling
// (of a group of `members` benchmarks sampled round-robin: each has n), given
// whether every one is precise enough. Precision never stops it below
// min_samples nor before min_time_seconds (or the time cap, if sooner).
SampleStop stop_reason(std::size_t n, bool all_precise, double elapsed, std::size_t members,
                       const SamplingOptions& options);

// How many more rounds (one sample per member) to take next: about what the
// worst member's interval says is still needed, n * (half-width / target)^2 - n,
// at least a quarter of n (and 4), at most 3n, but while short of
// min_time_seconds at least what reaches it at `seconds_per_round` (then more
// than 3n may be asked for); never past kMaxRoundsPerBatch, max_samples or the
// time cap. 0 when not one more round fits in the time left.
constexpr std::size_t kMaxRoundsPerBatch = 1024;
std::size_t next_rounds(std::size_t n, double worst_half_width_over_target, double seconds_per_round,
                        double elapsed, std::size_t members, const SamplingOptions& options);

// The target half-width of a summary: the larger of ±precision and one step,
// relative to the median.
double target_half_width(const Summary& s, double precision);

// A sampling option as text: the shortest that reads back the same to 15
// digits ("0.5", "2"; 0.03000001 is not shown as 0.03). The refusals below and
// the results' context write the options with it.
std::string format_number(double v);

// Why these options are unusable ("" when fine): min_samples below
// kMinSamplesForInterval, max_samples below min_samples, min_time_seconds
// negative, not finite or above max_time_seconds, placements outside
// 1 ... kMaxPlacements.
std::string sampling_options_problem(const SamplingOptions& options);

// A cold graph-timing sample (docs/timing.md): one replay of the flushes alone
// and one of the flushes with the launches, both in seconds. Its per-launch
// time is their difference over `launches`.
struct ColdReplay {
  double flushes = 0;
  double work = 0;
};
// The first positive per-launch time of up to kColdReplayAttempts replays in a
// row (`replay` takes one). A replay not slower than its flushes alone is the
// flushes' own spread, not the launch: it is taken again; kColdReplayAttempts
// of them in a row throw BelowNoise naming the last, since then the launch is
// below what the flushes let one see (time it hot). BelowNoise is the
// benchmark's own failure: an interleaved group samples on without it.
class BelowNoise : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
constexpr int kColdReplayAttempts = 3;
template <class Replay>
double cold_per_launch_seconds(Replay&& replay, int launches) {
  ColdReplay last;
  for (int attempt = 0; attempt < kColdReplayAttempts; ++attempt) {
    last = replay();
    const double per_launch = (last.work - last.flushes) / launches;
    if (per_launch > 0) return per_launch;
  }
  throw BelowNoise("graph timing: " + std::to_string(kColdReplayAttempts) +
                   " cold replays in a row were not slower than their " + std::to_string(launches) +
                   " flushes alone (the last: " + std::to_string(last.work * 1e6) + " us against " +
                   std::to_string(last.flushes * 1e6) +
                   " us): the launch is below the flush's noise; time it with --cache=hot");
}

}  // namespace bench
