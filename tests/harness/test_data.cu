// The shared datasets: the device copy (made by a kernel) equals the host copy
// (made by the host's threads) bit for bit, for every element type, at sizes
// that leave a ragged last chunk, and read_back returns the device's bytes.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstring>
#include <string>
#include <vector>

#include "gpu_test.hpp"
#include "harness/data.hpp"

namespace bench {
namespace {

using Dataset_ = testing::StreamTest;

template <typename T>
void expect_copies_equal(std::size_t n, std::uint64_t seed, cudaStream_t stream) {
  const Dataset<T>& ds = random_dataset<T>(n, seed);
  ASSERT_EQ(ds.host.size(), n);
  ASSERT_EQ(ds.device.size(), n);
  const T* got = read_back(ds.device.get(), n, stream);
  std::size_t first = n;
  for (std::size_t i = 0; i < n && first == n; ++i)
    if (std::memcmp(&got[i], &ds.host[i], sizeof(T)) != 0) first = i;
  EXPECT_EQ(first, n) << "type of " << sizeof(T) << " bytes, n " << n << ", seed " << seed
                      << ": the device copy differs from the host copy first at element " << first;
  for (std::size_t i = 0; i < n; i += n / 7 + 1) {
    const T want = random_element<T>(seed, i);
    EXPECT_EQ(std::memcmp(&ds.host[i], &want, sizeof(T)), 0)
        << "element " << i << " is not random_element(" << seed << ", " << i << ")";
  }
}

TEST_F(Dataset_, DeviceCopyEqualsHostCopyForEveryType) {
  for (std::size_t n : {std::size_t{1}, std::size_t{1000}, std::size_t{(1u << 20) + 3}, std::size_t{3'000'017}}) {
    for (std::uint64_t seed : {0ull, 1ull}) {
      expect_copies_equal<int>(n, seed, stream_);
      expect_copies_equal<float>(n, seed, stream_);
      expect_copies_equal<__half>(n, seed, stream_);
      expect_copies_equal<__nv_bfloat16>(n, seed, stream_);
    }
  }
  clear_datasets();
}

TEST_F(Dataset_, ElementsAreNonZeroAndInTheirDocumentedRanges) {
  const std::size_t n = 100'003;
  const auto& ints = random_dataset<int>(n).host;
  const auto& floats = random_dataset<float>(n).host;
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_TRUE(ints[i] != 0 && ints[i] >= -16 && ints[i] <= 16) << "int element " << i << " is " << ints[i];
    const float a = floats[i] < 0 ? -floats[i] : floats[i];
    ASSERT_TRUE(a >= 0.5f && a < 1.5f) << "float element " << i << " is " << floats[i];
  }
  clear_datasets();
}

TEST_F(Dataset_, ReadBackGrowsAndReturnsTheDeviceBytes) {
  for (std::size_t n : {std::size_t{5}, std::size_t{1} << 22, std::size_t{77}}) {
    std::vector<unsigned> want(n);
    for (std::size_t i = 0; i < n; ++i) want[i] = static_cast<unsigned>(i * 2654435761u);
    DeviceBuffer<unsigned> d(n);
    ASSERT_EQ(cudaMemcpy(d.get(), want.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice), cudaSuccess);
    const unsigned* got = read_back(d.get(), n, stream_);
    EXPECT_EQ(std::memcmp(got, want.data(), n * sizeof(unsigned)), 0) << "n " << n;
  }
}

}  // namespace
}  // namespace bench
