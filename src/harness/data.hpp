// Random non-zero inputs shared by every variant of a family: made once per
// (element type, N), twice from the same counter-based hash: on the device by a
// kernel (no upload of gigabytes) and, at the same time, on the host by every
// core, so references read the exact values. Deterministic: element i depends
// only on (seed, i), and both copies are equal bit for bit (a GPU test checks).
// Also: one reusable page-locked buffer that verifications read results back
// into (no zero-filled vector and no pageable copy per benchmark).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <utility>
#include <vector>

#include <cuda_runtime_api.h>

#include "harness/device_buffer.hpp"

namespace bench {

// std::vector's allocator without value-initialisation: a host copy of 4 GB is
// written once, by the generating threads, not zero-filled first by one.
template <typename T>
struct UninitializedAllocator : std::allocator<T> {
  template <typename U>
  struct rebind {
    using other = UninitializedAllocator<U>;
  };
  UninitializedAllocator() = default;
  template <typename U>
  UninitializedAllocator(const UninitializedAllocator<U>&) noexcept {}
  template <typename U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

template <typename T>
using HostArray = std::vector<T, UninitializedAllocator<T>>;

template <typename T>
struct Dataset {
  HostArray<T> host;
  DeviceBuffer<T> device;
};

// Element values:
//   int32: uniform in [-16, 16] without 0 (sums stay far from overflow; a wrong
//          index or a lost element changes an exact integer result).
//   float: sign * uniform [0.5, 1.5): non-zero, zero-mean, so rounding error in
//          any summation order stays far below the documented tolerance.
//   half, bfloat16: the float values rounded once to the type.
template <typename T>
T random_element(std::uint64_t seed, std::size_t index);

// The cached dataset for (T, n). `seed` distinguishes independent inputs of one
// case (a and b of a vector add). Pointers stay valid until clear_datasets().
template <typename T>
const Dataset<T>& random_dataset(std::size_t n, std::uint64_t seed = 0);

// The device values of random_dataset<T>(n, seed) at `placement`: 0 is the
// dataset's own device array, k > 0 another allocation holding the same bits
// (made by the same kernel on first use, cached with the datasets). The runner
// rotates a small benchmark's samples over several placements, so where one
// allocation happens to land is not fixed for a whole run (docs/precision.md,
// "Placements").
template <typename T>
const T* placed_dataset(std::size_t n, std::uint64_t seed, int placement);

// Frees every cached dataset (host and device); returns the device bytes freed.
// Only where no case holds dataset pointers (the runner: between benchmarks).
std::size_t clear_datasets();

// Copies `bytes` from device memory into the process's read-back buffer
// (page-locked where the host allows, else ordinary memory; grown when too
// small, never zero-filled) and waits for it on `stream`. The pointer stays
// valid until the next read_back.
const void* read_back_bytes(const void* device, std::size_t bytes, cudaStream_t stream);

template <typename T>
const T* read_back(const T* device, std::size_t count, cudaStream_t stream) {
  return static_cast<const T*>(read_back_bytes(device, count * sizeof(T), stream));
}

}  // namespace bench
