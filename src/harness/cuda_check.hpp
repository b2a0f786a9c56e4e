// Every CUDA call goes through BENCH_CUDA_CHECK: a failure becomes a CudaError
// naming the call and CUDA's message, which the runner turns into a per-benchmark
// error (never an abort, never a number).
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace bench {

class CudaError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A variant that cannot run a given case (N, alignment, parameters) throws this;
// the benchmark is reported as an error whose message says why.
class Unsupported : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline void cuda_check(cudaError_t status, const char* what, const char* file, int line) {
  if (status == cudaSuccess) return;
  std::string where = file;
  where = where.substr(where.find_last_of('/') + 1);
  throw CudaError(std::string(what) + " failed: " + cudaGetErrorName(status) + " (" +
                  cudaGetErrorString(status) + ") at " + where + ":" + std::to_string(line));
}

}  // namespace bench

#define BENCH_CUDA_CHECK(call) ::bench::cuda_check((call), #call, __FILE__, __LINE__)
// After a <<<...>>> launch: catches bad configurations (grid, shared memory).
#define BENCH_CHECK_LAUNCH(kernel_name) \
  ::bench::cuda_check(cudaGetLastError(), "launch of " kernel_name, __FILE__, __LINE__)
