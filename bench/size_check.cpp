#include "size_check.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

namespace bench::driver {
namespace {

// Google Benchmark's instance name of a registration (UseManualTime adds this).
constexpr const char* kTimeSuffix = kRunNameSuffix;

bool selected_at(const Declaration& d, std::size_t n, const RegistrationOptions& reg, const FilterMatcher& filter) {
  Declaration any_size = d;  // expand() drops sizes outside [min_n, max_n]; here every size counts
  any_size.min_n = 1;
  any_size.max_n = std::numeric_limits<std::size_t>::max();
  for (const Point& p : expand(any_size, {n}, reg.suite))
    if (filter.matches(benchmark_name(d, p) + kTimeSuffix)) return true;
  return false;
}

std::string range_text(const Declaration& d, std::size_t n) {
  return d.id() + (n < d.min_n ? " (N >= " + std::to_string(d.min_n) + ")" : " (N <= " + std::to_string(d.max_n) + ")");
}

// "a, b, c (and 4 more)".
std::string name_list(const std::vector<std::string>& names, std::size_t shown = 5) {
  std::string s;
  for (std::size_t i = 0; i < names.size() && i < shown; ++i) s += (i ? ", " : "") + names[i];
  if (names.size() > shown) s += " (and " + std::to_string(names.size() - shown) + " more)";
  return s;
}

std::string variants(std::size_t k) { return std::to_string(k) + (k == 1 ? " selected variant" : " selected variants"); }

}  // namespace

FilterMatcher::FilterMatcher(std::string spec) {
  if (spec.empty() || spec == "all") spec = ".";
  if (spec[0] == '-') {
    negative_ = true;
    spec.erase(0, 1);
  }
  try {
    re_ = std::regex(spec, std::regex_constants::extended);
  } catch (const std::regex_error&) {
    valid_ = false;  // Google Benchmark reports it (count_selected_benchmarks)
  }
}

bool FilterMatcher::matches(const std::string& benchmark_name) const {
  if (!valid_) return true;
  return std::regex_search(benchmark_name, re_) != negative_;
}

SizeReport check_sizes(const std::vector<Declaration>& decls, const RegistrationOptions& reg, bool sizes_listed,
                       const FilterMatcher& filter) {
  SizeReport report;
  // --sizes=24,28 lists N = 24 and 28 elements; one who meant 2^24 and 2^28 learns it now.
  if (sizes_listed && !reg.sizes.empty() &&
      std::all_of(reg.sizes.begin(), reg.sizes.end(), [](std::size_t n) { return n <= 34; })) {
    std::string list;
    for (std::size_t n : reg.sizes) list += (list.empty() ? "" : ",") + std::to_string(n);
    report.hint = ("--sizes=" + list + " lists N = " + list +
                           " elements; for powers of two write exponents as a range (--sizes=LO:HI, e.g. --sizes=" +
                           std::to_string(reg.sizes.front()) + ":" + std::to_string(reg.sizes.back()) +
                           ") or the element counts");
  }
  for (std::size_t n : reg.sizes) {
    std::vector<std::string> outside;
    std::size_t inside = 0;
    for (const Declaration& d : decls) {
      if (!selected_at(d, n, reg, filter)) continue;
      if (n >= d.min_n && n <= d.max_n) ++inside;
      else outside.push_back(range_text(d, n));
    }
    if (outside.empty()) continue;
    if (inside == 0 && sizes_listed) {
      if (report.error.empty())
        report.error = "--sizes: no selected variant takes N=" + std::to_string(n) + ": " + name_list(outside);
      continue;
    }
    report.notes.push_back("N=" + std::to_string(n) + " is outside the range of " + variants(outside.size()) +
                           ", skipped for " + (outside.size() == 1 ? "it: " : "them: ") + name_list(outside));
  }
  return report;
}

MemoryFit fit_memory(const std::vector<Declaration>& decls, const RegistrationOptions& reg,
                     const MemoryLimits& limits, const FilterMatcher& filter) {
  struct Refusal {
    std::vector<std::string> names;
    double device_need = 0, host_need = 0;
    bool device = false, host = false;
  };
  std::map<std::size_t, Refusal> refused;  // by N
  std::vector<std::size_t> sizes = reg.sizes;
  std::sort(sizes.begin(), sizes.end());
  MemoryFit fit;
  for (const Declaration& d : decls) {
    std::size_t first_refused = 0;
    for (std::size_t n : sizes) {
      if (n < d.min_n || n > d.max_n) continue;
      const Work w = d.work(n);
      const double device_need = w.bytes_read + w.bytes_written;
      const double host_need = w.bytes_read;
      const bool over_device = device_need > limits.device_bytes;
      const bool over_host = limits.host_bytes > 0 && host_need > limits.host_bytes;
      if (!over_device && !over_host) continue;
      if (!first_refused) first_refused = n;
      if (!selected_at(d, n, reg, filter)) continue;
      Refusal& r = refused[n];
      r.names.push_back(d.id());
      r.device = r.device || over_device;
      r.host = r.host || over_host;
      if (over_device) r.device_need = std::max(r.device_need, device_need);
      if (over_host) r.host_need = std::max(r.host_need, host_need);
    }
    if (!first_refused) {
      fit.decls.push_back(d);
      continue;
    }
    fit.refused_any = true;
    // The bytes grow with N: every size from the first refused one on is out.
    if (first_refused - 1 < d.min_n) continue;
    Declaration fitted = d;
    fitted.max_n = first_refused - 1;
    fit.decls.push_back(std::move(fitted));
  }
  for (const auto& [n, r] : refused) {
    std::string why;
    if (r.device)
      why = "needs up to " + format_gib(r.device_need) + " of device memory (bytes read + written), the GPU has " +
            format_gib(limits.device_bytes);
    if (r.host)
      why += std::string(why.empty() ? "" : "; ") + "needs up to " + format_gib(r.host_need) +
             " of host memory (a host copy of the inputs), the machine has " + format_gib(limits.host_bytes);
    fit.notes.push_back("N=" + std::to_string(n) + " refused for " + variants(r.names.size()) + ": " + why + ": " +
                        name_list(r.names));
  }
  return fit;
}

double host_memory_bytes(const std::string& meminfo) {
  std::ifstream in(meminfo);
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::string key, unit;
    double value = 0;
    if (fields >> key >> value >> unit && key == "MemTotal:") return unit == "kB" ? value * 1024 : value;
  }
  return 0;
}

std::string format_gib(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / (1024.0 * 1024.0 * 1024.0));
  return buf;
}

}  // namespace bench::driver
