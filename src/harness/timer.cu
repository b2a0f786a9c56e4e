#include "harness/timer.hpp"

#include "harness/profile.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace bench {
namespace {

// Streams through the flush buffer with 16-byte loads. The store is never taken
// (the buffer is zeroed) but keeps the compiler from dropping the loads.
__global__ void l2_flush_kernel(const uint4* __restrict__ buf, std::size_t count, unsigned int* sink) {
  unsigned int acc = 0;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const uint4 v = buf[i];
    acc |= v.x | v.y | v.z | v.w;
  }
  if (acc == 0xFFFFFFFFu) *sink = acc;
}

__device__ unsigned long long global_ns() {
  unsigned long long now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  return now;
}

// Waits `ns` of GPU global time: holds the stream while the host enqueues.
__global__ void spin_kernel(unsigned long long ns) {
  const unsigned long long start = global_ns();
  while (global_ns() - start < ns) {
  }
}

// Holds the stream until the host sets gate[0] (host-mapped memory), so that
// everything the host enqueues behind it starts back to back however long the
// enqueueing took (nvbench's blocking kernel). Gives up after `timeout_ns` and
// says so in gate[1].
__global__ void gate_kernel(volatile int* gate, unsigned long long timeout_ns) {
  const unsigned long long start = global_ns();
  while (gate[0] == 0) {
    if (global_ns() - start > timeout_ns) {
      gate[1] = 1;
      return;
    }
  }
}

constexpr unsigned long long kGateTimeoutNs = 2'000'000'000ull;

// A gate is two host-mapped ints: [0] set by the host to release it, [1] set by
// the gate kernel when it gave up waiting. hold() arms one and holds the stream
// behind it; release() lets the stream go.
void hold(cudaStream_t stream, volatile int* gate, int* gate_device) {
  gate[0] = 0;
  gate[1] = 0;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  gate_kernel<<<1, 1, 0, stream>>>(gate_device, kGateTimeoutNs);
  BENCH_CHECK_LAUNCH("gate_kernel");
}

void release(volatile int* gate) {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  gate[0] = 1;
}

// Event-timed samples enqueued before one synchronisation reads them: enough
// to keep the host out of the way, few enough events to keep.
constexpr std::size_t kSamplesPerSync = 1024;

// Event-timed samples held behind one gate kernel until the host has enqueued
// all of them: the device then runs them back to back, and no sample waits on
// the host mid-way (nvbench's blocking kernel, per batch). The next batch's
// gate is enqueued while this one runs, so the device idles only when the host
// is slower than the samples. Measured against ungated batches (H100, 3
// processes each, docs/precision.md "Gated batches"): one kernel under two
// names 1.35% apart on average instead of 3.6%, the default suite's wall time
// the same.
// CUDABENCH_GATE_SAMPLES=K (0 to 256; 0: no gate) sets it for an experiment.
constexpr std::size_t kDefaultSamplesPerGate = 32;

constexpr std::size_t kGateUnset = ~std::size_t{0};
std::atomic<std::size_t> g_samples_per_gate{kGateUnset};

// Graph replays: K launches, chosen so that a hot replay lasts about this long.
constexpr int kMinGraphLaunches = 10;
constexpr int kMaxGraphLaunches = 100;
constexpr double kTargetReplaySeconds = 100e-6;

std::atomic<TimingMode> g_timing_mode{TimingMode::events};
std::atomic<LaunchMode> g_launch_mode{LaunchMode::graph};

