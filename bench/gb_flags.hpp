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
// rejects, BENCHMARK_MIN_TIME or BENCHMARK_MIN_WARMUP_TIME in the environment
// (the flags are refused by parse_options: sampling has --max-time and
// --precision), an --benchmark_out_format other than json or a
// --benchmark_time_unit (from the flag or the environment), or a
// --benchmark_context key the harness writes itself.
GbFlags initialize_google_benchmark(const std::vector<std::string>& args);

// Whether the results' context gets `key` from Google Benchmark or the
// harness (every gpu_* key among them): a --benchmark_context pair of that
// key would replace the harness's value.
bool reserved_context_key(const std::string& key);

// Sets --benchmark_out after Initialize (the default results file is named
// after the GPU, which is queried only once the arguments are known good).
void set_benchmark_out(const std::string& path);

// How many registered benchmarks the filter selects, by Google Benchmark's own
// matcher (a dry listing run). 0 with Google Benchmark's reason in *why (a bad
// regex, no match).
std::size_t count_selected_benchmarks(std::string* why);

}  // namespace bench::driver
