// Library argmax: cub::DeviceReduce::ArgMax (value and index to separate
// outputs; temp storage allocated once) and thrust::max_element as users call
// it (the first maximum; its allocation and the copy of value and position to
// the host are in its time).
#include <cub/device/device_reduce.cuh>
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/extrema.h>

#include "families/argmax.cuh"

namespace bench::reduce {
namespace {

struct CubArgMax : ArgVariantBase {
  template <class T>
  static cudaError_t call(void* temp, std::size_t& bytes, const ArgArgs<T>& a) {
    return cub::DeviceReduce::ArgMax(temp, bytes, a.in, a.out ? &a.out->value : nullptr,
                                     a.out ? &a.out->index : nullptr, static_cast<std::int64_t>(a.n), a.stream);
  }
  template <class T>
  static std::size_t workspace_bytes(std::size_t n, int, int) {
    std::size_t bytes = 0;
    ArgArgs<T> probe{nullptr, n, nullptr, nullptr, 0, 0, nullptr, 0, nullptr};
    BENCH_CUDA_CHECK(call<T>(nullptr, bytes, probe));
    return bytes;
  }
  template <class T>
  static void launch(const ArgArgs<T>& a) {
    std::size_t bytes = a.workspace_size;
    BENCH_CUDA_CHECK(call<T>(a.workspace, bytes, a));
  }
};

struct ThrustMaxElement : ArgVariantBase {
  static constexpr bool result_on_host = true;
  template <class T>
  static void launch(const ArgArgs<T>& a) {
    const auto first = thrust::device_pointer_cast(a.in);
    const auto it = thrust::max_element(thrust::cuda::par.on(a.stream), first, first + a.n);
    a.host_out->index = it - first;
    a.host_out->value = *it;  // a device-to-host read, as a user's code does
  }
};

}  // namespace

BENCH_DECLARE_ARGMAX(CubArgMax, "cub_device_reduce",
                     "baseline: cub::DeviceReduce::ArgMax (ties to the lowest index); temp storage allocated once", {}, {});
BENCH_DECLARE_ARGMAX(ThrustMaxElement, "thrust_max_element",
                     "baseline: thrust::max_element as users call it, plus reading the value; allocation and copies included",
                     {}, {});

}  // namespace bench::reduce
