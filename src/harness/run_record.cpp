#include "harness/run_record.hpp"

#include <map>
#include <mutex>
#include <utility>

namespace bench {
namespace {

struct Store {
  std::mutex mutex;
  std::map<std::pair<std::string, long long>, RunRecord> runs;
};

Store& store() {
  static Store s;
  return s;
}

}  // namespace

void record_run(const std::string& name, long long repetition, RunRecord record) {
  Store& s = store();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.runs[{name, repetition}] = std::move(record);
}

std::optional<RunRecord> find_run(const std::string& name, long long repetition) {
  Store& s = store();
  std::lock_guard<std::mutex> lock(s.mutex);
  const auto it = s.runs.find({name, repetition});
  if (it == s.runs.end()) return std::nullopt;
  return it->second;
}

}  // namespace bench
