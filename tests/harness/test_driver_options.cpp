// The driver's command line, size and memory checks, and the one-process-per-GPU
// plumbing (bench/options, bench/gb_flags, bench/size_check, bench/multi_device).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "gb_flags.hpp"
#include "harness/device.hpp"
#include "multi_device.hpp"
#include "options.hpp"
#include "size_check.hpp"

namespace bench::driver {
namespace {

Options parse(std::vector<std::string> args) {
  args.insert(args.begin(), "cuda_bench");
  return parse_options(args);
}

TEST(DriverOptions, SizesListedOnceEach) {
  bool listed = false;
  EXPECT_EQ(parse_sizes("1024,4096", &listed), (std::vector<std::size_t>{1024, 4096}));
  EXPECT_TRUE(listed);
  EXPECT_EQ(parse_sizes("2:4", &listed), (std::vector<std::size_t>{4, 8, 16}));
  EXPECT_FALSE(listed);
  try {
    parse_sizes("1024,8,1024");
    FAIL() << "a duplicate size was accepted";
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "--sizes=1024,8,1024: 1024 is given twice");
  }
  EXPECT_THROW(parse_sizes("1024,"), UsageError);
  EXPECT_THROW(parse_sizes("0"), UsageError);
  EXPECT_THROW(parse_sizes("5:3"), UsageError);
}

TEST(DriverOptions, HarnessFlagsParsedGoogleBenchmarkFlagsPassedThrough) {
  const Options o = parse({"--sizes=10,20", "--cache=hot", "--device=2,0", "--benchmark_filter=x", "--v=1"});
  EXPECT_TRUE(o.sizes_given);
  EXPECT_TRUE(o.sizes_listed);
  EXPECT_EQ(o.cache, CacheMode::hot);
  EXPECT_EQ(o.devices.ordinals, (std::vector<int>{2, 0}));
  EXPECT_EQ(o.passthrough, (std::vector<std::string>{"cuda_bench", "--benchmark_filter=x", "--v=1"}));
  EXPECT_FALSE(parse({}).devices.given);
  EXPECT_TRUE(parse({"--help"}).help);
  EXPECT_THROW(parse({"--device"}), UsageError);
  EXPECT_THROW(parse({"--bogus"}), UsageError);
}

TEST(DriverOptions, LaunchModeDefaultsToGraphAndContradictionsAreRefused) {
  EXPECT_EQ(parse({}).launch, LaunchMode::graph);
  EXPECT_EQ(parse({"--launch=stream"}).launch, LaunchMode::stream);
  EXPECT_EQ(parse({"--launch=graph", "--timing=graph"}).launch, LaunchMode::graph);
  auto refusal = [](std::vector<std::string> args) {
    try {
      parse(std::move(args));
      return std::string("accepted");
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
  };
  EXPECT_EQ(refusal({"--launch=events"}), "--launch=events: expected 'graph' or 'stream'");
  EXPECT_EQ(refusal({"--launch="}), "--launch=: expected 'graph' or 'stream'");
  EXPECT_EQ(refusal({"--timing=graph", "--launch=stream"}),
            "--launch=stream: applies to --timing=events; --timing=graph replays captured graphs");
  EXPECT_EQ(refusal({"--launch=stream", "--timing=graph"}),
            "--launch=stream: applies to --timing=events; --timing=graph replays captured graphs");
}

TEST(DriverOptions, DeviceSelection) {
  EXPECT_TRUE(parse_device_selection("all").all);
  EXPECT_EQ(parse_device_selection("3").ordinals, (std::vector<int>{3}));
  EXPECT_EQ(parse_device_selection("0,1,7").ordinals, (std::vector<int>{0, 1, 7}));
  for (const char* bad : {"", "-1", "+1", "1,", ",1", "a", "1.5", "0,all", "1,1", "99999"})
    EXPECT_THROW(parse_device_selection(bad), UsageError) << bad;
  try {
    parse_device_selection("0,2,0");
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "--device=0,2,0: GPU 0 is given twice");
  }
}

TEST(DriverOptions, DevicesResolvedAgainstTheMachine) {
  EXPECT_EQ(resolve_devices(DeviceSelection{}, 4), (std::vector<int>{0}));
  EXPECT_EQ(resolve_devices(parse_device_selection("all"), 3), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(resolve_devices(parse_device_selection("1,0"), 2), (std::vector<int>{1, 0}));
  try {
    resolve_devices(parse_device_selection("0,2"), 2);
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "--device: no GPU 2 on this machine (it has 2: 0..1)");
  }
}

// The message of the UsageError parse throws ("" when none).
std::string refusal(std::vector<std::string> args) {
  try {
    parse(std::move(args));
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(DriverOptions, SamplingOptions) {
  const Options d = parse({});
  EXPECT_DOUBLE_EQ(d.sampling.precision, 0.005);
  EXPECT_DOUBLE_EQ(d.sampling.max_time_seconds, 0.03);
  EXPECT_EQ(d.sampling.min_samples, 16u);
  EXPECT_DOUBLE_EQ(d.sampling.min_time_seconds, 0.005);
  EXPECT_EQ(d.sampling.max_samples, 10000u);
  EXPECT_EQ(d.sampling.placements, 1);
  EXPECT_FALSE(d.keep_samples);
  EXPECT_FALSE(d.interleave);
  const Options o = parse({"--precision=1.5", "--max-time=2", "--min-samples=6", "--max-samples=64", "--keep-samples",
                           "--interleave", "--placements=1"});
  EXPECT_EQ(o.sampling.placements, 1);
  EXPECT_EQ(parse({"--placements=64"}).sampling.placements, 64);
  EXPECT_DOUBLE_EQ(o.sampling.precision, 0.015);
  EXPECT_DOUBLE_EQ(o.sampling.max_time_seconds, 2);
  EXPECT_EQ(o.sampling.min_samples, 6u);
  EXPECT_EQ(o.sampling.max_samples, 64u);
  EXPECT_TRUE(o.keep_samples);
  EXPECT_TRUE(o.interleave);
  EXPECT_EQ(o.passthrough, (std::vector<std::string>{"cuda_bench"}));
}

TEST(DriverOptions, MinimumSamplingTime) {
  EXPECT_DOUBLE_EQ(parse({"--min-time=0.2", "--max-time=1"}).sampling.min_time_seconds, 0.2);
  EXPECT_DOUBLE_EQ(parse({"--min-time=0"}).sampling.min_time_seconds, 0);
  EXPECT_FALSE(std::signbit(parse({"--min-time=-0"}).sampling.min_time_seconds)) << "-0 is 0";
  EXPECT_DOUBLE_EQ(parse({"--min-time=0.5", "--max-time=1"}).sampling.min_time_seconds, 0.5)
      << "checked against --max-time wherever it comes";
  EXPECT_DOUBLE_EQ(parse({"--max-time=0.002"}).sampling.min_time_seconds, 0.002)
      << "the default minimum never outlasts a shorter --max-time";
  EXPECT_EQ(refusal({"--min-time=0.5", "--max-time=0.1"}), "--min-time=0.5: above --max-time=0.1 (precision is "
                                                            "claimed only after --min-time of sampling)");
  for (const char* bad : {"abc", "-1", "nan", "inf", "", "2s"})
    EXPECT_EQ(refusal({std::string("--min-time=") + bad}).rfind(std::string("--min-time=") + bad + ": expected", 0), 0u)
        << bad;
}

TEST(DriverOptions, BadSamplingValuesAreRefusedNamingTheOption) {
  for (const char* bad : {"abc", "0", "-1", "nan", "inf", "100", "250", "", "1%", "0.5 "})
    EXPECT_EQ(refusal({std::string("--precision=") + bad}).rfind(std::string("--precision=") + bad + ": ", 0), 0u)
        << bad;
  for (const char* bad : {"abc", "0", "-0.5", "NaN", "-inf", "1e999", "2s"})
    EXPECT_EQ(refusal({std::string("--max-time=") + bad}).rfind(std::string("--max-time=") + bad + ": ", 0), 0u)
        << bad;
  for (const char* option : {"--min-samples=", "--max-samples="})
    for (const char* bad : {"abc", "0", "-3", "1.5", ""})
      EXPECT_EQ(refusal({option + std::string(bad)}).rfind(option + std::string(bad) + ": ", 0), 0u) << option << bad;
  EXPECT_EQ(refusal({"--min-samples=5"}), "--min-samples=5: at least 6 (a 95% interval of the median needs 6 samples)");
  EXPECT_EQ(refusal({"--max-samples=10"}), "--max-samples=10: below --min-samples=16");
  EXPECT_EQ(refusal({"--precision=99.9"}), "");
  for (const char* bad : {"0", "65", "1000", "-1", "two", ""})
    EXPECT_EQ(refusal({std::string("--placements=") + bad}).rfind(std::string("--placements=") + bad + ": ", 0), 0u)
        << bad;
  EXPECT_EQ(refusal({"--placements=65"}), "--placements=65: from 1 (every sample on one copy of the case) to 64");
}

TEST(DriverOptions, MinTimeIsRefusedNamingMaxTimeAndPrecision) {
  for (const char* flag : {"--benchmark_min_time=0.5s", "--benchmark_min_time=100x", "--benchmark_min_time"}) {
    const std::string why = refusal({flag});
    EXPECT_EQ(why.rfind(std::string(flag) + ": not used", 0), 0u) << why;
    EXPECT_NE(why.find("--max-time="), std::string::npos) << why;
    EXPECT_NE(why.find("--precision="), std::string::npos) << why;
  }
}

TEST(DriverOptions, WarmupTimeAndTimeUnitAreRefused) {
  // Google Benchmark's warm-up calls the body again, which the runner's
  // per-benchmark call count would take for a repetition.
  for (const char* flag : {"--benchmark_min_warmup_time=0.5", "--benchmark_min_warmup_time"}) {
    const std::string why = refusal({flag});
    EXPECT_EQ(why.rfind(std::string(flag) + ": not used: the harness warms up", 0), 0u) << why;
  }
  EXPECT_EQ(refusal({"--benchmark_time_unit=ms"}),
            "--benchmark_time_unit=ms: not used: every time is in microseconds (each run's time_unit says so)");
}

TEST(DriverOptions, AnOptionWithoutItsValueIsNamed) {
  for (const char* option : {"--sizes", "--precision", "--device", "--results-dir", "--min-samples", "--suite"})
    EXPECT_EQ(refusal({option, "10:12"}), std::string(option) + " needs a value: " + option + "=VALUE") << option;
  EXPECT_EQ(refusal({"--keep-samples"}), "") << "a switch takes none";
}

TEST(DriverOptions, AHarnessOptionGivenTwiceIsRefused) {
  EXPECT_EQ(refusal({"--sizes=1024", "--sizes=20:22"}), "--sizes: given twice (--sizes=1024, then --sizes=20:22)");
  EXPECT_EQ(refusal({"--precision=1", "--cache=hot", "--precision=5"}),
            "--precision: given twice (--precision=1, then --precision=5)");
  EXPECT_EQ(refusal({"--device=0", "--device=1"}), "--device: given twice (--device=0, then --device=1)");
  EXPECT_EQ(refusal({"--interleave", "--interleave"}), "--interleave: given twice (--interleave, then --interleave)");
  EXPECT_EQ(refusal({"--list-variants", "--list-variants=json"}),
            "--list-variants: given twice (--list-variants, then --list-variants=json)");
  // Google Benchmark's flags are its own to read (it takes the last).
  EXPECT_EQ(refusal({"--benchmark_filter=a", "--benchmark_filter=b"}), "");
}

TEST(DriverOptions, NumbersArePlainDecimal) {
  for (const char* bad : {"0x10", " 1", "1 ", "+1", "1e", "1.2.3", ".", "infinity", "1e-320", "0.0009"})
    EXPECT_EQ(refusal({std::string("--precision=") + bad}).rfind(std::string("--precision=") + bad + ": ", 0), 0u)
        << bad;
  EXPECT_EQ(refusal({"--precision=0.0009"}), "--precision=0.0009: expected at least 0.001 (percent)");
  EXPECT_DOUBLE_EQ(parse({"--precision=.5"}).sampling.precision, 0.005);
  EXPECT_DOUBLE_EQ(parse({"--precision=5."}).sampling.precision, 0.05);
  EXPECT_DOUBLE_EQ(parse({"--precision=0.001"}).sampling.precision, 0.00001);
  EXPECT_DOUBLE_EQ(parse({"--max-time=2e-1"}).sampling.max_time_seconds, 0.2);
  EXPECT_DOUBLE_EQ(parse({"--max-time=1E+0"}).sampling.max_time_seconds, 1);
  EXPECT_EQ(refusal({"--max-time=0x1p-3"}), "--max-time=0x1p-3: expected a finite number > 0");
  for (const char* bad : {"+5", " 5", "5 ", "0x10", "5:+7", " 5:7"})
    EXPECT_EQ(refusal({std::string("--sizes=") + bad}).rfind(std::string("--sizes=") + bad + ": ", 0), 0u) << bad;
  for (const char* bad : {" 1", "1 ", "0, 1", "0x1"})
    EXPECT_THROW(parse_device_selection(bad), UsageError) << bad;
  EXPECT_EQ(refusal({"--min-samples=+8"}), "--min-samples=+8: '+8' is not a positive integer");
  EXPECT_EQ(refusal({"--max-samples= 100"}), "--max-samples= 100: ' 100' is not a positive integer");
}

TEST(DriverOptions, AboveADefaultTheRefusalSaysItIsTheDefault) {
  EXPECT_EQ(refusal({"--min-samples=20000"}), "--min-samples=20000: above --max-samples (10000, the default)");
  EXPECT_EQ(refusal({"--min-samples=200", "--max-samples=100"}), "--max-samples=100: below --min-samples=200");
  EXPECT_EQ(refusal({"--max-samples=10"}), "--max-samples=10: below --min-samples=16");
  EXPECT_EQ(refusal({"--min-time=0.5"}), "--min-time=0.5: above --max-time (0.03, the default; precision is claimed "
                                         "only after --min-time of sampling)");
}

TEST(DriverFlags, ContextKeysTheHarnessWritesAreReserved) {
  DeviceInfo d;
  d.name = "NVIDIA H200";
  d.cc_major = 9;
  for (const auto& [key, value] : context_entries(d, "3.0.1", "abc123"))
    EXPECT_TRUE(reserved_context_key(key)) << key;
  for (const char* key : {"cache_mode", "timing_mode", "source_hash", "planted_slowdown", "precision_percent",
                          "suite_wall_seconds", "date", "gpu_anything"})
    EXPECT_TRUE(reserved_context_key(key)) << key;
  for (const char* key : {"machine", "operator", "note", "gpu"}) EXPECT_FALSE(reserved_context_key(key)) << key;
}

// A declaration of `bytes_per_element` bytes read (and as many written when
// `writes`), with a block axis, for N in [min_n, max_n].
Declaration decl(const char* variant, std::size_t min_n, std::size_t max_n, double bytes_per_element = 4,
                 bool writes = false) {
  Declaration d = make_declaration(
      "fam", "i32", VariantSpec{variant, "test", Axis{{256}, {128, 256}}, {}},
      [=](std::size_t n) {
        const double b = bytes_per_element * static_cast<double>(n);
        return Work{b, writes ? b : 0.0, static_cast<double>(n)};
      },
      [](const Point&) -> std::unique_ptr<Case> { return nullptr; });
  d.min_n = min_n;
  d.max_n = max_n;
  return d;
}

TEST(DriverSizes, FilterMatchesAsGoogleBenchmark) {
  EXPECT_TRUE(FilterMatcher("").matches("a/b"));
  EXPECT_TRUE(FilterMatcher("").valid());
  EXPECT_FALSE(FilterMatcher("(").valid());
  EXPECT_TRUE(FilterMatcher("all").matches("a/b"));
  EXPECT_TRUE(FilterMatcher("b/c").matches("a/b/c/manual_time"));  // searched, not anchored
  EXPECT_FALSE(FilterMatcher("^b").matches("a/b"));
  EXPECT_FALSE(FilterMatcher("-fam/").matches("fam/i32/x"));        // negative filter
  EXPECT_TRUE(FilterMatcher("-fam/").matches("other/i32/x"));
  EXPECT_TRUE(FilterMatcher("N:1024/block:(128|256)").matches("f/t/v/N:1024/block:128/manual_time"));
}

TEST(DriverSizes, SizesOutsideAVariantAreNamedAndUnmatchedListedSizesRefused) {
  const std::vector<Declaration> decls{decl("small", 1, 4096), decl("big", 1024, 1 << 20)};
  RegistrationOptions reg;
  reg.sizes = {16, 2048, 1 << 21};
  const FilterMatcher all("");
  SizeReport r = check_sizes(decls, reg, /*sizes_listed=*/false, all);
  EXPECT_EQ(r.error, "");
  ASSERT_EQ(r.notes.size(), 2u);  // 2048: both take it
  EXPECT_EQ(r.notes[0], "N=16 is outside the range of 1 selected variant, skipped for it: fam/i32/big (N >= 1024)");
  EXPECT_EQ(r.notes[1], "N=2097152 is outside the range of 2 selected variants, skipped for them: "
                        "fam/i32/small (N <= 4096), fam/i32/big (N <= 1048576)");
  // Listed explicitly, a size that no selected variant takes is an error.
  r = check_sizes(decls, reg, /*sizes_listed=*/true, all);
  EXPECT_EQ(r.error, "--sizes: no selected variant takes N=2097152: fam/i32/small (N <= 4096), fam/i32/big (N <= 1048576)");
  // Variants the filter leaves out are not mentioned; nor are sizes the filter excludes.
  r = check_sizes(decls, reg, true, FilterMatcher("/small/"));
  EXPECT_EQ(r.error, "--sizes: no selected variant takes N=2097152: fam/i32/small (N <= 4096)");
  r = check_sizes(decls, reg, true, FilterMatcher("/N:2048/"));
  EXPECT_EQ(r.error, "");
  EXPECT_TRUE(r.notes.empty());
}

TEST(DriverSizes, ListedSizesThatLookLikeExponentsGetAHint) {
  const std::vector<Declaration> decls{decl("small", 1, 4096)};
  const FilterMatcher all("");
  RegistrationOptions reg;
  reg.sizes = {24, 28};
  SizeReport r = check_sizes(decls, reg, /*sizes_listed=*/true, all);
  EXPECT_EQ(r.hint, "--sizes=24,28 lists N = 24,28 elements; for powers of two write exponents as a range "
                    "(--sizes=LO:HI, e.g. --sizes=24:28) or the element counts");
  EXPECT_EQ(r.error, "");
  r = check_sizes(decls, reg, /*sizes_listed=*/false, all);  // a range's sizes: no hint
  EXPECT_EQ(r.hint, "");
  reg.sizes = {24, 1024};
  EXPECT_EQ(check_sizes(decls, reg, true, all).hint, "") << "one listed size is clearly a count";
}

TEST(DriverSizes, CasesThatDoNotFitAreRefusedWithTheNumbers) {
  const double gib = 1024.0 * 1024 * 1024;
  // 4 bytes read + 4 written per element: N = 2^28 needs 2 GiB, 2^29 4 GiB.
  const std::vector<Declaration> decls{decl("rw", 1, std::size_t(1) << 40, 4, true), decl("tiny", 1, 1 << 20)};
  RegistrationOptions reg;
  reg.sizes = {std::size_t(1) << 29, std::size_t(1) << 28, 1 << 20};
  const MemoryFit fit = fit_memory(decls, reg, {3 * gib, 0}, FilterMatcher(""));
  EXPECT_TRUE(fit.refused_any);
  ASSERT_EQ(fit.decls.size(), 2u);
  EXPECT_EQ(fit.decls[0].max_n, (std::size_t(1) << 29) - 1);  // 2^28 still runs
  EXPECT_EQ(fit.decls[1].max_n, std::size_t(1) << 20);
  ASSERT_EQ(fit.notes.size(), 1u);
  EXPECT_EQ(fit.notes[0], "N=536870912 refused for 1 selected variant: needs up to 4.0 GiB of device memory "
                          "(bytes read + written), the GPU has 3.0 GiB: fam/i32/rw");
  // Host memory: the inputs' host copy.
  const MemoryFit host = fit_memory(decls, reg, {100 * gib, 1.5 * gib}, FilterMatcher(""));
  ASSERT_EQ(host.notes.size(), 1u);
  EXPECT_NE(host.notes[0].find("needs up to 2.0 GiB of host memory"), std::string::npos) << host.notes[0];
  // Every size from the first refused one on is out; a variant with none left is dropped.
  const MemoryFit tight = fit_memory(decls, reg, {0.5 * gib, 0}, FilterMatcher(""));
  ASSERT_EQ(tight.decls.size(), 2u);
  EXPECT_EQ(tight.decls[0].max_n, (std::size_t(1) << 28) - 1);
  EXPECT_EQ(tight.notes.size(), 2u);
  Declaration big_only = decl("big_only", std::size_t(1) << 28, std::size_t(1) << 40, 4, true);
  EXPECT_TRUE(fit_memory({big_only}, reg, {0.5 * gib, 0}, FilterMatcher("")).decls.empty());
  // The filter decides what is named, not what is refused.
  EXPECT_TRUE(fit_memory(decls, reg, {0.5 * gib, 0}, FilterMatcher("/tiny/")).notes.empty());
  const MemoryFit roomy = fit_memory(decls, reg, {100 * gib, 100 * gib}, FilterMatcher(""));
  EXPECT_FALSE(roomy.refused_any);
  EXPECT_TRUE(roomy.notes.empty());
}

TEST(DriverSizes, HostMemoryFromMeminfo) {
  const auto path = std::filesystem::temp_directory_path() / "cuda_bench_test_meminfo";
  std::ofstream(path) << "MemFree:  1 kB\nMemTotal:       16384 kB\n";
  EXPECT_EQ(host_memory_bytes(path.string()), 16384.0 * 1024);
  std::filesystem::remove(path);
  EXPECT_EQ(host_memory_bytes("/nonexistent/meminfo"), 0);
  EXPECT_GT(host_memory_bytes(), 0);
}

TEST(DriverDevices, ChildArgumentsAndFiles) {
  const std::vector<std::string> args{"cuda_bench", "--device=all", "--sizes=10:12", "--benchmark_out=r.json",
                                      "--benchmark_filter=x"};
  EXPECT_EQ(child_arguments(args, 1, "r_gpu1.json"),
            (std::vector<std::string>{"cuda_bench", "--sizes=10:12", "--benchmark_filter=x", "--device=1",
                                      "--benchmark_out=r_gpu1.json"}));
  EXPECT_EQ(child_arguments(args, 0, "").back(), "--device=0");
  EXPECT_EQ(per_device_path("out/run.json", 3), "out/run_gpu3.json");
  EXPECT_EQ(per_device_path("run", 0), "run_gpu0");
  const auto dir = std::filesystem::temp_directory_path() / "cuda_bench_test_results";
  std::filesystem::create_directories(dir);
  const std::time_t t = 1795219200;  // 2026-11-21T00:00:00Z
  const std::string first = device_results_path(dir.string(), "NVIDIA H200", t, 1);
  EXPECT_EQ(std::filesystem::path(first).filename(), "nvidia-h200_20261121T000000Z_gpu1.json");
  std::ofstream(first) << "{}";
  EXPECT_EQ(std::filesystem::path(device_results_path(dir.string(), "NVIDIA H200", t, 1)).filename(),
            "nvidia-h200_20261121T000000Z_2_gpu1.json");
  std::filesystem::remove_all(dir);
}

int status_of_child(void (*body)()) {
  const pid_t pid = fork();
  if (pid == 0) {
    body();
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

TEST(DriverDevices, ExitCodesOfChildrenAndTheWorst) {
  EXPECT_EQ(exit_code_of(status_of_child([] { _exit(3); })), 3);
  EXPECT_EQ(exit_code_of(status_of_child([] { std::raise(SIGTERM); })), 143);
  EXPECT_EQ(exit_code_of(status_of_child([] { std::raise(SIGINT); })), 130);
  EXPECT_EQ(exit_code_of(status_of_child([] { std::raise(SIGKILL); })), 1);  // a crash is a failure
  EXPECT_EQ(combine_exit_codes({0, 0}), 0);
  EXPECT_EQ(combine_exit_codes({0, 3}), 3);
  EXPECT_EQ(combine_exit_codes({3, 1, 0}), 1);
  EXPECT_EQ(combine_exit_codes({1, 2, 3}), 2);
  EXPECT_EQ(combine_exit_codes({2, 130, 1}), 130);
  EXPECT_EQ(combine_exit_codes({0, 127}), 127);  // anything unexpected is non-zero too
  EXPECT_EQ(describe_exit_code(143), "terminated");
}

TEST(DriverDevices, ChildrenRunAtOnceTheirLinesPrefixed) {
  // A stand-in for the driver: sh -c SCRIPT gets "--device=N" as $0.
  const std::string script =
      "echo \"out of $0\"; printf 'partial'; echo 'err line' >&2; "
      "case \"$0\" in --device=4) exit 1;; esac; exit 0";
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  const int code = run_on_devices({"sh", "-c", script}, {2, 4}, {"", ""}, "/bin/sh");
  const std::string out = testing::internal::GetCapturedStdout();
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(code, 1);
  // Lines of the two interleave as they come; each arrives whole, prefixed.
  EXPECT_NE(out.find("[gpu 2] out of --device=2\n"), std::string::npos) << out;
  EXPECT_NE(out.find("[gpu 2] partial\n"), std::string::npos) << out;  // an unfinished last line too
  EXPECT_NE(out.find("[gpu 4] out of --device=4\n"), std::string::npos) << out;
  EXPECT_NE(err.find("[gpu 2] err line\n"), std::string::npos) << err;
  EXPECT_NE(err.find("[gpu 4] err line\n"), std::string::npos) << err;
  EXPECT_NE(err.find("cuda_bench: 2 GPUs: gpu 2 ok, gpu 4 benchmark errors; exit code 1"), std::string::npos) << err;
}

}  // namespace
}  // namespace bench::driver
