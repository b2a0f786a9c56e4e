// The blocks of one kernel that the current device keeps resident at once
// (SMs x resident blocks per SM): the grid of the launch-floor reductions'
// grid kernel (kernels/reduce/launch_floor.cuh) and of floor_scan's staged
// calls (kernels/scan/floor_scan.cuh). The occupancy API is too slow to ask on
// every call, so each kernel keeps the answer per device in a `PerDevice` of
// its own (a static beside the launch). Only CUDA and the standard library.
//
// That static is one object per program, while a kernel template has a
// handle (host stub) in each translation unit that launches it, each needing
// its own attributes: a header included by two files of one program. So the
// cache keeps the handle it was filled for, and another handle asks again
// (and sets its attribute) instead of launching without it.
#pragma once

#include <cuda_runtime.h>

#include <atomic>
#include <cstddef>

namespace bench::resident {

// One kernel's answer for each device ordinal below kDevices, with the handle
// it was found (and its attribute set) for; a device past them is asked every
// call. Every unit's copy of a kernel is the same code, so the counts agree.
struct PerDevice {
  static constexpr int kDevices = 64;
  std::atomic<unsigned> blocks[kDevices] = {};
  std::atomic<const void*> handle[kDevices] = {};
};

// `kernel` is the one launched (a kernel template instantiated in two
// translation units has a host stub in each), with `threads` a block and
// `dynamic_smem` bytes of dynamic shared memory; a kernel that needs more than
// the default 48 KiB is allowed it here first. A kernel that cannot be
// resident at all is cudaErrorInvalidConfiguration.
template <class Kernel>
cudaError_t grid(Kernel kernel, int threads, std::size_t dynamic_smem, PerDevice& cache, unsigned* blocks) {
  const void* const handle = reinterpret_cast<const void*>(kernel);
  int device = 0;
  if (const cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) return e;
  // The handle is stored after the count (release), so a matching handle
  // (acquire) finds the count, and the attribute set, for this kernel.
  const bool known = device < PerDevice::kDevices &&
                     cache.handle[device].load(std::memory_order_acquire) == handle &&
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
  if (device < PerDevice::kDevices) {
    cache.blocks[device].store(*blocks, std::memory_order_relaxed);
    cache.handle[device].store(handle, std::memory_order_release);
  }
  return cudaSuccess;
}

}  // namespace bench::resident
