// The driver's progress on stderr (bench/progress): the text, the estimate,
// when lines are printed, and that the wrapped display reporter sees everything.
#include <gtest/gtest.h>

#include <sstream>

#include "console.hpp"
#include "progress.hpp"

namespace bench::driver {
namespace {

TEST(DriverProgress, Durations) {
  EXPECT_EQ(format_duration(0), "0:00");
  EXPECT_EQ(format_duration(7.4), "0:07");
  EXPECT_EQ(format_duration(754), "12:34");
  EXPECT_EQ(format_duration(3723), "1:02:03");
  EXPECT_EQ(format_duration(-5), "0:00");
}

TEST(DriverProgress, GroupIsFamilyAndType) {
  EXPECT_EQ(benchmark_group("reduce_sum/i32/batched_vec16/N:1024/block:256/manual_time"), "reduce_sum/i32");
  EXPECT_EQ(benchmark_group("ceiling/f32"), "ceiling/f32");
  EXPECT_EQ(benchmark_group("lonely"), "lonely");
}

TEST(DriverProgress, TextAndEstimate) {
  EXPECT_EQ(progress_text(0, 2138, 0, ""), "progress: 0/2138 (0.0%), 0:00 elapsed, estimating the time left");
  // 500 done in 100 s: 0.2 s each, 1638 left -> 327.6 s.
  EXPECT_EQ(progress_text(500, 2138, 100, "reduce_sum/f32"),
            "progress: 500/2138 (23.4%), 1:40 elapsed, about 5:28 left; reduce_sum/f32");
  EXPECT_EQ(progress_text(2138, 2138, 361, "x"), "progress: 2138/2138 (100.0%), 6:01 elapsed, done");
}

// Records what the driver's display reporter would have printed.
class Recorder : public benchmark::BenchmarkReporter {
 public:
  std::ostringstream log;
  bool ReportContext(const Context&) override {
    log << "context;";
    return true;
  }
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const auto& r : runs) log << r.run_name.function_name << (r.aggregate_name.empty() ? "" : "_" + r.aggregate_name) << ";";
  }
  void Finalize() override { log << "final;"; }
};

benchmark::BenchmarkReporter::Run run(const std::string& name, long long family, const std::string& aggregate = "") {
  benchmark::BenchmarkReporter::Run r;
  r.run_name.function_name = name;
  r.family_index = family;
  r.per_family_instance_index = 0;
  if (!aggregate.empty()) {
    r.run_type = benchmark::BenchmarkReporter::Run::RT_Aggregate;
    r.aggregate_name = aggregate;
  }
  return r;
}

TEST(DriverProgress, OneLinePerGroupInALogAndEverythingForwarded) {
  Recorder inner;
  std::ostringstream err;
  double now = 10;
  ProgressReporter p(&inner, 4, /*in_place=*/false, err, [&now] { return now; });
  p.ReportContext({});
  now = 12;
  p.ReportRuns({run("a/i32/x/N:1", 0)});
  now = 14;
  p.ReportRuns({run("a/i32/y/N:1", 1), run("a/i32/y/N:1", 1)});
  p.ReportRuns({run("a/i32/y/N:1", 1, "mean")});  // aggregates of the same benchmark: not counted again
  now = 16;
  p.ReportRuns({run("b/f32/x/N:1", 2)});
  now = 18;
  p.ReportRuns({run("b/f32/y/N:1", 3)});
  p.Finalize();
  EXPECT_EQ(inner.log.str(), "context;a/i32/x/N:1;a/i32/y/N:1;a/i32/y/N:1;a/i32/y/N:1_mean;b/f32/x/N:1;b/f32/y/N:1;final;");
  EXPECT_EQ(err.str(),
            "progress: 1/4 (25.0%), 0:02 elapsed, about 0:06 left; a/i32\n"
            "progress: 3/4 (75.0%), 0:06 elapsed, about 0:02 left; b/f32\n"
            "progress: 4/4 (100.0%), 0:08 elapsed, done\n");
}

