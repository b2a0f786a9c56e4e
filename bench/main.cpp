// cuda_bench: the driver. Parses the harness's own options, registers every
// declared variant (one loop, src/harness/registry.cpp), writes the device
// context into the JSON and runs Google Benchmark. Without a GPU it can still
// list benchmarks (--benchmark_list_tests) and variants (--list-variants).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/declarations_json.hpp"
#include "harness/device.hpp"
#include "harness/registry.hpp"
#include "harness/results_file.hpp"
#include "harness/runner.hpp"
#include "harness/versions.hpp"

namespace {

constexpr const char* kUsage = R"(cuda_bench: hand-written CUDA kernels against CUB and Thrust, on Google Benchmark.

Harness options (Google Benchmark's --benchmark_* flags work as usual):
  --suite=default|full     default: each variant's curated block/batch values;
                           full: every supported block x batch (tuning runs)
  --sizes=LO:HI            N = 2^LO ... 2^HI (default 10:30)
  --sizes=N1,N2,...        explicit N values
  --cache=cold|hot         cold (default): flush L2 before every timed launch;
                           hot: no flush (small inputs then run from L2)
  --benchmark_min_time=S   measured GPU time per benchmark; the harness sets
                           0.01 s unless given
  --results-dir=DIR        where the JSON goes (default: the project's results/);
                           ignored when --benchmark_out is given
  --list-variants          print every declared variant with its axes and exit
  --list-variants=json     the same as a JSON array (role, host_work, reference, ...)

Names: family/type/variant/N:<n>[/block:<b>][/batch:<items per thread>]
  e.g. --benchmark_filter='reduce_sum/i32/.*/N:1073741824'
)";

struct Options {
  bench::RegistrationOptions reg;
  bench::CacheMode cache = bench::CacheMode::cold;
  std::string results_dir = CUDABENCH_SOURCE_DIR "/results";
  bool list_variants = false;
  bool list_variants_json = false;
  std::vector<std::string> passthrough;  // argv for Google Benchmark
};

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

std::size_t parse_count(const std::string& text, const std::string& what, bool allow_zero = false) {
  std::size_t pos = 0;
  unsigned long long v = 0;
  try {
    v = std::stoull(text, &pos);
  } catch (const std::exception&) {
    pos = 0;
  }
  if (pos != text.size() || text.empty() || text[0] == '-' || (v == 0 && !allow_zero))
    throw UsageError(what + ": '" + text + "' is not a " + (allow_zero ? "non-negative" : "positive") + " integer");
  return static_cast<std::size_t>(v);
}

std::vector<std::size_t> parse_sizes(const std::string& spec) {
  const std::string what = "--sizes=" + spec;
  if (auto colon = spec.find(':'); colon != std::string::npos) {
    const std::size_t lo = parse_count(spec.substr(0, colon), what, /*allow_zero=*/true);
    const std::size_t hi = parse_count(spec.substr(colon + 1), what, /*allow_zero=*/true);
    if (lo > hi || hi > 34) throw UsageError(what + ": need LO <= HI <= 34 (exponents of two)");
    return bench::pow2_sizes(static_cast<int>(lo), static_cast<int>(hi));
  }
  std::vector<std::size_t> sizes;
  std::stringstream ss(spec);
  for (std::string item; std::getline(ss, item, ',');) sizes.push_back(parse_count(item, what));
  if (sizes.empty()) throw UsageError(what + ": no sizes given");
  return sizes;
}

Options parse(int argc, char** argv) {
  Options o;
  o.passthrough.push_back(argv[0]);
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&a](const char* flag) { return a.substr(std::string(flag).size()); };
    if (starts_with(a, "--suite=")) {
      const std::string v = value("--suite=");
      if (v == "default") o.reg.suite = bench::Suite::curated;
      else if (v == "full") o.reg.suite = bench::Suite::full;
      else throw UsageError("--suite=" + v + ": expected 'default' or 'full'");
    } else if (starts_with(a, "--sizes=")) {
      o.reg.sizes = parse_sizes(value("--sizes="));
    } else if (starts_with(a, "--cache=")) {
      const std::string v = value("--cache=");
      if (v == "cold") o.cache = bench::CacheMode::cold;
      else if (v == "hot") o.cache = bench::CacheMode::hot;
      else throw UsageError("--cache=" + v + ": expected 'cold' or 'hot'");
    } else if (starts_with(a, "--results-dir=")) {
      o.results_dir = value("--results-dir=");
      if (o.results_dir.empty()) throw UsageError("--results-dir= needs a directory");
    } else if (a == "--list-variants" || a == "--list-variants=json") {
      o.list_variants = true;
      o.list_variants_json = a == "--list-variants=json";
    } else if (starts_with(a, "--benchmark_") || starts_with(a, "--v=") || a == "--help" || a == "-h") {
      o.passthrough.push_back(a);  // Google Benchmark's own
    } else {
      throw UsageError("unrecognized argument '" + a + "' (see --help)");
    }
  }
  return o;
}

// The value of a Google Benchmark flag in argv, if present.
std::optional<std::string> gb_flag(const std::vector<std::string>& args, const std::string& flag) {
  std::optional<std::string> found;
  for (const auto& a : args) {
    if (a == "--" + flag) found = "true";
    else if (starts_with(a, "--" + flag + "=")) found = a.substr(flag.size() + 3);
  }
  return found;
}

bool flag_true(const std::optional<std::string>& v) {
  return v && *v != "false" && *v != "0" && *v != "no";
}

