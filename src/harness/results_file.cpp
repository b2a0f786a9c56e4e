#include "harness/results_file.hpp"

#include <filesystem>
#include <ostream>

#include "harness/device.hpp"

namespace bench {

std::string new_results_path(const std::string& dir, const std::string& gpu_name, std::time_t now) {
  char stamp[32];
  std::tm utc{};
  gmtime_r(&now, &utc);
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &utc);
  const std::filesystem::path base = std::filesystem::path(dir) / (slug(gpu_name) + "_" + stamp);
  std::filesystem::path path = base.string() + ".json";
  for (int k = 2; std::filesystem::exists(path); ++k) path = base.string() + "_" + std::to_string(k) + ".json";
  return path.string();
}

void FlushingJsonReporter::ReportRuns(const std::vector<Run>& reports) {
  benchmark::JSONReporter::ReportRuns(reports);
  GetOutputStream().flush();
}

}  // namespace bench
