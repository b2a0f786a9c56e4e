// The GPU side of a benchmark: make the case, verify it once, time it with the
// one timer, derive the counters from the declaration's bytes/ops model, and
// record the clocks it ran at.
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
#include "harness/timer.hpp"

namespace bench {

class Runner {
 public:
  Runner(const DeviceInfo& device, CacheMode cache);

  // The body registered for every (declaration, point). Errors of any kind
  // become SkipWithError with a message naming what failed.
  void run(benchmark::State& state, const Declaration& decl, const Point& point);

  // "name: message" for every benchmark that reported an error.
  const std::vector<std::string>& failures() const { return failures_; }

  // For the results' context: where the clocks come from, the maximum clocks,
  // the driver, the throttle threshold (ClockMonitor::context_entries).
  std::vector<std::pair<std::string, std::string>> context_entries() const { return clocks_.context_entries(); }

 private:
  enum class Attempt { done, retry };
  Attempt attempt(benchmark::State& state, const Declaration& decl, const Point& point, const std::string& name,
                  bool last_chance);
  void record_clock_samples(const std::string& name, const std::vector<ClockSample>& samples);

  DeviceInfo device_;
  CacheMode cache_;
  GpuTimer timer_;
  ClockMonitor clocks_;
  std::string current_;             // the benchmark whose calls are running
  std::set<std::string> verified_;  // verification runs once per benchmark name
  std::vector<std::string> failures_;
  std::map<std::string, std::string> failed_;  // name -> message
  std::map<std::string, std::vector<ClockSample>> clock_samples_;  // over all of a benchmark's calls
  std::set<std::string> throttled_;                                 // said so on stderr once

  void fail(benchmark::State& state, const std::string& name, const std::string& message);
};

// Frees the cached datasets when a case that needs `bytes` of device memory
// would not fit beside them. Only where no Case holds dataset pointers.
void make_room_for(double bytes);

// Sets the counters every benchmark reports, from the work model and the
// measured seconds over all iterations: bytes_per_second, items_per_second
// (elements), ops_per_second, and bw_util, the fraction of the device's
// theoretical peak bandwidth achieved.
void set_counters(benchmark::State& state, const Work& work, std::size_t n, double measured_seconds,
                  double peak_bytes_per_s);

}  // namespace bench
