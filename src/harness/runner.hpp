// The GPU side of a benchmark: make the case, verify it once, time it with the
// one timer, derive the counters from the declaration's bytes/ops model.
#pragma once

#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

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

 private:
  DeviceInfo device_;
  CacheMode cache_;
  GpuTimer timer_;
  std::set<std::string> verified_;  // verification runs once per benchmark name
  std::vector<std::string> failures_;
  std::map<std::string, std::string> failed_;  // name -> message

  void fail(benchmark::State& state, const std::string& name, const std::string& message);
};

// Frees the cached datasets when less than a quarter of device memory is free.
// Only safe where no Case holds dataset pointers (between benchmarks).
void release_datasets_if_memory_low();

// Sets the counters every benchmark reports, from the work model and the
// measured seconds over all iterations: bytes_per_second, items_per_second
// (elements), ops_per_second, and bw_util, the fraction of the device's
// theoretical peak bandwidth achieved.
void set_counters(benchmark::State& state, const Work& work, std::size_t n, double measured_seconds,
                  double peak_bytes_per_s);

}  // namespace bench
