// Shared by the families whose result is one value (reductions, argmax, dot):
// run a case once with its device and host results poisoned, so an unwritten
// output cannot pass, and return the result the variant produced.
#pragma once

#include <cuda_runtime_api.h>

#include <cstring>

#include "harness/cuda_check.hpp"

namespace bench {

template <class R, class Launch>
R run_poisoned(Launch&& launch, R* device_out, R* host_out, bool result_on_host, cudaStream_t stream) {
  BENCH_CUDA_CHECK(cudaMemsetAsync(device_out, 0xA5, sizeof(R), stream));
  std::memset(static_cast<void*>(host_out), 0xA5, sizeof(R));
  launch(stream);
  BENCH_CHECK_LAUNCH("variant");
  R got{};
  BENCH_CUDA_CHECK(cudaMemcpyAsync(&got, device_out, sizeof(R), cudaMemcpyDeviceToHost, stream));
  BENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
  return result_on_host ? *host_out : got;
}

}  // namespace bench
