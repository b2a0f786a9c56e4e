// Where a run's JSON goes, and the writer that keeps it readable whatever
// happens to the run: killed, interrupted, out of disk, or a broken CUDA context.
#pragma once

#include <benchmark/benchmark.h>

#include <chrono>
#include <ctime>
#include <sstream>
#include <string>
#include <vector>

namespace bench {

// "<dir>/<gpu-slug>_<YYYYmmddTHHMMSSZ>.json", with "_2", "_3"... appended when a
// file of that name exists: an earlier run is never overwritten.
std::string new_results_path(const std::string& dir, const std::string& gpu_name, std::time_t now);

// Claims `path` for a run: creates it empty unless something is there (O_EXCL,
// so of two runs that chose one name at once only one gets it). 0 when claimed,
// EEXIST when something is there, another errno when it cannot be created.
int claim_results_file(const std::string& path);

// Google Benchmark's JSON, every field formatted by Google Benchmark's own
// JSONReporter, with each benchmark's annotations (src/harness/annotations.hpp:
// declaration, role, clocks, ...) merged into each of its runs and aggregates,
// and each run's sampling record (src/harness/run_record.hpp: samples, ci_low,
// ci_high in the run's time unit, stop_reason, interleave_group, sample_times)
// merged into that run alone.
//
// The context ends with "suite_wall_seconds": the run's wall time, known only
// when the file is closed. It is written as `null` padded with spaces (valid
// JSON meaning "unknown": what a killed run keeps) and overwritten in place,
// same length, when the JSON is closed.
//
// With a path, the writer owns the file (Google Benchmark's --benchmark_out
// stream, which names the same file, is left unused):
//   - every finished benchmark is written with write(2) as soon as it is
//     reported, so a killed run (SIGKILL) leaves all of them on disk, and at
//     every moment the file is complete JSON but for its closing "\n  ]\n}\n";
//   - a stop (bench::honour_stop_request: SIGINT, SIGTERM, a sticky CUDA
//     error) closes the JSON and says how many benchmarks it holds and where;
//     a second signal closes it from the signal handler (src/harness/stop.hpp);
//   - a failed write, fsync or close (a full disk) is one line on stderr naming
//     the file and the error, and exit status 1, at once: the file is cut back
//     to its last complete benchmark and closed if the disk allows.
// Without a path (tests), it writes to GetOutputStream() and checks its state.
class ResultsWriter : public benchmark::BenchmarkReporter {
 public:
  using Clock = std::chrono::steady_clock;
  // `start`: when the run began (suite_wall_seconds counts from there).
  explicit ResultsWriter(Clock::time_point start = Clock::now());
  explicit ResultsWriter(std::string path, Clock::time_point start = Clock::now());
  ~ResultsWriter() override;
  ResultsWriter(const ResultsWriter&) = delete;
  ResultsWriter& operator=(const ResultsWriter&) = delete;

  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& reports) override;
  void Finalize() override;

  // Benchmarks written so far (a benchmark's repetitions and aggregates count once).
  long long benchmarks_written() const { return benchmarks_; }

  // What the file ends with: Google Benchmark's own closing of "benchmarks" and the document.
  static constexpr const char* kClosing = "\n  ]\n}\n";

  // The context's last field, its placeholder value and the width reserved for it.
  static constexpr const char* kWallKey = "suite_wall_seconds";
  static constexpr std::size_t kWallWidth = 24;

 private:
  // Appends complete JSON text holding `benchmarks_after` benchmarks in all;
  // a failure ends the process (see above).
  void append(const std::string& text, long long benchmarks_after);
  // Cuts the file back to the last complete benchmark and closes the JSON
  // there; 0, or the errno of what failed.
  int close_json();
  [[noreturn]] void write_failed(const char* what, int err);
  void finish_after_stop();
  // Overwrites the suite_wall_seconds placeholder with the seconds since start_; 0 or an errno.
  int write_wall_seconds();

  std::string path_;
  int fd_ = -1;
  long long committed_ = 0;  // bytes of complete JSON in the file
  long long benchmarks_ = 0;
  std::string last_benchmark_;
  Clock::time_point start_;
  long long wall_offset_ = -1;  // where the placeholder's value is (file offset or stream position)
  bool any_object_ = false;
  bool closed_ = false;
  benchmark::JSONReporter json_;  // formats; writes into text_
  std::ostringstream text_, discarded_;
};

// The former name of the writer (stream mode), kept for tests written against it.
using FlushingJsonReporter = ResultsWriter;

}  // namespace bench
