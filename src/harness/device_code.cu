// Whether this binary has code the current GPU can run. Looked up once at
// start-up on a kernel compiled like every variant (same architectures), so a
// build for another GPU stops with one clear line instead of failing every
// benchmark at launch.
#include <cuda_runtime_api.h>

#include "harness/device.hpp"

namespace bench {
namespace {

__global__ void device_code_probe() {}

}  // namespace

int check_device_code() {
  cudaFuncAttributes attributes{};
  const cudaError_t st = cudaFuncGetAttributes(&attributes, device_code_probe);
  if (st != cudaSuccess) cudaGetLastError();  // not sticky: clear it for what follows
  return static_cast<int>(st);
}

}  // namespace bench
