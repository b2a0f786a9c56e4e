#include "gb_flags.hpp"

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <sstream>

#include "options.hpp"

// Google Benchmark's parsed flags. Its public header has no getters for these
// (only GetBenchmarkFilter); src/commandlineflags.h declares them
// BENCHMARK_EXPORT, with these types, in 1.7 and 1.8 alike.
namespace benchmark {
extern bool FLAGS_benchmark_list_tests;
extern std::string FLAGS_benchmark_out;
extern std::string FLAGS_benchmark_out_format;
extern std::string FLAGS_benchmark_format;
extern std::string FLAGS_benchmark_time_unit;
extern std::string FLAGS_benchmark_color;
extern int32_t FLAGS_benchmark_repetitions;
extern std::map<std::string, std::string> FLAGS_benchmark_context;
}  // namespace benchmark

namespace bench::driver {
namespace {

std::string first_line(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
  return line;
}

// The context keys the results file gets from elsewhere: Google Benchmark's
// own, and those the driver adds (bench/main.cpp, bench::context_entries in
// src/harness/device.cpp, ClockMonitor::context_entries in
// src/harness/clocks.cpp, Runner::context_entries, ResultsWriter's last field,
// the test-only fault variants). A --benchmark_context pair is added first,
// and Google Benchmark keeps the first value of a key: one of these would
// replace what the harness records.
constexpr const char* kReservedContextKeys[] = {
    // Google Benchmark's JSONReporter (1.7, 1.8; the last two from later versions)
    "date", "host_name", "executable", "num_cpus", "mhz_per_cpu", "cpu_scaling_enabled", "caches", "load_avg",
    "library_build_type", "library_version", "json_schema_version",
    // bench/main.cpp
    "source_hash", "cache_mode", "suite", "timing_mode", "launch_mode", "samples_per_gate", "harness",
    "precision_percent", "max_time_seconds", "min_samples", "min_time_seconds", "max_samples", "placements",
    "interleave", "keep_samples", "profile_one", "profile_start_range", "planted_slowdown", "fault_variants",
    // bench::context_entries (gpu_* by prefix, below), the clocks, the runner, the writer
    "device_ordinal", "cuda_driver_version", "cuda_runtime_version", "cccl_version", "git_commit", "clock_source",
    "clock_source_note", "nvml_version", "throttle_fraction", "l2_flush_bytes", "suite_wall_seconds"};

// "--flag=value" as last given on the command line; "" when it was not.
std::string on_command_line(const std::vector<std::string>& args, const std::string& flag) {
  std::string given;
  for (const auto& a : args)
    if (a.rfind(flag + "=", 0) == 0) given = a;
  return given;
}

// "--flag=value" as given on the command line, else "ENV=value (environment)".
std::string as_given(const std::vector<std::string>& args, const std::string& flag, const std::string& env,
                     const std::string& value) {
  const std::string given = on_command_line(args, flag);
  return given.empty() ? env + "=" + value + " (environment)" : given;
}

std::streambuf* saved_cerr = nullptr;

// Google Benchmark calls this, then exit(0), for a value it rejects: name it
// and exit 2 instead. (--help never gets here: the driver answers it itself.)
void rejected_value() {
  if (saved_cerr) std::cerr.rdbuf(saved_cerr);
  auto format_ok = [](const std::string& f) { return f == "console" || f == "json" || f == "csv"; };
  const std::string& unit = benchmark::FLAGS_benchmark_time_unit;
  std::string why = "a Google Benchmark flag has a value it rejects (see --help)";
  if (!format_ok(benchmark::FLAGS_benchmark_format))
    why = "--benchmark_format=" + benchmark::FLAGS_benchmark_format + ": expected console, json or csv";
  else if (!format_ok(benchmark::FLAGS_benchmark_out_format))
    why = "--benchmark_out_format=" + benchmark::FLAGS_benchmark_out_format + ": expected json";
  else if (!unit.empty() && unit != "ns" && unit != "us" && unit != "ms" && unit != "s")
    why = "--benchmark_time_unit=" + unit + ": expected ns, us, ms or s";
  else if (benchmark::FLAGS_benchmark_color.empty())
    why = "--benchmark_color=: expected auto, true or false";
  std::fprintf(stderr, "cuda_bench: %s\n", why.c_str());
  std::fflush(stderr);
  std::exit(2);
}

}  // namespace

GbFlags initialize_google_benchmark(const std::vector<std::string>& args) {
  // Sampling has its own options; Google Benchmark's minimum time would be
  // silently ignored (every benchmark runs one iteration).
  if (std::getenv("BENCHMARK_MIN_TIME") != nullptr)
    throw UsageError("BENCHMARK_MIN_TIME is set: " + replaced_flag_reason("--benchmark_min_time") + "; unset it");
  if (std::getenv("BENCHMARK_MIN_WARMUP_TIME") != nullptr)
    throw UsageError("BENCHMARK_MIN_WARMUP_TIME is set: " + replaced_flag_reason("--benchmark_min_warmup_time") +
                     "; unset it");
  // Google Benchmark keeps argv[0] as a pointer: the strings must outlive it.
  static std::vector<std::string> kept;
  kept = args;

  std::vector<char*> argv;
  for (auto& a : kept) argv.push_back(a.data());
  int argc = static_cast<int>(argv.size());
  argv.push_back(nullptr);

  // Google Benchmark explains a malformed number on std::cerr before leaving
  // the flag unparsed: keep that text for the one-line error below.
  std::ostringstream said;
  saved_cerr = std::cerr.rdbuf(said.rdbuf());
  benchmark::Initialize(&argc, argv.data(), &rejected_value);
  std::cerr.rdbuf(saved_cerr);
  saved_cerr = nullptr;

  if (argc > 1) {
    std::string message = "unrecognized Google Benchmark flag '" + std::string(argv[1]) + "'";
    if (const std::string why = first_line(said.str()); !why.empty()) message += ": " + why;
    if (argc > 2) message += " (and " + std::to_string(argc - 2) + " more)";
    throw UsageError(message + " (see --help)");
  }
  std::cerr << said.str();  // anything else it said, unchanged
  // Google Benchmark takes any 32-bit count and then runs nothing for 0 and
  // aborts (std::length_error) for a negative one.
  if (const int32_t k = benchmark::FLAGS_benchmark_repetitions; k < 1)
    throw UsageError(as_given(args, "--benchmark_repetitions", "BENCHMARK_REPETITIONS", std::to_string(k)) +
                     ": expected a whole number >= 1 (K sampled runs of each benchmark)");
  // The results file is written by bench::ResultsWriter alone (JSON, flushed
  // after every benchmark, closed on a stop); Google Benchmark's other file
  // formats go through a buffered stream that a stop never flushes.
  if (const std::string& f = benchmark::FLAGS_benchmark_out_format; f != "json")
    throw UsageError(as_given(args, "--benchmark_out_format", "BENCHMARK_OUT_FORMAT", f) +
                     ": not used: the results file is always JSON (the tools read it; the console shows the table)");
  if (const std::string& unit = benchmark::FLAGS_benchmark_time_unit; !unit.empty())
    throw UsageError(as_given(args, "--benchmark_time_unit", "BENCHMARK_TIME_UNIT", unit) + ": " +
                     replaced_flag_reason("--benchmark_time_unit"));
  for (const auto& [key, value] : benchmark::FLAGS_benchmark_context)
    if (reserved_context_key(key)) {
      const std::string given = on_command_line(args, "--benchmark_context");
      throw UsageError((given.empty() ? "BENCHMARK_CONTEXT (environment)" : given) + ": '" + key +
                       "' is a context key the harness writes itself (choose another name)");
    }
  GbFlags flags;
  flags.list_tests = benchmark::FLAGS_benchmark_list_tests;
  flags.filter = benchmark::GetBenchmarkFilter();
  flags.out = benchmark::FLAGS_benchmark_out;
  flags.out_format = benchmark::FLAGS_benchmark_out_format;
  flags.format = benchmark::FLAGS_benchmark_format;
  return flags;
}

bool reserved_context_key(const std::string& key) {
  if (key.rfind("gpu_", 0) == 0) return true;
  for (const char* k : kReservedContextKeys)
    if (key == k) return true;
  return false;
}

void set_benchmark_out(const std::string& path) { benchmark::FLAGS_benchmark_out = path; }

std::size_t count_selected_benchmarks(std::string* why) {
  struct Sink : benchmark::BenchmarkReporter {
    bool ReportContext(const Context&) override { return true; }
    void ReportRuns(const std::vector<Run>&) override {}
  } sink;
  std::ostringstream names, errors;
  sink.SetOutputStream(&names);
  sink.SetErrorStream(&errors);
  // A listing run: Google Benchmark matches the filter and names each
  // benchmark without running it. No output file is opened meanwhile.
  const bool list_tests = benchmark::FLAGS_benchmark_list_tests;
  const std::string out = benchmark::FLAGS_benchmark_out;
  benchmark::FLAGS_benchmark_list_tests = true;
  benchmark::FLAGS_benchmark_out.clear();
  const std::size_t n = benchmark::RunSpecifiedBenchmarks(&sink, nullptr, benchmark::GetBenchmarkFilter());
  benchmark::FLAGS_benchmark_list_tests = list_tests;
  benchmark::FLAGS_benchmark_out = out;
  if (n == 0 && why) *why = first_line(errors.str());
  return n;
}

}  // namespace bench::driver
