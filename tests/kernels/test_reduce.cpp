// Every reduction declaration (sum, max, min, argmax, dot), at every block x
// batch it supports, at sizes that are not multiples of anything, verified
// against the host reference exactly as the benchmark verifies before timing;
// and with misaligned inputs, where a variant is right or refuses clearly.
#include "gpu_test.hpp"

namespace bench::testing {
namespace {

class Reduction : public VariantTest {};

TEST_P(Reduction, CorrectAtAwkwardSizesForEveryBlockAndBatch) {
  expect_correct_at({1, 2, 31, 1000, 4097, 1000003, (1u << 24) + 5});
}

TEST_P(Reduction, MisalignedInputIsCorrectOrRefusedClearly) { expect_correct_or_refused_misaligned({1, 31, 1000003}); }

INSTANTIATE_TEST_SUITE_P(Variants, Reduction, ::testing::ValuesIn(ids_where([](const std::string& f) {
                           return f.rfind("reduce_", 0) == 0 || f == "dot";
                         })),
                         test_name);

}  // namespace
}  // namespace bench::testing