TEST(DriverProgress, InPlaceOnATerminal) {
  Recorder inner;
  std::ostringstream err;
  double now = 0;
  ProgressReporter p(&inner, 2, /*in_place=*/true, err, [&now] { return now; });
  p.ReportContext({});
  now = 3;
  p.ReportRuns({run("a/i32/x/N:1", 0)});
  now = 6;
  p.ReportRuns({run("a/i32/x/N:2", 1)});
  p.Finalize();
  EXPECT_EQ(err.str(),
            "\rprogress: 0/2 (0.0%), 0:00 elapsed, estimating the time left\033[K"
            "\r\033[K"
            "\rprogress: 1/2 (50.0%), 0:03 elapsed, about 0:03 left; a/i32\033[K"
            "\r\033[K"
            "progress: 2/2 (100.0%), 0:06 elapsed, done\n");
}

TEST(DriverProgress, AnEarlyStopSaysSo) {
  Recorder inner;
  std::ostringstream err;
  ProgressReporter p(&inner, 10, false, err, [] { return 0.0; });
  p.ReportContext({});
  p.ReportRuns({run("a/i32/x/N:1", 0)});
  p.Finalize();
  EXPECT_NE(err.str().find("progress: stopped after 1/10, 0:00 elapsed\n"), std::string::npos) << err.str();
}

// The console line: median ± half-width, samples, stop reason, bandwidth; a
// cap before the precision is marked.
TEST(DriverConsole, LineShowsTheIntervalAndWhySamplingStopped) {
  benchmark::BenchmarkReporter::Run r = run("reduce_sum/i32/floor_sum/N:1048576", 0);
  r.iterations = 1;
  r.time_unit = benchmark::kMicrosecond;
  r.real_accumulated_time = 5.25e-6;
  r.counters["bytes_per_second"] = benchmark::Counter(1.6e12);
  RunRecord rec;
  rec.samples = 64;
  rec.median_seconds = 5.25e-6;
  rec.ci_low_seconds = 5.24e-6;
  rec.ci_high_seconds = 5.2662e-6;  // +0.31%
  rec.stop = SampleStop::precision;
  EXPECT_EQ(console_line(r, rec, 40),
            "reduce_sum/i32/floor_sum/N:1048576           5.250 us ± 0.31%  n=64  precision  1.60 TB/s");
  rec.stop = SampleStop::time;
  EXPECT_NE(console_line(r, rec, 40).find("± 0.31% (time cap: precision not reached)  n=64  1.60 TB/s"),
            std::string::npos);
  rec.stop = SampleStop::samples;
  EXPECT_NE(console_line(r, rec, 40).find("(sample cap: precision not reached)"), std::string::npos);
  EXPECT_EQ(format_rate(3.12e11), "312 GB/s");
  EXPECT_EQ(format_rate(0), "-");
}

// The coefficient of variation (--benchmark_repetitions) is a fraction, printed
// as a percentage: not scaled by the time unit nor divided by the iterations
// (it read 282840.75 % for 0.57% on an H200, 2026-11-27).
TEST(DriverConsole, CoefficientOfVariationIsAPercentage) {
  benchmark::BenchmarkReporter::Run r = run("reduce_sum/i32/floor_sum/N:1048576", 0);
  r.run_type = benchmark::BenchmarkReporter::Run::RT_Aggregate;
  r.aggregate_name = "cv";
  r.aggregate_unit = benchmark::kPercentage;
  r.iterations = 2;
  r.time_unit = benchmark::kMicrosecond;
  r.real_accumulated_time = 0.005657;
  EXPECT_EQ(console_line(r, std::nullopt, 40), "reduce_sum/i32/floor_sum/N:1048576_cv         0.57 %");
  r.aggregate_name = "stddev";  // a time: scaled and divided as every time is
  r.aggregate_unit = benchmark::kTime;
  r.real_accumulated_time = 0.182e-6;
  EXPECT_NE(console_line(r, std::nullopt, 40).find("     0.091 us"), std::string::npos) << console_line(r, std::nullopt, 40);
}

}  // namespace
}  // namespace bench::driver
