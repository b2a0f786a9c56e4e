// Google Benchmark's flags, parsed by Google Benchmark alone: the driver hands
// them to benchmark::Initialize and reads the parsed values back, so that
// "--benchmark_list_tests=off" means here what it means there. Every problem is
// a UsageError (one line, exit 2), found before any GPU is touched.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace bench::driver {

struct GbFlags {
  bool list_tests = false;   // --benchmark_list_tests (or BENCHMARK_LIST_TESTS)
  std::string filter;        // --benchmark_filter
  std::string out;           // --benchmark_out ("" when not given)
  std::string out_format;    // --benchmark_out_format
  std::string format;        // --benchmark_format (the display: console, json or csv)
};

// Runs benchmark::Initialize on argv (args[0] is the program). Throws
// UsageError for an unknown --benchmark_* flag, a value Google Benchmark
// rejects, or BENCHMARK_MIN_TIME in the environment (--benchmark_min_time is
// refused by parse_options: sampling has --max-time and --precision).
GbFlags initialize_google_benchmark(const std::vector<std::string>& args);

// Sets --benchmark_out after Initialize (the default results file is named
// after the GPU, which is queried only once the arguments are known good).
void set_benchmark_out(const std::string& path);

// How many registered benchmarks the filter selects, by Google Benchmark's own
// matcher (a dry listing run). 0 with Google Benchmark's reason in *why (a bad
// regex, no match).
std::size_t count_selected_benchmarks(std::string* why);

}  // namespace bench::driver
