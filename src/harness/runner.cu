#include "harness/runner.hpp"

#include <stdexcept>

#include "harness/cuda_check.hpp"
#include "harness/data.hpp"
#include "harness/profile.hpp"

namespace bench {

Runner::Runner(const DeviceInfo& device, CacheMode cache)
    : device_(device), cache_(cache), timer_(device) {}

void set_counters(benchmark::State& state, const Work& work, std::size_t n, double measured_seconds,
                  double peak_bytes_per_s) {
  const double iters = static_cast<double>(state.iterations());
  state.SetBytesProcessed(static_cast<int64_t>(work.bytes() * iters));
  state.SetItemsProcessed(static_cast<int64_t>(static_cast<double>(n) * iters));
  state.counters["ops_per_second"] = benchmark::Counter(work.ops * iters, benchmark::Counter::kIsRate);
  if (peak_bytes_per_s > 0 && measured_seconds > 0)
    state.counters["bw_util"] = work.bytes() * iters / measured_seconds / peak_bytes_per_s;
}

void Runner::run(benchmark::State& state, const Declaration& decl, const Point& point) {
  const std::string name = benchmark_name(decl, point);
  // Google Benchmark calls the body several times (sizing runs, repetitions):
  // a benchmark that failed once reports that failure again, without retrying.
  if (auto it = failed_.find(name); it != failed_.end()) {
    state.SkipWithError(it->second.c_str());
    return;
  }
  // Datasets are cached across benchmarks; drop them here, where no case holds
  // their pointers, when device memory runs low.
  release_datasets_if_memory_low();
  try {
    std::unique_ptr<Case> c = decl.make_case(point);
    if (verified_.count(name) == 0) {
      const std::string mismatch = c->verify(timer_.stream());
      if (!mismatch.empty()) {
        fail(state, name, "verification failed: " + mismatch);
        return;
      }
      verified_.insert(name);
    }
    const auto launch = [&c](cudaStream_t s) { c->launch(s); };
    const double seconds = profile_one_enabled() ? profile_one(state, timer_, name, launch)  // the DRAM-byte audit
                                                 : timer_.measure(state, launch, cache_, c->host_work());
    set_counters(state, decl.work(point.n), point.n, seconds, device_.peak_bandwidth_bytes_per_s());
  } catch (const Unsupported& e) {
    fail(state, name, std::string("unsupported: ") + e.what());
  } catch (const std::exception& e) {
    fail(state, name, e.what());
  }
}

void Runner::fail(benchmark::State& state, const std::string& name, const std::string& message) {
  state.SkipWithError(message.c_str());
  failed_.emplace(name, message);
  failures_.push_back(name + ": " + message);
}

void release_datasets_if_memory_low() {
  std::size_t free = 0, total = 0;
  if (cudaMemGetInfo(&free, &total) != cudaSuccess) {
    cudaGetLastError();
    return;  // the next CUDA call reports what is wrong
  }
  if (free < total / 4) clear_datasets();
}

}  // namespace bench
