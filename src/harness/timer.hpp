// The one timer. Every benchmark's timed region goes through GpuTimer::sample,
// in one of two timing modes (--timing=, recorded as the context's timing_mode).
// A benchmark is set up once (its TimedLaunch: warm-up launches, in graph mode
// the captured graphs), then sampled one timed call at a time until the 95%
// interval of the median is as precise as asked or a cap is reached
// (harness/sampling.hpp decides; docs/precision.md says why it holds).
//
// events (default): one sample = one call,
//   - CUDA events recorded on one explicit stream around the call only,
//   - the call launched as a CUDA graph of that one call, captured and uploaded
//     once (--launch=graph, the default), so its commands and parameters are
//     already on the device; or its own launches enqueued on the stream each
//     time (--launch=stream, and always for host work and for a case that
//     cannot be captured). Measured: the same kernels
//     launched from the stream differ from one process to the next by several
//     percent below 2^22 elements, about half that through a graph
//     (docs/precision.md, "Launch path"),
//   - by default an L2 flush before every timed launch ("cold": inputs smaller
//     than L2 would otherwise measure L2, not HBM), or no flush ("hot"),
//   - samples are enqueued in batches, each with its own pair of events (a
//     pool), and read after one synchronisation per batch; the next batch is
//     sized from how far the interval still is from the target,
//   - every 32 samples of a batch wait behind a gate kernel until the host has
//     enqueued all 32, so the device runs them back to back and never waits on
//     the host between a start event and its stop event (nvbench's blocking
//     kernel); the next gate is enqueued while they run.
//   What is timed, in both cache modes:
//   - GPU work: the device time from the start event to the stop event. The
//     stream is kept busy ahead of the start event (the flush, or in hot mode a
//     short spin), so the host's launch latency is hidden the same way in both
//     modes and never counted.
//   - Host work (a library call that allocates and copies its result to the
//     host, a CPU reference): one sample at a time, the stream drained before
//     the start event, so the events bracket all of the host's work, none of it
//     hidden behind the flush or an earlier sample.
//
// graph: K launches captured into one CUDA graph (GraphTiming below); one
//   sample replays it between two events and gives the time per launch.
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

#include <cuda_runtime_api.h>

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "harness/device.hpp"
#include "harness/device_buffer.hpp"
#include "harness/sampling.hpp"

namespace bench {

enum class CacheMode { cold, hot };
enum class TimingMode { events, graph };

// How events mode puts each timed call on the stream (--launch=, recorded as
// the context's launch_mode; each benchmark's "launch" says which it got).
enum class LaunchMode { graph, stream };

const char* to_string(CacheMode mode);
const char* to_string(TimingMode mode);
const char* to_string(LaunchMode mode);

// The process-wide timing mode: set once by the driver (--timing=) before any
// benchmark runs; every sample follows it. Default: events.
void set_timing_mode(TimingMode mode);
TimingMode timing_mode();

// The process-wide launch mode of events timing, set the same way. Default: graph.
void set_launch_mode(LaunchMode mode);
LaunchMode launch_mode();

// Event-timed samples per gate (see take_rounds in timer.cu): 32 unless
// CUDABENCH_GATE_SAMPLES says otherwise (0 to 256, 0: no gate; anything else
// throws std::invalid_argument naming the variable). The setter is for tests.
void set_samples_per_gate(std::size_t samples);
std::size_t samples_per_gate_from(const char* text);  // the variable's value (null or empty: 32)
std::size_t samples_per_gate();

// Hot mode's spin ahead of the start event: longer than the host needs to
// record an event and enqueue a launch (or a graph launch).
constexpr unsigned long long kHotSpinNs = 20'000;

// Enqueues a one-thread kernel that waits `ns` of GPU global time on `stream`.
void launch_spin(cudaStream_t stream, unsigned long long ns);

using Launch = std::function<void(cudaStream_t)>;

// How many L2 sizes the cold flush reads: 1.5 by default (measured: as cold as
// 2 and 3, while 0.5 leaves inputs warm; docs/precision.md); in profile-one mode
// kProfileFlushFactor, since there the flush must also write back every dirty
// line inside the call's window (docs/audit.md); CUDABENCH_L2_FLUSH_FACTOR (a
// number from 0.25 to 8) sets it for an experiment (docs/precision.md, "The
// flush"). Throws std::invalid_argument naming the variable for any other value.
double l2_flush_factor();
// A read of 1.5 L2 sizes left 1-2.4 MiB of a call's written lines dirty in an
// H100's L2 (2^24 floor_scan and write_vec16 audited short of their writes); 4
// wrote them all back (docs/audit.md, "The closing flush").
inline constexpr double kProfileFlushFactor = 4;

class TimedLaunch;

// One benchmark's samples (seconds, in the order taken), what they say, and
// why sampling ended.
struct Sampled {
  std::vector<double> seconds;
  Summary summary;
  SampleStop stop = SampleStop::none;
  // Set when this member could not be sampled (BelowNoise, graph timing): it took
  // no more samples and its summary means nothing; the group's others went on.
  std::string error;
};

class GpuTimer {
 public:
  // Allocates the flush buffer (l2_flush_factor() x L2) and creates the stream and events.
  explicit GpuTimer(const DeviceInfo& device);
  ~GpuTimer();
  GpuTimer(const GpuTimer&) = delete;
  GpuTimer& operator=(const GpuTimer&) = delete;

