// The measured ceilings verify their own work (a read sums, a write and copies
// compare every element, compute chains match the host's arithmetic) before
// they are trusted as roofs.
#include "gpu_test.hpp"

namespace bench::testing {
namespace {

class Ceiling : public VariantTest {};

TEST_P(Ceiling, VerifiesAtSeveralSizes) { expect_correct_at({1u << 12, 1000003, 1u << 24, 1u << 25}); }

INSTANTIATE_TEST_SUITE_P(Variants, Ceiling,
                         ::testing::ValuesIn(ids_where([](const std::string& f) { return f == "ceiling"; })),
                         test_name);

}  // namespace
}  // namespace bench::testing