// Captures what `body` enqueues on `stream` (thread-local capture: a call that
// is illegal in a graph, such as a synchronisation or cudaMalloc, fails the
// capture) into an instantiated, uploaded graph. Throws Unsupported saying why
// when it cannot be captured, or when it enqueued nothing on `stream` (its work
// went elsewhere: a graph of it would time nothing).
cudaGraphExec_t capture(cudaStream_t stream, const std::function<void()>& body) {
  BENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
  BENCH_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  std::string failure;
  try {
    body();
  } catch (const std::exception& e) {
    failure = e.what();
  }
  cudaGraph_t graph = nullptr;
  const cudaError_t ended = cudaStreamEndCapture(stream, &graph);
  if (failure.empty() && ended != cudaSuccess)
    failure = std::string("cudaStreamEndCapture: ") + cudaGetErrorName(ended);
  std::size_t nodes = 0;
  if (failure.empty() && (cudaGraphGetNodes(graph, nullptr, &nodes) != cudaSuccess || nodes == 0))
    failure = "it enqueued nothing on the timer's stream";
  if (!failure.empty()) {
    if (graph) cudaGraphDestroy(graph);
    cudaGetLastError();  // capture errors are not sticky: leave none behind
    throw Unsupported("the case cannot be captured into a CUDA graph (" + failure + ")");
  }
  cudaGraphExec_t exec = nullptr;
  const cudaError_t instantiated = cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphDestroy(graph);
  BENCH_CUDA_CHECK(instantiated);
  if (const cudaError_t uploaded = cudaGraphUpload(exec, stream); uploaded != cudaSuccess) {
    cudaGraphExecDestroy(exec);
    BENCH_CUDA_CHECK(uploaded);
  }
  return exec;
}

// capture() for graph timing, whose refusal says what to use instead.
cudaGraphExec_t capture_timed(cudaStream_t stream, const std::function<void()>& body) {
  try {
    return capture(stream, body);
  } catch (const Unsupported& e) {
    throw Unsupported(std::string("graph timing: ") + e.what() + "; time it with --timing=events");
  }
}

// A replay, warmed once (the first launch of a graph costs more).
void replay(cudaGraphExec_t exec, cudaStream_t stream) { BENCH_CUDA_CHECK(cudaGraphLaunch(exec, stream)); }

void warm(cudaGraphExec_t exec, cudaStream_t stream) {
  replay(exec, stream);
  BENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
}

}  // namespace

const char* to_string(CacheMode mode) { return mode == CacheMode::cold ? "cold" : "hot"; }
const char* to_string(TimingMode mode) { return mode == TimingMode::events ? "events" : "graph"; }
const char* to_string(LaunchMode mode) { return mode == LaunchMode::graph ? "graph" : "stream"; }

void set_timing_mode(TimingMode mode) { g_timing_mode.store(mode); }
TimingMode timing_mode() { return g_timing_mode.load(); }
void set_launch_mode(LaunchMode mode) { g_launch_mode.store(mode); }
LaunchMode launch_mode() { return g_launch_mode.load(); }

std::size_t samples_per_gate_from(const char* text) {
  if (text == nullptr || *text == '\0') return kDefaultSamplesPerGate;
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || v < 0 || v > 256)
    throw std::invalid_argument(std::string("CUDABENCH_GATE_SAMPLES=") + text +
                                ": not a whole number from 0 to 256 (event-timed samples per gate; 0: no gate; "
                                "default 32)");
  return static_cast<std::size_t>(v);
}

void set_samples_per_gate(std::size_t samples) { g_samples_per_gate.store(samples); }
std::size_t samples_per_gate() {
  std::size_t k = g_samples_per_gate.load();
  if (k == kGateUnset) {
    k = samples_per_gate_from(std::getenv("CUDABENCH_GATE_SAMPLES"));
    g_samples_per_gate.store(k);
  }
  return k;
}

double l2_flush_factor() {
  const char* text = std::getenv("CUDABENCH_L2_FLUSH_FACTOR");
  if (text == nullptr || *text == '\0') return profile_one_enabled() ? kProfileFlushFactor : 1.5;
  char* end = nullptr;
  const double f = std::strtod(text, &end);
  if (end == text || *end != '\0' || !std::isfinite(f) || f < 0.25 || f > 8)
    throw std::invalid_argument(std::string("CUDABENCH_L2_FLUSH_FACTOR=") + text +
                                ": not a number from 0.25 to 8 (how many L2 sizes the cold flush reads; default 1.5)");
  return f;
}

