// The device check's kernel, for a .cu file with a rule of its own
// (harness/device_check.hpp has the ready-made ones). `Right` is a functor,
// __device__ bool operator()(std::size_t i) const: true when element i is right.
#pragma once

#include <cuda_runtime.h>

#include "harness/cuda_check.hpp"
#include "harness/device_buffer.hpp"
#include "harness/device_check.hpp"

namespace bench {
namespace device_check_detail {

// A thread's part of the tally: `wrong` elements, the lowest at `first`.
__device__ inline void tally(unsigned long long* found, unsigned long long wrong, unsigned long long first) {
  if (wrong != 0) {
    atomicAdd(found, wrong);
    atomicMin(found + 1, first);
  }
}

template <class Right>
__global__ void wrong_elements_kernel(std::size_t n, Right right, unsigned long long* found) {
  unsigned long long wrong = 0, first = ~0ull;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    if (!right(i)) {
      if (wrong++ == 0) first = i;  // a thread's indices rise: its first is its lowest
    }
  }
  tally(found, wrong, first);
}

// The tally on the device: the count of wrong elements and the lowest wrong
// index, zero and "none" until the kernels given device() add to it.
class Tally {
 public:
  explicit Tally(cudaStream_t stream) : found_(2), stream_(stream) {
    BENCH_CUDA_CHECK(cudaMemsetAsync(found_.get(), 0, sizeof(unsigned long long), stream_));
    BENCH_CUDA_CHECK(cudaMemsetAsync(found_.get() + 1, 0xFF, sizeof(unsigned long long), stream_));
  }
  unsigned long long* device() { return found_.get(); }
  // Waits for the stream and reads the tally.
  WrongElements read() {
    unsigned long long host[2] = {0, 0};
    BENCH_CUDA_CHECK(cudaMemcpyAsync(host, found_.get(), sizeof host, cudaMemcpyDeviceToHost, stream_));
    BENCH_CUDA_CHECK(cudaStreamSynchronize(stream_));
    return WrongElements{static_cast<std::size_t>(host[0]), static_cast<std::size_t>(host[1])};
  }

 private:
  DeviceBuffer<unsigned long long> found_;
  cudaStream_t stream_;
};

}  // namespace device_check_detail

// Runs `right` over [0, n) on `stream` and waits for the count.
template <class Right>
WrongElements wrong_elements(std::size_t n, const Right& right, cudaStream_t stream) {
  device_check_detail::Tally tally(stream);
  if (n > 0) {
    constexpr unsigned kBlock = 256;
    const std::size_t blocks = (n + kBlock - 1) / kBlock;
    const unsigned grid = static_cast<unsigned>(blocks < 8192 ? blocks : 8192);
    device_check_detail::wrong_elements_kernel<<<grid, kBlock, 0, stream>>>(n, right, tally.device());
    BENCH_CHECK_LAUNCH("wrong_elements_kernel");
  }
  return tally.read();
}

}  // namespace bench
