// The checks that verify outputs on the device (harness/device_check.hpp): a
// right output passes, and every kind of wrong one is found, counted and
// located, at sizes with ragged ends, with and without segments; the scan's
// device verdicts name the first wrong prefix sum and its right value, and the
// float32 one draws its line where the host check does.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "common/float_sum.hpp"
#include "families/scan.cuh"
#include "families/vector_add.cuh"
#include "harness/data.hpp"
#include "gpu_test.hpp"
#include "harness/device_buffer.hpp"
#include "harness/device_check.hpp"

namespace bench {
namespace {

using DeviceCheck = testing::StreamTest;

// Host prefix sums of x (wrapping), restarting every `segment` (0: never).
std::vector<int> prefix(const std::vector<int>& x, std::size_t segment) {
  std::vector<int> out(x.size());
  unsigned sum = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (segment != 0 && i % segment == 0) sum = 0;
    sum += static_cast<unsigned>(x[i]);
    out[i] = static_cast<int>(sum);
  }
  return out;
}

struct OnDevice {
  DeviceBuffer<int> in, out;
  OnDevice(const std::vector<int>& x, const std::vector<int>& y) : in(x.size() + 1), out(y.size() + 1) {
    BENCH_CUDA_CHECK(cudaMemcpy(in.get(), x.data(), x.size() * sizeof(int), cudaMemcpyHostToDevice));
    BENCH_CUDA_CHECK(cudaMemcpy(out.get(), y.data(), y.size() * sizeof(int), cudaMemcpyHostToDevice));
  }
};

std::vector<int> data(std::size_t n) {
  std::vector<int> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<int>((i * 2654435761u) >> 7) - (1 << 23);  // wraps often
  return x;
}

TEST_F(DeviceCheck, RightPrefixSumsPassAtRaggedSizes) {
  for (std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{1000}, std::size_t{(1u << 21) + 7}}) {
    for (std::size_t segment : {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{4096}}) {
      const auto x = data(n);
      OnDevice d(x, prefix(x, segment));
      const WrongElements w = wrong_prefix_sums(d.in.get(), d.out.get(), n, segment, stream_);
      EXPECT_EQ(w.count, 0u) << "n " << n << " segment " << segment << " first " << w.first;
    }
  }
  EXPECT_EQ(wrong_prefix_sums(nullptr, nullptr, 0, 0, stream_).count, 0u);
}

