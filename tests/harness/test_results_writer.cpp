// The results writer and the stop machinery, driven by synthetic Google
// Benchmark runs (no GPU): the JSON keeps Google Benchmark's fields and gains
// the annotations; it is complete JSON after every benchmark once closed; a
// write error, SIGINT, SIGTERM, a second signal and a sticky CUDA error each
// end the process with its exit code and a closed (or cut, still readable) file.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "harness/annotations.hpp"
#include "harness/results_file.hpp"
#include "harness/run_record.hpp"
#include "harness/stop.hpp"

namespace bench {
namespace {

using BenchRun = benchmark::BenchmarkReporter::Run;

BenchRun fake_run(const std::string& name, double microseconds, const char* aggregate = nullptr, int repetitions = 1) {
  BenchRun r;
  r.run_name.function_name = name;
  r.run_name.time_type = "manual_time";
  r.run_type = aggregate ? BenchRun::RT_Aggregate : BenchRun::RT_Iteration;
  r.aggregate_name = aggregate ? aggregate : "";
  r.family_index = 0;
  r.per_family_instance_index = 0;
  r.repetitions = repetitions;
  r.repetition_index = 0;
  r.threads = 1;
  r.iterations = 100;
  r.time_unit = benchmark::kMicrosecond;
  r.real_accumulated_time = microseconds * 1e-6 * 100;
  r.cpu_accumulated_time = r.real_accumulated_time;
  r.counters["bytes_per_second"] = benchmark::Counter(2.5e11);
  return r;
}

// Google Benchmark 1.8 replaced error_occurred/error_message with skipped/skip_message.
template <class R>
auto set_error(R& r, const std::string& message, int) -> decltype(r.skip_message, void()) {
  using Skipped = decltype(r.skipped);  // benchmark::internal::Skipped, absent from 1.7
  r.skipped = Skipped::SkippedWithError;
  r.skip_message = message;
}
template <class R>
void set_error(R& r, const std::string& message, long) {
  r.error_occurred = true;
  r.error_message = message;
}

// A results file (and its child's stderr) in the test's temporary directory,
// removed afterwards.
struct TempFile {
  explicit TempFile(const std::string& name)
      : path(::testing::TempDir() + "cuda_bench_" + name + "_" + std::to_string(getpid()) + ".json") {
    std::remove(path.c_str());
  }
  ~TempFile() {
    std::remove(path.c_str());
    std::remove((path + ".stderr").c_str());
  }
  const std::string path;
};

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1)) ++n;
  return n;
}

// Strict JSON by nlohmann and by Python's json module (as `python3 -m json.tool`).
void expect_valid_json(const std::string& path) {
  EXPECT_NO_THROW({
    const auto j = nlohmann::json::parse(read(path));
    (void)j;
  }) << read(path);
  if (std::system("python3 -c pass > /dev/null 2>&1") == 0) {
    const std::string check = "python3 -m json.tool '" + path + "' > /dev/null";
    EXPECT_EQ(std::system(check.c_str()), 0) << "python3 -m json.tool rejects " << path;
  }
}

