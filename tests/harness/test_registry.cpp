// The registry on its own: naming, expansion, validation, the registration loop.
#include <gtest/gtest.h>

#include <algorithm>

#include "harness/annotations.hpp"
#include "harness/registry.hpp"

namespace bench {
namespace {

Declaration fake(std::string variant, Axis block = {}, Axis batch = {}, std::string type = "i32") {
  Declaration d;
  d.family = "reduce_sum";
  d.type = std::move(type);
  d.variant = std::move(variant);
  d.description = "test";
  d.block = std::move(block);
  d.batch = std::move(batch);
  d.work = [](std::size_t n) { return Work{4.0 * n, 4.0, n - 1.0}; };
  d.make_case = [](const Point&) -> std::unique_ptr<Case> { return nullptr; };
  return d;
}

TEST(Registry, NameListsOnlyTheAxesTheDeclarationTakes) {
  EXPECT_EQ(benchmark_name(fake("cub"), Point{1024, 0, 0}), "reduce_sum/i32/cub/N:1024");
  EXPECT_EQ(benchmark_name(fake("tree", Axis{{256}, {128, 256}}), Point{1 << 20, 256, 0}),
            "reduce_sum/i32/tree/N:1048576/block:256");
  EXPECT_EQ(benchmark_name(fake("b", Axis{{256}, {256}}, Axis{{8}, {8}}), Point{7, 256, 8}),
            "reduce_sum/i32/b/N:7/block:256/batch:8");
}

TEST(Registry, Pow2Sizes) {
  const auto s = pow2_sizes(10, 12);
  EXPECT_EQ(s, (std::vector<std::size_t>{1024, 2048, 4096}));
  EXPECT_EQ(pow2_sizes(10, 30).size(), 21u);
}

TEST(Registry, ExpandCuratedAndFull) {
  const auto d = fake("b", Axis{{256}, {128, 256, 512}}, Axis{{8, 16}, {4, 8, 16}});
  const std::vector<std::size_t> sizes{1024, 2048};
  EXPECT_EQ(expand(d, sizes, Suite::curated).size(), 1u * 2u * 2u);
  EXPECT_EQ(expand(d, sizes, Suite::full).size(), 3u * 3u * 2u);
  const auto lib = expand(fake("cub"), sizes, Suite::full);
  ASSERT_EQ(lib.size(), 2u);
  EXPECT_EQ(lib[0].block, 0);
  EXPECT_EQ(lib[0].batch, 0);
}

TEST(Registry, ExpandKeepsSizesWithinTheDeclaredRange) {
  auto d = fake("ranged");
  d.min_n = 2048;
  d.max_n = 4096;
  const auto pts = expand(d, {1024, 2048, 4096, 8192}, Suite::curated);
  ASSERT_EQ(pts.size(), 2u);
  EXPECT_EQ(pts[0].n, 2048u);
  EXPECT_EQ(pts[1].n, 4096u);
  d.min_n = 8192;
  EXPECT_FALSE(validate({d}).empty());  // min_n > max_n
}

TEST(Registry, ValidateCatchesEachProblem) {
  EXPECT_TRUE(validate({fake("ok", Axis{{256}, {256}})}).empty());

  auto errors = validate({fake("dup"), fake("dup")});
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("declared twice"), std::string::npos);

  EXPECT_FALSE(validate({fake("Bad/Name")}).empty());
  EXPECT_FALSE(validate({fake("x", Axis{{96}, {96}})}).empty());          // not a power of two
  EXPECT_FALSE(validate({fake("x", Axis{{512}, {128, 256}})}).empty());   // curated not in full
  EXPECT_FALSE(validate({fake("x", Axis{{}, {128}})}).empty());           // nothing curated

  auto no_model = fake("x");
  no_model.work = nullptr;
  EXPECT_FALSE(validate({no_model}).empty());
}

Declaration reference(std::string variant, std::string type = "i32") {
  Declaration d = fake(std::move(variant), {}, {}, std::move(type));
  d.role = Role::library;
  d.is_reference = true;
  return d;
}

TEST(Registry, AFamilyHasNoReferenceOrExactlyOnePerType) {
  EXPECT_TRUE(validate({fake("a"), fake("b", {}, {}, "f32")}).empty());  // none at all (like the ceilings)
  EXPECT_TRUE(validate({reference("cub"), reference("cub", "f32"), fake("a")}).empty());

  auto errors = validate({reference("cub"), fake("a", {}, {}, "f32")});  // f32 has none
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("reduce_sum/f32: 0 reference declarations"), std::string::npos) << errors[0];

  errors = validate({reference("cub"), reference("thrust")});  // two for i32
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("reduce_sum/i32: 2 reference declarations"), std::string::npos) << errors[0];
}

