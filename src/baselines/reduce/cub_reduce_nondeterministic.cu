// cub::DeviceReduce::Sum's single-pass, run-to-run non-deterministic path
// (CCCL >= 3.2: `cuda::execution::require(cuda::execution::determinism::
// not_guaranteed)` in the environment argument): CUB zeroes the output and one
// kernel combines the blocks' sums with atomics. Two ways to call it:
//   cub_reduce_nondeterministic             its temporary storage (one byte on
//       this path) from a memory resource in the environment that hands out a
//       buffer allocated once, outside the timed region: the algorithm alone;
//   cub_reduce_nondeterministic_allocating  only the determinism requirement, as
//       users call it: CUB's default resource allocates and frees its storage
//       (cudaMallocAsync / cudaFreeAsync) in every call.
// With the toolkit's CCCL 3.0 this file declares nothing (build with
// -DCUDABENCH_CCCL_DIR, docs/timing.md).
#include <cuda/version>

#if CCCL_VERSION >= 3002000

#include <cub/device/device_reduce.cuh>
#include <cuda/execution>
#include <cuda/memory_resource>
#include <cuda/std/execution>
#include <cuda/stream_ref>

#include <cstddef>
#include <new>

#include "families/reduce.cuh"

namespace bench::reduce {
namespace {

// A memory resource over one buffer allocated outside the timed region: hands
// out that buffer (or refuses a request larger than it) and frees nothing.
// CCCL 3.2/3.3 ask allocate(stream, bytes); 3.4+ add the alignment.
class PreallocatedResource {
 public:
  PreallocatedResource(void* buffer, std::size_t bytes) : buffer_(buffer), bytes_(bytes) {}
  void* allocate(::cuda::stream_ref, std::size_t bytes, std::size_t = alignof(std::max_align_t)) { return take(bytes); }
  void deallocate(::cuda::stream_ref, void*, std::size_t, std::size_t = alignof(std::max_align_t)) noexcept {}
  void* allocate_sync(std::size_t bytes, std::size_t = alignof(std::max_align_t)) { return take(bytes); }
  void deallocate_sync(void*, std::size_t, std::size_t = alignof(std::max_align_t)) noexcept {}
  bool operator==(const PreallocatedResource& o) const { return buffer_ == o.buffer_ && bytes_ == o.bytes_; }
  bool operator!=(const PreallocatedResource& o) const { return !(*this == o); }

 private:
  void* take(std::size_t bytes) const {
    if (bytes > bytes_) throw std::bad_alloc();  // CUB returns cudaErrorMemoryAllocation
    return buffer_;
  }
  void* buffer_;
  std::size_t bytes_;
};

auto not_guaranteed() { return ::cuda::execution::require(::cuda::execution::determinism::not_guaranteed); }

template <bool Preallocated>
struct CubReduceNondeterministic : LibraryVariant {
  // The classic two-phase query sizes the deterministic path, which needs more
  // than this one: an upper bound for the buffer the resource hands out.
  template <class Op, class In>
  static std::size_t workspace_bytes(const Args<Op, In>& a) {
    const std::size_t n = a.n;
    if constexpr (!Preallocated) return 0;
    std::size_t bytes = 0;
    BENCH_CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, bytes, static_cast<const In*>(nullptr),
                                            static_cast<Acc<In>*>(nullptr), static_cast<std::int64_t>(n)));
    return std::max<std::size_t>(bytes, 256);
  }
  template <class Op, class In>
  static void launch(const Args<Op, In>& a) {
    const auto count = static_cast<std::int64_t>(a.n);
    const ::cuda::stream_ref stream{a.stream};
    if constexpr (Preallocated) {
      const auto env = ::cuda::std::execution::env{
          stream, not_guaranteed(),
          ::cuda::std::execution::prop{::cuda::mr::get_memory_resource,
                                       PreallocatedResource{a.workspace, a.workspace_size}}};
      BENCH_CUDA_CHECK(cub::DeviceReduce::Sum(a.in, a.out, count, env));
    } else {
      const auto env = ::cuda::std::execution::env{stream, not_guaranteed()};
      BENCH_CUDA_CHECK(cub::DeviceReduce::Sum(a.in, a.out, count, env));
    }
  }
};

using CubPreallocated = CubReduceNondeterministic<true>;
using CubAllocating = CubReduceNondeterministic<false>;

}  // namespace

BENCH_DECLARE(ReduceSum, CubPreallocated, SumTypes, "cub_reduce_nondeterministic",
                     "baseline: cub::DeviceReduce::Sum, determinism::not_guaranteed (memset + one atomic pass); its "
                     "temp storage from a memory resource over a buffer allocated once",
                     {}, {});
BENCH_DECLARE(ReduceSum, CubAllocating, SumTypes, "cub_reduce_nondeterministic_allocating",
                     "baseline: cub::DeviceReduce::Sum, determinism::not_guaranteed, as users call it: CUB allocates "
                     "and frees its temp storage (cudaMallocAsync/cudaFreeAsync) in every call",
                     {}, {});

}  // namespace bench::reduce

#endif  // CCCL_VERSION >= 3002000