TEST(ResultsWriter, KeepsGoogleBenchmarksFieldsAndMergesAnnotations) {
  const TempFile file("fields");
  const std::string& path = file.path;
  annotate("writer_test/i32/a/N:1024", "role", "kernel");
  annotate("writer_test/i32/a/N:1024", "clocks", {{"source", "nvml"}, {"sm_mhz", {{"min", 1980}}}});
  annotate("writer_test/i32/a/N:1024", "name", "not Google Benchmark's");  // GB's own field wins
  {
    ResultsWriter w(path);
    w.ReportContext(benchmark::BenchmarkReporter::Context{});
    w.ReportRuns({fake_run("writer_test/i32/a/N:1024", 12.5)});
    BenchRun bad = fake_run("writer_test/i32/b/N:1024", 0);
    set_error(bad, "verification failed: expected 1, got 2", 0);
    w.ReportRuns({bad});
    w.Finalize();
    EXPECT_EQ(w.benchmarks_written(), 2);
  }
  const auto j = nlohmann::json::parse(read(path));
  ASSERT_EQ(j["benchmarks"].size(), 2u);
  const auto& a = j["benchmarks"][0];
  EXPECT_EQ(a["name"], "writer_test/i32/a/N:1024/manual_time");
  EXPECT_EQ(a["run_name"], "writer_test/i32/a/N:1024/manual_time");
  EXPECT_EQ(a["time_unit"], "us");
  EXPECT_NEAR(a["real_time"].get<double>(), 12.5, 1e-9);
  EXPECT_NEAR(a["bytes_per_second"].get<double>(), 2.5e11, 1);
  EXPECT_EQ(a["role"], "kernel");
  EXPECT_EQ(a["clocks"]["sm_mhz"]["min"], 1980);
  EXPECT_EQ(count(read(path), "\"name\":"), 2u) << "an annotation duplicated a Google Benchmark key";
  const auto& b = j["benchmarks"][1];
  EXPECT_TRUE(b["error_occurred"].get<bool>());
  EXPECT_EQ(b["error_message"], "verification failed: expected 1, got 2");
  EXPECT_FALSE(b.contains("role"));
  expect_valid_json(path);
}

// Each run gets its own sampling record (times in its unit); aggregates none.
TEST(ResultsWriter, EachRunCarriesItsSamplingRecord) {
  const TempFile file("records");
  const std::string name = "writer_test/i32/sampled/N:1024";
  RunRecord first;
  first.samples = 64;
  first.median_seconds = 5.25e-6;
  first.ci_low_seconds = 5.2e-6;
  first.ci_high_seconds = 5.3e-6;
  first.stop = SampleStop::precision;
  record_run(name, 0, first);
  RunRecord second = first;
  second.stop = SampleStop::time;
  second.interleave_group = "writer_test/i32/N:1024";
  second.sample_seconds = {5e-6, 6e-6};
  record_run(name, 1, second);
  {
    ResultsWriter w(file.path);
    w.ReportContext(benchmark::BenchmarkReporter::Context{});
    BenchRun r0 = fake_run(name, 5.25, nullptr, 2), r1 = fake_run(name, 5.25, nullptr, 2);
    r1.repetition_index = 1;
    w.ReportRuns({r0, r1});
    w.ReportRuns({fake_run(name, 5.25, "median", 2)});
    w.Finalize();
  }
  const auto j = nlohmann::json::parse(read(file.path));
  ASSERT_EQ(j["benchmarks"].size(), 3u);
  const auto& a = j["benchmarks"][0];
  EXPECT_EQ(a["samples"], 64);
  EXPECT_NEAR(a["ci_low"].get<double>(), 5.2, 1e-9);  // microseconds, the run's unit
  EXPECT_NEAR(a["ci_high"].get<double>(), 5.3, 1e-9);
  EXPECT_EQ(a["stop_reason"], "precision");
  EXPECT_FALSE(a.contains("interleave_group"));
  EXPECT_FALSE(a.contains("sample_times"));
  const auto& b = j["benchmarks"][1];
  EXPECT_EQ(b["stop_reason"], "time");
  EXPECT_EQ(b["interleave_group"], "writer_test/i32/N:1024");
  ASSERT_EQ(b["sample_times"].size(), 2u);
  EXPECT_NEAR(b["sample_times"][1].get<double>(), 6.0, 1e-9);
  EXPECT_FALSE(j["benchmarks"][2].contains("samples")) << "an aggregate has no sampling record";
  expect_valid_json(file.path);
}

