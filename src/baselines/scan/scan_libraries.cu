// Library scans: cub::DeviceScan::InclusiveSum (decoupled look-back; temp
// storage sized and allocated once, outside the timed region), the generic
// cub::DeviceScan::InclusiveScan with cuda::std::plus (what a user with an
// operator of their own calls; the same storage rule) and
// thrust::inclusive_scan as users call it (it allocates its temporary storage
// and synchronises on every call: all of that is in its time).
#include <cub/device/device_scan.cuh>
#include <cuda/std/functional>
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/scan.h>

#include <cstdint>

#include "families/scan.cuh"

namespace bench::scan {
namespace {

struct CubDeviceScan : TwoPhaseLibrary<CubDeviceScan> {
  static constexpr bool reference = true;
  template <class T>
  static cudaError_t call(void* temp, std::size_t& bytes, const Args<T>& a) {
    return cub::DeviceScan::InclusiveSum(temp, bytes, a.in, a.out, static_cast<std::int64_t>(a.n), a.stream);
  }
};

struct CubInclusiveScan : TwoPhaseLibrary<CubInclusiveScan> {
  template <class T>
  static cudaError_t call(void* temp, std::size_t& bytes, const Args<T>& a) {
    return cub::DeviceScan::InclusiveScan(temp, bytes, a.in, a.out, ::cuda::std::plus<>{},
                                          static_cast<std::int64_t>(a.n), a.stream);
  }
};

struct ThrustInclusiveScan : LibraryVariant {
  static constexpr bool host_work = true;  // allocates its temporary storage and synchronises on every call
  template <class T>
  static void launch(const Args<T>& a) {
    const auto first = thrust::device_pointer_cast(a.in);
    thrust::inclusive_scan(thrust::cuda::par.on(a.stream), first, first + a.n, thrust::device_pointer_cast(a.out));
  }
};

}  // namespace

BENCH_DECLARE(Scan, CubDeviceScan, ScanTypes, "cub_device_scan",
              "baseline: cub::DeviceScan::InclusiveSum (decoupled look-back); temp storage allocated once", {}, {});
BENCH_DECLARE(Scan, CubInclusiveScan, ScanTypes, "cub_inclusive_scan",
              "baseline: cub::DeviceScan::InclusiveScan with cuda::std::plus; temp storage allocated once", {}, {});
BENCH_DECLARE(Scan, ThrustInclusiveScan, ScanTypes, "thrust_inclusive_scan",
              "baseline: thrust::inclusive_scan as users call it; includes its temp allocation and synchronisation",
              {}, {});

}  // namespace bench::scan
