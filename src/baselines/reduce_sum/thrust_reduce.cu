// thrust::reduce called as a user calls it: it allocates its temporary storage,
// reduces, and copies the result back to the host on every call. All of that is
// inside the timed region, because all of that is what the call costs.
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/reduce.h>

#include "families/reduce_sum.cuh"

namespace bench::reduce_sum {
namespace {

struct ThrustReduce : VariantBase {
  static constexpr bool result_on_host = true;
  template <typename T>
  static void launch(const Args<T>& a) {
    const auto first = thrust::device_pointer_cast(a.in);
    *a.host_out = thrust::reduce(thrust::cuda::par.on(a.stream), first, first + a.n, T(0));
  }
};

}  // namespace

BENCH_DECLARE_REDUCE_SUM(ThrustReduce, "thrust_reduce",
                         "baseline: thrust::reduce as users call it; includes its temp allocation and the result copy to host",
                         {}, {});

}  // namespace bench::reduce_sum