// suite_wall_seconds: a padded null while the run goes on (a killed run keeps
// it: valid JSON meaning "unknown"), the seconds once closed.
TEST(ResultsWriter, SuiteWallSecondsIsReservedThenWrittenInPlace) {
  const TempFile file("wall");
  const auto start = ResultsWriter::Clock::now() - std::chrono::milliseconds(1500);
  ResultsWriter w(file.path, start);
  benchmark::AddCustomContext("precision_percent", "0.5");
  w.ReportContext(benchmark::BenchmarkReporter::Context{});
  w.ReportRuns({fake_run("writer_test/i32/w/N:1", 1)});
  const std::string open = read(file.path);
  const auto during = nlohmann::json::parse(open + ResultsWriter::kClosing);
  ASSERT_TRUE(during["context"].contains("suite_wall_seconds")) << open;
  EXPECT_TRUE(during["context"]["suite_wall_seconds"].is_null()) << "unknown until the run ends";
  EXPECT_EQ(during["context"]["precision_percent"], "0.5");
  w.Finalize();
  const std::string closed = read(file.path);
  const auto after = nlohmann::json::parse(closed);
  ASSERT_TRUE(after["context"]["suite_wall_seconds"].is_number()) << closed;
  EXPECT_GE(after["context"]["suite_wall_seconds"].get<double>(), 1.5);
  EXPECT_LT(after["context"]["suite_wall_seconds"].get<double>(), 60);
  EXPECT_EQ(closed.size(), open.size() + std::strlen(ResultsWriter::kClosing)) << "overwritten in place";
  EXPECT_EQ(after["benchmarks"].size(), 1u);
  expect_valid_json(file.path);
}

// A run killed at any moment: the prefix plus the closing is valid JSON, with
// the placeholder read as null.
TEST(ResultsWriter, KilledRunKeepsThePlaceholderAsNull) {
  const TempFile file("killed");
  const pid_t pid = fork();
  if (pid == 0) {
    ResultsWriter w(file.path);
    w.ReportContext(benchmark::BenchmarkReporter::Context{});
    w.ReportRuns({fake_run("writer_test/i32/k/N:1", 1)});
    raise(SIGKILL);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status));
  const auto j = nlohmann::json::parse(read(file.path) + ResultsWriter::kClosing);
  EXPECT_TRUE(j["context"]["suite_wall_seconds"].is_null());
  EXPECT_EQ(j["benchmarks"].size(), 1u);
}

TEST(ResultsWriter, StreamModeOverwritesThePlaceholderToo) {
  std::stringstream out;
  ResultsWriter w(ResultsWriter::Clock::now() - std::chrono::seconds(2));
  w.SetOutputStream(&out);
  w.ReportContext(benchmark::BenchmarkReporter::Context{});
  w.Finalize();
  EXPECT_GE(nlohmann::json::parse(out.str())["context"]["suite_wall_seconds"].get<double>(), 2.0) << out.str();
}

// What a SIGKILL leaves: the file after every benchmark is complete JSON but
// for the closing, so our tools (which add nothing) read every finished one,
// and appending the closing makes it strict JSON.
TEST(ResultsWriter, EveryFinishedBenchmarkIsOnDiskAtOnce) {
  const TempFile file("prefix");
  const std::string& path = file.path;
  ResultsWriter w(path);
  w.ReportContext(benchmark::BenchmarkReporter::Context{});
  EXPECT_EQ(nlohmann::json::parse(read(path) + ResultsWriter::kClosing)["benchmarks"].size(), 0u);
  for (int k = 1; k <= 3; ++k) {
    const std::string name = "writer_test/i32/p/N:" + std::to_string(k);
    // Repetitions and their aggregates (two ReportRuns calls) are one benchmark.
    w.ReportRuns({fake_run(name, 1, nullptr, 2), fake_run(name, 1, nullptr, 2)});
    w.ReportRuns({fake_run(name, 1, "mean", 2), fake_run(name, 1, "median", 2)});
    const auto j = nlohmann::json::parse(read(path) + ResultsWriter::kClosing);
    EXPECT_EQ(j["benchmarks"].size(), 4u * k);
    EXPECT_EQ(w.benchmarks_written(), k);
  }
  w.Finalize();
  expect_valid_json(path);
}

TEST(ResultsWriter, StreamModeWritesTheSameJson) {
  std::stringstream out;
  ResultsWriter w;
  w.SetOutputStream(&out);
  w.ReportContext(benchmark::BenchmarkReporter::Context{});
  w.ReportRuns({fake_run("writer_test/i32/s/N:1", 3)});
  w.Finalize();
  EXPECT_EQ(nlohmann::json::parse(out.str())["benchmarks"][0]["real_time"], 3.0);
}

// --- write errors: one line naming the file and errno, exit status 1 --------

