// Progress of a run on stderr: done/total, elapsed, an estimate of the time
// left. On a terminal one line redrawn in place; otherwise (a log, a pipe, a
// child of --device) one line each time a new family/type starts, and one at
// the end. stdout and the results file are left exactly as they were.
#pragma once

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstddef>
#include <functional>
#include <ostream>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace bench::driver {

// "0:07", "12:34", "1:02:03".
std::string format_duration(double seconds);

// "reduce_sum/i32" from "reduce_sum/i32/batched_vec16/N:1024/block:256/manual_time".
std::string benchmark_group(const std::string& name);

// "progress: 532/2138 (24.9%), 1:32 elapsed, about 4:40 left; reduce_sum/f32".
// The estimate assumes the remaining benchmarks take as long on average as the
// finished ones.
std::string progress_text(std::size_t done, std::size_t total, double elapsed_seconds, const std::string& group);

// Wraps the display reporter Google Benchmark would use (console, json or csv,
// as --benchmark_format says) and adds progress to `progress`.
class ProgressReporter : public benchmark::BenchmarkReporter {
 public:
  using Clock = std::function<double()>;  // seconds, monotonic
  ProgressReporter(benchmark::BenchmarkReporter* display, std::size_t total, bool in_place,
                   std::ostream& progress, Clock clock = {});

  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& runs) override;
  void Finalize() override;

 private:
  benchmark::BenchmarkReporter* display_;
  std::size_t total_;
  bool in_place_;
  std::ostream& out_;
  Clock clock_;
  double start_ = 0;
  std::set<std::pair<long long, long long>> done_;  // (family, instance) of finished benchmarks
  std::string group_;
  bool drawn_ = false;

  void erase();
  void draw(const std::string& text);
};

}  // namespace bench::driver
