#include "harness/annotations.hpp"

#include <map>
#include <mutex>

namespace bench {
namespace {
std::mutex& annotations_mutex() {
  static std::mutex m;
  return m;
}
std::map<std::string, nlohmann::json>& store() {
  static std::map<std::string, nlohmann::json> s;
  return s;
}
}  // namespace

void annotate(const std::string& benchmark_name, const std::string& key, nlohmann::json value) {
  std::lock_guard<std::mutex> lock(annotations_mutex());
  store()[benchmark_name][key] = std::move(value);
}

nlohmann::json annotations_for(const std::string& benchmark_name) {
  std::lock_guard<std::mutex> lock(annotations_mutex());
  auto it = store().find(benchmark_name);
  return it == store().end() ? nlohmann::json::object() : it->second;
}

}  // namespace bench
