// The timer and runner on a real GPU: events time the launch, and failures
// become clear per-benchmark errors rather than aborts or numbers.
#include <benchmark/benchmark.h>
#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <sstream>

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
};

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

}  // namespace
}  // namespace bench
