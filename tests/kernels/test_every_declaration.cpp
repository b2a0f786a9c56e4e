// Every declaration, whatever its family (kernels, libraries, the CPU
// reference, the ceilings), verified exactly as the benchmark verifies before
// it times: at awkward sizes over every block x batch it supports, twice per
// case; and with each input and the output misaligned, alone and together,
// where a variant is right or refuses clearly. A new family is tested here
// without an edit (tests/coverage.hpp says what runs).
#include "gpu_test.hpp"

namespace bench::testing {
namespace {

class EveryDeclaration : public VariantTest {};

TEST_P(EveryDeclaration, CorrectAtAwkwardSizesForEveryBlockAndBatch) { expect_correct(sized_points(decl())); }

TEST_P(EveryDeclaration, MisalignedPointersAreHandledOrRefusedClearly) {
  if (misalignable_arrays(decl()) == 0) GTEST_SKIP() << decl().id() << " owns its data: no pointer to misalign";
  expect_correct_or_refused(misaligned_points(decl()));
}

INSTANTIATE_TEST_SUITE_P(Declarations, EveryDeclaration, ::testing::ValuesIn(gpu_test_ids()), test_name);

}  // namespace
}  // namespace bench::testing
