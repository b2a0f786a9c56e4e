// The GPU side of a benchmark: make the case, verify it once, sample it with
// the one timer until its median is as precise as asked (or a cap), report the
// median as the run's time, derive the counters from the declaration's
// bytes/ops model, and record the clocks it ran at and the run's sampling
// record (harness/run_record.hpp).
//
// Google Benchmark calls the body once per repetition (each benchmark is
// registered with Iterations(1): no sizing runs). The case is set up once per
// call: built (data from the dataset cache), verified (once per name), warmed up.
//
// --interleave: the first call for a benchmark of a family/type/N group (in a
// repetition) sets up every selected member of the group and samples them
// round-robin, so drift hits all alike; each member's own call then reports
// its stored result (or its own error).
//
// CUDA errors (docs/faults.md):
//   - out of memory (device or host) before timing: CUDA's error state is
//     cleared, the cached datasets are freed and the case is tried once more;
//     if it fails again it is this benchmark's error, naming the bytes needed
//     and free. The next benchmark runs normally.
//   - a sticky error (the context is lost: illegal address, launch failure...,
//     found by a probe after any failure): this benchmark's error, then the run
//     stops before the next benchmark (bench::honour_stop_request) with every
//     finished result in closed JSON, exit status 1, and no further CUDA call.
#pragma once

#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "harness/clocks.hpp"
#include "harness/device.hpp"
#include "harness/registry.hpp"
#include "harness/run_record.hpp"
#include "harness/sampling.hpp"
#include "harness/timer.hpp"

namespace bench {

// What the driver's options say about sampling.
struct RunnerOptions {
  SamplingOptions sampling;
  bool keep_samples = false;  // --keep-samples: each run's samples go into its record
};

// A registered benchmark: its declaration and point.
struct Selected {
  const Declaration* decl = nullptr;
  Point point;
};

class Runner {
 public:
  Runner(const DeviceInfo& device, CacheMode cache, RunnerOptions options = {});

  // --interleave over these benchmarks (the ones the filter selects).
  void interleave(std::vector<Selected> selected);

  // The body registered for every (declaration, point). Errors of any kind
  // become SkipWithError with a message naming what failed.
  void run(benchmark::State& state, const Declaration& decl, const Point& point);

  // "name: message" for every benchmark that reported an error.
  const std::vector<std::string>& failures() const { return failures_; }

  // For the results' context: where the clocks come from, the maximum clocks,
  // the driver, the throttle threshold (ClockMonitor::context_entries).
  // And the L2 flush's size (GpuTimer::flush_bytes).
  std::vector<std::pair<std::string, std::string>> context_entries() const {
    auto e = clocks_.context_entries();
    e.emplace_back("l2_flush_bytes", std::to_string(timer_.flush_bytes()));
    return e;
  }

 private:
  struct Member {
    const Declaration* decl;
    Point point;
    std::string name;
  };
  struct Result {
    RunRecord record;
    int graph_launches = 0;  // graph mode's K
    bool profiled = false;   // --profile-one: one profiled call, not a measurement
  };
  enum class Attempt { done, retry };

  std::vector<Member> group_of(const Declaration& decl, const Point& point, const std::string& name) const;
  // Sets up and samples `members` for one repetition; stores a Result or a failure for each.
  void sample_group(const std::vector<Member>& members, long long repetition);
  Attempt attempt(const std::vector<Member>& members, long long repetition, bool last_chance);
  void record_clock_samples(const std::string& name, const std::vector<ClockSample>& samples);
  void fail(const std::string& name, const std::string& message);

  DeviceInfo device_;
  CacheMode cache_;
  RunnerOptions options_;
  GpuTimer timer_;
  ClockMonitor clocks_;
  std::string current_;             // the benchmark whose calls are running
  std::set<std::string> verified_;  // verification runs once per benchmark name
  std::vector<std::string> failures_;
  std::map<std::string, std::string> failed_;  // name -> message
  std::map<std::string, long long> calls_;     // name -> calls so far (the repetition index)
  std::map<std::pair<std::string, long long>, Result> results_;  // sampled, not yet reported
  bool interleave_ = false;
  std::vector<Selected> selected_;
  std::map<std::string, std::vector<ClockSample>> clock_samples_;  // over all of a benchmark's calls
  std::set<std::string> throttled_;                                 // said so on stderr once
};

// Frees the cached datasets when a case that needs `bytes` of device memory
// would not fit beside them. Only where no Case holds dataset pointers.
void make_room_for(double bytes);

// Sets the counters every benchmark reports, from the work model and the
// median seconds of one call: bytes_per_second, items_per_second (elements),
// ops_per_second, and bw_util, the fraction of the device's theoretical peak
// bandwidth achieved. Plain counters (not Google Benchmark rates, which divide
// by its own notion of the run's time), so each is the work over the median.
void set_counters(benchmark::State& state, const Work& work, std::size_t n, double median_seconds,
                  double peak_bytes_per_s);

}  // namespace bench
