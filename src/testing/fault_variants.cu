#include "testing/fault_variants.cuh"

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "harness/cuda_check.hpp"
#include "harness/device_buffer.hpp"

namespace bench::testing {
namespace {

__global__ void fill_ones(int* out, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
    out[i] = 1;
}

// `target` is a bad address passed at run time, so the compiler cannot turn
// the store into a trap: the GPU faults on it (cudaErrorIllegalAddress).
__global__ void store_to(int* target) { *target = 1; }

class FillCase : public Case {
 public:
  explicit FillCase(std::size_t n) : n_(n), out_(n) {}
  void launch(cudaStream_t stream) override {
    fill_ones<<<64, 256, 0, stream>>>(out_.get(), n_);
    BENCH_CHECK_LAUNCH("fill_ones");
  }
  std::string verify(cudaStream_t stream) override {
    BENCH_CUDA_CHECK(cudaMemsetAsync(out_.get(), 0xFF, out_.bytes(), stream));
    launch(stream);
    std::vector<int> host(n_);
    BENCH_CUDA_CHECK(cudaMemcpyAsync(host.data(), out_.get(), out_.bytes(), cudaMemcpyDeviceToHost, stream));
    BENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
    for (std::size_t i = 0; i < n_; ++i)
      if (host[i] != 1) return "element " + std::to_string(i) + ": expected 1, got " + std::to_string(host[i]);
    return "";
  }

 private:
  std::size_t n_;
  DeviceBuffer<int> out_;
};

class IllegalAddressCase : public Case {
 public:
  void launch(cudaStream_t stream) override {
    store_to<<<1, 1, 0, stream>>>(reinterpret_cast<int*>(std::uintptr_t{0x10}));
    BENCH_CHECK_LAUNCH("store_to");
  }
  std::string verify(cudaStream_t stream) override {
    launch(stream);
    BENCH_CUDA_CHECK(cudaStreamSynchronize(stream));  // the fault surfaces here
    return "";
  }
};

// More than the whole device: fails however much is free.
void allocate_more_than_the_gpu_has() {
  std::size_t free = 0, total = 0;
  BENCH_CUDA_CHECK(cudaMemGetInfo(&free, &total));
  DeviceBuffer<unsigned char> too_much(total + (std::size_t{1} << 30));
}

Declaration fault(const char* name, const char* description,
                  std::function<std::unique_ptr<Case>(const Point&)> make_case) {
  return make_declaration("test_fault", "i32", VariantSpec{name, description, Axis{}, Axis{}},
                          [](std::size_t n) { return Work{0, 4.0 * n, double(n)}; }, std::move(make_case));
}

}  // namespace

std::vector<Declaration> fault_declarations() {
  return {
      fault("fill", "test-only: a healthy case (fills its output with 1s)",
            [](const Point& p) { return std::make_unique<FillCase>(p.n); }),
      fault("illegal_address", "test-only: stores through a bad pointer, a sticky CUDA error",
            [](const Point&) { return std::make_unique<IllegalAddressCase>(); }),
      fault("oom", "test-only: asks for 1 GiB more than the GPU has",
            [](const Point&) -> std::unique_ptr<Case> {
              allocate_more_than_the_gpu_has();
              return nullptr;  // not reached
            }),
      fault("oom_once", "test-only: out of memory on its first case per N, healthy after",
            [](const Point& p) -> std::unique_ptr<Case> {
              static std::mutex m;
              static std::set<std::size_t> failed_once;
              bool first = false;
              {
                std::lock_guard<std::mutex> lock(m);
                first = failed_once.insert(p.n).second;
              }
              if (first) allocate_more_than_the_gpu_has();
              return std::make_unique<FillCase>(p.n);
            }),
  };
}

}  // namespace bench::testing