void print_variants(const std::vector<bench::Declaration>& decls, bool json) {
  if (json) {
    std::printf("%s\n", bench::declarations_json(decls).dump(2).c_str());
    return;
  }
  auto axis = [](const bench::Axis& a) {
    if (!a.used()) return std::string("-");
    std::string s;
    for (int v : a.full) {
      const bool curated = std::find(a.curated.begin(), a.curated.end(), v) != a.curated.end();
      s += (s.empty() ? "" : ",") + std::to_string(v) + (curated ? "*" : "");
    }
    return s;
  };
  std::printf("%-48s %-26s %-28s %s\n", "variant", "block (*=default)", "batch (*=default)", "description");
  for (const auto& d : decls)
    std::printf("%-48s %-26s %-28s %s\n", d.id().c_str(), axis(d.block).c_str(), axis(d.batch).c_str(),
                d.description.c_str());
}

int run(int argc, char** argv) {
  Options opt = parse(argc, argv);
  for (const auto& a : opt.passthrough) {
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      char* help[] = {argv[0], const_cast<char*>("--help"), nullptr};
      int help_argc = 2;
      benchmark::Initialize(&help_argc, help);  // prints Google Benchmark's flags and exits
      return 0;
    }
  }

  const auto& decls = bench::declarations();
  if (const auto errors = bench::validate(decls); !errors.empty()) {
    for (const auto& e : errors) std::fprintf(stderr, "cuda_bench: registry error: %s\n", e.c_str());
    return 1;
  }
  if (opt.list_variants) {
    print_variants(decls, opt.list_variants_json);
    return 0;
  }

  const bool listing = flag_true(gb_flag(opt.passthrough, "benchmark_list_tests"));
  std::unique_ptr<bench::Runner> runner;
  std::string results_path;
  const bool json_out = gb_flag(opt.passthrough, "benchmark_out_format").value_or("json") == "json";
  if (!listing) {
    std::string why;
    const auto device = bench::query_device(&why);
    if (!device) {
      std::fprintf(stderr,
                   "cuda_bench: no CUDA GPU available (%s): nothing was measured.\n"
                   "  --benchmark_list_tests and --list-variants work without a GPU.\n",
                   why.c_str());
      return 3;
    }
    if (auto out = gb_flag(opt.passthrough, "benchmark_out")) {
      results_path = *out;
      if (std::filesystem::exists(results_path))
        throw UsageError("--benchmark_out=" + results_path +
                         ": file exists; refusing to overwrite an earlier run (choose another name)");
    } else {
      std::filesystem::create_directories(opt.results_dir);
      results_path = bench::new_results_path(opt.results_dir, device->name, std::time(nullptr));
      opt.passthrough.push_back("--benchmark_out=" + results_path);
      if (!gb_flag(opt.passthrough, "benchmark_out_format"))
        opt.passthrough.push_back("--benchmark_out_format=json");
    }
    runner = std::make_unique<bench::Runner>(*device, opt.cache);
    for (const auto& [key, value] :
         bench::context_entries(*device, bench::cccl_version(), bench::git_commit()))
      benchmark::AddCustomContext(key, value);
    benchmark::AddCustomContext("cache_mode", bench::to_string(opt.cache));
    benchmark::AddCustomContext("suite", opt.reg.suite == bench::Suite::full ? "full" : "default");
    benchmark::AddCustomContext("harness", "cuda_bench");
#ifdef CUDABENCH_PLANTED_SLOWDOWN
    benchmark::AddCustomContext("planted_slowdown", "reduce_sum/*/batched_vec16_shfl does its work twice");
#endif
  }
  if (!gb_flag(opt.passthrough, "benchmark_min_time"))
    opt.passthrough.push_back(std::string("--benchmark_min_time=") + CUDABENCH_DEFAULT_MIN_TIME);

  std::vector<char*> gb_argv;
  for (auto& a : opt.passthrough) gb_argv.push_back(a.data());
  int gb_argc = static_cast<int>(gb_argv.size());
  gb_argv.push_back(nullptr);
  benchmark::Initialize(&gb_argc, gb_argv.data());
  if (benchmark::ReportUnrecognizedArguments(gb_argc, gb_argv.data())) return 2;

  bench::Runner* r = runner.get();
  bench::register_benchmarks(decls, opt.reg,
                             [r](benchmark::State& state, const bench::Declaration& d, const bench::Point& p) {
                               if (r) r->run(state, d, p);
                               else state.SkipWithError("no CUDA GPU");
                             });

  bench::FlushingJsonReporter file_reporter;
  const std::size_t ran =
      benchmark::RunSpecifiedBenchmarks(nullptr, (!listing && json_out) ? &file_reporter : nullptr);
  benchmark::Shutdown();
  if (listing) return 0;
  if (ran == 0) {
    std::fprintf(stderr, "cuda_bench: no benchmark matched the filter\n");
    std::filesystem::remove(results_path);
    return 2;
  }
  std::fprintf(stderr, "cuda_bench: %zu benchmarks; results in %s\n", ran, results_path.c_str());
  if (!r->failures().empty()) {
    std::fprintf(stderr, "cuda_bench: %zu benchmarks reported errors:\n", r->failures().size());
    for (const auto& f : r->failures()) std::fprintf(stderr, "  %s\n", f.c_str());
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "cuda_bench: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cuda_bench: %s\n", e.what());
    return 1;
  }
}
