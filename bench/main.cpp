// cuda_bench: the driver. Checks every argument (its own and Google
// Benchmark's) before touching a GPU, registers every declared variant (one
// loop, src/harness/registry.cpp), then runs on one GPU in this process or on
// several at once, one process each (bench/multi_device.hpp). Without a GPU it
// can still list benchmarks (--benchmark_list_tests) and variants (--list-variants).
#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "console.hpp"
#include "gb_flags.hpp"
#include "harness/declarations_json.hpp"
#include "harness/device.hpp"
#include "harness/profile.hpp"
#include "harness/registry.hpp"
#include "harness/results_file.hpp"
#include "harness/runner.hpp"
#include "harness/sampling.hpp"
#include "harness/stop.hpp"
#include "harness/versions.hpp"
#include "multi_device.hpp"
#include "options.hpp"
#include "progress.hpp"
#include "size_check.hpp"

namespace {

using bench::format_number;
using bench::driver::UsageError;

constexpr const char* kUsage = R"(cuda_bench: hand-written CUDA kernels against CUB and Thrust, on Google Benchmark.

Harness options (Google Benchmark's --benchmark_* flags work as usual, but for
those refused at the end):
  --suite=default|full     default: each variant's curated block/batch values;
                           full: every supported block x batch (tuning runs)
  --sizes=LO:HI            N = 2^LO ... 2^HI (default 10:30)
  --sizes=N1,N2,...        explicit N values (each at most once)
  --cache=cold|hot         cold (default): flush L2 before every timed launch;
                           hot: no flush (small inputs then run from L2)
  --timing=events|graph    events (default): events around each launch;
                           graph: per-launch time from replays of K launches
                           captured in a CUDA graph (docs/timing.md); host-side
                           cases are refused
  --launch=graph|stream    events timing: graph (default) launches each call as
                           a one-call CUDA graph captured once (its commands
                           already on the device: processes agree better);
                           stream: the call's own launches each time. Host work,
                           calls that cannot be captured and copy_memcpy (a
                           copy-engine node in a graph) use the stream
Sampling (docs/precision.md): each benchmark is set up once, then timed one call
at a time until the 95% interval of its median is within the precision; its
time is that median, its JSON says samples, ci_low, ci_high and stop_reason.
  --precision=PCT          the interval within +-PCT % of the median (default 0.5)
  --max-time=SECONDS       at most this long sampling each benchmark (default 0.03)
  --min-time=SECONDS       precision stops sampling only after this long
                           (default 0.005, at most --max-time): the first
                           samples after a benchmark's setup read fast
  --min-samples=N          precision is claimed only from N samples on (default
                           16, at least 6); the time cap binds from 6
  --max-samples=N          at most N samples (default 10000)
  --placements=K           rotate each small benchmark's samples over up to K
                           copies of its case (inputs, output, workspace);
                           default 1 (measured: it does not make runs agree
                           better, docs/precision.md "Placements")
  --keep-samples           also write every sample's time ("sample_times")
  --interleave             sample the selected benchmarks of one family, type
                           and N round-robin, one sample of each in turn, so
                           drift and clock changes hit all of them alike
  --profile-one            one flushed, profiled call per benchmark instead of
                           timing (the DRAM-byte audit, tools/run-audit)
  --device=N|N,M,...|all   the GPU(s) to run on (default 0); several run at
                           once, one process each, one results file each
  --benchmark_repetitions=K  K (>= 1) sampled runs of each benchmark and Google
                           Benchmark's aggregates over them (--benchmark_min_time
                           is refused: use --max-time and --precision)
  --results-dir=DIR        where the JSON goes (default: the project's results/);
                           ignored when --benchmark_out is given
  --list-variants          print every declared variant with its axes and exit
  --list-variants=json     the same as a JSON array (role, host_work, reference, ...)

Names: family/type/variant/N:<n>[/block:<b>][/batch:<items per thread>]
  e.g. --benchmark_filter='reduce_sum/i32/.*/N:1073741824'
Progress and the estimated time left go to stderr. Exit codes: 0 ok, 1 benchmark
errors, 2 bad input, 3 no GPU, 130/143 stopped by SIGINT/SIGTERM (the results
file closed after the last finished benchmark; see docs/driver.md).

Google Benchmark's flags follow. Refused: --benchmark_min_time and
--benchmark_min_warmup_time (sampling and warm-up are the harness's),
--benchmark_time_unit (times are in microseconds), --benchmark_out_format other
than json, and a --benchmark_context key the harness writes itself.

)";

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

// A character device or a pipe (/dev/stdout, /dev/null, a FIFO): the results
// writer streams into it (src/harness/results_file.cpp), it overwrites nothing.
bool is_stream(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  return !ec && (st.type() == fs::file_type::character || st.type() == fs::file_type::fifo);
}

// A results file to be created: refuse an existing one (an earlier run is
// never overwritten), a folder, and a folder that is not there.
void check_new_file(const std::string& path, bool folder_only = false) {
  namespace fs = std::filesystem;
  const std::string what = "--benchmark_out=" + path;
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw UsageError(what + ": is a folder (name a file in it)");
  if (is_stream(path)) return;
  const fs::path folder = fs::path(path).parent_path();
  if (!folder.empty() && !fs::is_directory(folder))
    throw UsageError(what + ": folder '" + folder.string() + "' does not exist");
  if (access(folder.empty() ? "." : folder.c_str(), W_OK) != 0)
    throw UsageError(what + ": folder '" + (folder.empty() ? "." : folder.string()) + "' is not writable");
  if (!folder_only && fs::exists(path))
    throw UsageError(what + ": file exists; refusing to overwrite an earlier run (choose another name)");
}

// The files of a run: --benchmark_out as given on one GPU, or with "_gpuN" on several.
std::vector<std::string> output_files(const std::string& out, const std::vector<int>& ordinals) {
  if (ordinals.size() == 1) return {out};
  if (!out.empty() && is_stream(out))
    throw UsageError("--benchmark_out=" + out + ": a device or pipe takes one GPU's results; with several GPUs, "
                     "name a file (one per GPU, _gpuN added)");
  std::vector<std::string> files;
  for (int o : ordinals) files.push_back(out.empty() ? "" : bench::driver::per_device_path(out, o));
  return files;
}

// The results folder: it exists as a folder, or its nearest existing parent is
// a writable folder (it is created only once a GPU is there to fill it).
void check_results_dir(const std::string& dir) {
  namespace fs = std::filesystem;
  fs::path p = fs::absolute(dir);
  if (fs::exists(p) && !fs::is_directory(p)) throw UsageError("--results-dir=" + dir + ": not a folder");
  std::error_code ec;
  if (fs::is_symlink(p, ec) && !fs::exists(p, ec))
    throw UsageError("--results-dir=" + dir + ": a link to nothing ('" + fs::read_symlink(p, ec).string() + "' is not there)");
  while (!fs::exists(p)) p = p.parent_path();
  if (!fs::is_directory(p) || access(p.c_str(), W_OK) != 0)
    throw UsageError("--results-dir=" + dir + ": cannot write into '" + p.string() + "'");
}

int no_gpu(const std::string& why) {
  std::fprintf(stderr,
               "cuda_bench: no GPU: %s; nothing was measured (--benchmark_list_tests and --list-variants work "
               "without one)\n",
               why.c_str());
  return 3;
}

// The build folder as the user would type it: relative when below the current one.
std::string build_dir_for_message() {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path rel = fs::relative(bench::build_directory(), fs::current_path(), ec);
  const std::string r = rel.string();
  return !ec && !r.empty() && r.rfind("..", 0) != 0 ? r : bench::build_directory();
}

int run(int argc, char** argv) {
  namespace drv = bench::driver;
  const auto started = bench::ResultsWriter::Clock::now();  // suite_wall_seconds counts from here
  const std::vector<std::string> args(argv, argv + argc);
  drv::Options opt = drv::parse_options(args);
  if (opt.help) {
    std::fputs(kUsage, stdout);
    char* help[] = {argv[0], const_cast<char*>("--help"), nullptr};
    int help_argc = 2;
    benchmark::Initialize(&help_argc, help);  // prints Google Benchmark's flags and exits
    return 0;
  }

  const auto& decls = bench::declarations();
  if (const auto errors = bench::validate(decls); !errors.empty()) {
    for (const auto& e : errors) std::fprintf(stderr, "cuda_bench: registry error: %s\n", e.c_str());
    return 1;
  }

  // Every argument is checked here, the same way with or without a GPU, and
  // the same for a listing (a dry run of the command line) as for a run.
  const drv::GbFlags gb = drv::initialize_google_benchmark(opt.passthrough);
  if (!gb.out.empty()) {
    // With --device=all the file names are known once the GPUs are counted.
    check_new_file(gb.out, /*folder_only=*/true);
    if (!opt.devices.all)
      for (const auto& file : output_files(gb.out, drv::resolve_devices(opt.devices, 1 << 20))) check_new_file(file);
  } else if (!gb.list_tests && !opt.list_variants) {
    check_results_dir(opt.results_dir);
  }
  // A filter that does not compile matches everything in FilterMatcher: named
  // here, before a listing or a size check reads it.
  if (const drv::FilterMatcher filter(gb.filter); !filter.valid()) {
    std::string why;
    drv::count_selected_benchmarks(&why);
    throw UsageError("--benchmark_filter=" + gb.filter + ": " + (why.empty() ? "not a valid regex" : why));
  }
  if (opt.list_variants) {
    // Every variant, whatever --benchmark_filter selects (it names benchmarks); checked above all the same.
    print_variants(decls, opt.list_variants_json);
    return 0;
  }

  std::unique_ptr<bench::Runner> runner;
  const bench::BenchmarkBody body = [&runner](benchmark::State& state, const bench::Declaration& d,
                                              const bench::Point& p) {
    if (runner) runner->run(state, d, p);
    else state.SkipWithError("no CUDA GPU");
  };
  bench::register_benchmarks(decls, opt.reg, body);
  std::string why;
  std::size_t total = drv::count_selected_benchmarks(&why);
  const drv::FilterMatcher filter(gb.filter);
  if (opt.sizes_given) {
    const drv::SizeReport sizes = drv::check_sizes(decls, opt.reg, opt.sizes_listed, filter);
    if (!sizes.error.empty()) throw UsageError(sizes.error);
    if (!sizes.hint.empty()) std::fprintf(stderr, "cuda_bench: note: %s\n", sizes.hint.c_str());
    for (const auto& note : sizes.notes) std::fprintf(stderr, "cuda_bench: %s\n", note.c_str());
    if (total == 0 && !sizes.notes.empty())
      throw UsageError("no benchmark left: the requested sizes are outside every selected variant's range");
  }
  if (total == 0) throw UsageError("--benchmark_filter=" + gb.filter + ": " + (why.empty() ? "no benchmark matches" : why));

  if (gb.list_tests) {
    // Google Benchmark opens --benchmark_out even to list: it would leave an
    // empty file that refuses the real run of the same command line.
    drv::set_benchmark_out("");
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
  }

  // The GPU(s).
  const int device_count = bench::count_devices(&why);
  if (device_count == 0) return no_gpu(why);
  const std::vector<int> ordinals = drv::resolve_devices(opt.devices, device_count);
  const std::vector<std::string> outs = output_files(gb.out, ordinals);
  if (opt.devices.all)
    for (const auto& file : outs)
      if (!file.empty()) check_new_file(file);
  if (ordinals.size() > 1) {
    if (gb.out.empty()) std::filesystem::create_directories(opt.results_dir);  // once, not by each child at once
    return drv::run_on_devices(args, ordinals, outs);
  }
  const int ordinal = ordinals.front();
  if (const cudaError_t st = cudaSetDevice(ordinal); st != cudaSuccess)
    return no_gpu("cudaSetDevice(" + std::to_string(ordinal) + "): " + cudaGetErrorString(st));
  const auto device = bench::query_device(ordinal, &why);
  if (!device) return no_gpu(why);
  // No code for this GPU: cudaErrorNoKernelImageForDevice (some runtimes say
  // cudaErrorInvalidDeviceFunction for a kernel they cannot load).
  if (const int st = bench::check_device_code();
      st == cudaErrorNoKernelImageForDevice || st == cudaErrorInvalidDeviceFunction) {
    std::fprintf(stderr, "cuda_bench: %s\n",
                 bench::arch_mismatch_message(bench::built_cuda_architectures(), *device, build_dir_for_message()).c_str());
    return 2;
  } else if (st != cudaSuccess) {
    return no_gpu("GPU " + std::to_string(ordinal) + " (" + device->name + ") cannot run this build's kernels: " +
                  cudaGetErrorName(static_cast<cudaError_t>(st)) + " (driver CUDA " +
                  bench::cuda_version_string(device->driver_version) + ", runtime CUDA " +
                  bench::cuda_version_string(device->runtime_version) + ")");
  }

  // Cases that cannot fit are refused before anything is allocated.
  const drv::MemoryFit fit = drv::fit_memory(
      decls, opt.reg, {static_cast<double>(device->global_mem_bytes), drv::host_memory_bytes()}, filter);
  for (const auto& note : fit.notes) std::fprintf(stderr, "cuda_bench: %s\n", note.c_str());
  if (fit.refused_any) {
    benchmark::ClearRegisteredBenchmarks();
    bench::register_benchmarks(fit.decls, opt.reg, body);
    total = drv::count_selected_benchmarks(&why);
    if (total == 0) throw UsageError("no benchmark left: every selected case needs more memory than this machine has");
  }

  std::string results_path = gb.out;
  const std::time_t now = std::time(nullptr);
  const auto default_path = [&] {
    return opt.devices.given ? drv::device_results_path(opt.results_dir, device->name, now, ordinal)
                             : bench::new_results_path(opt.results_dir, device->name, now);
  };
  if (results_path.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(opt.results_dir, ec);
    if (ec) throw UsageError("--results-dir=" + opt.results_dir + ": cannot create it: " + ec.message());
    results_path = default_path();
  }
  bench::install_stop_handlers();  // SIGINT/SIGTERM: stop after the current benchmark, JSON closed
  bench::set_timing_mode(opt.timing);
  bench::set_launch_mode(opt.launch);
  if (opt.profile_one) bench::set_profile_one(true);  // before the timer: its flush's size (l2_flush_factor)
  try {  // the timer's experiment variables: a bad value is bad input, before anything runs
    bench::samples_per_gate();
    bench::l2_flush_factor();
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  runner = std::make_unique<bench::Runner>(*device, opt.cache, bench::RunnerOptions{opt.sampling, opt.keep_samples});
  if (opt.interleave) {
    std::vector<bench::Selected> selected;
    for (const auto& d : fit.refused_any ? fit.decls : decls)
      for (const auto& p : bench::expand(d, opt.reg.sizes, opt.reg.suite))
        if (filter.matches(bench::benchmark_name(d, p) + bench::kRunNameSuffix)) selected.push_back({&d, p});
    runner->interleave(std::move(selected));
  }
  for (const auto& [key, value] : bench::context_entries(*device, bench::cccl_version(), bench::git_commit()))
    benchmark::AddCustomContext(key, value);
  benchmark::AddCustomContext("source_hash", bench::source_hash());
  benchmark::AddCustomContext("cache_mode", bench::to_string(opt.cache));
  benchmark::AddCustomContext("suite", opt.reg.suite == bench::Suite::full ? "full" : "default");
  benchmark::AddCustomContext("timing_mode", bench::to_string(opt.timing));
  if (opt.timing == bench::TimingMode::events) {
    benchmark::AddCustomContext("launch_mode", bench::to_string(opt.launch));
    benchmark::AddCustomContext("samples_per_gate", std::to_string(bench::samples_per_gate()));
  }
  benchmark::AddCustomContext("harness", "cuda_bench");
  benchmark::AddCustomContext("precision_percent", format_number(opt.sampling.precision * 100));
  benchmark::AddCustomContext("max_time_seconds", format_number(opt.sampling.max_time_seconds));
  benchmark::AddCustomContext("min_samples", std::to_string(opt.sampling.min_samples));
  benchmark::AddCustomContext("min_time_seconds", format_number(opt.sampling.min_time_seconds));
  benchmark::AddCustomContext("max_samples", std::to_string(opt.sampling.max_samples));
  benchmark::AddCustomContext("placements", std::to_string(opt.sampling.placements));
  if (opt.interleave) benchmark::AddCustomContext("interleave", "true");
  if (opt.keep_samples) benchmark::AddCustomContext("keep_samples", "true");
  for (const auto& [key, value] : runner->context_entries()) benchmark::AddCustomContext(key, value);
  if (bench::profile_one_enabled()) {  // its times are single profiled calls, not measurements
    benchmark::AddCustomContext("profile_one", "true");
    benchmark::AddCustomContext("profile_start_range", bench::kProfilerStartRange);
  }
#ifdef CUDABENCH_PLANTED_SLOWDOWN
  benchmark::AddCustomContext("planted_slowdown", "reduce_sum/*/batched_vec16_shfl does its work twice");
#elif defined(CUDABENCH_PLANTED_SLOWDOWN_PERCENT)
  benchmark::AddCustomContext("planted_slowdown", "reduce_sum/*/batched_vec16_shfl re-reads " +
                                                      std::to_string(CUDABENCH_PLANTED_SLOWDOWN_PERCENT) +
                                                      "% of its input");
#endif

  // The console shows each median with its interval; json and csv stay Google Benchmark's.
  drv::SampledConsoleReporter console;
  drv::ProgressReporter display(gb.format == "console" ? &console : benchmark::CreateDefaultDisplayReporter(), total,
                                isatty(STDERR_FILENO) != 0, std::cerr);
  bench::annotate_declared_bytes(decls, opt.reg);
  // The results file is claimed (created, atomically) only now: of two runs that
  // chose one name (the same second and GPU model, or one --benchmark_out) one
  // writes it, and the other takes the next name or refuses.
  for (int err = is_stream(results_path) ? 0 : bench::claim_results_file(results_path); err != 0;
       err = bench::claim_results_file(results_path)) {
    if (err == EEXIST && gb.out.empty()) {
      results_path = default_path();  // the name it chose is taken now: the next one
      continue;
    }
    throw UsageError(err == EEXIST ? "--benchmark_out=" + results_path +
                                         ": created since the arguments were checked (another run writing it?); "
                                         "refusing to overwrite it"
                                   : results_path + ": cannot create: " + std::strerror(err));
  }
  drv::set_benchmark_out(results_path);
  bench::ResultsWriter file_reporter(results_path, started);  // exits 1 itself on a write error
  const std::size_t ran = benchmark::RunSpecifiedBenchmarks(&display, &file_reporter);  // JSON only (gb_flags.cpp)
  benchmark::Shutdown();
  bench::honour_stop_request();  // a stop during the last benchmark: its exit code (the JSON is closed)
  if (ran == 0) {
    std::fprintf(stderr, "cuda_bench: no benchmark matched the filter\n");
    std::filesystem::remove(results_path);
    return 2;
  }
  std::fprintf(stderr, "cuda_bench: %zu benchmarks; results in %s\n", ran, results_path.c_str());
  if (!runner->failures().empty()) {
    std::fprintf(stderr, "cuda_bench: %zu benchmarks reported errors:\n", runner->failures().size());
    for (const auto& f : runner->failures()) std::fprintf(stderr, "  %s\n", f.c_str());
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