  cudaStream_t stream() const { return stream_; }

  // Bytes the L2 flush reads: l2_flush_factor() x the L2's size.
  std::size_t flush_bytes() const { return flush_buffer_.bytes(); }

  // Evicts the L2 by reading the flush buffer, l2_flush_factor() L2 sizes (reads
  // leave no dirty lines to be written back during the next timed launch). On the
  // timer's stream, or on `stream` (tests use that to put a flush where it must not be).
  void flush_l2() { flush_l2(stream_); }
  void flush_l2(cudaStream_t stream);

  // Keeps the stream busy for about `ns` of device time (no memory traffic).
  void spin(unsigned long long ns);

  // Samples the launches round-robin (one sample of each in turn, back to back
  // in the same batch) until every one's interval of the median is within
  // options.precision, or the time cap (max_time_seconds x launches) or the
  // sample cap is reached; at least options.min_samples each. One result per
  // launch, in order: each says whether it reached the precision ("precision")
  // or why sampling ended without it ("time", "samples").
  std::vector<Sampled> sample(const std::vector<TimedLaunch*>& launches, const SamplingOptions& options);

  // One event-timed launch exactly as events mode times one sample (flush or
  // spin ahead, events around the launch), synchronised at once; seconds.
  double time_launch(const Launch& launch, CacheMode mode, bool host_work);

  // Enqueues `enqueue`'s work behind a gate kernel that holds the stream until
  // all of it is enqueued, releases it and waits for it: the work then runs back
  // to back however long the host took (nvbench's blocking kernel).
  void gated(const Launch& enqueue);

  // Device seconds between two events around `enqueue`'s work, gated.
  double time_gated(const Launch& enqueue);

 private:
  // Enqueues one sample: the flush (cold) or spin (hot) ahead, `start`, the
  // launch, `stop`. With host_work the stream is drained before `start` instead.
  void enqueue_sample(const Launch& launch, CacheMode mode, bool host_work, cudaEvent_t start, cudaEvent_t stop);
  // `rounds` rounds of one sample of each launch, appended to `out`.
  void take_rounds(const std::vector<TimedLaunch*>& launches, std::size_t rounds, std::vector<Sampled>& out);
  double elapsed_seconds(cudaEvent_t from, cudaEvent_t to);

  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr, mid_ = nullptr, stop_ = nullptr;
  std::vector<std::pair<cudaEvent_t, cudaEvent_t>> pool_;  // one pair per sample of a batch
  int* batch_gates_ = nullptr;  // host-mapped: the gates of event-timed batches, two ints each, then gate_
  int* batch_gates_device_ = nullptr;  // the same memory as the device sees it
  int* gate_ = nullptr;  // gated()'s: [0] released by the host, [1] set on timeout (in batch_gates_)
  int* gate_device_ = nullptr;
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

// A benchmark's launch made ready for sampling: warm-up launches (module load,
// first touch, clocks, a library's set-up), and in graph mode its graphs.
class TimedLaunch {
 public:
  // `calls`: the case's call, or one per placement, taken in turn, one per
  // sample. Throws Unsupported in graph mode for a case that works on the host
  // or that cannot be captured; CudaError for a failed call. In events mode
  // with --launch=graph, each call is captured once unless it does host work
  // or a capture fails (then every call goes to the stream).
  // A call that is not `capturable` (Declaration::capturable) goes to the stream too.
  TimedLaunch(GpuTimer& timer, std::vector<Launch> calls, CacheMode mode, bool host_work, int warmup_launches = 2,
              bool capturable = true);
  ~TimedLaunch();
  TimedLaunch(const TimedLaunch&) = delete;
  TimedLaunch& operator=(const TimedLaunch&) = delete;

  // K of the graph replays; 0 in events mode.
  int graph_launches() const;
  // How each sample reaches the GPU: graph (a captured call or graph timing's
  // replays) or stream.
  LaunchMode launched_as() const { return !call_graphs_.empty() || graph_ ? LaunchMode::graph : LaunchMode::stream; }
  // Why --launch=graph fell back to the stream ("" when it did not).
  const std::string& stream_reason() const { return stream_reason_; }

 private:
  friend class GpuTimer;
  Launch launch_;
  CacheMode mode_;
  bool host_work_;
  std::unique_ptr<GraphTiming> graph_;
  std::vector<cudaGraphExec_t> call_graphs_;  // events mode, --launch=graph: each call captured once (launch_ replays them)
  std::string stream_reason_;
  bool gateable_ = false;  // events mode: the call was captured once, so it may wait behind a gate
  void release_call_graphs();
};

}  // namespace bench
