#include "harness/device_memory.hpp"

#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
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

bool page_per_allocation_from(const char* value) {
  if (value == nullptr || *value == '\0' || std::string(value) == "0") return false;
  if (std::string(value) == "1") return true;
  throw std::invalid_argument(std::string("CUDABENCH_PAGE_PER_ALLOCATION=") + value +
                              ": expected 1 (every allocation in whole 2 MiB pages, an experiment) or 0");
}

void* device_allocate(std::size_t bytes) {
  void* p = nullptr;
  constexpr std::size_t kPage = std::size_t(2) << 20;
  static const bool paged = page_per_allocation_from(std::getenv("CUDABENCH_PAGE_PER_ALLOCATION"));
  const std::size_t asked = paged ? (bytes + kPage - 1) / kPage * kPage : bytes;
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
