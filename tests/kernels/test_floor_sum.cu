// The launch-floor sum as an API (kernels/reduce/floor_sum.cuh), beyond what
// every reduce_sum declaration is tested for (test_reduce.cpp): bitwise
// determinism of float sums over 100 calls, every head/tail split, n = 0, the
// caller-workspace overload with two streams at once, and clear refusals.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "gpu_test.hpp"
#include "harness/data.hpp"
#include "harness/device_buffer.hpp"
#include "kernels/reduce/floor_sum.cuh"

namespace bench::testing {
namespace {

using launch_floor::Config;
using launch_floor::floor_sum;

class FloorSum : public ::testing::Test {
 protected:
  void SetUp() override {
    BENCH_REQUIRE_GPU();
    ASSERT_EQ(cudaStreamCreate(&stream_), cudaSuccess);
  }
  void TearDown() override {
    if (!stream_) return;
    EXPECT_EQ(cudaStreamDestroy(stream_), cudaSuccess);
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  }
  template <class T>
  T fetch(const DeviceBuffer<T>& out) {
    T got{};
    EXPECT_EQ(cudaMemcpyAsync(&got, out.get(), sizeof(T), cudaMemcpyDeviceToHost, stream_), cudaSuccess);
    EXPECT_EQ(cudaStreamSynchronize(stream_), cudaSuccess);
    return got;
  }
  void poison(DeviceBuffer<int>& out) { ASSERT_EQ(cudaMemsetAsync(out.get(), 0xA5, sizeof(int), stream_), cudaSuccess); }
  cudaStream_t stream_ = nullptr;
};

int host_sum(const int* x, std::size_t n) {
  unsigned s = 0;
  for (std::size_t i = 0; i < n; ++i) s += static_cast<unsigned>(x[i]);
  return static_cast<int>(s);
}

TEST_F(FloorSum, FloatSumIsBitwiseIdenticalOver100Calls) {
  for (std::size_t n : {std::size_t{1} << 20, (std::size_t{1} << 24) + 5}) {
    for (std::size_t offset : {0, 1}) {
      SCOPED_TRACE("n " + std::to_string(n) + " offset " + std::to_string(offset));
      const float* in = random_dataset<float>(n + offset).device.get() + offset;
      DeviceBuffer<float> out(1);
      ASSERT_EQ(floor_sum(in, n, out.get(), stream_), cudaSuccess);
      const float first = fetch(out);
      for (int call = 1; call < 100; ++call) {
        ASSERT_EQ(floor_sum(in, n, out.get(), stream_), cudaSuccess);
        const float again = fetch(out);
        ASSERT_EQ(std::memcmp(&first, &again, sizeof(float)), 0) << "call " << call << ": " << first << " vs " << again;
      }
    }
  }
}

TEST_F(FloorSum, EveryHeadAndTailSplitAndEmptyInput) {
  const auto& data = random_dataset<int>(4096 + 3);
  DeviceBuffer<int> out(1);
  for (std::size_t offset = 0; offset < 4; ++offset) {
    for (std::size_t n = 0; n <= 70; ++n) {
      poison(out);
      ASSERT_EQ(floor_sum(data.device.get() + offset, n, out.get(), stream_), cudaSuccess);
      EXPECT_EQ(fetch(out), host_sum(data.host.data() + offset, n)) << "n " << n << " offset " << offset;
    }
    for (Config cfg : {Config{128, 1}, Config{1024, 8}}) {  // 8 blocks taking tickets; one block
      poison(out);
      ASSERT_EQ(floor_sum(data.device.get() + offset, 4096, out.get(), stream_, cfg), cudaSuccess);
      EXPECT_EQ(fetch(out), host_sum(data.host.data() + offset, 4096)) << "block " << cfg.block;
    }
  }
}

TEST_F(FloorSum, CallerWorkspacesOnTwoStreamsAtOnce) {
  const std::size_t n = (std::size_t{1} << 22) + 7;
  const auto& data = random_dataset<int>(n);
  const int want = host_sum(data.host.data(), n);
  std::size_t bytes = 0;
  ASSERT_EQ(launch_floor::floor_sum_workspace_bytes<int>(&bytes), cudaSuccess);
  ASSERT_GT(bytes, launch_floor::kWorkspaceHeader);
  cudaStream_t other = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking), cudaSuccess);
  DeviceBuffer<unsigned char> ws_a(bytes), ws_b(bytes);
  DeviceBuffer<int> out_a(1), out_b(1);
  ASSERT_EQ(cudaMemset(ws_a.get(), 0, bytes), cudaSuccess);  // once, when allocated
  ASSERT_EQ(cudaMemset(ws_b.get(), 0, bytes), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);  // `other` does not wait for the legacy stream
  for (int call = 0; call < 20; ++call) {
    ASSERT_EQ(floor_sum(data.device.get(), n, out_a.get(), ws_a.get(), bytes, stream_), cudaSuccess);
    ASSERT_EQ(floor_sum(data.device.get(), n, out_b.get(), ws_b.get(), bytes, other), cudaSuccess);
  }
  ASSERT_EQ(cudaStreamSynchronize(other), cudaSuccess);
  EXPECT_EQ(fetch(out_a), want);
  int got_b = 0;
  ASSERT_EQ(cudaMemcpy(&got_b, out_b.get(), sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(got_b, want);
  // The tickets are back at zero after every call.
  unsigned ticket = 1;
  ASSERT_EQ(cudaMemcpy(&ticket, ws_a.get(), sizeof(ticket), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(ticket, 0u);
  EXPECT_EQ(cudaStreamDestroy(other), cudaSuccess);
}

TEST_F(FloorSum, RefusesWhatItCannotDoWithoutLaunching) {
  const auto& data = random_dataset<int>(1000);
  DeviceBuffer<int> out(1);
  DeviceBuffer<unsigned char> ws(4096);
  const int* in = data.device.get();
  EXPECT_EQ(floor_sum(in, 1000, out.get(), stream_, Config{96, 4}), cudaErrorInvalidValue);  // not compiled
  EXPECT_EQ(floor_sum(in, 1000, out.get(), stream_, Config{256, 3}), cudaErrorInvalidValue);
  EXPECT_EQ(floor_sum(in, 1000, static_cast<int*>(nullptr), stream_), cudaErrorInvalidValue);
  EXPECT_EQ(floor_sum(static_cast<const int*>(nullptr), 1000, out.get(), stream_), cudaErrorInvalidValue);
  EXPECT_EQ(floor_sum(in, 1000, out.get(), ws.get() + 4, 4000, stream_), cudaErrorInvalidValue);  // misaligned
  EXPECT_EQ(floor_sum(in, 1000, out.get(), ws.get(), 8, stream_), cudaErrorInvalidValue);         // too small
  EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "a refusal leaves no CUDA error behind";
}

}  // namespace
}  // namespace bench::testing
