#include "harness/device_memory.hpp"

#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

#include "harness/device_buffer.hpp"

namespace bench {

std::string format_bytes(double bytes) {
  static const char* const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024 && u < 4) {
    bytes /= 1024;
    ++u;
  }
  char text[32];
  std::snprintf(text, sizeof text, u == 0 ? "%.0f %s" : "%.1f %s", bytes, units[u]);
  return text;
}

OutOfMemory::OutOfMemory(std::size_t needed_bytes, std::size_t free_bytes, std::size_t total_bytes)
    : CudaError("out of device memory: needs " + format_bytes(static_cast<double>(needed_bytes)) + ", " +
                format_bytes(static_cast<double>(free_bytes)) + " free of " +
                format_bytes(static_cast<double>(total_bytes)) + " (cudaMalloc: cudaErrorMemoryAllocation)"),
      needed(needed_bytes),
      free(free_bytes),
      total(total_bytes) {}

namespace {

// CUDABENCH_PAGE_PER_ALLOCATION=1 (an experiment, docs/precision.md): every
// allocation rounded up to whole 2 MiB pages, so no two share a page.
bool page_per_allocation() {
  static const bool on = [] {
    const char* v = std::getenv("CUDABENCH_PAGE_PER_ALLOCATION");
    return v != nullptr && std::string(v) == "1";
  }();
  return on;
}

}  // namespace

void* device_allocate(std::size_t bytes) {
  void* p = nullptr;
  constexpr std::size_t kPage = std::size_t(2) << 20;
  const std::size_t asked = page_per_allocation() ? (bytes + kPage - 1) / kPage * kPage : bytes;
  const cudaError_t status = cudaMalloc(&p, asked);
  if (status == cudaErrorMemoryAllocation) {
    cudaGetLastError();  // not sticky: clear it, or the next benchmark inherits it
    std::size_t free = 0, total = 0;
    if (cudaMemGetInfo(&free, &total) != cudaSuccess) cudaGetLastError();
    throw OutOfMemory(bytes, free, total);
  }
  cuda_check(status, "cudaMalloc", __FILE__, __LINE__);
  return p;
}

std::shared_ptr<DeviceBuffer<unsigned char>> shared_device_bytes(std::size_t bytes, int slot) {
  static std::mutex mutex;
  static std::map<std::pair<std::size_t, int>, std::weak_ptr<DeviceBuffer<unsigned char>>> live;
  std::lock_guard<std::mutex> lock(mutex);
  auto& entry = live[{bytes, slot}];
  if (auto held = entry.lock()) return held;
  for (auto it = live.begin(); it != live.end();)  // forget what nobody holds any more
    it = it->second.expired() && &it->second != &entry ? live.erase(it) : std::next(it);
  auto made = std::make_shared<DeviceBuffer<unsigned char>>(bytes);  // OutOfMemory says how much
  entry = made;
  return made;
}

}  // namespace bench
