#include "harness/declarations_json.hpp"

namespace bench {
namespace {

nlohmann::json axis_json(const Axis& axis) {
  if (!axis.used()) return nullptr;
  return {{"curated", axis.curated}, {"full", axis.full}};
}

}  // namespace

nlohmann::json declarations_json(const std::vector<Declaration>& decls) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& d : decls) {
    nlohmann::json j = {{"declaration", d.id()}, {"family", d.family},   {"type", d.type},
                        {"variant", d.variant},   {"role", to_string(d.role)}, {"host_work", d.host_work}};
    if (const std::string ref = reference_of(decls, d); !ref.empty()) j["reference"] = ref;
    j["description"] = d.description;
    j["block"] = axis_json(d.block);
    j["batch"] = axis_json(d.batch);
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace bench
