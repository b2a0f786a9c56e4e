// Graph timing against a hand calculation, on an empty kernel (<<<1, 32>>>).
//
// The harness's graph mode reports t(K) / K for a replay of K launches. A hand
// calculation from replays of other lengths splits that into a per-launch slope
// s = (t(1000) - t(100)) / 900 and a fixed cost per replay f = t(100) - 100 s, so
// the harness must report s + f / K. This prints both, beside the event-timed
// single launch (the floor a benchmark in events mode sees) and back-to-back
// stream launches, and exits 1 when the harness's figure and the hand
// calculation differ by more than 10% (or 0.05 us).
//
//   graph_check [samples = 50]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "harness/timer.hpp"

namespace {

__global__ void empty_kernel() {}

void launch_empty(cudaStream_t s) {
  empty_kernel<<<1, 32, 0, s>>>();
  BENCH_CHECK_LAUNCH("empty_kernel");
}

template <class F>
double median_us(int samples, F&& seconds) {
  std::vector<double> v(samples);
  for (auto& x : v) x = seconds() * 1e6;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int samples = argc > 1 ? std::atoi(argv[1]) : 50;
  if (samples < 1) {
    std::fprintf(stderr, "usage: graph_check [samples >= 1]\n");
    return 2;
  }
  std::string why;
  const auto device = bench::query_device(&why);
  if (!device) {
    std::fprintf(stderr, "graph_check: no CUDA GPU available (%s)\n", why.c_str());
    return 3;
  }
  try {
    bench::GpuTimer timer(*device);
    for (int i = 0; i < 10; ++i) launch_empty(timer.stream());
    BENCH_CUDA_CHECK(cudaStreamSynchronize(timer.stream()));

    const double ev_hot = median_us(samples * 4, [&] { return timer.time_launch(launch_empty, bench::CacheMode::hot, false); });
    const double ev_cold = median_us(samples * 4, [&] { return timer.time_launch(launch_empty, bench::CacheMode::cold, false); });
    constexpr int kStreamLaunches = 100;
    const double stream_loop = median_us(samples, [&] {
      return timer.time_gated([](cudaStream_t s) {
        for (int k = 0; k < kStreamLaunches; ++k) launch_empty(s);
      });
    }) / kStreamLaunches;

    bench::GraphTiming hot(timer, launch_empty, bench::CacheMode::hot);
    bench::GraphTiming cold(timer, launch_empty, bench::CacheMode::cold);
    const double graph_hot = median_us(samples, [&] { return hot.per_launch_seconds(); });
    const double graph_cold = median_us(samples, [&] { return cold.per_launch_seconds(); });

    const int lengths[] = {10, 100, 1000};
    double t[3];
    for (int i = 0; i < 3; ++i)
      t[i] = median_us(samples, [&] { return bench::GraphTiming::replay_seconds(timer, launch_empty, lengths[i]); });
    const double slope = (t[2] - t[1]) / (lengths[2] - lengths[1]);
    const double fixed = t[1] - lengths[1] * slope;
    const int k = hot.launches();
    const double expected = slope + fixed / k;

    std::printf("graph_check: empty kernel <<<1, 32>>> on %s, medians of %d samples (events: %d)\n",
                device->name.c_str(), samples, samples * 4);
    std::printf("  events, hot   (20 us spin ahead, events around one launch) %8.3f us\n", ev_hot);
    std::printf("  events, cold  (L2 flush ahead, events around one launch)   %8.3f us\n", ev_cold);
    std::printf("  stream loop   (%d launches between two events, gated)     %8.3f us/launch\n", kStreamLaunches,
                stream_loop);
    std::printf("  graph, hot    (harness, K=%d)                              %8.3f us/launch\n", k, graph_hot);
    std::printf("  graph, cold   (harness, K=%d, flush-only graph subtracted) %8.3f us/launch\n", cold.launches(),
                graph_cold);
    std::printf("hand calculation from gated replays of K launches (no flush):\n");
    for (int i = 0; i < 3; ++i) std::printf("  t(%4d) = %9.3f us  (%.3f us/launch)\n", lengths[i], t[i], t[i] / lengths[i]);
    std::printf("  slope s = (t(1000) - t(100)) / 900 = %.3f us/launch; fixed f = t(100) - 100 s = %.3f us/replay\n",
                slope, fixed);
    std::printf("  expected harness hot figure s + f/K (K=%d) = %.3f us; measured %.3f us\n", k, expected, graph_hot);
    const bool ok = std::fabs(graph_hot - expected) <= std::max(0.10 * expected, 0.05);
    std::printf("%s: graph timing %s the hand calculation\n", ok ? "PASS" : "FAIL", ok ? "matches" : "differs from");
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "graph_check: %s\n", e.what());
    return 1;
  }
}
