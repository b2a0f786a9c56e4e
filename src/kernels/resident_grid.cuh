// The blocks of one kernel that the current device keeps resident at once
// (SMs x resident blocks per SM): the grid of the launch-floor reductions'
// grid kernel (kernels/reduce/launch_floor.cuh) and of floor_scan's staged
// calls (kernels/scan/floor_scan.cuh). The occupancy API is too slow to ask on
// every call, so each kernel keeps the answer per device in a `PerDevice` of
// its own (a static beside the launch). Only CUDA and the standard library.
#pragma once

#include <cuda_runtime.h>

#include <atomic>
#include <cstddef>

namespace bench::resident {

// One kernel's answer for each device ordinal below kDevices (0: not asked
// yet); a device past them is asked every call.
struct PerDevice {
  static constexpr int kDevices = 64;
  std::atomic<unsigned> blocks[kDevices] = {};
};

// `kernel` is the one launched (a kernel template instantiated in two
// translation units has a host stub in each), with `threads` a block and
// `dynamic_smem` bytes of dynamic shared memory; a kernel that needs more than
// the default 48 KiB is allowed it here first. A kernel that cannot be
// resident at all is cudaErrorInvalidConfiguration.
template <class Kernel>
cudaError_t grid(Kernel kernel, int threads, std::size_t dynamic_smem, PerDevice& cache, unsigned* blocks) {
  int device = 0;
  if (const cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) return e;
  const bool known = device < PerDevice::kDevices &&
                     (*blocks = cache.blocks[device].load(std::memory_order_relaxed)) != 0;
  if (known) return cudaSuccess;
  if (dynamic_smem > 0) {
    if (const cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                   static_cast<int>(dynamic_smem));
        e != cudaSuccess)
      return e;
  }
  int per_sm = 0, sms = 0;
  if (const cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, dynamic_smem);
      e != cudaSuccess)
    return e;
  if (const cudaError_t e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device); e != cudaSuccess)
    return e;
  if (per_sm <= 0 || sms <= 0) return cudaErrorInvalidConfiguration;
  *blocks = static_cast<unsigned>(per_sm) * static_cast<unsigned>(sms);
  if (device < PerDevice::kDevices) cache.blocks[device].store(*blocks, std::memory_order_relaxed);
  return cudaSuccess;
}

}  // namespace bench::resident
