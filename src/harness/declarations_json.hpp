// The registry as JSON (cuda_bench --list-variants=json): what tools need to
// annotate result files written before the benchmarks carried these fields.
// Host (.cpp) files only: nlohmann/json is kept out of nvcc's way.
#pragma once

#include <nlohmann/json.hpp>

#include <vector>

#include "harness/registry.hpp"

namespace bench {

// An array with one object per declaration:
//   {"declaration": "family/type/variant", "family", "type", "variant",
//    "role": "kernel"|"library"|"cpu", "host_work": bool,
//    "reference": "family/type/variant" (absent when the family has none),
//    "description",
//    "block", "batch": {"curated": [...], "full": [...]} or null when not taken}
nlohmann::json declarations_json(const std::vector<Declaration>& decls);

}  // namespace bench
