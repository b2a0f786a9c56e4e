// Shared by GPU tests: skip (not pass) without a CUDA device, and the fixture
// that runs a declaration's cases through their own verification.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "coverage.hpp"
#include "harness/cuda_check.hpp"
#include "harness/device.hpp"
#include "harness/registry.hpp"

#define BENCH_REQUIRE_GPU()                                         \
  do {                                                              \
    std::string why_no_gpu;                                         \
    if (!::bench::query_device(&why_no_gpu))                        \
      GTEST_SKIP() << "no CUDA GPU: " << why_no_gpu;                \
  } while (0)

namespace bench::testing {

// Ids of the declarations whose family satisfies `pred`: test parameters.
inline std::vector<std::string> ids_where(const std::function<bool(const std::string& family)>& pred) {
  std::vector<std::string> ids;
  for (const auto& d : declarations())
    if (pred(d.family)) ids.push_back(d.id());
  return ids;
}

inline const Declaration& find(const std::string& id) {
  for (const auto& d : declarations())
    if (d.id() == id) return d;
  throw std::out_of_range(id);
}

inline std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  const Declaration& d = find(info.param);
  return d.family + "_" + d.type + "_" + d.variant;
}

// A GPU test with a stream of its own, and no error left behind: over
// ::testing::Test (the API tests of the launch-floor kernels) or a
// parameterised test (one declaration each, below).
template <class Base>
class WithStream : public Base {
 protected:
  void SetUp() override {
    BENCH_REQUIRE_GPU();
    ASSERT_EQ(cudaStreamCreate(&stream_), cudaSuccess);
  }
  void TearDown() override {
    if (!stream_) return;  // skipped: no GPU, nothing to check
    EXPECT_EQ(cudaStreamDestroy(stream_), cudaSuccess);
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  }
  cudaStream_t stream_ = nullptr;
};
using StreamTest = WithStream<::testing::Test>;

// A GPU test over one declaration (the parameter is its id): a stream, and no
// error left behind.
class VariantTest : public WithStream<::testing::TestWithParam<std::string>> {
 protected:
  const Declaration& decl() const { return find(GetParam()); }

  // Every point verifies, twice on the same case (no state left behind).
  void expect_correct(const std::vector<Point>& points) {
    for (const Point& p : points) {
      SCOPED_TRACE(benchmark_name(decl(), p) + " " + offsets_label(decl(), p));
      try {
        const auto c = decl().make_case(p);
        EXPECT_EQ(c->verify(stream_), "");
        EXPECT_EQ(c->verify(stream_), "") << "second run on the same case";
      } catch (const std::exception& e) {
        ADD_FAILURE() << e.what();
      }
    }
  }

  // Every point of the full grid at these sizes verifies.
  void expect_correct_at(const std::vector<std::size_t>& sizes) { expect_correct(expand(decl(), sizes, Suite::full)); }

  // Every point verifies, or is refused with a message about alignment by a
  // variant whose description says what it refuses.
  void expect_correct_or_refused(const std::vector<Point>& points) {
    for (const Point& p : points) {
      SCOPED_TRACE(benchmark_name(decl(), p) + " " + offsets_label(decl(), p));
      try {
        EXPECT_EQ(decl().make_case(p)->verify(stream_), "");
      } catch (const Unsupported& e) {
        EXPECT_NE(std::string(e.what()).find("align"), std::string::npos) << e.what();
        EXPECT_NE(decl().description.find("refuses"), std::string::npos)
            << "refuses (" << e.what() << ") without saying so in its description";
      } catch (const std::exception& e) {
        ADD_FAILURE() << e.what();
      }
    }
  }

  cudaStream_t stream_ = nullptr;
};

}  // namespace bench::testing
