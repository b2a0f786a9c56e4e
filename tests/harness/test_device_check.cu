// The checks that verify outputs on the device (harness/device_check.hpp): a
// right output passes, and every kind of wrong one is found, counted and
// located, at sizes with ragged ends, with and without segments; the scan's
// device verdict names the first wrong prefix sum and its right value.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

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

// The scan family's case takes the device check for int32 and the host check
// for float32; both refuse the wrong variant, misaligned output included.
TEST_F(DeviceCheck, TheScanFamilyChecksInt32OnTheDeviceAndFloat32OnTheHost) {
  const Point p = awkward(100'001);
  const std::string i32 = scan::Scan::Case<int, CopiesInput>(p).verify(stream_);
  EXPECT_EQ(i32.rfind("first wrong prefix sum at index 1 of 100001: expected ", 0), 0u) << i32;
  EXPECT_NE(i32.find("checked on the device"), std::string::npos) << i32;
  const std::string f32 = scan::Scan::Case<float, CopiesInput>(p).verify(stream_);
  EXPECT_NE(f32.find("prefix sums wrong; first at index 1"), std::string::npos) << f32;
  EXPECT_EQ(f32.find("on the device"), std::string::npos) << f32;
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