GpuTimer::GpuTimer(const DeviceInfo& device)
    : flush_buffer_(static_cast<std::size_t>(l2_flush_factor() *
                                             static_cast<double>(std::max<long long>(device.l2_bytes, 1 << 20))) /
                    16 * 16),
      flush_sink_(1) {
  BENCH_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  BENCH_CUDA_CHECK(cudaEventCreate(&start_));
  BENCH_CUDA_CHECK(cudaEventCreate(&mid_));
  BENCH_CUDA_CHECK(cudaEventCreate(&stop_));
  // The gates, two ints each: one per gated batch between two synchronisations
  // (at most kSamplesPerSync of them), then gated()'s.
  BENCH_CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&batch_gates_), 2 * (kSamplesPerSync + 1) * sizeof(int),
                                 cudaHostAllocMapped));
  BENCH_CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&batch_gates_device_), batch_gates_, 0));
  gate_ = batch_gates_ + 2 * kSamplesPerSync;
  gate_device_ = batch_gates_device_ + 2 * kSamplesPerSync;
  BENCH_CUDA_CHECK(cudaMemset(flush_buffer_.get(), 0, flush_buffer_.bytes()));
  BENCH_CUDA_CHECK(cudaDeviceSynchronize());
}

GpuTimer::~GpuTimer() {
  for (auto& [start, stop] : pool_) {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
  if (batch_gates_) cudaFreeHost(batch_gates_);
  if (start_) cudaEventDestroy(start_);
  if (mid_) cudaEventDestroy(mid_);
  if (stop_) cudaEventDestroy(stop_);
  if (stream_) cudaStreamDestroy(stream_);
}

void GpuTimer::flush_l2(cudaStream_t stream) {
  const std::size_t count = flush_buffer_.bytes() / sizeof(uint4);
  l2_flush_kernel<<<1024, 512, 0, stream>>>(reinterpret_cast<const uint4*>(flush_buffer_.get()), count,
                                            flush_sink_.get());
  BENCH_CHECK_LAUNCH("l2_flush_kernel");
}

void launch_spin(cudaStream_t stream, unsigned long long ns) {
  spin_kernel<<<1, 1, 0, stream>>>(ns);
  BENCH_CHECK_LAUNCH("spin_kernel");
}

void GpuTimer::spin(unsigned long long ns) { launch_spin(stream_, ns); }

double GpuTimer::elapsed_seconds(cudaEvent_t from, cudaEvent_t to) {
  float ms = 0;
  BENCH_CUDA_CHECK(cudaEventElapsedTime(&ms, from, to));
  return static_cast<double>(ms) * 1e-3;
}

void GpuTimer::gated(const Launch& enqueue) {
  volatile int* gate = gate_;
  hold(stream_, gate, gate_device_);
  try {
    enqueue(stream_);
  } catch (...) {
    release(gate);
    cudaStreamSynchronize(stream_);
    throw;
  }
  release(gate);
  BENCH_CUDA_CHECK(cudaStreamSynchronize(stream_));
  if (gate[1] != 0)
    throw std::runtime_error("timer: the host took over 2 s to enqueue one timed replay; nothing was measured");
}

void GpuTimer::enqueue_sample(const Launch& launch, CacheMode mode, bool host_work, cudaEvent_t start,
                              cudaEvent_t stop) {
  if (mode == CacheMode::cold) flush_l2();
  if (host_work) {
    BENCH_CUDA_CHECK(cudaStreamSynchronize(stream_));  // nothing may hide the host's work
  } else if (mode == CacheMode::hot) {
    spin(kHotSpinNs);  // as the flush does in cold mode: the launch latency stays out
  }
  BENCH_CUDA_CHECK(cudaEventRecord(start, stream_));
  launch(stream_);
  BENCH_CUDA_CHECK(cudaEventRecord(stop, stream_));
}

double GpuTimer::time_launch(const Launch& launch, CacheMode mode, bool host_work) {
  enqueue_sample(launch, mode, host_work, start_, stop_);
  BENCH_CUDA_CHECK(cudaEventSynchronize(stop_));
  return elapsed_seconds(start_, stop_);
}

double GpuTimer::time_gated(const Launch& enqueue) {
  gated([&](cudaStream_t s) {
    BENCH_CUDA_CHECK(cudaEventRecord(start_, s));
    enqueue(s);
    BENCH_CUDA_CHECK(cudaEventRecord(stop_, s));
  });
  return elapsed_seconds(start_, stop_);
}

void GpuTimer::take_rounds(const std::vector<TimedLaunch*>& launches, std::size_t rounds,
                           std::vector<Sampled>& out) {
  std::vector<std::size_t> pending;  // member of each event pair in use, in pool order
  const std::size_t per_gate = samples_per_gate();
  volatile int* gates = batch_gates_;  // [2 i]: gate i released by the host, [2 i + 1]: it timed out
  std::size_t gates_used = 0;        // since the last synchronisation
  std::size_t in_gate = 0;           // samples behind the last gate
  bool gate_held = false;            // the last gate is not released yet
  auto release_gate = [&] {
    if (!gate_held) return;
    release(gates + 2 * (gates_used - 1));
    gate_held = false;
  };
  auto read_pending = [&] {
    release_gate();
    BENCH_CUDA_CHECK(cudaStreamSynchronize(stream_));
    bool timed_out = false;
    for (std::size_t g = 0; g < gates_used; ++g) timed_out = timed_out || gates[2 * g + 1] != 0;
    gates_used = 0;
    if (timed_out)
      throw std::runtime_error("timer: the host took over 2 s to enqueue one gated batch of samples; nothing was "
                               "measured");
    for (std::size_t slot = 0; slot < pending.size(); ++slot)
      out[pending[slot]].seconds.push_back(elapsed_seconds(pool_[slot].first, pool_[slot].second));
    pending.clear();
  };
  auto open_gate = [&] {
    release_gate();
    const std::size_t g = gates_used++;
    hold(stream_, gates + 2 * g, batch_gates_device_ + 2 * g);
    gate_held = true;
    in_gate = 0;
  };
  try {
    for (std::size_t r = 0; r < rounds; ++r) {
      for (std::size_t m = 0; m < launches.size(); ++m) {
        TimedLaunch& t = *launches[m];
        if (!out[m].error.empty()) continue;  // this member stopped; the others go on
        if (t.graph_) {
          release_gate();  // the replay synchronises: nothing may stay held ahead of it
          try {
            out[m].seconds.push_back(t.graph_->per_launch_seconds());  // gated: synchronises itself
          } catch (const BelowNoise& e) {
            out[m].error = e.what();
          }
        } else if (t.host_work_) {
          release_gate();
          out[m].seconds.push_back(time_launch(t.launch_, t.mode_, true));  // drains the stream first
        } else {
          if (pending.size() == kSamplesPerSync) read_pending();
          if (!t.gateable_)
            release_gate();  // it may synchronise: nothing may be held ahead of it
          else if (per_gate != 0 && (!gate_held || in_gate == per_gate))
            open_gate();
          if (pending.size() == pool_.size()) {
            cudaEvent_t start = nullptr, stop = nullptr;
            BENCH_CUDA_CHECK(cudaEventCreate(&start));
            if (const cudaError_t created = cudaEventCreate(&stop); created != cudaSuccess) {
              cudaEventDestroy(start);
              BENCH_CUDA_CHECK(created);
            }
            pool_.emplace_back(start, stop);
          }
          const auto& [start, stop] = pool_[pending.size()];
          enqueue_sample(t.launch_, t.mode_, false, start, stop);
          pending.push_back(m);
          ++in_gate;
        }
      }
    }
    read_pending();
  } catch (...) {
    for (std::size_t g = 0; g < gates_used; ++g) release(gates + 2 * g);  // never leave the stream held
    cudaStreamSynchronize(stream_);
    throw;
  }
  BENCH_CUDA_CHECK(cudaGetLastError());
}

std::vector<Sampled> GpuTimer::sample(const std::vector<TimedLaunch*>& launches, const SamplingOptions& options) {
  using Clock = std::chrono::steady_clock;
  const auto since = [](Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); };
  std::vector<Sampled> out(launches.size());
  if (launches.empty()) return out;
  const auto start = Clock::now();
  std::size_t n = 0;
  // The first batch is the fewest samples an interval needs, not min_samples:
  // the time cap binds from there, so a slow call (a CPU reference at 2^28,
  // a quarter of a second each) costs 6 samples, not 16.
  std::size_t rounds = kMinSamplesForInterval;
  SampleStop stop = SampleStop::none;
  while (stop == SampleStop::none) {
    const auto batch_start = Clock::now();
    take_rounds(launches, rounds, out);
    const double per_round = since(batch_start) / static_cast<double>(rounds);
    n += rounds;
    bool all_precise = true;
    double worst = 0;  // the widest interval over its target
    std::size_t sampling = 0;  // members still sampled (none stopped on an error)
    for (Sampled& m : out) {
      if (!m.error.empty()) continue;
      ++sampling;
      m.summary = summarize(m.seconds);
      all_precise = all_precise && precise_enough(m.summary, options.precision);
      const double target = target_half_width(m.summary, options.precision);
      worst = std::max(worst, target > 0 ? m.summary.relative_half_width() / target
                                         : std::numeric_limits<double>::infinity());
    }
    if (sampling == 0) break;  // every member stopped on an error
    const double elapsed = since(start);
    stop = stop_reason(n, all_precise, elapsed, launches.size(), options);
    if (stop != SampleStop::none) break;
    rounds = next_rounds(n, worst, per_round, elapsed, launches.size(), options);
    if (rounds == 0) stop = SampleStop::time;  // not one more round fits in the time left
  }
  // A member precise at the end says so, unless its samples are short of the minimum time
  // (a sample cap reached first): then it says which cap stopped it.
  const bool spanned = spans_min_time(since(start), launches.size(), options);
  for (Sampled& m : out)
    if (m.error.empty())
      m.stop = precise_enough(m.summary, options.precision) && spanned ? SampleStop::precision : stop;
  return out;
}

