// Every vector_add declaration (GPU kernels, libraries, the CPU reference) at
// every block x batch, at awkward sizes, every element checked against the
// once-rounded sum; and with misaligned pointers (head handled or refused).
#include "gpu_test.hpp"

namespace bench::testing {
namespace {

class VectorAdd : public VariantTest {};

TEST_P(VectorAdd, EveryElementRightAtAwkwardSizes) {
  expect_correct_at({1, 2, 7, 31, 1000, 4097, 1000003, (1u << 22) + 5});
}

TEST_P(VectorAdd, MisalignedPointersAreHandledOrRefusedClearly) {
  expect_correct_or_refused_misaligned({1, 9, 1000003});
}

INSTANTIATE_TEST_SUITE_P(Variants, VectorAdd,
                         ::testing::ValuesIn(ids_where([](const std::string& f) { return f == "vector_add"; })),
                         test_name);

}  // namespace
}  // namespace bench::testing
