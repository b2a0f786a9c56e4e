// Owning device allocation (cudaMalloc/cudaFree), move-only.
#pragma once

#include <cstddef>
#include <memory>
#include <utility>

#include "harness/device_memory.hpp"

namespace bench {

template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    if (count > 0) ptr_ = static_cast<T*>(device_allocate(count * sizeof(T)));  // OutOfMemory says how much
  }
  DeviceBuffer(DeviceBuffer&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(count_, o.count_);
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() {
    if (ptr_) cudaFree(ptr_);  // no throw from a destructor; errors surface at the next call
  }

  T* get() const { return ptr_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

 private:
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

// Device memory shared by every holder that asks for the same (bytes, slot)
// while one of them lives; freed with the last. The outputs of an interleaved
// group's members (harness/runner.hpp) come from here: they write their results
// in turn on one stream, so a group at 2^30 holds one output, not one per
// member. `slot` keeps apart what must not be shared (the runner's placements).
std::shared_ptr<DeviceBuffer<unsigned char>> shared_device_bytes(std::size_t bytes, int slot);

}  // namespace bench
