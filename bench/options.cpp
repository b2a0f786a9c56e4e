#include "options.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>

namespace bench::driver {
namespace {

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// The finest --precision taken, in percent: finer is below what any timer here resolves.
constexpr double kMinPrecisionPercent = 0.001;

bool all_digits(const std::string& text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// A whole number in plain decimal digits: no sign, no spaces.
std::size_t parse_count(const std::string& text, const std::string& what, bool allow_zero = false) {
  std::size_t pos = 0;
  unsigned long long v = 0;
  try {
    if (all_digits(text)) v = std::stoull(text, &pos);
  } catch (const std::exception&) {
    pos = 0;
  }
  if (pos != text.size() || text.empty() || (v == 0 && !allow_zero))
    throw UsageError(what + ": '" + text + "' is not a " + (allow_zero ? "non-negative" : "positive") + " integer");
  return static_cast<std::size_t>(v);
}

// A plain decimal number: an optional '-' (so that a negative one is refused
// for its sign, not its spelling), digits with at most one point, an optional
// exponent. strtod alone would also take hex, "infinity" and leading spaces.
bool plain_decimal(const std::string& text) {
  std::size_t i = text.size() > 0 && text[0] == '-' ? 1 : 0;
  std::size_t digits = 0, points = 0;
  for (; i < text.size() && text[i] != 'e' && text[i] != 'E'; ++i) {
    if (text[i] == '.') ++points;
    else if (text[i] >= '0' && text[i] <= '9') ++digits;
    else return false;
  }
  if (digits == 0 || points > 1) return false;
  if (i == text.size()) return true;
  std::string exponent = text.substr(i + 1);
  if (!exponent.empty() && (exponent[0] == '-' || exponent[0] == '+')) exponent.erase(0, 1);
  return all_digits(exponent);
}

// A finite number > 0 (>= 0 with allow_zero; -0 reads as 0), below `below`
// when given, all of `text`.
double parse_positive(const std::string& text, const std::string& what, double below = 0, bool allow_zero = false) {
  const double v = plain_decimal(text) ? std::strtod(text.c_str(), nullptr) : std::nan("");
  if (!std::isfinite(v) || !(allow_zero ? v >= 0 : v > 0))
    throw UsageError(what + (allow_zero ? ": expected a finite number >= 0" : ": expected a finite number > 0"));
  if (below > 0 && !(v < below)) throw UsageError(what + ": expected a number below " + std::to_string(int(below)));
  return v == 0 ? 0.0 : v;
}

// Options that take a value: given bare ("--sizes 10:12"), they are named as such.
constexpr const char* kValueOptions[] = {"--suite",       "--sizes",       "--cache",      "--timing",
                                         "--launch",      "--precision",   "--max-time",   "--min-time",
                                         "--min-samples", "--max-samples", "--placements", "--results-dir",
                                         "--device"};

// Google Benchmark flags the harness replaces: refused whatever their value.
void refuse_replaced_gb_flag(const std::string& a) {
  for (const char* flag : {"--benchmark_min_time", "--benchmark_min_warmup_time", "--benchmark_time_unit"})
    if (a == flag || starts_with(a, std::string(flag) + "=")) throw UsageError(a + ": " + replaced_flag_reason(flag));
}

}  // namespace

std::string replaced_flag_reason(const std::string& flag) {
  if (flag == "--benchmark_min_time")
    return "not used: each benchmark is sampled until its median is within --precision=PCT (default 0.5), or for "
           "at most --max-time=SECONDS (default 0.03)";
  // Google Benchmark's warm-up would call the body again before its timed
  // run, and the runner counts calls per benchmark to tell repetitions apart.
  if (flag == "--benchmark_min_warmup_time")
    return "not used: the harness warms up each benchmark itself (its set-up and verification call), then samples "
           "until --precision=PCT or --max-time=SECONDS";
  if (flag == "--benchmark_time_unit") return "not used: every time is in microseconds (each run's time_unit says so)";
  return "";
}

std::vector<std::size_t> parse_sizes(const std::string& spec, bool* listed) {
  const std::string what = "--sizes=" + spec;
  if (auto colon = spec.find(':'); colon != std::string::npos) {
    const std::size_t lo = parse_count(spec.substr(0, colon), what, /*allow_zero=*/true);
    const std::size_t hi = parse_count(spec.substr(colon + 1), what, /*allow_zero=*/true);
    if (lo > hi || hi > 34) throw UsageError(what + ": need LO <= HI <= 34 (exponents of two)");
    if (listed) *listed = false;
    return pow2_sizes(static_cast<int>(lo), static_cast<int>(hi));
  }
  std::vector<std::size_t> sizes;
  std::stringstream ss(spec);
  for (std::string item; std::getline(ss, item, ',');) {
    const std::size_t n = parse_count(item, what);
    // Two benchmarks of one name would be registered: refuse instead.
    if (std::find(sizes.begin(), sizes.end(), n) != sizes.end())
      throw UsageError(what + ": " + std::to_string(n) + " is given twice");
    sizes.push_back(n);
  }
  if (sizes.empty() || spec.back() == ',') throw UsageError(what + ": no sizes given");
  if (listed) *listed = true;
  return sizes;
}

DeviceSelection parse_device_selection(const std::string& value) {
  const std::string what = "--device=" + value;
  DeviceSelection s;
  s.given = true;
  if (value == "all") {
    s.all = true;
    return s;
  }
  std::stringstream ss(value);
  for (std::string item; std::getline(ss, item, ',');) {
    std::size_t pos = 0;
    long v = -1;
    try {
      if (all_digits(item)) v = std::stol(item, &pos);
    } catch (const std::exception&) {
      pos = 0;
    }
    if (item.empty() || pos != item.size() || v > 1023)
      throw UsageError(what + ": '" + item + "' is not a GPU ordinal (expected N, N,M,... or all)");
    if (std::find(s.ordinals.begin(), s.ordinals.end(), v) != s.ordinals.end())
      throw UsageError(what + ": GPU " + std::to_string(v) + " is given twice");
    s.ordinals.push_back(static_cast<int>(v));
  }
  if (s.ordinals.empty() || value.back() == ',')
    throw UsageError(what + ": expected N, N,M,... or all");
  return s;
}

std::vector<int> resolve_devices(const DeviceSelection& selection, int device_count) {
  if (!selection.given) return {0};
  std::vector<int> ordinals = selection.ordinals;
  if (selection.all)
    for (int i = 0; i < device_count; ++i) ordinals.push_back(i);
  for (int o : ordinals)
    if (o >= device_count)
      throw UsageError("--device: no GPU " + std::to_string(o) + " on this machine (it has " +
                       std::to_string(device_count) + ": " +
                       (device_count == 1 ? std::string("0") : "0.." + std::to_string(device_count - 1)) + ")");
  return ordinals;
}

Options parse_options(const std::vector<std::string>& args) {
  Options o;
  o.results_dir = CUDABENCH_SOURCE_DIR "/results";
  o.passthrough.push_back(args.empty() ? "cuda_bench" : args[0]);
  bool min_time_given = false, max_time_given = false, max_samples_given = false;
  std::vector<std::string> seen;  // each harness option's first form, as given
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&a](const char* flag) { return a.substr(std::string(flag).size()); };
    for (const char* option : kValueOptions)
      if (a == option) throw UsageError(a + " needs a value: " + a + "=VALUE");
    // A harness option given twice would silently take the last value.
    if (starts_with(a, "--") && !starts_with(a, "--benchmark_") && !starts_with(a, "--v=") && a != "--help") {
      std::string name = a.substr(0, a.find('='));
      for (const std::string& earlier : seen)
        if (earlier.substr(0, earlier.find('=')) == name)
          throw UsageError(name + ": given twice (" + earlier + ", then " + a + ")");
      seen.push_back(a);
    }
    refuse_replaced_gb_flag(a);
    if (starts_with(a, "--suite=")) {
      const std::string v = value("--suite=");
      if (v == "default") o.reg.suite = Suite::curated;
      else if (v == "full") o.reg.suite = Suite::full;
      else throw UsageError("--suite=" + v + ": expected 'default' or 'full'");
    } else if (starts_with(a, "--sizes=")) {
      o.reg.sizes = parse_sizes(value("--sizes="), &o.sizes_listed);
      o.sizes_given = true;
    } else if (starts_with(a, "--cache=")) {
      const std::string v = value("--cache=");
      if (v == "cold") o.cache = CacheMode::cold;
      else if (v == "hot") o.cache = CacheMode::hot;
      else throw UsageError("--cache=" + v + ": expected 'cold' or 'hot'");
    } else if (starts_with(a, "--timing=")) {
      const std::string v = value("--timing=");
      if (v == "events") o.timing = TimingMode::events;
      else if (v == "graph") o.timing = TimingMode::graph;
      else throw UsageError("--timing=" + v + ": expected 'events' or 'graph'");
    } else if (starts_with(a, "--launch=")) {
      const std::string v = value("--launch=");
      if (v == "graph") o.launch = LaunchMode::graph;
      else if (v == "stream") o.launch = LaunchMode::stream;
      else throw UsageError("--launch=" + v + ": expected 'graph' or 'stream'");
    } else if (a == "--profile-one") {
      o.profile_one = true;
    } else if (starts_with(a, "--precision=")) {
      o.sampling.precision = parse_positive(value("--precision="), a, 100) / 100;
      // Below a thousandth of a percent no timer resolves it (nor a double's sum of samples).
      if (o.sampling.precision < kMinPrecisionPercent / 100)
        throw UsageError(a + ": expected at least " + format_number(kMinPrecisionPercent) + " (percent)");
    } else if (starts_with(a, "--max-time=")) {
      o.sampling.max_time_seconds = parse_positive(value("--max-time="), a);
      max_time_given = true;
    } else if (starts_with(a, "--min-time=")) {
      o.sampling.min_time_seconds = parse_positive(value("--min-time="), a, 0, /*allow_zero=*/true);
      min_time_given = true;
    } else if (starts_with(a, "--min-samples=")) {
      o.sampling.min_samples = parse_count(value("--min-samples="), a);
    } else if (starts_with(a, "--max-samples=")) {
      o.sampling.max_samples = parse_count(value("--max-samples="), a);
      max_samples_given = true;
    } else if (starts_with(a, "--placements=")) {
      const std::size_t k = parse_count(value("--placements="), a, /*allow_zero=*/true);
      if (k < 1 || k > static_cast<std::size_t>(kMaxPlacements))
        throw UsageError(a + ": from 1 (every sample on one copy of the case) to " + std::to_string(kMaxPlacements));
      o.sampling.placements = static_cast<int>(k);
    } else if (a == "--keep-samples") {
      o.keep_samples = true;
    } else if (a == "--interleave") {
      o.interleave = true;
      o.reg.group_major = true;  // a group's members reported in a row (registry.hpp)
    } else if (starts_with(a, "--results-dir=")) {
      o.results_dir = value("--results-dir=");
      if (o.results_dir.empty()) throw UsageError("--results-dir= needs a directory");
    } else if (starts_with(a, "--device=")) {
      o.devices = parse_device_selection(value("--device="));
    } else if (a == "--list-variants" || a == "--list-variants=json") {
      o.list_variants = true;
      o.list_variants_json = a == "--list-variants=json";
    } else if (a == "--help" || a == "-h") {
      o.help = true;
    } else if (starts_with(a, "--benchmark_") || starts_with(a, "--v=")) {
      o.passthrough.push_back(a);  // Google Benchmark's own; it parses and checks them
    } else {
      throw UsageError("unrecognized argument '" + a + "' (see --help)");
    }
  }
  // The default minimum never outlasts a shorter --max-time; one given explicitly is checked.
  if (!min_time_given) o.sampling.min_time_seconds = std::min(o.sampling.min_time_seconds, o.sampling.max_time_seconds);
  // Against a default the user did not type, the refusal names the option given.
  const SamplingOptions defaults;
  if (!max_samples_given && o.sampling.min_samples > o.sampling.max_samples)
    throw UsageError("--min-samples=" + std::to_string(o.sampling.min_samples) + ": above --max-samples (" +
                     std::to_string(defaults.max_samples) + ", the default)");
  if (!max_time_given && o.sampling.min_time_seconds > o.sampling.max_time_seconds)
    throw UsageError("--min-time=" + format_number(o.sampling.min_time_seconds) + ": above --max-time (" +
                     format_number(defaults.max_time_seconds) +
                     ", the default; precision is claimed only after --min-time of sampling)");
  if (const std::string problem = sampling_options_problem(o.sampling); !problem.empty()) throw UsageError(problem);
  if (o.timing == TimingMode::graph && o.launch == LaunchMode::stream)
    throw UsageError("--launch=stream: applies to --timing=events; --timing=graph replays captured graphs");
  return o;
}

}  // namespace bench::driver
