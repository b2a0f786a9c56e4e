// The variant registry: each kernel variant and library baseline is declared once
// (name, family, element type, axes, bytes/ops model, how to make a runnable case),
// and one loop (register_benchmarks) turns every declaration into Google Benchmarks.
//
// Host-only: nothing here touches the GPU, so listing works on any machine.
#pragma once

#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace bench {

// The bytes and operations a variant's work costs for a given N: the fewest a
// correct implementation must move (each input read once, each output written
// once). Bandwidth, utilisation and roofline intensity all derive from this.
struct Work {
  double bytes_read = 0;
  double bytes_written = 0;
  double ops = 0;
  double bytes() const { return bytes_read + bytes_written; }
  double intensity() const { return bytes() > 0 ? ops / bytes() : 0; }
};

// What an implementation moves beyond Work's compulsory bytes, as its variant
// states it: partials one pass writes and the next reads back, a second read
// of the input. The most it can move (L2 may keep part of it on chip), for the
// DRAM-byte audit, which expects between Work's bytes and Work's plus these
// (docs/audit.md). Bandwidth stays derived from Work alone, so every variant
// of a family is measured against the same bytes.
struct ExtraTraffic {
  double bytes_read = 0;
  double bytes_written = 0;
  std::string what;  // one line: what the bytes are
  bool none() const { return bytes_read == 0 && bytes_written == 0; }
};

// One point of a declaration's parameter space. block/batch are 0 when the
// declaration does not take that axis (library calls choose for themselves).
struct Point {
  std::size_t n = 0;
  int block = 0;
  int batch = 0;  // items per thread
  // Tests only (not in names): input i, and the output array, start this many
  // elements past an aligned allocation (misaligned pointers).
  std::array<std::size_t, 2> in_offset{};
  std::size_t out_offset = 0;
  // Not in names: which device copy of the inputs (harness/data.hpp's
  // placed_dataset) and which of the shared outputs the case uses; the runner
  // makes one case per placement and rotates its samples over them.
  int placement = 0;
};

// What a declaration measures: a hand-written kernel, a library call, or the
// CPU (host memory, host threads).
enum class Role { kernel, library, cpu };
const char* to_string(Role role);

// The values one axis takes: `curated` for the default suite, `full` for tuning
// runs. An axis with no values is not taken by the declaration.
struct Axis {
  std::vector<int> curated;
  std::vector<int> full;
  bool used() const { return !full.empty(); }
};

// A prepared, verified-able instance of one declaration at one point. Made
// outside the timed region; launch() is the only thing the timer times.
class Case {
 public:
  virtual ~Case() = default;
  // Enqueue the timed work on `stream` (no synchronisation inside). The same
  // device work every call, all of it on `stream`: events timing captures one
  // call into a CUDA graph and replays it (--launch=graph), so host-side state
  // that changes from call to call is frozen at the capture. A call that works
  // on the host says so (host_work) and is never captured.
  virtual void launch(cudaStream_t stream) = 0;
  // Run once on random non-zero data and compare with the reference.
  // Returns "" when correct, else a message with expected vs got.
  virtual std::string verify(cudaStream_t stream) = 0;
  // True when launch() works on the host inside the timed region (allocations,
  // a copy of the result to the host, a CPU reference): the timer then makes
  // sure all of that host time is measured.
  virtual bool host_work() const { return false; }
};

struct Declaration {
  std::string family;       // e.g. "reduce_sum"
  std::string type;         // e.g. "i32"
  std::string variant;      // e.g. "sequential_addressing"
  std::string description;  // the technique and its lineage, one line
  Axis block;
  Axis batch;
  std::size_t min_n = 1;   // sizes outside [min_n, max_n] are not registered
  std::size_t max_n = std::size_t(1) << 40;
  Role role = Role::kernel;
  bool host_work = false;     // works on the host inside the timed region
  // False when a CUDA graph of the call would time something else than the
  // call on a stream: a device-to-device cudaMemcpyAsync becomes a copy-engine
  // node in a graph, 22% slower at 2^30 on an H100 than the stream's copy. Such
  // a call is always launched on the stream (its JSON says launch "stream").
  bool capturable = true;
  bool is_reference = false;  // the reference of its family for its type
  int inputs = 0;             // input arrays the case reads (Point::in_offset)
  bool array_output = false;  // the case writes an n-element array (Point::out_offset)
  std::function<Work(std::size_t n)> work;
  std::function<ExtraTraffic(const Point&)> extra;  // empty: none stated
  std::function<std::unique_ptr<Case>(const Point&)> make_case;

  std::string id() const { return family + "/" + type + "/" + variant; }
};

// What a variant file writes about itself; its family adds the rest.
struct VariantSpec {
  const char* name;
  const char* description;
  Axis block;
  Axis batch;
};

Declaration make_declaration(std::string family, std::string type, const VariantSpec& spec,
                             std::function<Work(std::size_t n)> work,
                             std::function<std::unique_ptr<Case>(const Point&)> make_case);

// Adds a declaration to the process-wide registry. Returns true so that variant
// files can register from a namespace-scope initialiser.
bool declare(Declaration decl);
const std::vector<Declaration>& declarations();

// Problems with the registry (duplicate names, bad axis values, missing models,
// a family without exactly one reference per type, a CPU declaration that does
// not say it works on the host), one message each; empty when it is sound.
std::vector<std::string> validate(const std::vector<Declaration>& decls);

// The id of the reference declaration of d's family for d's type: the one
// with is_reference; "" when the family has none (the ceilings).
std::string reference_of(const std::vector<Declaration>& decls, const Declaration& d);

// "family/type/variant/N:<n>[/block:<b>][/batch:<k>]": stable, hierarchical,
// selectable with --benchmark_filter.
std::string benchmark_name(const Declaration& decl, const Point& point);

enum class Suite { curated, full };

// 2^lo ... 2^hi.
std::vector<std::size_t> pow2_sizes(int lo, int hi);

// Every point of a declaration for the given sizes (those within its
// [min_n, max_n]): N x block x batch.
std::vector<Point> expand(const Declaration& decl, const std::vector<std::size_t>& sizes, Suite suite);

// What the registration loop needs from the driver.
struct RegistrationOptions {
  std::vector<std::size_t> sizes = pow2_sizes(10, 30);
  Suite suite = Suite::curated;
  // --interleave: each interleave_group's benchmarks in a row (the groups in the
  // order their first benchmark comes), so the results a group's sampling holds
  // for its other members are reported right after it, and a stop loses none.
  bool group_major = false;
};

// "family/type/N:n": the benchmarks --interleave samples together.
std::string interleave_group(const Declaration& decl, const Point& point);

// Runs one (declaration, point) benchmark: in the driver, the GPU runner.
using BenchmarkBody =
    std::function<void(benchmark::State&, const Declaration&, const Point&)>;

// What Google Benchmark appends to a registered name in its run names
// ("<name>/iterations:1/manual_time"): one iteration, manual time.
inline constexpr const char* kRunNameSuffix = "/iterations:1/manual_time";

// The one registration loop: every declaration x every point becomes a Google
// Benchmark of one iteration with manual time (the median of its samples), annotated (harness/annotations.hpp)
// with its "declaration", "role", "host_work" and, where its family has one,
// "reference". Returns the names registered, in order.
std::vector<std::string> register_benchmarks(const std::vector<Declaration>& decls,
                                             const RegistrationOptions& options,
                                             const BenchmarkBody& body);

}  // namespace bench
