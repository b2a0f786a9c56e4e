#include "common/launch.cuh"

namespace bench {

int sm_count() {
  static const int count = [] {
    int device = 0, sms = 0;
    BENCH_CUDA_CHECK(cudaGetDevice(&device));
    BENCH_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    return sms;
  }();
  return count;
}

}  // namespace bench
