// Does cudaMemcpyAsync device to device on a stream launch a kernel (ncu profiles it) or use a copy engine?
#include <cstdio>
#include <cuda_runtime.h>
int main() {
  const size_t bytes = size_t(1) << 28;
  void *a, *b;
  cudaMalloc(&a, bytes); cudaMalloc(&b, bytes);
  cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  for (int i = 0; i < 3; ++i) cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, s);
  cudaStreamSynchronize(s);
  std::printf("memcpy: %s\n", cudaGetErrorString(cudaGetLastError()));
}