TEST_F(DeviceCheck, AWrongPrefixSumIsFoundCountedAndLocated) {
  const std::size_t n = (1u << 20) + 5;
  const auto x = data(n);
  for (std::size_t segment : {std::size_t{0}, std::size_t{4096}}) {
    const auto right = prefix(x, segment);
    // One element off by one: it breaks the rule there and, unless a segment
    // starts right after it or it is the last, at the next element too.
    for (std::size_t at : {std::size_t{0}, std::size_t{777'777}, std::size_t{4095}, n - 1}) {
      auto y = right;
      y[at] += 1;
      OnDevice d(x, y);
      const WrongElements w = wrong_prefix_sums(d.in.get(), d.out.get(), n, segment, stream_);
      const bool next_starts = at + 1 == n || (segment != 0 && (at + 1) % segment == 0);
      EXPECT_EQ(w.count, next_starts ? 1u : 2u) << "segment " << segment << " at " << at;
      EXPECT_EQ(w.first, at) << "segment " << segment;
    }
    // Nothing written (the poison): the first element is wrong already.
    OnDevice poisoned(x, std::vector<int>(n, static_cast<int>(0xA5A5A5A5u)));
    const WrongElements w = wrong_prefix_sums(poisoned.in.get(), poisoned.out.get(), n, segment, stream_);
    EXPECT_GE(w.count, n - 1);
    EXPECT_EQ(w.first, 0u);
  }
  // The right scan checked as if segmented (or the reverse) is wrong at the segment starts.
  OnDevice whole(x, prefix(x, 0));
  const WrongElements w = wrong_prefix_sums(whole.in.get(), whole.out.get(), n, 4096, stream_);
  EXPECT_EQ(w.first, 4096u);
  EXPECT_EQ(w.count, (n - 1) / 4096);
}

TEST_F(DeviceCheck, TheScanVerdictNamesTheFirstWrongSumAndItsRightValue) {
  const std::size_t n = 100'003;
  const auto x = data(n);
  auto y = prefix(x, 0);
  const int want = y[54'321];
  y[54'321] = want + 7;
  OnDevice d(x, y);
  const std::string msg = scan::prefix_sums_device_check(d.in.get(), d.out.get(), n, 0, stream_);
  EXPECT_EQ(msg, "first wrong prefix sum at index 54321 of 100003: expected " + std::to_string(want) + ", got " +
                     std::to_string(want + 7) +
                     "; the rule out[i] = out[i-1] + in[i] breaks at 2 indices (checked on the device)");
  OnDevice right(x, prefix(x, 0));
  EXPECT_EQ(scan::prefix_sums_device_check(right.in.get(), right.out.get(), n, 0, stream_), "");
}

TEST_F(DeviceCheck, WordsThatDifferAreCountedFromTheFirst) {
  const std::size_t n = (1u << 20) + 3;
  const auto x = data(n);
  auto y = x;
  OnDevice same(x, y);
  EXPECT_EQ(wrong_words(same.out.get(), same.in.get(), n, stream_).count, 0u);
  y[12] ^= 1;
  y[n - 1] ^= 1 << 31;  // -0.0 against 0.0 as floats: bits, not values, are compared
  OnDevice d(x, y);
  const WrongElements w = wrong_words(d.out.get(), d.in.get(), n, stream_);
  EXPECT_EQ(w.count, 2u);
  EXPECT_EQ(w.first, 12u);
}

// A wrong variant of an array family: it copies its (first) input to the
// output. A scan so made is right at element 0 only, a vector_add nowhere.
template <class T>
const T* first_input(const Inputs<T, 1>& x) {
  return x.in;
}
template <class T>
const T* first_input(const Inputs<T, 2>& x) {
  return x.a;
}
struct CopiesInput : KernelVariant {
  template <class A>
  static void launch(const A& a) {
    BENCH_CUDA_CHECK(cudaMemcpyAsync(a.out, first_input(a), a.n * sizeof(*a.out), cudaMemcpyDeviceToDevice, a.stream));
  }
};

// Misaligned inputs and output.
Point awkward(std::size_t n) {
  Point p;
  p.n = n;
  p.in_offset = {1, 2};
  p.out_offset = 3;
  return p;
}

// The scan family's case checks int32 and float32 on the device; both refuse
// the wrong variant, misaligned output included.
TEST_F(DeviceCheck, TheScanFamilyChecksBothTypesOnTheDevice) {
  const Point p = awkward(100'001);
  const std::string i32 = scan::Scan::Case<int, CopiesInput>(p).verify(stream_);
  EXPECT_EQ(i32.rfind("first wrong prefix sum at index 1 of 100001: expected ", 0), 0u) << i32;
  EXPECT_NE(i32.find("checked on the device"), std::string::npos) << i32;
  const std::string f32 = scan::Scan::Case<float, CopiesInput>(p).verify(stream_);
  EXPECT_NE(f32.find("prefix sums wrong; first at index 1: expected "), std::string::npos) << f32;
  EXPECT_NE(f32.find("(checked on the device)"), std::string::npos) << f32;
}

// float32 prefix sums of the harness's data, in double, rounded once: right.
std::vector<float> float_prefix(const float* x, std::size_t n) {
  std::vector<float> out(n);
  double sum = 0;
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<float>(sum += x[i]);
  return out;
}

struct FloatOnDevice {
  const float* in;
  DeviceBuffer<float> out;
  FloatOnDevice(std::size_t n, const std::vector<float>& y) : in(random_dataset<float>(n, 0).device.get()), out(n + 1) {
    BENCH_CUDA_CHECK(cudaMemcpy(out.get(), y.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  }
};

TEST_F(DeviceCheck, RightFloatPrefixSumsPassAtRaggedSizes) {
  for (std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{15}, std::size_t{4095}, std::size_t{4096},
                        std::size_t{4097}, std::size_t{(1u << 21) + 7}}) {
    const float* x = random_dataset<float>(n, 0).host.data();
    FloatOnDevice d(n, float_prefix(x, n));
    const WrongFloatPrefix w = wrong_float_prefix_sums(d.in, d.out.get(), n, stream_);
    EXPECT_EQ(w.wrong.count, 0u) << "n " << n << " first " << w.wrong.first;
  }
  EXPECT_EQ(wrong_float_prefix_sums(nullptr, nullptr, 0, stream_).wrong.count, 0u);
}

// The device check draws the line where the host check does: an element moved
// by half the tolerance passes both, by twice it fails both, at a chunk's
// first and last element, inside one and at the end; NaN fails.
TEST_F(DeviceCheck, AFloatPrefixSumOutsideTheToleranceIsFoundLikeTheHostFindsIt) {
  const std::size_t n = (1u << 20) + 5;
  const float* x = random_dataset<float>(n, 0).host.data();
  const auto right = float_prefix(x, n);
  for (std::size_t at : {std::size_t{0}, std::size_t{4095}, std::size_t{4096}, std::size_t{777'777}, n - 1}) {
    double abs_sum = 0;
    for (std::size_t i = 0; i <= at; ++i) abs_sum += std::fabs(static_cast<double>(x[i]));
    const double tol = float_sum_tolerance(at + 1, abs_sum);
    for (double by : {0.5, -0.5, 2.0, -2.0}) {
      auto y = right;
      y[at] = static_cast<float>(static_cast<double>(right[at]) + by * tol);
      FloatOnDevice d(n, y);
      const WrongFloatPrefix w = wrong_float_prefix_sums(d.in, d.out.get(), n, stream_);
      const std::string host = scan::scan_check(x, y.data(), n);
      if (std::fabs(by) < 1) {
        EXPECT_EQ(w.wrong.count, 0u) << "at " << at << " by " << by;
        EXPECT_EQ(host, "") << "at " << at << " by " << by;
      } else {
        EXPECT_EQ(w.wrong.count, 1u) << "at " << at << " by " << by;
        EXPECT_EQ(w.wrong.first, at) << "by " << by;
        EXPECT_NE(host, "") << "at " << at << " by " << by;
        EXPECT_EQ(scan::float_prefix_sums_device_check(d.in, d.out.get(), n, stream_),
                  host + " (checked on the device)");
      }
    }
  }
  std::vector<float> poison(n);
  std::memset(static_cast<void*>(poison.data()), 0xFF, n * sizeof(float));  // NaN, as the case poisons
  FloatOnDevice d(n, poison);
  const WrongFloatPrefix w = wrong_float_prefix_sums(d.in, d.out.get(), n, stream_);
  EXPECT_EQ(w.wrong.count, n);
  EXPECT_EQ(w.wrong.first, 0u);
}

// A tile's prefix added twice (a look-back bug) or lost, from one index on:
// every element after it is wrong, and the first is named with its prefix.
TEST_F(DeviceCheck, AFloatScanWithALostOrDoubledTilePrefixIsRefusedFromThatTile) {
  const std::size_t n = 300'001, tile = 8192 * 17;
  const float* x = random_dataset<float>(n, 0).host.data();
  for (double factor : {0.0, 2.0}) {
    auto y = float_prefix(x, n);
    const double before = y[tile - 1];
    for (std::size_t i = tile; i < n; ++i) y[i] = static_cast<float>(y[i] + (factor - 1) * before);
    FloatOnDevice d(n, y);
    const std::string msg = scan::float_prefix_sums_device_check(d.in, d.out.get(), n, stream_);
    EXPECT_EQ(msg, scan::scan_check(x, y.data(), n) + " (checked on the device)") << factor;
    EXPECT_NE(msg.find(" of 300001 prefix sums wrong; first at index 139264: expected "), std::string::npos) << msg;
  }
}

// out = a + b on the host (the family's own reference), as bytes on the device.
template <class T>
void expect_sums_checked(std::size_t n, cudaStream_t stream) {
  const T* a = random_dataset<T>(n, 0).host.data();
  const T* b = random_dataset<T>(n, 1).host.data();
  std::vector<T> out(n);
  vector_add::host_add(a, b, out.data(), n);
  DeviceBuffer<T> out_d(n);
  const auto check = [&] {
    BENCH_CUDA_CHECK(cudaMemcpy(out_d.get(), out.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    return wrong_sums(random_dataset<T>(n, 0).device.get(), random_dataset<T>(n, 1).device.get(), out_d.get(), n,
                      stream);
  };
  EXPECT_EQ(check().count, 0u) << sizeof(T);
  const std::size_t at = n / 3;
  unsigned char* bytes = reinterpret_cast<unsigned char*>(&out[at]);
  bytes[0] ^= 1;  // the lowest mantissa bit: one step off
  WrongElements w = check();
  EXPECT_EQ(w.count, 1u) << sizeof(T);
  EXPECT_EQ(w.first, at) << sizeof(T);
  std::memset(static_cast<void*>(&out[n - 1]), 0xFF, sizeof(T));  // NaN: an unwritten element
  w = check();
  EXPECT_EQ(w.count, 2u) << sizeof(T);
  EXPECT_EQ(w.first, at) << sizeof(T);
}

TEST_F(DeviceCheck, SumsAreCheckedByTheHostReferencesRuleForEveryType) {
  for (std::size_t n : {std::size_t{3}, std::size_t{(1u << 20) + 1}}) {
    expect_sums_checked<float>(n, stream_);
    expect_sums_checked<__half>(n, stream_);
    expect_sums_checked<__nv_bfloat16>(n, stream_);
  }
}

TEST_F(DeviceCheck, TheVectorAddFamilyChecksOnTheDevice) {
  const std::string msg = vector_add::VectorAdd::Case<float, CopiesInput>(awkward(4099)).verify(stream_);
  EXPECT_NE(msg.find(" of 4099 elements wrong; first at index "), std::string::npos) << msg;
  EXPECT_NE(msg.find("(checked on the device)"), std::string::npos) << msg;
}

}  // namespace
}  // namespace bench
