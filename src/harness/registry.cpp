#include "harness/registry.hpp"

#include <algorithm>
#include <iterator>
#include <tuple>
#include <map>
#include <set>
#include <sstream>

#include "harness/annotations.hpp"

namespace bench {
namespace {

struct Registry {
  std::vector<Declaration> decls;
  bool sorted = true;
};

Registry& registry() {
  static Registry r;
  return r;
}

bool is_name_token(const std::string& s) {
  if (s.empty()) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

bool is_pow2(int v) { return v > 0 && (v & (v - 1)) == 0; }

void validate_axis(const Declaration& d, const char* axis_name, const Axis& axis, bool pow2,
                   std::vector<std::string>& errors) {
  const std::string where = d.id() + ": " + axis_name + " axis";
  if (axis.full.empty() && !axis.curated.empty())
    errors.push_back(where + " has curated values but no full values");
  if (axis.used() && axis.curated.empty())
    errors.push_back(where + " has no curated values for the default suite");
  for (int v : axis.full)
    if (v <= 0 || (pow2 && !is_pow2(v)))
      errors.push_back(where + " value " + std::to_string(v) + " is not a positive power of two");
  for (int v : axis.curated)
    if (std::find(axis.full.begin(), axis.full.end(), v) == axis.full.end())
      errors.push_back(where + " curated value " + std::to_string(v) + " is not in its full list");
}

}  // namespace

const char* to_string(Role role) {
  switch (role) {
    case Role::kernel: return "kernel";
    case Role::library: return "library";
    case Role::cpu: return "cpu";
  }
  return "?";
}

Declaration make_declaration(std::string family, std::string type, const VariantSpec& spec,
                             std::function<Work(std::size_t n)> work,
                             std::function<std::unique_ptr<Case>(const Point&)> make_case) {
  Declaration d;
  d.family = std::move(family);
  d.type = std::move(type);
  d.variant = spec.name;
  d.description = spec.description;
  d.block = spec.block;
  d.batch = spec.batch;
  d.work = std::move(work);
  d.make_case = std::move(make_case);
  return d;
}

bool declare(Declaration decl) {
  registry().decls.push_back(std::move(decl));
  registry().sorted = false;
  return true;
}

const std::vector<Declaration>& declarations() {
  // Static initialisers run file by file in link order (the sorted source
  // glob), each file's declarations in the order it writes them: the write-ups'
  // ladder order. Group by family and type (once, after the last declaration)
  // with a stable sort, so listings, registration and charts keep that order.
  Registry& r = registry();
  if (!r.sorted) {
    std::stable_sort(r.decls.begin(), r.decls.end(), [](const Declaration& a, const Declaration& b) {
      return std::tie(a.family, a.type) < std::tie(b.family, b.type);
    });
    r.sorted = true;
  }
  return r.decls;
}

std::vector<std::string> validate(const std::vector<Declaration>& decls) {
  std::vector<std::string> errors;
  std::set<std::string> seen;
  for (const auto& d : decls) {
    if (!is_name_token(d.family) || !is_name_token(d.type) || !is_name_token(d.variant))
      errors.push_back("'" + d.id() + "': family, type and variant must be non-empty [a-z0-9_]");
    if (!seen.insert(d.id()).second) errors.push_back(d.id() + ": declared twice");
    if (d.description.empty()) errors.push_back(d.id() + ": no description");
    if (!d.work) errors.push_back(d.id() + ": no bytes/ops model");
    if (!d.make_case) errors.push_back(d.id() + ": no launcher");
    if (d.min_n < 1 || d.min_n > d.max_n) errors.push_back(d.id() + ": needs 1 <= min_n <= max_n");
    validate_axis(d, "block", d.block, /*pow2=*/true, errors);
    validate_axis(d, "batch", d.batch, /*pow2=*/true, errors);
    if (d.work) {
      const Work w = d.work(1024);
      if (!(w.bytes() > 0) || !(w.ops >= 0))
        errors.push_back(d.id() + ": bytes/ops model gives no bytes for N=1024");
    }
    if (d.role == Role::cpu && !d.host_work) errors.push_back(d.id() + ": a cpu declaration works on the host (host_work)");
    if (d.is_reference && d.role == Role::cpu) errors.push_back(d.id() + ": the CPU cannot be a family's reference");
  }
  // References: a family either has none (the ceilings) or exactly one per type.
  std::map<std::string, std::map<std::string, int>> references;  // family -> type -> count
  for (const auto& d : decls) references[d.family][d.type] += d.is_reference ? 1 : 0;
  for (const auto& [family, types] : references) {
    const bool any = std::any_of(types.begin(), types.end(), [](const auto& t) { return t.second > 0; });
    for (const auto& [type, count] : types)
      if (any && count != 1)
        errors.push_back(family + "/" + type + ": " + std::to_string(count) +
                         " reference declarations; a family with references needs exactly one per type");
  }
  return errors;
}

std::string reference_of(const std::vector<Declaration>& decls, const Declaration& d) {
  for (const auto& r : decls)
    if (r.is_reference && r.family == d.family && r.type == d.type) return r.id();
  return "";
}

std::string benchmark_name(const Declaration& decl, const Point& point) {
  std::ostringstream os;
  os << decl.id() << "/N:" << point.n;
  if (decl.block.used()) os << "/block:" << point.block;
  if (decl.batch.used()) os << "/batch:" << point.batch;
  return os.str();
}

std::vector<std::size_t> pow2_sizes(int lo, int hi) {
  std::vector<std::size_t> sizes;
  for (int e = lo; e <= hi; ++e) sizes.push_back(std::size_t{1} << e);
  return sizes;
}

std::vector<Point> expand(const Declaration& decl, const std::vector<std::size_t>& sizes, Suite suite) {
  auto values = [suite](const Axis& axis) {
    if (!axis.used()) return std::vector<int>{0};
    return suite == Suite::full ? axis.full : axis.curated;
  };
  std::vector<Point> points;
  for (int block : values(decl.block))
    for (int batch : values(decl.batch))
      for (std::size_t n : sizes)
        if (n >= decl.min_n && n <= decl.max_n) points.push_back(Point{n, block, batch});
  return points;
}

std::string interleave_group(const Declaration& decl, const Point& point) {
  return decl.family + "/" + decl.type + "/N:" + std::to_string(point.n);
}

std::vector<std::string> register_benchmarks(const std::vector<Declaration>& decls,
                                             const RegistrationOptions& options,
                                             const BenchmarkBody& body) {
  // Declaration-major (each variant's points in a row), or with group_major each
  // interleave group's in a row, in the order of the groups' first points.
  std::vector<std::pair<const Declaration*, Point>> order;
  for (const Declaration& decl : decls)
    for (const Point& point : expand(decl, options.sizes, options.suite)) order.emplace_back(&decl, point);
  if (options.group_major) {
    // Each point into its group's row (one group key a point), rows in the order of
    // their first points, each row in declaration order.
    std::map<std::string, std::size_t> row_of;
    std::vector<std::vector<std::pair<const Declaration*, Point>>> rows;
    for (auto& entry : order) {
      const auto [it, added] = row_of.emplace(interleave_group(*entry.first, entry.second), rows.size());
      if (added) rows.emplace_back();
      rows[it->second].push_back(std::move(entry));
    }
    order.clear();
    for (auto& row : rows) std::move(row.begin(), row.end(), std::back_inserter(order));
  }
  std::vector<std::string> names;
  for (const auto& [decl_ptr, point] : order) {
    const Declaration& decl = *decl_ptr;
    const std::string reference = reference_of(decls, decl);
    std::string name = benchmark_name(decl, point);
    auto* b = benchmark::RegisterBenchmark(
        name.c_str(), [&decl, point = point, body](benchmark::State& state) { body(state, decl, point); });
    // One call per repetition: the runner samples inside it until the median
    // is precise (no sizing runs that would repeat the set-up).
    b->Iterations(1)->UseManualTime()->Unit(benchmark::kMicrosecond);
    annotate(name, "declaration", decl.id());
    annotate(name, "role", to_string(decl.role));
    annotate(name, "host_work", decl.host_work);
    if (!reference.empty()) annotate(name, "reference", reference);
    names.push_back(std::move(name));
  }
  return names;
}

}  // namespace bench
