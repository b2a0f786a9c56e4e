#include "harness/runner.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <new>
#include <stdexcept>
#include <utility>

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

Runner::Runner(const DeviceInfo& device, CacheMode cache, RunnerOptions options)
    : device_(device), cache_(cache), options_(std::move(options)), timer_(device), clocks_(device) {}

void Runner::interleave(std::vector<Selected> selected) {
  interleave_ = true;
  selected_ = std::move(selected);
}

void set_counters(benchmark::State& state, const Work& work, std::size_t n, double median_seconds,
                  double peak_bytes_per_s) {
  if (!(median_seconds > 0)) return;
  state.counters["bytes_per_second"] = work.bytes() / median_seconds;
  state.counters["items_per_second"] = static_cast<double>(n) / median_seconds;
  state.counters["ops_per_second"] = work.ops / median_seconds;
  if (peak_bytes_per_s > 0) state.counters["bw_util"] = work.bytes() / median_seconds / peak_bytes_per_s;
}

std::vector<Runner::Member> Runner::group_of(const Declaration& decl, const Point& point,
                                             const std::string& name) const {
  if (!interleave_) return {{&decl, point, name}};
  const std::string group = interleave_group(decl, point);
  std::vector<Member> members;
  for (const Selected& s : selected_)
    if (interleave_group(*s.decl, s.point) == group) members.push_back({s.decl, s.point, benchmark_name(*s.decl, s.point)});
  const bool listed = std::any_of(members.begin(), members.end(), [&](const Member& m) { return m.name == name; });
  if (!listed) members.insert(members.begin(), {&decl, point, name});  // not in the selection given: itself
  return members;
}

void Runner::run(benchmark::State& state, const Declaration& decl, const Point& point) {
  const std::string name = benchmark_name(decl, point);
  if (name != current_) {
    // The previous benchmark is fully reported: a stop asked for meanwhile
    // (SIGINT, SIGTERM, a sticky CUDA error) closes the results and exits here,
    // unless this benchmark was already measured with its group (--interleave):
    // reporting it takes no GPU time, and a measured result is never dropped
    // (registered group-major, a group's members come right after its first).
    if (results_.count(std::make_pair(name, calls_[name])) == 0 && failed_.count(name) == 0) honour_stop_request();
    current_ = name;
  }
  const long long repetition = calls_[name]++;  // one call per repetition (Iterations(1))
  const auto key = std::make_pair(name, repetition);
  // A benchmark that failed once reports that failure again, without retrying.
  for (auto _ : state) {
    if (failed_.count(name) == 0 && results_.count(key) == 0) {
      cudaGetLastError();  // an error left behind by earlier work is not this benchmark's
      sample_group(group_of(decl, point, name), repetition);
      if (failed_.count(name) == 0 && results_.count(key) == 0) fail(name, "not measured (its group stopped early)");
    }
    if (auto it = failed_.find(name); it != failed_.end()) {
      state.SkipWithError(it->second.c_str());
      break;
    }
    state.SetIterationTime(results_.at(key).record.median_seconds);
  }
  const auto it = results_.find(key);
  if (it == results_.end() || failed_.count(name)) return;
  const Result& result = it->second;
  set_counters(state, decl.work(point.n), point.n, result.record.median_seconds, device_.peak_bandwidth_bytes_per_s());
  if (result.graph_launches > 0) state.counters["graph_launches"] = result.graph_launches;
  if (!result.profiled) record_run(name, repetition, result.record);
  results_.erase(it);
}

void Runner::sample_group(const std::vector<Member>& members, long long repetition) {
  double bytes = 0;
  for (const Member& m : members) bytes = std::max(bytes, m.decl->work(m.point.n).bytes());
  make_room_for(bytes);
  if (attempt(members, repetition, /*last_chance=*/false) == Attempt::retry)
    attempt(members, repetition, /*last_chance=*/true);
}

