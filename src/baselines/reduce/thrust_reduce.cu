// thrust::reduce called as a user calls it: it allocates its temporary storage,
// reduces, and copies the result back to the host on every call. All of that is
// inside the timed region, because all of that is what the call costs.
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/reduce.h>

#include "families/reduce.cuh"

namespace bench::reduce {
namespace {

struct ThrustReduce : LibraryVariant {
  static constexpr bool host_work = true;  // allocates, and returns the result to the host (a.out is host memory)
  template <class Op, class In>
  static void launch(const Args<Op, In>& a) {
    using A = Acc<In>;
    const auto first = thrust::device_pointer_cast(a.in);
    const auto policy = thrust::cuda::par.on(a.stream);
    if constexpr (std::is_same_v<Op, Max>) {
      *a.out = thrust::reduce(policy, first, first + a.n, Op::template identity<A>(), thrust::maximum<A>());
    } else if constexpr (std::is_same_v<Op, Min>) {
      *a.out = thrust::reduce(policy, first, first + a.n, Op::template identity<A>(), thrust::minimum<A>());
    } else {
      *a.out = thrust::reduce(policy, first, first + a.n, A(0), thrust::plus<A>());
    }
  }
};

}  // namespace

BENCH_DECLARE(ReduceSum, ThrustReduce, SumTypes, "thrust_reduce",
              "baseline: thrust::reduce as users call it; includes its temp allocation and the result copy to host",
              {}, {});
BENCH_DECLARE(ReduceMax, ThrustReduce, SumTypes, "thrust_reduce",
              "baseline: thrust::reduce with thrust::maximum; includes its allocation and the copy to host", {}, {});
BENCH_DECLARE(ReduceMin, ThrustReduce, SumTypes, "thrust_reduce",
              "baseline: thrust::reduce with thrust::minimum; includes its allocation and the copy to host", {}, {});

}  // namespace bench::reduce
