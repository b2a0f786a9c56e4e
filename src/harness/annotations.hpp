// Per-benchmark fields the results JSON carries beside Google Benchmark's own
// (role, reference, host_work, clocks, ...). Whoever knows a fact about a
// benchmark annotates it by the name it was registered under
// (bench::benchmark_name(decl, point), without Google Benchmark's
// "/manual_time" suffix); the results writer merges the annotations into that
// benchmark's JSON object (every run and aggregate of it).
//
// Include from host (.cpp) files: nlohmann/json is kept out of nvcc's way.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace bench {

// Sets `key` of the benchmark's annotations (a later call replaces the value).
void annotate(const std::string& benchmark_name, const std::string& key, nlohmann::json value);

// The benchmark's annotations: an object, empty when it has none.
nlohmann::json annotations_for(const std::string& benchmark_name);

}  // namespace bench
