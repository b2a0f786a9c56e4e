// The one timer. Every benchmark's timed region goes through GpuTimer::measure,
// in one of two timing modes (--timing=, recorded as the context's timing_mode).
//
// events (default): one launch per Google Benchmark iteration,
//   - CUDA events recorded on one explicit stream around the launch only,
//   - warm-up launches before timing (module load, first-touch, clocks),
//   - by default an L2 flush before every timed iteration ("cold": inputs smaller
//     than L2 would otherwise measure L2, not HBM), or no flush ("hot"),
//   - each iteration's elapsed time handed to Google Benchmark (UseManualTime).
//   What is timed, in both cache modes:
//   - GPU work: the device time from the start event to the stop event. The
//     stream is kept busy ahead of the start event (the flush, or in hot mode a
//     short spin), so the host's launch latency is hidden the same way in both
//     modes and never counted.
//   - Host work (a library call that allocates and copies its result to the
//     host, a CPU reference): the stream is drained before the start event, so
//     the events bracket all of the host's work, none of it hidden behind the flush.
//
// graph: K launches captured into one CUDA graph (GraphTiming below); each
//   iteration replays it between two events and reports the time per launch.
//   The replay waits behind a gate kernel until the host has enqueued all of it,
//   so the host's launch latency stays out however long the enqueueing takes.
//   Launches in a graph follow each other without the host, so the per-launch
//   time is the case's device cost without the event/launch floor of a single
//   launch. Cold: an L2-flush node before every launch, and a graph of K flush
//   nodes alone, replayed right before, is subtracted. Cases that work on the
//   host (host_work) or cannot be captured are refused (Unsupported).
//
// A failed CUDA call or launch throws CudaError naming it.
#pragma once

#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <functional>

#include "harness/device.hpp"
#include "harness/device_buffer.hpp"

namespace bench {

enum class CacheMode { cold, hot };
enum class TimingMode { events, graph };

const char* to_string(CacheMode mode);
const char* to_string(TimingMode mode);

// The process-wide timing mode: set once by the driver (--timing=) before any
// benchmark runs; every GpuTimer::measure follows it. Default: events.
void set_timing_mode(TimingMode mode);
TimingMode timing_mode();

// Hot mode's spin ahead of the start event: longer than the host needs to
// record an event and enqueue a launch (or a graph launch).
constexpr unsigned long long kHotSpinNs = 20'000;

// Enqueues a one-thread kernel that waits `ns` of GPU global time on `stream`.
void launch_spin(cudaStream_t stream, unsigned long long ns);

using Launch = std::function<void(cudaStream_t)>;

class GpuTimer {
 public:
  // Allocates the flush buffer (2 x L2) and creates the stream and events.
  explicit GpuTimer(const DeviceInfo& device);
  ~GpuTimer();
  GpuTimer(const GpuTimer&) = delete;
  GpuTimer& operator=(const GpuTimer&) = delete;

  cudaStream_t stream() const { return stream_; }

  // Evicts the L2 by reading a buffer twice its size (reads leave no dirty lines
  // to be written back during the next timed launch). On the timer's stream, or
  // on `stream` (tests use that to put a flush where it must not be).
  void flush_l2() { flush_l2(stream_); }
  void flush_l2(cudaStream_t stream);

  // Keeps the stream busy for about `ns` of device time (no memory traffic).
  void spin(unsigned long long ns);

  // Warm-up, then the Google Benchmark loop timing `launch` in the process-wide
  // timing mode. `host_work`: the launch does work on the host inside the timed
  // region. Returns the total measured seconds (the sum handed to SetIterationTime).
  double measure(benchmark::State& state, const Launch& launch, CacheMode mode, bool host_work,
                 int warmup_launches = 2);

  // One event-timed launch exactly as one iteration of events mode times it
  // (flush or spin ahead, events around the launch); seconds.
  double time_launch(const Launch& launch, CacheMode mode, bool host_work);

  // Enqueues `enqueue`'s work behind a gate kernel that holds the stream until
  // all of it is enqueued, releases it and waits for it: the work then runs back
  // to back however long the host took (nvbench's blocking kernel).
  void gated(const Launch& enqueue);

  // Device seconds between two events around `enqueue`'s work, gated.
  double time_gated(const Launch& enqueue);

 private:
  double measure_events(benchmark::State& state, const Launch& launch, CacheMode mode, bool host_work);
  double measure_graph(benchmark::State& state, const Launch& launch, CacheMode mode);
  double elapsed_seconds(cudaEvent_t from, cudaEvent_t to);

  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr, mid_ = nullptr, stop_ = nullptr;
  int* gate_ = nullptr;         // host-mapped: [0] released by the host, [1] set on timeout
  int* gate_device_ = nullptr;  // the same memory as the device sees it
  DeviceBuffer<unsigned char> flush_buffer_;
  DeviceBuffer<unsigned int> flush_sink_;

  friend class GraphTiming;
};

// Graph timing of one case on a GpuTimer's stream.
//   hot:  graph H = K launches back to back. A replay (gated): event, H, event;
//         per launch = t(H) / K.
//   cold: graph C = K x (L2 flush, launch), graph F = K x (L2 flush). A replay
//         (gated): event, F, event, C, event; per launch = (t(C) - t(F)) / K: the
//         launch plus the one extra node-to-node step it adds, with every flush
//         (and every step between flushes) cancelled. Unlike events mode, it
//         includes the write-back of the launch's dirty lines, which happens
//         during the next flush.
// K: `launches`, or when 0 chosen from a probe so that a hot replay lasts about
// 100 us (10 <= K <= 100; cold replays are long anyway: K = 10).
class GraphTiming {
 public:
  // Captures the graphs (throws Unsupported when the case cannot be captured).
  GraphTiming(GpuTimer& timer, const Launch& launch, CacheMode mode, int launches = 0);
  ~GraphTiming();
  GraphTiming(const GraphTiming&) = delete;
  GraphTiming& operator=(const GraphTiming&) = delete;

  int launches() const { return launches_; }

  // One replay (two in cold mode); the device seconds per launch. Throws when a
  // cold replay is not slower than its flush-only baseline (no number to give).
  double per_launch_seconds();

  // Seconds of one replay of `launches` launches of the case alone (no flush),
  // for a hand check of the per-launch figure: t(K2) - t(K1) over K2 - K1.
  static double replay_seconds(GpuTimer& timer, const Launch& launch, int launches);

 private:
  GpuTimer& timer_;
  CacheMode mode_;
  int launches_ = 0;
  cudaGraphExec_t work_ = nullptr;     // hot: K launches; cold: K x (flush, launch)
  cudaGraphExec_t flushes_ = nullptr;  // cold only: K flushes

  void build(const Launch& launch);
  void release();
};

}  // namespace bench
