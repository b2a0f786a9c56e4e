#include "harness/runner.hpp"

#include <cstdio>
#include <new>
#include <stdexcept>

#include "harness/cuda_check.hpp"
#include "harness/data.hpp"
#include "harness/device_memory.hpp"
#include "harness/stop.hpp"
#include "harness/profile.hpp"

namespace bench {
namespace {

// CUDA's state after a failure. A sticky error (illegal address, launch
// failure, ...) leaves the context unusable: cudaGetLastError cannot clear it
// and every synchronisation keeps returning it. Any other error is cleared here.
struct CudaState {
  cudaError_t last = cudaSuccess;    // what cudaGetLastError held (now cleared unless sticky)
  cudaError_t sticky = cudaSuccess;  // the sticky error, if the context is lost
};

CudaState probe_cuda() {
  CudaState s;
  s.last = cudaGetLastError();
  const cudaError_t sync = cudaDeviceSynchronize();
  if (sync != cudaSuccess && cudaGetLastError() != cudaSuccess && cudaDeviceSynchronize() != cudaSuccess)
    s.sticky = sync;
  return s;
}

enum class Memory { enough, device, host };

Memory out_of_memory(const std::exception& e, cudaError_t last) {
  if (dynamic_cast<const OutOfMemory*>(&e) || last == cudaErrorMemoryAllocation) return Memory::device;
  // A library's own allocation (thrust throws a bad_alloc naming the CUDA error).
  if (std::string(e.what()).find("cudaErrorMemoryAllocation") != std::string::npos) return Memory::device;
  if (dynamic_cast<const std::bad_alloc*>(&e)) return Memory::host;
  return Memory::enough;
}

// The error message of an out-of-memory failure: how much was needed and free.
std::string out_of_memory_message(const std::exception& e, Memory kind) {
  if (dynamic_cast<const OutOfMemory*>(&e)) return e.what();
  if (kind == Memory::host) return std::string("out of host memory: ") + e.what();
  std::size_t free = 0, total = 0;
  if (cudaMemGetInfo(&free, &total) != cudaSuccess) cudaGetLastError();
  return "out of device memory in a library's allocation (size not known), " +
         format_bytes(static_cast<double>(free)) + " free of " + format_bytes(static_cast<double>(total)) + ": " +
         e.what();
}

}  // namespace

Runner::Runner(const DeviceInfo& device, CacheMode cache)
    : device_(device), cache_(cache), timer_(device), clocks_(device) {}

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
  if (name != current_) {
    // The previous benchmark is fully reported: a stop asked for meanwhile
    // (SIGINT, SIGTERM, a sticky CUDA error) closes the results and exits here.
    honour_stop_request();
    current_ = name;
  }
  // Google Benchmark calls the body several times (sizing runs, repetitions):
  // a benchmark that failed once reports that failure again, without retrying.
  if (auto it = failed_.find(name); it != failed_.end()) {
    state.SkipWithError(it->second.c_str());
    return;
  }
  cudaGetLastError();  // an error left behind by earlier work is not this benchmark's
  make_room_for(decl.work(point.n).bytes());
  if (attempt(state, decl, point, name, /*last_chance=*/false) == Attempt::retry)
    attempt(state, decl, point, name, /*last_chance=*/true);
}

Runner::Attempt Runner::attempt(benchmark::State& state, const Declaration& decl, const Point& point,
                                const std::string& name, bool last_chance) {
  std::unique_ptr<Case> c;
  bool timing = false;  // Google Benchmark's loop may have begun: no second attempt
  try {
    c = decl.make_case(point);
    if (verified_.count(name) == 0) {
      const std::string mismatch = c->verify(timer_.stream());
      if (!mismatch.empty()) {
        fail(state, name, "verification failed: " + mismatch);
        return Attempt::done;
      }
      verified_.insert(name);
    }
    timing = true;
    const auto launch = [&c](cudaStream_t s) { c->launch(s); };
    double seconds = 0;
    if (profile_one_enabled()) {
      seconds = profile_one(state, timer_, name, launch);  // the DRAM-byte audit: one profiled call
    } else {
      clocks_.start();  // a sampler thread: nothing enters the timed region
      seconds = timer_.measure(state, launch, cache_, c->host_work());
      record_clock_samples(name, clocks_.stop(timer_.stream()));
    }
    set_counters(state, decl.work(point.n), point.n, seconds, device_.peak_bandwidth_bytes_per_s());
    return Attempt::done;
  } catch (const Unsupported& e) {
    clocks_.cancel();
    fail(state, name, std::string("unsupported: ") + e.what());
    return Attempt::done;
  } catch (const std::exception& e) {
    clocks_.cancel();
    const CudaState cuda = probe_cuda();
    if (cuda.sticky != cudaSuccess) {
      (void)c.release();  // its destructor would free memory of a context that is gone
      const std::string message = std::string("sticky CUDA error (") + cudaGetErrorName(cuda.sticky) +
                                  "), the run stops: " + e.what();
      fail(state, name, message);
      request_cuda_error_stop(name, message);
      return Attempt::done;
    }
    c.reset();  // before the cache is freed: the case holds dataset pointers
    const Memory memory = out_of_memory(e, cuda.last);
    if (memory == Memory::enough) {
      fail(state, name, e.what());
      return Attempt::done;
    }
    const std::string message = out_of_memory_message(e, memory);
    if (timing || last_chance) {
      fail(state, name, message + (last_chance ? "; also after freeing the cached datasets" : ""));
      return Attempt::done;
    }
    const std::size_t freed = clear_datasets();
    std::fprintf(stderr, "cuda_bench: %s: %s; freed %s of cached datasets, trying once more\n", name.c_str(),
                 message.c_str(), format_bytes(static_cast<double>(freed)).c_str());
    return Attempt::retry;
  }
}

void Runner::record_clock_samples(const std::string& name, const std::vector<ClockSample>& samples) {
  auto& all = clock_samples_[name];
  all.insert(all.end(), samples.begin(), samples.end());
  const std::string throttled = record_clocks(name, all, clocks_.source(), clocks_.max_sm_mhz());
  if (!throttled.empty() && throttled_.insert(name).second)
    std::fprintf(stderr, "cuda_bench: %s: throttled: %s (its time is flagged in the JSON)\n", name.c_str(),
                 throttled.c_str());
}

void Runner::fail(benchmark::State& state, const std::string& name, const std::string& message) {
  state.SkipWithError(message.c_str());
  failed_.emplace(name, message);
  failures_.push_back(name + ": " + message);
}

void make_room_for(double bytes) {
  std::size_t free = 0, total = 0;
  if (cudaMemGetInfo(&free, &total) != cudaSuccess) {
    cudaGetLastError();
    return;  // the case's own calls report what is wrong
  }
  if (bytes > static_cast<double>(free)) clear_datasets();
}

}  // namespace bench
