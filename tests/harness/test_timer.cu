// The timer and runner on a real GPU: events (and graph replays) time the
// launch and nothing else, sampling stops on precision, time or samples and
// says which, --interleave samples a group together, and failures become clear
// per-benchmark errors rather than aborts or numbers.
#include <benchmark/benchmark.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <sstream>
#include <tuple>
#include <vector>

#include "gpu_test.hpp"
#include "harness/cuda_check.hpp"
#include "harness/data.hpp"
#include "harness/device_buffer.hpp"
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

// Runs the declarations through Google Benchmark with the real Runner (with
// --interleave over all of them when `interleave`); returns the parsed JSON.
nlohmann::json run_through_benchmark(const std::vector<Declaration>& decls, Runner& runner, bool interleave = false,
                                     const char* filter = "^timer_test/") {
  RegistrationOptions opt;
  opt.sizes = {1 << 20};
  register_benchmarks(decls, opt, [&runner](benchmark::State& s, const Declaration& d, const Point& p) {
    runner.run(s, d, p);
  });
  if (interleave) {
    std::vector<Selected> selected;
    for (const auto& d : decls)
      for (const auto& p : expand(d, opt.sizes, Suite::curated)) selected.push_back({&d, p});
    runner.interleave(selected);
  }
  std::stringstream out, err;
  FlushingJsonReporter reporter;
  reporter.SetOutputStream(&out);
  reporter.SetErrorStream(&err);
  benchmark::RunSpecifiedBenchmarks(&reporter, filter);
  benchmark::ClearRegisteredBenchmarks();
  return nlohmann::json::parse(out.str());
}

class Timer : public ::testing::Test {
 protected:
  void SetUp() override { BENCH_REQUIRE_GPU(); }
  void TearDown() override {
    set_timing_mode(TimingMode::events);
    set_launch_mode(LaunchMode::graph);
  }
};

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
  const auto run = [](const char* variant) { return "timer_test/i32/" + std::string(variant) + "/N:1048576" + kRunNameSuffix; };
  const std::string& launch_error = errors[run("bad_launch")];
  EXPECT_EQ(launch_error.rfind("launch of empty_kernel failed: cudaError", 0), 0u) << launch_error;
  EXPECT_EQ(errors[run("wrong_result")], "verification failed: expected 7, got 8");
  EXPECT_EQ(errors[run("unsupported")], "unsupported: needs 16-byte alignment");
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

// A call whose host side is slow (200 us here, as a library's argument checks
// or a busy host might be) between its start event and its launch: the batch's
// gate holds the device until every sample of it is enqueued, so none of that
// host time reaches the timed region. The control, without gates, shows the
// same call timed with the host's wait in it.
TEST_F(Timer, GatedSamplesKeepTheHostOutOfTheTimedRegion) {
  set_launch_mode(LaunchMode::stream);  // the call itself each sample: a captured graph would skip the wait
  const auto slow_host = [](cudaStream_t s) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(200);
    while (std::chrono::steady_clock::now() < until) {
    }
    launch_empty(s);
  };
  ASSERT_EQ(samples_per_gate(), 32u);
  const double gated = timed_us(CacheMode::cold, slow_host);
  set_samples_per_gate(0);
  const double ungated = timed_us(CacheMode::cold, slow_host);
  set_samples_per_gate(32);
  EXPECT_LT(gated, 30.0) << "gated: the host's 200 us wait was timed";
  EXPECT_GT(ungated, 100.0) << "control: without gates the host's wait must show (flush ahead: about 25 us)";
}

