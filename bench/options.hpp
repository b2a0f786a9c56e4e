// The driver's own command line (harness options and --device), parsed and
// checked before anything else happens; Google Benchmark's --benchmark_* flags
// pass through to Google Benchmark's own parser (bench/gb_flags.hpp).
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/registry.hpp"
#include "harness/sampling.hpp"
#include "harness/timer.hpp"

namespace bench::driver {

// Bad input: one line on stderr, exit code 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// --device=N | N,M,... | all. Not given: device 0, in this process.
struct DeviceSelection {
  bool given = false;
  bool all = false;
  std::vector<int> ordinals;  // in the order given, when !all
};
DeviceSelection parse_device_selection(const std::string& value);

// The ordinals to run on, checked against the machine's device count.
std::vector<int> resolve_devices(const DeviceSelection& selection, int device_count);

struct Options {
  RegistrationOptions reg;
  bool sizes_given = false;   // --sizes was on the command line
  bool sizes_listed = false;  // ... as N1,N2,... (each must match something)
  CacheMode cache = CacheMode::cold;
  TimingMode timing = TimingMode::events;
  LaunchMode launch = LaunchMode::graph;  // --launch: how events mode puts each timed call on the stream
  bool profile_one = false;  // --profile-one: the DRAM-byte audit's single profiled calls
  SamplingOptions sampling;  // --precision (percent on the command line), --max-time, --min/max-samples
  bool keep_samples = false;  // --keep-samples: every sample's time in the JSON
  bool interleave = false;    // --interleave: a family/type/N's benchmarks sampled round-robin
  std::string results_dir;
  bool list_variants = false;
  bool list_variants_json = false;  // --list-variants=json
  bool help = false;
  DeviceSelection devices;
  std::vector<std::string> passthrough;  // argv[0] and the --benchmark_*/--v flags
};

// args[0] is the program. Throws UsageError naming the first bad argument
// (--benchmark_min_time among them: sampling is set by --max-time and --precision).
Options parse_options(const std::vector<std::string>& args);

// Why a Google Benchmark flag the harness replaces is refused ("--benchmark_min_time",
// "--benchmark_min_warmup_time", "--benchmark_time_unit"), given as a flag or as its
// environment variable: "not used: ..."; "" for any other flag.
std::string replaced_flag_reason(const std::string& flag);

// "LO:HI" (2^LO ... 2^HI) or "N1,N2,..." (distinct, positive); *listed tells which.
std::vector<std::size_t> parse_sizes(const std::string& spec, bool* listed = nullptr);

}  // namespace bench::driver
