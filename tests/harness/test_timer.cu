// The timer and runner on a real GPU: events (and graph replays) time the
// launch and nothing else, and failures become clear per-benchmark errors
// rather than aborts or numbers.
#include <benchmark/benchmark.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "gpu_test.hpp"
#include "harness/cuda_check.hpp"
#include "harness/results_file.hpp"
#include "harness/runner.hpp"

namespace bench {
namespace {

__global__ void empty_kernel() {}

// A Case whose launch and verdict are scripted by the test.
class ScriptedCase : public Case {
 public:
  explicit ScriptedCase(std::function<void(cudaStream_t)> launch, std::string verdict = "", bool host = false)
      : launch_(std::move(launch)), verdict_(std::move(verdict)), host_(host) {}
  void launch(cudaStream_t s) override { launch_(s); }
  bool host_work() const override { return host_; }
  std::string verify(cudaStream_t s) override {
    launch_(s);
    return verdict_;
  }

 private:
  std::function<void(cudaStream_t)> launch_;
  std::string verdict_;
  bool host_;
};

Declaration scripted(std::string variant, std::function<std::unique_ptr<Case>(const Point&)> make) {
  Declaration d;
  d.family = "timer_test";
  d.type = "i32";
  d.variant = std::move(variant);
  d.description = "test";
  d.work = [](std::size_t n) { return Work{4.0 * n, 4.0, double(n)}; };
  d.make_case = std::move(make);
  return d;
}

// Runs the declarations through Google Benchmark with the real Runner; returns
// the parsed JSON.
nlohmann::json run_through_benchmark(const std::vector<Declaration>& decls, Runner& runner) {
  RegistrationOptions opt;
  opt.sizes = {1 << 20};
  register_benchmarks(decls, opt, [&runner](benchmark::State& s, const Declaration& d, const Point& p) {
    runner.run(s, d, p);
  });
  std::stringstream out, err;
  FlushingJsonReporter reporter;
  reporter.SetOutputStream(&out);
  reporter.SetErrorStream(&err);
  benchmark::RunSpecifiedBenchmarks(&reporter, "^timer_test/");
  benchmark::ClearRegisteredBenchmarks();
  return nlohmann::json::parse(out.str());
}

class Timer : public ::testing::Test {
 protected:
  void SetUp() override { BENCH_REQUIRE_GPU(); }
  void TearDown() override { set_timing_mode(TimingMode::events); }
};

// Google Benchmark's measured time per benchmark (its default, 0.5 s, would
// make the short kernels below take minutes).
void set_min_time(const char* seconds) {
  std::string flag = std::string("--benchmark_min_time=") + seconds;
  static char arg0[] = "gpu_tests";  // Google Benchmark keeps argv[0] (the JSON context's "executable")
  char* argv[] = {arg0, flag.data(), nullptr};
  int argc = 2;
  benchmark::Initialize(&argc, argv);
}

std::unique_ptr<Case> make_scripted(std::function<void(cudaStream_t)> launch) {
  return std::make_unique<ScriptedCase>(std::move(launch));
}

// real_time (us) of one scripted launch run through the Runner in `cache` mode.
double timed_us(CacheMode cache, std::function<void(cudaStream_t)> launch) {
  Runner runner(*query_device(nullptr), cache);
  const auto j = run_through_benchmark(
      {scripted("probe", [launch](const Point&) { return make_scripted(launch); })}, runner);
  const auto& b = j["benchmarks"][0];
  EXPECT_FALSE(b.value("error_occurred", false)) << b.dump();
  EXPECT_EQ(b["time_unit"], "us");
  return b.value("real_time", -1.0);
}

// Median device time (us) of `work` alone, gated on the timer's stream.
double device_us(GpuTimer& timer, const std::function<void(cudaStream_t)>& work) {
  std::vector<double> t(21);
  for (auto& x : t) x = timer.time_gated(work) * 1e6;
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

void launch_empty(cudaStream_t s) {
  empty_kernel<<<1, 32, 0, s>>>();
  BENCH_CHECK_LAUNCH("empty_kernel");
}

TEST_F(Timer, FailuresBecomeNamedPerBenchmarkErrors) {
  Runner runner(*query_device(nullptr), CacheMode::cold);
  const std::vector<Declaration> decls{
      scripted("bad_launch",
               [](const Point&) {
                 return std::make_unique<ScriptedCase>([](cudaStream_t s) {
                   empty_kernel<<<1, 2048, 0, s>>>();  // over 1024 threads: invalid
                   BENCH_CHECK_LAUNCH("empty_kernel");
                 });
               }),
      scripted("wrong_result",
               [](const Point&) { return std::make_unique<ScriptedCase>([](cudaStream_t) {}, "expected 7, got 8"); }),
      scripted("unsupported",
               [](const Point&) -> std::unique_ptr<Case> { throw Unsupported("needs 16-byte alignment"); }),
  };
  const auto j = run_through_benchmark(decls, runner);
  ASSERT_EQ(j["benchmarks"].size(), 3u) << j.dump(1);
  std::map<std::string, std::string> errors;
  for (const auto& b : j["benchmarks"]) {
    EXPECT_TRUE(b.value("error_occurred", false)) << b.dump();
    errors[b["run_name"]] = b.value("error_message", "");
  }
  const std::string& launch_error = errors["timer_test/i32/bad_launch/N:1048576/manual_time"];
  EXPECT_EQ(launch_error.rfind("launch of empty_kernel failed: cudaError", 0), 0u) << launch_error;
  EXPECT_EQ(errors["timer_test/i32/wrong_result/N:1048576/manual_time"], "verification failed: expected 7, got 8");
  EXPECT_EQ(errors["timer_test/i32/unsupported/N:1048576/manual_time"], "unsupported: needs 16-byte alignment");
  EXPECT_EQ(runner.failures().size(), 3u);
}

TEST_F(Timer, EventTimeMatchesAKnownDuration) {
  // A kernel that spins for 2 ms of GPU time: the harness must report about that,
  // in both cache modes (the flush is outside the timed region).
  for (CacheMode mode : {CacheMode::hot, CacheMode::cold}) {
    Runner runner(*query_device(nullptr), mode);
    const std::vector<Declaration> decls{scripted("spin", [](const Point&) {
      return std::make_unique<ScriptedCase>([](cudaStream_t s) {
        launch_spin(s, 2'000'000ull);
      });
    })};
    const auto j = run_through_benchmark(decls, runner);
    const auto& b = j["benchmarks"][0];
    ASSERT_FALSE(b.value("error_occurred", false)) << b.dump();
    EXPECT_EQ(b["time_unit"], "us");
    EXPECT_GT(b["real_time"].get<double>(), 1990.0) << to_string(mode);
    EXPECT_LT(b["real_time"].get<double>(), 2100.0) << to_string(mode);
    // bytes model: 4 MiB + 4 B per 2 ms
    EXPECT_NEAR(b["bytes_per_second"].get<double>(), (4.0 * (1 << 20) + 4) / 2e-3, 0.05 * 2.1e9);
  }
}

TEST_F(Timer, HostWorkIsFullyTimedEvenBehindTheL2Flush) {
  // 20 us of host-side work, shorter than the flush: without draining the stream
  // first, the flush would hide it and the timer would report almost nothing.
  Runner runner(*query_device(nullptr), CacheMode::cold);
  const std::vector<Declaration> decls{scripted("host_spin", [](const Point&) {
    return std::make_unique<ScriptedCase>(
        [](cudaStream_t) {
          const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(20);
          while (std::chrono::steady_clock::now() < until) {
          }
        },
        "", /*host=*/true);
  })};
  const auto j = run_through_benchmark(decls, runner);
  const auto& b = j["benchmarks"][0];
  ASSERT_FALSE(b.value("error_occurred", false)) << b.dump();
  EXPECT_GT(b["real_time"].get<double>(), 19.0);
  EXPECT_LT(b["real_time"].get<double>(), 60.0);
}

TEST_F(Timer, RealCudaErrorNamesTheCall) {
  void* p = nullptr;
  try {
    BENCH_CUDA_CHECK(cudaMalloc(&p, std::size_t{1} << 62));  // far beyond any GPU
    FAIL() << "expected CudaError";
  } catch (const CudaError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("cudaMalloc"), std::string::npos) << msg;
    EXPECT_NE(msg.find("cudaErrorMemoryAllocation"), std::string::npos) << msg;
  }
  cudaGetLastError();
}

// The flush (cold) and the spin (hot) keep the stream busy ahead of the start
// event and must never be inside the timed region. An empty kernel takes a few
// microseconds; the flush and the spin, measured here on their own, take
// several times that: if either moved between the events, the empty kernel's
// time would reach theirs and these bounds fail. The controls put a flush or a
// spin inside the launch on purpose and show the same bounds catch it.
TEST_F(Timer, FlushAndSpinStayOutOfTheTimedRegion) {
  set_min_time(CUDABENCH_DEFAULT_MIN_TIME);
  GpuTimer probe(*query_device(nullptr));
  const double flush = device_us(probe, [&probe](cudaStream_t s) { probe.flush_l2(s); });
  const double spin = device_us(probe, [](cudaStream_t s) { launch_spin(s, kHotSpinNs); });
  ASSERT_GT(spin, 0.9 * kHotSpinNs * 1e-3);
  ASSERT_GT(flush, 4.0) << "the L2 flush should take microseconds";

  const double cold = timed_us(CacheMode::cold, launch_empty);
  const double hot = timed_us(CacheMode::hot, launch_empty);
  EXPECT_LT(cold, 0.5 * flush) << "cold: empty kernel " << cold << " us, flush alone " << flush << " us";
  EXPECT_LT(hot, 0.5 * spin) << "hot: empty kernel " << hot << " us, spin alone " << spin << " us";

  const double flush_inside = timed_us(CacheMode::cold, [&probe](cudaStream_t s) {
    probe.flush_l2(s);
    launch_empty(s);
  });
  const double spin_inside = timed_us(CacheMode::hot, [](cudaStream_t s) {
    launch_spin(s, kHotSpinNs);
    launch_empty(s);
  });
  EXPECT_GT(flush_inside, 0.8 * flush) << "control: a flush inside the launch must show";
  EXPECT_GT(spin_inside, 0.8 * spin) << "control: a spin inside the launch must show";
}

// Graph mode: the cold replay subtracts its flushes, and the gate (the hot
// replay's way of keeping launch latency out) is not timed: an empty kernel's
// per-launch time stays far below a flush, and below the event-timed launch
// it is meant to undercut. The control keeps a flush inside the launch.
TEST_F(Timer, GraphTimingLeavesFlushAndGateOut) {
  set_min_time(CUDABENCH_GRAPH_MIN_TIME);
  GpuTimer probe(*query_device(nullptr));
  const double flush = device_us(probe, [&probe](cudaStream_t s) { probe.flush_l2(s); });
  std::vector<double> single(101);
  for (auto& x : single) x = probe.time_launch(launch_empty, CacheMode::hot, false) * 1e6;
  std::sort(single.begin(), single.end());
  const double event_floor = single[single.size() / 2];

  set_timing_mode(TimingMode::graph);
  const double cold = timed_us(CacheMode::cold, launch_empty);
  const double hot = timed_us(CacheMode::hot, launch_empty);
  EXPECT_GT(cold, 0.0);
  EXPECT_LT(cold, 0.5 * flush) << "graph cold: empty kernel " << cold << " us, flush alone " << flush << " us";
  EXPECT_GT(hot, 0.0);
  EXPECT_LT(hot, event_floor) << "graph hot: " << hot << " us per launch, one event-timed launch " << event_floor
                              << " us";
  const double flush_inside = timed_us(CacheMode::cold, [&probe](cudaStream_t s) {
    probe.flush_l2(s);
    launch_empty(s);
  });
  EXPECT_GT(flush_inside, 0.8 * flush) << "control: a flush inside the launch must show";
}

TEST_F(Timer, GraphTimeMatchesAKnownDuration) {
  // A 50 us spin per launch: the per-launch time of a replay is that plus the
  // small step from one graph node to the next, in both cache modes.
  set_min_time(CUDABENCH_GRAPH_MIN_TIME);
  set_timing_mode(TimingMode::graph);
  for (CacheMode mode : {CacheMode::hot, CacheMode::cold}) {
    Runner runner(*query_device(nullptr), mode);
    const auto j = run_through_benchmark(
        {scripted("spin", [](const Point&) { return make_scripted([](cudaStream_t s) { launch_spin(s, 50'000); }); })},
        runner);
    const auto& b = j["benchmarks"][0];
    ASSERT_FALSE(b.value("error_occurred", false)) << b.dump();
    EXPECT_GT(b["real_time"].get<double>(), 49.5) << to_string(mode);
    EXPECT_LT(b["real_time"].get<double>(), 55.0) << to_string(mode);
    EXPECT_EQ(b["graph_launches"].get<double>(), 10.0) << "a 50 us launch needs no more than the minimum K";
  }
}

TEST_F(Timer, GraphModeRefusesHostWorkAndUncapturableCasesAndGoesOn) {
  set_min_time(CUDABENCH_GRAPH_MIN_TIME);
  set_timing_mode(TimingMode::graph);
  Runner runner(*query_device(nullptr), CacheMode::hot);
  const std::vector<Declaration> decls{
      scripted("a_host", [](const Point&) { return std::make_unique<ScriptedCase>([](cudaStream_t) {}, "", true); }),
      scripted("b_sync", [](const Point&) {
        return make_scripted([](cudaStream_t s) {
          launch_empty(s);
          BENCH_CUDA_CHECK(cudaStreamSynchronize(s));  // illegal while capturing
        });
      }),
      scripted("c_fine", [](const Point&) { return make_scripted(launch_empty); }),
  };
  const auto j = run_through_benchmark(decls, runner);
  ASSERT_EQ(j["benchmarks"].size(), 3u) << j.dump(1);
  const auto& host = j["benchmarks"][0];
  const auto& sync = j["benchmarks"][1];
  const auto& fine = j["benchmarks"][2];
  EXPECT_EQ(host.value("error_message", "").rfind("unsupported: graph timing: the case works on the host", 0), 0u)
      << host.dump();
  EXPECT_EQ(sync.value("error_message", "").rfind("unsupported: graph timing: the case cannot be captured", 0), 0u)
      << sync.dump();
  EXPECT_FALSE(fine.value("error_occurred", false)) << fine.dump();
  EXPECT_GT(fine.value("real_time", 0.0), 0.0);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

}  // namespace
}  // namespace bench
