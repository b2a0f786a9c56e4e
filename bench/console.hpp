// The console display: one line per run, the median with its 95% interval's
// half-width, the samples and why sampling stopped, and the bandwidth:
//   reduce_sum/i32/floor_sum/N:1048576      5.25 us ± 0.31%  n=64  precision  1.60 TB/s
// A run that stopped on its time or sample cap before reaching the precision
// says so: "± 1.8% (time cap: precision not reached)". Aggregates of
// --benchmark_repetitions show their value; errors their message.
#pragma once

#include <benchmark/benchmark.h>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "harness/run_record.hpp"

namespace bench::driver {

// "1.60 TB/s", "312 GB/s", "-" for none.
std::string format_rate(double bytes_per_second);

// The line of one run (no newline); `record` is its sampling record, if any.
std::string console_line(const benchmark::BenchmarkReporter::Run& run, const std::optional<RunRecord>& record,
                         std::size_t name_width);

class SampledConsoleReporter : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& runs) override;

 private:
  std::size_t name_width_ = 40;
};

}  // namespace bench::driver