// ---- a launch made ready for sampling ------------------------------------------------

TimedLaunch::TimedLaunch(GpuTimer& timer, std::vector<Launch> calls, CacheMode mode, bool host_work,
                         int warmup_launches, bool capturable)
    : mode_(mode), host_work_(host_work) {
  if (calls.empty()) throw std::invalid_argument("TimedLaunch: no call to time");
  // One call per sample, the calls in turn (a case's placements).
  launch_ = [calls, next = std::size_t{0}](cudaStream_t s) mutable { calls[next++ % calls.size()](s); };
  if (timing_mode() == TimingMode::graph && host_work)
    throw Unsupported(
        "graph timing: the case works on the host inside the timed region (host_work), which a graph replay "
        "cannot contain; time it with --timing=events");
  for (int i = 0; i < warmup_launches; ++i) launch_(timer.stream());
  BENCH_CUDA_CHECK(cudaStreamSynchronize(timer.stream()));
  BENCH_CUDA_CHECK(cudaGetLastError());
  if (timing_mode() == TimingMode::graph) graph_ = std::make_unique<GraphTiming>(timer, launch_, mode);
  if (timing_mode() == TimingMode::events && !host_work) {
    // Each call is captured: with --launch=graph (and a call a graph runs as the
    // stream would) its graphs are what the samples launch; otherwise one trial
    // capture only tells whether the call may wait behind a batch's gate (one
    // that synchronises, allocates or enqueues nothing cannot be captured, and
    // a synchronisation behind a gate would wait for a host that waits for it).
    const bool use_graphs = launch_mode() == LaunchMode::graph && capturable;
    const cudaStream_t s = timer.stream();
    try {
      for (const Launch& call : calls) {
        call_graphs_.push_back(capture(s, [&] { call(s); }));
        if (!use_graphs) break;
        warm(call_graphs_.back(), s);  // the first launch of a graph costs more
      }
      gateable_ = true;
      if (use_graphs) {
        // From here each sample replays the next call's graph, in the same turn.
        launch_ = [graphs = call_graphs_, next = std::size_t{0}](cudaStream_t stream) mutable {
          replay(graphs[next++ % graphs.size()], stream);
        };
      } else {
        release_call_graphs();
      }
    } catch (const Unsupported& e) {
      release_call_graphs();  // cannot be captured (it synchronises, allocates, ...): the stream, ungated
      if (use_graphs) stream_reason_ = e.what();
    } catch (...) {
      release_call_graphs();  // a failed CUDA call: no graph left behind
      throw;
    }
  }
}

