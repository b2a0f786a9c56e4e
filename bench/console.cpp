#include "console.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>

namespace bench::driver {
namespace {

// Google Benchmark 1.8 renamed error_occurred/error_message to skipped/skip_message.
template <class R>
auto error_of(const R& r, int) -> decltype(r.skip_message, std::string()) {
  return r.skipped ? r.skip_message : std::string();
}
template <class R>
std::string error_of(const R& r, long) {
  return r.error_occurred ? r.error_message : std::string();
}

std::string printf_string(const char* format, double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, value);
  return buf;
}

}  // namespace

std::string format_rate(double bytes_per_second) {
  if (!(bytes_per_second > 0) || !std::isfinite(bytes_per_second)) return "-";
  static const char* const units[] = {"B/s", "kB/s", "MB/s", "GB/s", "TB/s", "PB/s"};
  int u = 0;
  double v = bytes_per_second;
  while (v >= 1000 && u < 5) v /= 1000, ++u;
  return printf_string(v >= 100 ? "%.0f" : "%.2f", v) + " " + units[u];
}

std::string console_line(const benchmark::BenchmarkReporter::Run& run, const std::optional<RunRecord>& record,
                         std::size_t name_width) {
  std::string name = run.run_name.function_name;
  if (run.run_type == benchmark::BenchmarkReporter::Run::RT_Aggregate) name += "_" + run.aggregate_name;
  std::string line = name + std::string(name.size() < name_width ? name_width - name.size() : 1, ' ');
  if (const std::string error = error_of(run, 0); !error.empty()) return line + "ERROR: " + error;
  if (run.run_type == benchmark::BenchmarkReporter::Run::RT_Aggregate &&
      run.aggregate_unit == benchmark::kPercentage)
    return line + printf_string("%10.2f %%", 100 * run.real_accumulated_time);  // a fraction, not a time
  line += printf_string("%10.3f ", run.GetAdjustedRealTime()) + benchmark::GetTimeUnitString(run.time_unit);
  if (record && record->median_seconds > 0) {
    const double half = std::max(record->ci_high_seconds - record->median_seconds,
                                 record->median_seconds - record->ci_low_seconds);
    line += " ± " + printf_string("%.2f%%", 100 * half / record->median_seconds);
    if (record->stop == SampleStop::time) line += " (time cap: precision not reached)";
    if (record->stop == SampleStop::samples) line += " (sample cap: precision not reached)";
    line += "  n=" + std::to_string(record->samples);
    if (record->stop == SampleStop::precision) line += "  precision";
  }
  if (const auto it = run.counters.find("bytes_per_second"); it != run.counters.end())
    line += "  " + format_rate(it->second.value);
  return line;
}

bool SampledConsoleReporter::ReportContext(const Context& context) {
  PrintBasicContext(&GetErrorStream(), context);
  // Google Benchmark sizes its name column for names with their suffixes; ours have none.
  name_width_ = std::max<std::size_t>(context.name_field_width, 20);
  return true;
}

void SampledConsoleReporter::ReportRuns(const std::vector<Run>& runs) {
  for (const Run& run : runs) {
    const auto record = run.run_type == Run::RT_Iteration
                            ? find_run(run.run_name.function_name, run.repetition_index)
                            : std::nullopt;
    GetOutputStream() << console_line(run, record, name_width_) << "\n";
  }
}

}  // namespace bench::driver
