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
};

// Runs benchmark::Initialize on argv (args[0] is the program), after adding the
// harness's default --benchmark_min_time unless one is given. Throws UsageError
// for an unknown --benchmark_* flag, a value Google Benchmark rejects, or a
// --benchmark_min_time it would reject later, at the first benchmark.
GbFlags initialize_google_benchmark(const std::vector<std::string>& args, const char* default_min_time);

// Sets --benchmark_out after Initialize (the default results file is named
// after the GPU, which is queried only once the arguments are known good).
void set_benchmark_out(const std::string& path);

// How many registered benchmarks the filter selects, by Google Benchmark's own
// matcher (a dry listing run). 0 with Google Benchmark's reason in *why (a bad
// regex, no match).
std::size_t count_selected_benchmarks(std::string* why);

// Why Google Benchmark (1.8 rules when `with_units`, else 1.7) would reject
// this --benchmark_min_time value; "" when it is good.
std::string min_time_problem(const std::string& value, bool with_units);

}  // namespace bench::driver
