// What sampling says about each run of a benchmark (one per repetition):
// samples, the median's 95% interval, why sampling stopped. The runner records
// it by (benchmark name, repetition index); the results writer merges it into
// that run's JSON object ("samples", "ci_low", "ci_high", "stop_reason", ...)
// and the console line shows it. Not Google Benchmark counters: those would be
// aggregated over repetitions and shown as console columns.
//
// No nlohmann/json here: included by the runner, which nvcc compiles.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "harness/sampling.hpp"

namespace bench {

struct RunRecord {
  std::size_t samples = 0;
  double median_seconds = 0;
  double ci_low_seconds = 0;
  double ci_high_seconds = 0;
  SampleStop stop = SampleStop::none;
  double setup_seconds = 0;             // wall time to build, verify and warm up the case
  double verify_seconds = 0;            // of which the verification (0 when done by an earlier repetition)
  double sampling_seconds = 0;          // wall time of the sampling (an interleaved group's, shared)
  int placements = 1;                   // copies of the case its samples rotated over
  std::string launch = "stream";        // how each sample reached the GPU: "graph" or "stream"
  std::string interleave_group;         // "family/type/N:n" with --interleave, else ""
  std::vector<double> sample_seconds;   // every sample, with --keep-samples, else empty
};

// `name`: the benchmark's registered name (bench::benchmark_name, without
// Google Benchmark's suffixes); `repetition`: Google Benchmark's repetition index.
void record_run(const std::string& name, long long repetition, RunRecord record);
std::optional<RunRecord> find_run(const std::string& name, long long repetition);

}  // namespace bench
