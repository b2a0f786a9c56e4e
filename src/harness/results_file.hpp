// Where a run's JSON goes, and the reporter that writes it so that a run cut
// short still leaves every finished benchmark on disk.
#pragma once

#include <benchmark/benchmark.h>

#include <ctime>
#include <string>
#include <vector>

namespace bench {

// "<dir>/<gpu-slug>_<YYYYmmddTHHMMSSZ>.json", with "_2", "_3"... appended when a
// file of that name exists: an earlier run is never overwritten.
std::string new_results_path(const std::string& dir, const std::string& gpu_name, std::time_t now);

// Google Benchmark's JSON reporter, flushed after every finished benchmark.
class FlushingJsonReporter : public benchmark::JSONReporter {
 public:
  void ReportRuns(const std::vector<Run>& reports) override;
};

}  // namespace bench