// Graph mode: the cold replay subtracts its flushes, and the gate (the hot
// replay's way of keeping launch latency out) is not timed: an empty kernel's
// per-launch time stays far below a flush, and below the event-timed launch
// it is meant to undercut. The control keeps a flush inside the launch.
TEST_F(Timer, GraphTimingLeavesFlushAndGateOut) {
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

// ---- sampling -------------------------------------------------------------------

// Google Benchmark's --benchmark_repetitions for the runs of one test.
void set_repetitions(int k) {
  std::string flag = "--benchmark_repetitions=" + std::to_string(k);
  static char arg0[] = "gpu_tests";  // Google Benchmark keeps argv[0] (the JSON context's "executable")
  char* argv[] = {arg0, flag.data(), nullptr};
  int argc = 2;
  benchmark::Initialize(&argc, argv);
}

// Every field a sampled run carries, consistent with its median.
void expect_sampled(const nlohmann::json& b, std::size_t min_samples) {
  ASSERT_FALSE(b.value("error_occurred", false)) << b.dump();
  ASSERT_TRUE(b.contains("samples")) << b.dump();
  EXPECT_GE(b["samples"].get<std::size_t>(), min_samples) << b.dump();
  EXPECT_EQ(b["iterations"], 1) << "one call per repetition: no sizing runs";
  const double median = b["real_time"].get<double>();
  EXPECT_GT(median, 0);
  EXPECT_LE(b["ci_low"].get<double>(), median) << b.dump();
  EXPECT_GE(b["ci_high"].get<double>(), median) << b.dump();
  const std::string stop = b["stop_reason"];
  EXPECT_TRUE(stop == "precision" || stop == "time" || stop == "samples") << stop;
}

__global__ void count_kernel(unsigned* count) { atomicAdd(count, 1u); }

// Events timing launches each sampled call as a one-call graph captured once
// (--launch=graph): the host calls the case's launch once to capture it, and
// every sample replays it on the device. Host work, a call that cannot be
// captured and --launch=stream go to the stream, call by call; the JSON says
// which each benchmark got. Counted exactly: launches the host made, kernels
// that ran.
TEST_F(Timer, EventsLaunchEachCallAsACapturedGraph) {
  DeviceBuffer<unsigned> ran(1);
  struct Counts {
    unsigned host = 0;
  };
  auto run = [&](const char* variant, bool sync, bool host_work, CacheMode cache) {
    auto counts = std::make_shared<Counts>();
    BENCH_CUDA_CHECK(cudaMemset(ran.get(), 0, sizeof(unsigned)));
    unsigned* device_count = ran.get();
    const Declaration decl = scripted(variant, [=](const Point&) {
      return std::make_unique<ScriptedCase>(
          [=](cudaStream_t s) {
            ++counts->host;
            count_kernel<<<1, 1, 0, s>>>(device_count);
            BENCH_CHECK_LAUNCH("count_kernel");
            if (sync) BENCH_CUDA_CHECK(cudaStreamSynchronize(s));  // illegal while capturing
          },
          "", host_work);
    });
    Runner runner(*query_device(nullptr), cache);
    const auto j = run_through_benchmark({decl}, runner);
    const auto& b = j["benchmarks"][0];
    unsigned kernels = 0;
    BENCH_CUDA_CHECK(cudaMemcpy(&kernels, device_count, sizeof kernels, cudaMemcpyDeviceToHost));
    return std::make_tuple(b, counts->host, kernels);
  };
  for (CacheMode cache : {CacheMode::cold, CacheMode::hot}) {
    // verify (1) + warm-ups (2) + the capture (1, enqueues nothing); the device
    // runs those 3, the graph's warm-up replay and one replay per sample.
    const auto [b, host, kernels] = run("graph", false, false, cache);
    expect_sampled(b, 16);
    EXPECT_EQ(b["launch"], "graph") << b.dump();
    const unsigned samples = b["samples"].get<unsigned>();
    EXPECT_EQ(host, 4u) << to_string(cache);
    EXPECT_EQ(kernels, samples + 4) << to_string(cache);
  }
  {
    const auto [b, host, kernels] = run("sync", true, false, CacheMode::cold);  // capture fails: the stream
    expect_sampled(b, 16);
    EXPECT_EQ(b["launch"], "stream") << b.dump();
    EXPECT_EQ(host, b["samples"].get<unsigned>() + 4) << "verify, warm-ups, the failed capture, one per sample";
    EXPECT_EQ(kernels, b["samples"].get<unsigned>() + 3);
  }
  {
    const auto [b, host, kernels] = run("host", false, true, CacheMode::cold);
    expect_sampled(b, 6);
    EXPECT_EQ(b["launch"], "stream") << b.dump();
    EXPECT_EQ(host, b["samples"].get<unsigned>() + 3) << "verify, warm-ups, one per sample: never captured";
    EXPECT_EQ(kernels, host);
  }
  set_launch_mode(LaunchMode::stream);
  {
    // verify, warm-ups, one trial capture (may it wait behind a gate?), one per sample
    const auto [b, host, kernels] = run("stream", false, false, CacheMode::cold);
    expect_sampled(b, 16);
    EXPECT_EQ(b["launch"], "stream") << b.dump();
    EXPECT_EQ(host, b["samples"].get<unsigned>() + 4);
    EXPECT_EQ(kernels, b["samples"].get<unsigned>() + 3);
  }
  {
    // A call that synchronises, launched on the stream: never behind a gate
    // (its synchronisation would wait for the gate, the gate for the host).
    const auto [b, host, kernels] = run("stream_sync", true, false, CacheMode::cold);
    expect_sampled(b, 16);
    EXPECT_EQ(b["launch"], "stream") << b.dump();
    EXPECT_EQ(host, b["samples"].get<unsigned>() + 4);
    EXPECT_EQ(kernels, b["samples"].get<unsigned>() + 3);
  }
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

// A call that puts its work on another stream leaves the capture empty: a
// graph of it would time nothing, so it goes to the stream and says why; one
// that synchronises says that instead.
TEST_F(Timer, CallsThatCannotBeCapturedGoToTheStreamSayingWhy) {
  GpuTimer timer(*query_device(nullptr));
  cudaStream_t other = nullptr;
  BENCH_CUDA_CHECK(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking));
  {
    TimedLaunch elsewhere(timer, {[other](cudaStream_t) { launch_empty(other); }}, CacheMode::cold, false);
    EXPECT_EQ(elsewhere.launched_as(), LaunchMode::stream);
    EXPECT_NE(elsewhere.stream_reason().find("it enqueued nothing on the timer's stream"), std::string::npos)
        << elsewhere.stream_reason();
    TimedLaunch syncing(timer, {[](cudaStream_t s) {
                          launch_empty(s);
                          BENCH_CUDA_CHECK(cudaStreamSynchronize(s));
                        }},
                        CacheMode::cold, false);
    EXPECT_EQ(syncing.launched_as(), LaunchMode::stream);
    EXPECT_NE(syncing.stream_reason().find("cannot be captured"), std::string::npos) << syncing.stream_reason();
    TimedLaunch fine(timer, {launch_empty, launch_empty}, CacheMode::cold, false);
    EXPECT_EQ(fine.launched_as(), LaunchMode::graph);
    EXPECT_EQ(fine.stream_reason(), "");
    // A call declared not capturable (Declaration::capturable) is not tried.
    TimedLaunch declared(timer, {launch_empty}, CacheMode::cold, false, 2, /*capturable=*/false);
    EXPECT_EQ(declared.launched_as(), LaunchMode::stream);
    EXPECT_EQ(declared.stream_reason(), "");
  }
  BENCH_CUDA_CHECK(cudaStreamSynchronize(other));
  BENCH_CUDA_CHECK(cudaStreamDestroy(other));
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

// A real declaration (CUB's reduction at 2^20) through the sampler, with its
// counters derived from the median.
TEST_F(Timer, SamplingReportsTheMedianAndItsInterval) {
  const Declaration& decl = testing::find("reduce_sum/i32/cub_device_reduce");
  RunnerOptions options;
  options.keep_samples = true;
  Runner runner(*query_device(nullptr), CacheMode::cold, options);
  const auto j = run_through_benchmark({decl}, runner, false, "^reduce_sum/i32/cub_device_reduce/");
  ASSERT_EQ(j["benchmarks"].size(), 1u) << j.dump(1);
  const auto& b = j["benchmarks"][0];
  expect_sampled(b, options.sampling.min_samples);
  EXPECT_EQ(b["sample_times"].size(), b["samples"].get<std::size_t>());
  const double median = b["real_time"].get<double>();
  EXPECT_NEAR(b["bytes_per_second"].get<double>(), decl.work(1 << 20).bytes() / (median * 1e-6),
              1e-6 * b["bytes_per_second"].get<double>());
  if (b["stop_reason"] == "precision") {
    const double half = std::max(b["ci_high"].get<double>() - median, median - b["ci_low"].get<double>());
    const double step = 0.05;  // microseconds: the event timer's 32 ns and then some
    EXPECT_LE(half, std::max(0.005 * median, step)) << b.dump();
  }
  RecordProperty("samples", std::to_string(b["samples"].get<int>()));
  RecordProperty("stop_reason", b["stop_reason"].get<std::string>());
}

// A case whose time alternates between 20 and 60 us: its median is never
// pinned to 0.5%. The alternation is the host's, call by call, so it must be
// launched from the stream (a captured call would be the same call each time):
// the tests that use it set --launch=stream.
Declaration alternating() {
  return scripted("alternating", [](const Point&) {
    auto calls = std::make_shared<int>(0);
    return make_scripted([calls](cudaStream_t s) { launch_spin(s, (*calls)++ % 2 ? 60'000 : 20'000); });
  });
}

// A tiny --max-time stops the alternating case on time, after the 6 samples an
// interval needs (not --min-samples: a slow call must not cost 16).
TEST_F(Timer, TinyMaxTimeStopsOnTime) {
  RunnerOptions options;
  options.sampling.max_time_seconds = 1e-6;
  Runner runner(*query_device(nullptr), CacheMode::hot, options);
  set_launch_mode(LaunchMode::stream);  // the alternation is the host's (alternating())
  const auto j = run_through_benchmark({alternating()}, runner);
  const auto& b = j["benchmarks"][0];
  expect_sampled(b, kMinSamplesForInterval);
  EXPECT_EQ(b["stop_reason"], "time") << b.dump();
  EXPECT_EQ(b["samples"], kMinSamplesForInterval);
}

// Precision is claimed only after --min-time of sampling (0.05 s here): an
// empty kernel timed hot is often within one reading step after its first 16
// samples (about a millisecond) and then still samples for the minimum; with
// --min-time=0 it may stop at once. How soon the run without a minimum stops
// depends on the board's noise (H100 GPU-014b25b5: 376 samples, 13.6 ms), so
// the sample counts are compared only when it stopped on precision well inside
// the minimum; the minimum itself is checked always.
TEST_F(Timer, PrecisionWaitsForTheMinimumTime) {
  constexpr double kMinTime = 0.05;
  const Declaration empty = scripted("empty", [](const Point&) { return make_scripted(launch_empty); });
  std::vector<nlohmann::json> runs;  // with the minimum, without
  for (const double min_time : {kMinTime, 0.0}) {
    RunnerOptions options;
    options.sampling.min_time_seconds = min_time;
    options.sampling.max_time_seconds = 0.25;  // above the minimum (the default 0.03 would clamp it)
    Runner runner(*query_device(nullptr), CacheMode::hot, options);
    const auto j = run_through_benchmark({empty}, runner);
    ASSERT_EQ(j["benchmarks"].size(), 1u) << j.dump(1);
    const auto& b = j["benchmarks"][0];
    expect_sampled(b, options.sampling.min_samples);
    if (min_time > 0) EXPECT_GE(b["sampling_seconds"].get<double>(), min_time) << b.dump();
    RecordProperty(min_time > 0 ? "samples_min_time" : "samples_no_min_time", std::to_string(b["samples"].get<int>()));
    runs.push_back(b);
  }
  // Without the minimum it stopped on precision within a fifth of it: with the
  // minimum, the same kernel kept sampling, so it took more than twice the samples.
  if (runs[1]["stop_reason"] == "precision" && runs[1]["sampling_seconds"].get<double>() < kMinTime / 5)
    EXPECT_GT(runs[0]["samples"].get<int>(), 2 * runs[1]["samples"].get<int>()) << runs[0].dump() << runs[1].dump();
}

// Placements: one case per placement (each point says which), verified each,
// and the samples rotate over them in turn; the JSON says how many. Hot mode
// keeps every copy within half the L2, and --placements=1 turns it off.
TEST_F(Timer, SamplesRotateOverPlacements) {
  struct Log {
    std::vector<int> made, verified, launched;
  };
  auto log = std::make_shared<Log>();
  DeviceBuffer<unsigned> ran(4);  // kernels run, per placement
  class PlacedCase : public Case {
   public:
    PlacedCase(std::shared_ptr<Log> log, int placement, unsigned* ran)
        : log_(std::move(log)), placement_(placement), ran_(ran) {}
    void launch(cudaStream_t s) override {
      log_->launched.push_back(placement_);
      launch_spin(s, 2'000);
      count_kernel<<<1, 1, 0, s>>>(ran_ + placement_);
      BENCH_CHECK_LAUNCH("count_kernel");
    }
    std::string verify(cudaStream_t) override {
      log_->verified.push_back(placement_);
      return "";
    }

   private:
    std::shared_ptr<Log> log_;
    int placement_;
    unsigned* ran_;
  };
  const Declaration decl = scripted("placed", [log, ran = ran.get()](const Point& p) {
    log->made.push_back(p.placement);
    return std::make_unique<PlacedCase>(log, p.placement, ran);
  });
  RunnerOptions options;
  options.sampling.placements = 4;  // 4 MB a copy at 2^20: all four fit
  // Launched from the stream, the host calls each placement in turn, one per sample.
  set_launch_mode(LaunchMode::stream);
  {
    Runner runner(*query_device(nullptr), CacheMode::cold, options);
    const auto j = run_through_benchmark({decl}, runner);
    const auto& b = j["benchmarks"][0];
    expect_sampled(b, options.sampling.min_samples);
    EXPECT_EQ(b["placements"], 4) << b.dump();
    EXPECT_EQ(b["launch"], "stream") << b.dump();
    EXPECT_EQ(log->made, (std::vector<int>{0, 1, 2, 3}));
    EXPECT_EQ(log->verified, (std::vector<int>{0, 1, 2, 3}));
    const std::size_t samples = b["samples"].get<std::size_t>();
    // a warm-up launch of each, one trial capture of the first (may it wait behind
    // a gate?), then the samples, each placement in turn
    ASSERT_GE(log->launched.size(), samples + 5);
    for (std::size_t k = 0; k < 4; ++k) ASSERT_EQ(log->launched[k], static_cast<int>(k)) << k;
    ASSERT_EQ(log->launched[4], 0) << "the trial capture";
    for (std::size_t k = 5; k < log->launched.size(); ++k)
      ASSERT_EQ(log->launched[k], static_cast<int>((k - 5) % 4)) << k;
  }
  // As graphs (the default), each placement is captured once and the samples
  // replay the four graphs in turn: counted on the device.
  set_launch_mode(LaunchMode::graph);
  {
    *log = Log{};
    BENCH_CUDA_CHECK(cudaMemset(ran.get(), 0, 4 * sizeof(unsigned)));
    Runner runner(*query_device(nullptr), CacheMode::cold, options);
    const auto j = run_through_benchmark({decl}, runner);
    const auto& b = j["benchmarks"][0];
    expect_sampled(b, options.sampling.min_samples);
    EXPECT_EQ(b["launch"], "graph") << b.dump();
    EXPECT_EQ(log->launched, (std::vector<int>{0, 1, 2, 3, 0, 1, 2, 3})) << "4 warm-ups, then 4 captures";
    unsigned counts[4] = {};
    BENCH_CUDA_CHECK(cudaMemcpy(counts, ran.get(), sizeof counts, cudaMemcpyDeviceToHost));
    const std::size_t samples = b["samples"].get<std::size_t>();
    for (int k = 0; k < 4; ++k)  // a warm-up, the graph's warm replay, its turns of the samples
      EXPECT_EQ(counts[k], 2 + samples / 4 + (static_cast<std::size_t>(k) < samples % 4 ? 1 : 0)) << "placement " << k;
  }

  for (const auto& [cache, asked] : {std::pair{CacheMode::hot, 8}, std::pair{CacheMode::cold, 1}}) {
    *log = Log{};
    RunnerOptions one;
    one.sampling.placements = asked;
    Runner other(*query_device(nullptr), cache, one);
    const auto k = run_through_benchmark({decl}, other);
    const auto& c = k["benchmarks"][0];
    expect_sampled(c, one.sampling.min_samples);
    // Hot: 8 copies of 4 MB would not stay within half of an L2 of 50 MB (H100, H200): 6 at most.
    const int expected = cache == CacheMode::hot ? std::min(8, static_cast<int>(query_device(nullptr)->l2_bytes / 2 / (4 << 20))) : 1;
    EXPECT_EQ(c["placements"], std::max(expected, 1)) << c.dump();
    EXPECT_EQ(log->made.size(), static_cast<std::size_t>(std::max(expected, 1)));
  }
}

// The sample cap: with max_samples = min_samples, the same case stops on samples.
TEST_F(Timer, SampleCapStopsOnSamples) {
  RunnerOptions options;
  options.sampling.min_samples = 8;
  options.sampling.max_samples = 8;
  Runner runner(*query_device(nullptr), CacheMode::hot, options);
  set_launch_mode(LaunchMode::stream);  // the alternation is the host's (alternating())
  const auto j = run_through_benchmark({alternating()}, runner);
  const auto& b = j["benchmarks"][0];
  expect_sampled(b, 8);
  EXPECT_EQ(b["stop_reason"], "samples") << b.dump();
  EXPECT_EQ(b["samples"], 8);
}

// --interleave: one result per member of the family/type/N group, all sampled
// together (the same number of samples each), every member's own error kept.
TEST_F(Timer, InterleaveGivesOneResultPerMember) {
  RunnerOptions options;
  options.keep_samples = true;
  Runner runner(*query_device(nullptr), CacheMode::cold, options);
  const std::vector<Declaration> decls{
      scripted("a_short", [](const Point&) { return make_scripted([](cudaStream_t s) { launch_spin(s, 10'000); }); }),
      scripted("b_long", [](const Point&) { return make_scripted([](cudaStream_t s) { launch_spin(s, 30'000); }); }),
      scripted("c_wrong", [](const Point&) { return std::make_unique<ScriptedCase>(launch_empty, "expected 1, got 2"); }),
      scripted("d_empty", [](const Point&) { return make_scripted(launch_empty); }),
  };
  const auto j = run_through_benchmark(decls, runner, /*interleave=*/true);
  ASSERT_EQ(j["benchmarks"].size(), 4u) << j.dump(1);
  const auto& a = j["benchmarks"][0];
  const auto& b = j["benchmarks"][1];
  const auto& c = j["benchmarks"][2];
  const auto& d = j["benchmarks"][3];
  for (const auto* x : {&a, &b, &d}) {
    expect_sampled(*x, options.sampling.min_samples);
    EXPECT_EQ((*x)["interleave_group"], "timer_test/i32/N:1048576");
    EXPECT_EQ((*x)["samples"], a["samples"]) << "round-robin: as many samples each";
  }
  EXPECT_EQ(c.value("error_message", ""), "verification failed: expected 1, got 2");
  // Above an empty kernel's time (the launch's own cost after a cold flush,
  // about 3.8 us on an H100), the spins' 10 and 30 us.
  EXPECT_NEAR(a["real_time"].get<double>() - d["real_time"].get<double>(), 10.0, 1.0);
  EXPECT_NEAR(b["real_time"].get<double>() - d["real_time"].get<double>(), 30.0, 1.0);
  EXPECT_EQ(runner.failures().size(), 1u);
}

// --benchmark_repetitions=3: three sampled runs, each with its own record, and
// Google Benchmark's aggregates (without records) over them.
TEST_F(Timer, RepetitionsAreSampledRunsWithAggregates) {
  set_repetitions(3);
  Runner runner(*query_device(nullptr), CacheMode::hot);
  const auto j = run_through_benchmark(
      {scripted("spin", [](const Point&) { return make_scripted([](cudaStream_t s) { launch_spin(s, 20'000); }); })},
      runner);
  set_repetitions(1);
  std::size_t runs = 0, aggregates = 0;
  for (const auto& b : j["benchmarks"]) {
    if (b["run_type"] == "aggregate") {
      ++aggregates;
      EXPECT_FALSE(b.contains("samples"));
    } else {
      expect_sampled(b, 16);
      EXPECT_EQ(b["repetition_index"], runs++);
    }
  }
  EXPECT_EQ(runs, 3u);
  EXPECT_GE(aggregates, 3u);  // mean, median, stddev (and cv)
}

}  // namespace
}  // namespace bench