TimedLaunch::~TimedLaunch() { release_call_graphs(); }

void TimedLaunch::release_call_graphs() {
  for (cudaGraphExec_t exec : call_graphs_) cudaGraphExecDestroy(exec);
  call_graphs_.clear();
}

int TimedLaunch::graph_launches() const { return graph_ ? graph_->launches() : 0; }

// ---- graph timing ----------------------------------------------------------------

GraphTiming::GraphTiming(GpuTimer& timer, const Launch& launch, CacheMode mode, int launches)
    : timer_(timer), mode_(mode), launches_(launches) {
  if (launches_ <= 0 && mode == CacheMode::cold) launches_ = kMinGraphLaunches;
  if (launches_ <= 0) {
    const double probe = replay_seconds(timer, launch, kMinGraphLaunches) / kMinGraphLaunches;
    const double wanted = probe > 0 ? std::ceil(kTargetReplaySeconds / probe) : kMaxGraphLaunches;
    launches_ = static_cast<int>(std::clamp(wanted, double{kMinGraphLaunches}, double{kMaxGraphLaunches}));
  }
  const cudaStream_t s = timer.stream();
  try {
    work_ = capture_timed(s, [&] {
      for (int k = 0; k < launches_; ++k) {
        if (mode == CacheMode::cold) timer.flush_l2(s);
        launch(s);
      }
    });
    if (mode == CacheMode::cold) {
      flushes_ = capture_timed(s, [&] {
        for (int k = 0; k < launches_; ++k) timer.flush_l2(s);
      });
      warm(flushes_, s);
    }
    warm(work_, s);
  } catch (...) {
    release();
    throw;
  }
}

