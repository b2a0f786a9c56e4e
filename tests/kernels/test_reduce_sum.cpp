// Every reduce_sum declaration, at every block x batch it supports, at sizes
// that are not multiples of anything (1, 31, 1000003, 2^24 + 5, ...), verified
// against the host reference exactly as the benchmark verifies before timing.
#include <gtest/gtest.h>

#include "gpu_test.hpp"
#include "harness/cuda_check.hpp"
#include "harness/registry.hpp"

namespace bench {
namespace {

// Declaration ids of one family: the test parameter (readable in test names).
std::vector<std::string> family(const std::string& name) {
  std::vector<std::string> ids;
  for (const auto& d : declarations())
    if (d.family == name) ids.push_back(d.id());
  return ids;
}

const Declaration& find(const std::string& id) {
  for (const auto& d : declarations())
    if (d.id() == id) return d;
  throw std::out_of_range(id);
}

class ReduceSum : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { BENCH_REQUIRE_GPU(); }
};

TEST_P(ReduceSum, CorrectAtAwkwardSizesForEveryBlockAndBatch) {
  const Declaration& d = find(GetParam());
  cudaStream_t stream;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  const std::vector<std::size_t> sizes{1, 2, 31, 1000, 4097, 1000003, (1u << 24) + 5};
  for (const Point& p : expand(d, sizes, Suite::full)) {
    SCOPED_TRACE(benchmark_name(d, p));
    try {
      const auto c = d.make_case(p);
      EXPECT_EQ(c->verify(stream), "");
      // A second run on the same case must agree too (no state left behind).
      EXPECT_EQ(c->verify(stream), "");
    } catch (const std::exception& e) {
      ADD_FAILURE() << e.what();
    }
  }
  EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

INSTANTIATE_TEST_SUITE_P(Variants, ReduceSum, ::testing::ValuesIn(family("reduce_sum")),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           const Declaration& d = find(info.param);
                           return d.type + "_" + d.variant;
                         });

}  // namespace
}  // namespace bench
