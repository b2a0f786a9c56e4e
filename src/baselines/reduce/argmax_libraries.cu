// Library argmax: cub::DeviceReduce::ArgMax (value and index to separate
// outputs; temp storage allocated once) and thrust::max_element as users call
// it (the first maximum; its allocation and the copy of value and position to
// the host are in its time).
#include <cub/device/device_reduce.cuh>
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/extrema.h>

#include "families/argmax.cuh"

namespace bench::argmax {
namespace {

struct CubArgMax : TwoPhaseLibrary<CubArgMax> {
  static constexpr bool reference = true;
  template <class T>
  static cudaError_t call(void* temp, std::size_t& bytes, const Args<T>& a) {
    return cub::DeviceReduce::ArgMax(temp, bytes, a.in, &a.out->value, &a.out->index, static_cast<std::int64_t>(a.n),
                                     a.stream);
  }
};

struct ThrustMaxElement : LibraryVariant {
  static constexpr bool host_work = true;  // allocates, and returns the position to the host (a.out is host memory)
  template <class T>
  static void launch(const Args<T>& a) {
    const auto first = thrust::device_pointer_cast(a.in);
    const auto it = thrust::max_element(thrust::cuda::par.on(a.stream), first, first + a.n);
    a.out->index = it - first;
    a.out->value = *it;  // a device-to-host read, as a user's code does
  }
};

}  // namespace

BENCH_DECLARE(Argmax, CubArgMax, ArgmaxTypes, "cub_device_reduce",
              "baseline: cub::DeviceReduce::ArgMax (ties to the lowest index); temp storage allocated once", {}, {});
BENCH_DECLARE(Argmax, ThrustMaxElement, ArgmaxTypes, "thrust_max_element",
              "baseline: thrust::max_element as users call it, plus reading the value; allocation and copies included",
              {}, {});

}  // namespace bench::argmax