GraphTiming::~GraphTiming() { release(); }

void GraphTiming::release() {
  if (work_) cudaGraphExecDestroy(work_);
  if (flushes_) cudaGraphExecDestroy(flushes_);
  work_ = flushes_ = nullptr;
}

double GraphTiming::per_launch_seconds() {
  if (mode_ == CacheMode::hot) return timer_.time_gated([this](cudaStream_t s) { replay(work_, s); }) / launches_;
  return cold_per_launch_seconds(
      [this] {
        timer_.gated([this](cudaStream_t s) {
          BENCH_CUDA_CHECK(cudaEventRecord(timer_.start_, s));
          replay(flushes_, s);
          BENCH_CUDA_CHECK(cudaEventRecord(timer_.mid_, s));
          replay(work_, s);
          BENCH_CUDA_CHECK(cudaEventRecord(timer_.stop_, s));
        });
        return ColdReplay{timer_.elapsed_seconds(timer_.start_, timer_.mid_),
                          timer_.elapsed_seconds(timer_.mid_, timer_.stop_)};
      },
      launches_);
}

double GraphTiming::replay_seconds(GpuTimer& timer, const Launch& launch, int launches) {
  const cudaStream_t s = timer.stream();
  cudaGraphExec_t exec = capture_timed(s, [&] {
    for (int k = 0; k < launches; ++k) launch(s);
  });
  try {
    warm(exec, s);
    const double seconds = timer.time_gated([exec](cudaStream_t stream) { replay(exec, stream); });
    cudaGraphExecDestroy(exec);
    return seconds;
  } catch (...) {
    cudaGraphExecDestroy(exec);
    throw;
  }
}

}  // namespace bench
