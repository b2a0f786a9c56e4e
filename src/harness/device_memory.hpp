// Device allocations whose failure says how much was asked for and how much
// was free: "needs 48.0 GiB, 31.2 GiB free of 79.1 GiB". DeviceBuffer allocates
// through device_allocate, so every case's buffers and datasets report alike.
#pragma once

#include <cstddef>
#include <string>

#include "harness/cuda_check.hpp"

namespace bench {

// cudaMalloc failed for lack of device memory. CUDA's error state is already
// cleared when this is thrown: the next call does not inherit the failure.
class OutOfMemory : public CudaError {
 public:
  OutOfMemory(std::size_t needed, std::size_t free, std::size_t total);
  std::size_t needed, free, total;  // bytes
};

// cudaMalloc(bytes); throws OutOfMemory, or CudaError for any other failure.
// With CUDABENCH_PAGE_PER_ALLOCATION=1 (an experiment: docs/precision.md,
// "Launch path") every allocation is rounded up to whole 2 MiB pages.
void* device_allocate(std::size_t bytes);

// CUDABENCH_PAGE_PER_ALLOCATION's value: unset, "" or "0" off, "1" on; any
// other value throws std::invalid_argument naming the variable.
bool page_per_allocation_from(const char* value);

// "48.0 GiB", "512.0 MiB", "1.5 KiB", "12 B".
std::string format_bytes(double bytes);

}  // namespace bench
