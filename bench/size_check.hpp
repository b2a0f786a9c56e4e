// Which requested sizes each selected variant can take, and which cases fit
// the machine's memory: decided from the declarations alone, before any
// benchmark runs or allocates.
#pragma once

#include <cstddef>
#include <regex>
#include <string>
#include <vector>

#include "harness/registry.hpp"

namespace bench::driver {

// --benchmark_filter as Google Benchmark reads it: "" or "all" selects
// everything, a leading '-' negates, otherwise a POSIX extended regex searched
// in the full name (with its "/manual_time" suffix). Used for names that are
// not registered (sizes a variant cannot take); counts come from Google
// Benchmark itself (count_selected_benchmarks).
class FilterMatcher {
 public:
  explicit FilterMatcher(std::string spec);
  // True for every name when the regex does not compile: check valid() first.
  bool matches(const std::string& benchmark_name) const;
  bool valid() const { return valid_; }

 private:
  std::regex re_;
  bool negative_ = false;
  bool valid_ = true;
};

struct SizeReport {
  std::vector<std::string> notes;  // a size skipped for some selected variants, one line each
  std::string error;               // a listed size no selected variant takes ("" when none)
  std::string hint;                // every listed size <= 34: exponents meant as element counts?
};

// For each requested size: the selected variants (some name of theirs at that
// size matches the filter) whose [min_n, max_n] leaves it out. A size listed
// explicitly (--sizes=N1,N2) that no selected variant takes is an error; in a
// range (--sizes=LO:HI) it is a note.
SizeReport check_sizes(const std::vector<Declaration>& decls, const RegistrationOptions& reg, bool sizes_listed,
                       const FilterMatcher& filter);

struct MemoryLimits {
  double device_bytes = 0;  // the GPU's memory
  double host_bytes = 0;    // the machine's memory; 0 = unknown (not checked)
};

struct MemoryFit {
  std::vector<Declaration> decls;  // copies whose max_n leaves out the sizes that do not fit
  std::vector<std::string> notes;  // a size refused for some selected variants, one line each
  bool refused_any = false;
};

// Refuses, before anything is allocated, every case whose declared bytes do not
// fit: device memory >= bytes read + bytes written (inputs and outputs resident
// at once), host memory >= bytes read (each dataset keeps a host copy of its
// inputs). An estimate from below: the L2 flush buffer and library workspace
// come on top, and the run reports an allocation that still fails.
MemoryFit fit_memory(const std::vector<Declaration>& decls, const RegistrationOptions& reg,
                     const MemoryLimits& limits, const FilterMatcher& filter);

// MemTotal from /proc/meminfo (or the given file), in bytes; 0 when unknown.
double host_memory_bytes(const std::string& meminfo = "/proc/meminfo");

// "48.0 GiB".
std::string format_gib(double bytes);

}  // namespace bench::driver
