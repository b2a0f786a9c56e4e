// The datasets' element values on the host (random_element, which the host
// copies and the references read): float32 is the documented formula written
// plainly (sign bit 0 of the hash, 0.5 + 24 bits / 2^24), whatever the
// branch-free form data.cu computes it in; bfloat16 is that float rounded by
// cuda_bf16's own function (to nearest, ties to even), whatever integer
// rounding data.cu uses on the host. The device copies equal these bit for bit
// (tests/harness/test_data.cu, on a GPU).
#include <gtest/gtest.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "harness/data.hpp"

namespace bench {
namespace {

// splitmix64 over seed * FNV prime ^ index: data.cu's hash, spelled out here so
// that a change to the values fails this test.
std::uint64_t plain_hash(std::uint64_t seed, std::uint64_t index) {
  std::uint64_t x = (seed * 0x100000001B3ull ^ index) + 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

float plain_float(std::uint64_t seed, std::uint64_t index) {
  const std::uint64_t h = plain_hash(seed, index);
  const float u = static_cast<float>(h >> 40) * 0x1.0p-24f;
  return (h & 1) ? 0.5f + u : -(0.5f + u);
}

std::uint32_t bits_of(float x) {
  std::uint32_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

std::uint16_t bits_of(__nv_bfloat16 x) { return static_cast<__nv_bfloat16_raw>(x).x; }

// Indices at the start, and up past 2^32 (the largest suites' 2^30 elements and
// beyond); made once, read by every seed of every test.
const std::vector<std::uint64_t>& indices() {
  static const std::vector<std::uint64_t> at = [] {
    std::vector<std::uint64_t> v;
    for (std::uint64_t i = 0; i < 400'000; ++i) v.push_back(i);
    for (std::uint64_t i = (std::uint64_t{1} << 30) - 1000; i < (std::uint64_t{1} << 30) + 1000; ++i) v.push_back(i);
    for (std::uint64_t i = (std::uint64_t{1} << 32) - 5; i < (std::uint64_t{1} << 32) + 5; ++i) v.push_back(i);
    return v;
  }();
  return at;
}

TEST(Elements, FloatsAreTheDocumentedFormula) {
  for (std::uint64_t seed : {0ull, 1ull, 2ull, 977ull}) {
    std::size_t negative = 0;
    for (std::uint64_t i : indices()) {
      const float got = random_element<float>(seed, i), want = plain_float(seed, i);
      ASSERT_EQ(bits_of(got), bits_of(want)) << "seed " << seed << ", element " << i << ": " << got << ", want "
                                             << want;
      negative += got < 0;
    }
    EXPECT_GT(negative, 0u) << "seed " << seed;  // both signs were compared
  }
}

TEST(Elements, BfloatsAreTheFloatsRoundedByCudaBf16) {
  std::size_t ties = 0;
  for (std::uint64_t seed : {0ull, 1ull, 2ull}) {
    for (std::uint64_t i : indices()) {
      const float f = plain_float(seed, i);
      ties += (bits_of(f) & 0xFFFFu) == 0x8000u;
      const std::uint16_t got = bits_of(random_element<__nv_bfloat16>(seed, i));
      const std::uint16_t want = bits_of(__float2bfloat16_rn(f));
      ASSERT_EQ(got, want) << "seed " << seed << ", element " << i << " (float bits 0x" << std::hex << bits_of(f)
                           << ")";
    }
  }
  EXPECT_GT(ties, 0u) << "no float of these fell halfway between two bfloat16s: ties to even went unchecked";
}

TEST(Elements, HalvesAreTheFloatsRoundedByCudaFp16) {
  for (std::uint64_t i : indices()) {
    const std::uint16_t got = static_cast<__half_raw>(random_element<__half>(0, i)).x;
    const std::uint16_t want = static_cast<__half_raw>(__float2half_rn(plain_float(0, i))).x;
    ASSERT_EQ(got, want) << "element " << i;
  }
}

}  // namespace
}  // namespace bench