TEST(Registry, CpuDeclarationsWorkOnTheHostAndAreNoReference) {
  auto cpu = fake("cpu");
  cpu.role = Role::cpu;
  EXPECT_FALSE(validate({cpu}).empty());  // host_work not stated
  cpu.host_work = true;
  EXPECT_TRUE(validate({cpu}).empty());
  cpu.is_reference = true;
  EXPECT_FALSE(validate({cpu}).empty());
}

TEST(Registry, ReferenceOfFindsTheFamilysReferenceForTheSameType) {
  auto other_family = reference("cub");
  other_family.family = "reduce_max";
  const std::vector<Declaration> decls{fake("a"), reference("cub"), reference("cub", "f32"), other_family,
                                       fake("b", {}, {}, "f16")};
  EXPECT_EQ(reference_of(decls, decls[0]), "reduce_sum/i32/cub");
  EXPECT_EQ(reference_of(decls, decls[1]), "reduce_sum/i32/cub");  // a reference is its own
  EXPECT_EQ(reference_of(decls, decls[4]), "");                    // f16 has none
}

TEST(Registry, RegistrationAnnotatesRoleHostWorkAndReference) {
  auto thrust = fake("annotated_thrust");
  thrust.role = Role::library;
  thrust.host_work = true;
  auto cub = reference("annotated_cub");
  auto other = fake("annotated_kernel", {}, {}, "bf16");  // its type has no reference
  RegistrationOptions opt;
  opt.sizes = {4096};
  register_benchmarks({thrust, cub, other}, opt, [](benchmark::State&, const Declaration&, const Point&) {});
  const auto t = annotations_for("reduce_sum/i32/annotated_thrust/N:4096");
  EXPECT_EQ(t.value("declaration", ""), "reduce_sum/i32/annotated_thrust");
  EXPECT_EQ(t.value("role", ""), "library");
  EXPECT_EQ(t.value("host_work", false), true);
  EXPECT_EQ(t.value("reference", ""), "reduce_sum/i32/annotated_cub");
  const auto k = annotations_for("reduce_sum/bf16/annotated_kernel/N:4096");
  EXPECT_EQ(k.value("role", ""), "kernel");
  EXPECT_EQ(k.value("host_work", true), false);
  EXPECT_FALSE(k.contains("reference"));
}

TEST(Registry, RegistrationLoopRegistersEveryPointOnce) {
  std::vector<Declaration> decls{fake("a", Axis{{256}, {128, 256}}), fake("b")};
  RegistrationOptions opt;
  opt.sizes = {1024, 4096};
  opt.suite = Suite::full;
  const auto names = register_benchmarks(decls, opt, [](benchmark::State&, const Declaration&, const Point&) {});
  EXPECT_EQ(names.size(), 2u * 2u + 2u);
  EXPECT_NE(std::find(names.begin(), names.end(), "reduce_sum/i32/a/N:4096/block:128"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "reduce_sum/i32/b/N:1024"), names.end());
}

TEST(Registry, InterleavedRunsRegisterEachGroupInARow) {
  // --interleave samples a family/type/N group at its first member and holds the
  // others' results until Google Benchmark reaches them: in a row, a stop between
  // groups drops none (Runner::run).
  std::vector<Declaration> decls{fake("ga", Axis{{256}, {128, 256}}), fake("gb"), fake("gc", {}, {}, "f32")};
  RegistrationOptions opt;
  opt.sizes = {1024, 4096};
  opt.suite = Suite::full;
  const auto body = [](benchmark::State&, const Declaration&, const Point&) {};
  EXPECT_EQ(register_benchmarks(decls, opt, body),
            (std::vector<std::string>{"reduce_sum/i32/ga/N:1024/block:128", "reduce_sum/i32/ga/N:4096/block:128",
                                      "reduce_sum/i32/ga/N:1024/block:256", "reduce_sum/i32/ga/N:4096/block:256",
                                      "reduce_sum/i32/gb/N:1024", "reduce_sum/i32/gb/N:4096",
                                      "reduce_sum/f32/gc/N:1024", "reduce_sum/f32/gc/N:4096"}));
  opt.group_major = true;
  EXPECT_EQ(register_benchmarks(decls, opt, body),
            (std::vector<std::string>{"reduce_sum/i32/ga/N:1024/block:128", "reduce_sum/i32/ga/N:1024/block:256",
                                      "reduce_sum/i32/gb/N:1024", "reduce_sum/i32/ga/N:4096/block:128",
                                      "reduce_sum/i32/ga/N:4096/block:256", "reduce_sum/i32/gb/N:4096",
                                      "reduce_sum/f32/gc/N:1024", "reduce_sum/f32/gc/N:4096"}));
  EXPECT_EQ(interleave_group(decls[0], Point{4096, 256, 0}), "reduce_sum/i32/N:4096");
}

}  // namespace
}  // namespace bench