Runner::Attempt Runner::attempt(const std::vector<Member>& members, long long repetition, bool last_chance) {
  // Each member's cases, one per placement (placements_for); its samples rotate over them.
  std::vector<std::vector<std::unique_ptr<Case>>> cases(members.size());
  std::vector<std::unique_ptr<TimedLaunch>> timed(members.size());
  std::vector<std::size_t> live;  // members built, verified and warmed up
  std::vector<double> setup(members.size(), 0.0);
  std::vector<double> verify(members.size(), 0.0);  // of setup: the verification (reads back, checks on the host)
  using Clock = std::chrono::steady_clock;
  const auto seconds_since = [](Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  };
  bool timing = false;            // sampling may have begun: no second attempt
  const bool profiling = profile_one_enabled();
  // After an error: the members it concerns fail with `message`, unless memory
  // ran out early enough to free the cached datasets and try the group again.
  auto handle = [&](const std::exception& e, const std::vector<std::size_t>& who) -> Attempt {
    clocks_.cancel();
    const CudaState cuda = probe_cuda();
    if (cuda.sticky != cudaSuccess) {
      for (auto& placed : cases)  // their destructors would free memory of a context that is gone
        for (auto& c : placed) (void)c.release();
      for (auto& t : timed) (void)t.release();
      const std::string message =
          std::string("sticky CUDA error (") + cudaGetErrorName(cuda.sticky) + "), the run stops: " + e.what();
      for (const Member& m : members)
        if (failed_.count(m.name) == 0) fail(m.name, message);
      request_cuda_error_stop(members[who.front()].name, message);
      return Attempt::done;
    }
    const Memory memory = out_of_memory(e, cuda.last);
    if (memory == Memory::enough) {
      for (std::size_t i : who) {
        timed[i].reset();
        cases[i].clear();
        fail(members[i].name, e.what());
      }
      return Attempt::done;
    }
    timed.clear();  // before the cache is freed: the cases hold dataset pointers
    cases.clear();
    const std::string message = out_of_memory_message(e, memory);
    if (timing || last_chance) {
      for (const Member& m : members)
        if (failed_.count(m.name) == 0)
          fail(m.name, message + (last_chance ? "; also after freeing the cached datasets" : ""));
      return Attempt::done;
    }
    const std::size_t freed = clear_datasets();
    std::fprintf(stderr, "cuda_bench: %s: %s; freed %s of cached datasets, trying once more\n",
                 members[who.front()].name.c_str(), message.c_str(), format_bytes(static_cast<double>(freed)).c_str());
    return Attempt::retry;
  };

  for (std::size_t i = 0; i < members.size(); ++i) {
    const Member& m = members[i];
    if (failed_.count(m.name)) continue;
    const auto setup_start = Clock::now();
    try {
      const int placements = profiling || m.decl->role == Role::cpu
                                 ? 1
                                 : placements_for(m.decl->work(m.point.n).bytes(), cache_ == CacheMode::hot,
                                                  static_cast<double>(device_.l2_bytes), options_.sampling.placements);
      for (int k = 0; k < placements; ++k) {
        Point placed = m.point;
        placed.placement = k;
        cases[i].push_back(m.decl->make_case(placed));
      }
      if (verified_.count(m.name) == 0) {
        const auto verify_start = Clock::now();
        std::string mismatch;
        for (int k = 0; k < placements && mismatch.empty(); ++k) {
          mismatch = cases[i][k]->verify(timer_.stream());
          if (!mismatch.empty() && k > 0) mismatch = "placement " + std::to_string(k) + ": " + mismatch;
        }
        if (!mismatch.empty()) {
          cases[i].clear();
          fail(m.name, "verification failed: " + mismatch);
          continue;
        }
        verified_.insert(m.name);
        verify[i] = seconds_since(verify_start);
      }
      if (!profiling) {
        // One placement per sample in turn; every placement warmed up once (at least two launches).
        std::vector<Launch> calls;
        for (const auto& c : cases[i]) calls.push_back([c = c.get()](cudaStream_t s) { c->launch(s); });
        const bool host = cases[i].front()->host_work();
        timed[i] = std::make_unique<TimedLaunch>(timer_, std::move(calls), cache_, host, std::max(2, placements),
                                                 m.decl->capturable);
        if (!timed[i]->stream_reason().empty())
          std::fprintf(stderr, "cuda_bench: %s: launched on the stream: %s\n", m.name.c_str(),
                       timed[i]->stream_reason().c_str());
      }
      live.push_back(i);
      setup[i] = seconds_since(setup_start);
    } catch (const Unsupported& e) {
      timed[i].reset();
      cases[i].clear();
      fail(m.name, std::string("unsupported: ") + e.what());
    } catch (const std::exception& e) {
      if (handle(e, {i}) == Attempt::retry) return Attempt::retry;
      if (cases.empty()) return Attempt::done;  // out of memory on the last chance: the group failed
    }
  }
  if (live.empty()) return Attempt::done;

  const std::string group = interleave_ ? interleave_group(*members.front().decl, members.front().point) : "";
  timing = true;
  try {
    if (profiling) {  // the DRAM-byte audit: one profiled call each
      for (std::size_t i : live) {
        Case* c = cases[i].front().get();
        Result r;
        r.profiled = true;
        r.record.median_seconds = profile_one(timer_, members[i].name, [c](cudaStream_t s) { c->launch(s); });
        results_[{members[i].name, repetition}] = r;
      }
      return Attempt::done;
    }
    std::vector<TimedLaunch*> launches;
    for (std::size_t i : live) launches.push_back(timed[i].get());
    const auto sampling_start = Clock::now();
    clocks_.start();  // a sampler thread: nothing enters the timed region
    const std::vector<Sampled> sampled = timer_.sample(launches, options_.sampling);
    const std::vector<ClockSample> clock = clocks_.stop(timer_.stream());
    const double sampling_seconds = seconds_since(sampling_start);
    for (std::size_t k = 0; k < live.size(); ++k) {
      const std::size_t i = live[k];
      const Sampled& s = sampled[k];
      if (!s.error.empty()) {  // this member alone: the group's others were sampled on
        fail(members[i].name, s.error);
        continue;
      }
      Result r;
      r.graph_launches = timed[i]->graph_launches();
      r.record.samples = s.summary.n;
      r.record.median_seconds = s.summary.median;
      r.record.ci_low_seconds = s.summary.ci_low;
      r.record.ci_high_seconds = s.summary.ci_high;
      r.record.stop = s.stop;
      r.record.setup_seconds = setup[i];
      r.record.placements = static_cast<int>(cases[i].size());
      r.record.launch = to_string(timed[i]->launched_as());
      r.record.verify_seconds = verify[i];
      r.record.sampling_seconds = sampling_seconds;
      r.record.interleave_group = group;
      if (options_.keep_samples) r.record.sample_seconds = s.seconds;
      results_[{members[i].name, repetition}] = std::move(r);
      record_clock_samples(members[i].name, clock);
    }
  } catch (const std::exception& e) {
    return handle(e, live);
  }
  return Attempt::done;
}

void Runner::record_clock_samples(const std::string& name, const std::vector<ClockSample>& samples) {
  auto& all = clock_samples_[name];
  all.insert(all.end(), samples.begin(), samples.end());
  const std::string throttled = record_clocks(name, all, clocks_.source(), clocks_.max_sm_mhz());
  if (!throttled.empty() && throttled_.insert(name).second)
    std::fprintf(stderr, "cuda_bench: %s: throttled: %s (its time is flagged in the JSON)\n", name.c_str(),
                 throttled.c_str());
}

void Runner::fail(const std::string& name, const std::string& message) {
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