void write_two_benchmarks(const std::string& path) {
  ResultsWriter w(path);
  w.ReportContext(benchmark::BenchmarkReporter::Context{});
  w.ReportRuns({fake_run("writer_test/i32/full/N:1", 1)});
  w.ReportRuns({fake_run("writer_test/i32/full/N:2", 1)});
  w.Finalize();
  std::fprintf(stderr, "results in %s\n", path.c_str());
  std::exit(0);
}

TEST(ResultsWriterDeathTest, FullDiskIsAnErrorNamingTheFile) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(write_two_benchmarks("/dev/full"), ::testing::ExitedWithCode(1),
              "cannot write the results file /dev/full: write failed: No space left on device \\(errno 28\\)");
}

TEST(ResultsWriterDeathTest, UnopenableFileIsAnError) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(write_two_benchmarks("/nonexistent_dir_for_cuda_bench/x.json"), ::testing::ExitedWithCode(1),
              "cannot write the results file /nonexistent_dir_for_cuda_bench/x.json: open failed: No such file");
}

// --- stops -------------------------------------------------------------------

// A run as the runner drives it: honour_stop_request before each benchmark.
// `slow_from`: from this benchmark on, each one takes 30 s (a long benchmark
// the first signal cannot cut short, so only a second one ends it).
[[noreturn]] void fake_suite(const std::string& path, int slow_from) {
  install_stop_handlers();
  ResultsWriter w(path);
  w.ReportContext(benchmark::BenchmarkReporter::Context{});
  for (int k = 0; k < 1000; ++k) {
    honour_stop_request();
    const auto until =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(k >= slow_from ? 30'000 : 5);
    while (std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    w.ReportRuns({fake_run("writer_test/i32/suite/N:" + std::to_string(k), 1)});
  }
  w.Finalize();
  std::_Exit(0);
}

struct Child {
  int status = -1;
  std::string err;
};

// Runs fake_suite in a child process; once `ready_after` benchmarks are in the
// file, sends it `signals` (100 ms apart) and waits for it to end.
Child signal_fake_suite(const std::string& path, int slow_from, int ready_after, std::vector<int> signals) {
  const std::string err_path = path + ".stderr";
  const pid_t pid = fork();
  if (pid == 0) {
    const int fd = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, STDERR_FILENO);
    fake_suite(path, slow_from);
  }
  Child c;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (count(read(path), "\"run_name\"") < static_cast<std::size_t>(ready_after) &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  for (int sig : signals) {
    kill(pid, sig);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  while (waitpid(pid, &c.status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &c.status, 0);
      ADD_FAILURE() << "the child did not stop";
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  c.err = read(err_path);
  return c;
}

TEST(StopSignals, SigintStopsAfterTheCurrentBenchmarkWithClosedJson) {
  const TempFile file("sigint");
  const std::string& path = file.path;
  const Child c = signal_fake_suite(path, 1000, 3, {SIGINT});
  ASSERT_TRUE(WIFEXITED(c.status)) << c.err;
  EXPECT_EQ(WEXITSTATUS(c.status), 130) << c.err;
  expect_valid_json(path);
  const std::size_t n = nlohmann::json::parse(read(path))["benchmarks"].size();
  EXPECT_GE(n, 3u);
  EXPECT_NE(c.err.find("SIGINT: stopping after the current benchmark"), std::string::npos) << c.err;
  EXPECT_NE(c.err.find("interrupted (SIGINT): stopped after " + std::to_string(n) + " benchmarks; results in " +
                       path + " (closed, valid JSON)"),
            std::string::npos)
      << c.err;
}

TEST(StopSignals, SigtermStopsWithExitStatus143) {
  const TempFile file("sigterm");
  const std::string& path = file.path;
  const Child c = signal_fake_suite(path, 1000, 2, {SIGTERM});
  ASSERT_TRUE(WIFEXITED(c.status)) << c.err;
  EXPECT_EQ(WEXITSTATUS(c.status), 143) << c.err;
  expect_valid_json(path);
  EXPECT_NE(c.err.find("terminated (SIGTERM): stopped after"), std::string::npos) << c.err;
}

TEST(StopSignals, SecondSignalAbortsTheCurrentBenchmarkAndStillClosesTheJson) {
  const TempFile file("twice");
  const std::string& path = file.path;
  const auto start = std::chrono::steady_clock::now();
  const Child c = signal_fake_suite(path, 2, 2, {SIGINT, SIGINT});  // the third benchmark takes 30 s
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10)) << "the second signal did not abort";
  ASSERT_TRUE(WIFEXITED(c.status)) << c.err;
  EXPECT_EQ(WEXITSTATUS(c.status), 130) << c.err;
  expect_valid_json(path);
  EXPECT_EQ(nlohmann::json::parse(read(path))["benchmarks"].size(), 2u);
  EXPECT_NE(c.err.find("SIGINT again: aborted during the current benchmark; 2 finished benchmarks in " + path),
            std::string::npos)
      << c.err;
}

// SIGKILL: nothing runs, yet every finished benchmark is on disk.
TEST(StopSignals, SigkillLeavesEveryFinishedBenchmarkReadable) {
  const TempFile file("sigkill");
  const std::string& path = file.path;
  const Child c = signal_fake_suite(path, 1000, 3, {SIGKILL});
  ASSERT_TRUE(WIFSIGNALED(c.status));
  const std::string text = read(path);
  const auto j = nlohmann::json::parse(text + ResultsWriter::kClosing);  // cut after a complete benchmark
  EXPECT_GE(j["benchmarks"].size(), 3u);
}

void stop_for_cuda_error(const std::string& path) {
  ResultsWriter w(path);
  w.ReportContext(benchmark::BenchmarkReporter::Context{});
  std::remove(path.c_str());  // the child's own file (its name has the child's pid): written, never read
  w.ReportRuns({fake_run("writer_test/i32/ok/N:1", 1)});
  request_cuda_error_stop("writer_test/i32/bad/N:1", "sticky CUDA error (cudaErrorIllegalAddress)");
  w.ReportRuns({fake_run("writer_test/i32/bad/N:1", 0)});
  honour_stop_request();  // before the next benchmark
  std::fprintf(stderr, "ran on\n");
  std::exit(0);
}

TEST(StopDeathTest, StickyCudaErrorStopsWithExitStatus1) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const TempFile file("sticky");
  EXPECT_EXIT(stop_for_cuda_error(file.path), ::testing::ExitedWithCode(1),
              "sticky CUDA error in writer_test/i32/bad/N:1: sticky CUDA error \\(cudaErrorIllegalAddress\\); the "
              "CUDA context is unusable, nothing more was run on it: stopped after 2 benchmarks; results in .* "
              "\\(closed, valid JSON\\)");
}

// A signal that lands on another thread is handed to the main thread, which
// alone writes the results file.
void signal_from_another_thread() {
  install_stop_handlers();
  std::thread([] { pthread_kill(pthread_self(), SIGTERM); }).join();
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (stop_reason() == StopReason::none && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  honour_stop_request();
  std::exit(0);
}

TEST(StopDeathTest, SignalOnAnotherThreadReachesTheMainThread) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(signal_from_another_thread(), ::testing::ExitedWithCode(143), "terminated \\(SIGTERM\\): stopped");
}

TEST(Stop, ExitCodes) {
  EXPECT_EQ(exit_code(StopReason::none), 0);
  EXPECT_EQ(exit_code(StopReason::interrupted), 130);
  EXPECT_EQ(exit_code(StopReason::terminated), 143);
  EXPECT_EQ(exit_code(StopReason::cuda_error), 1);
}

TEST(ResultsWriter, AResultsFileIsClaimedByOneRunOnly) {
  // Two runs that chose one name (the same second and GPU model): the second's
  // claim fails, so it takes the next name instead of truncating the first's file.
  const TempFile file("claim");
  EXPECT_EQ(claim_results_file(file.path), 0);
  EXPECT_EQ(read(file.path), "");
  EXPECT_EQ(claim_results_file(file.path), EEXIST);
  EXPECT_EQ(claim_results_file(::testing::TempDir() + "cuda_bench_no_such_folder/x.json"), ENOENT);
}

}  // namespace
}  // namespace bench
