// The write-up compares the CPU with the GPU across sizes: a multi-threaded
// CPU vector add over host copies of the same data, timed by the same harness
// (the events bracket the host work, which runs synchronously between them).
// Threads are started per call, as a plain std::thread implementation does.
#include "families/vector_add.cuh"
#include "harness/parallel.hpp"

namespace bench::vector_add {
namespace {

template <class T>
inline T host_add(T x, T y) {
  return round_to<T>(widen(x) + widen(y));
}

struct CpuThreads : CpuVariant {
  template <class T>
  static void launch(const Args<T>& a) {
    parallel_chunks(a.n, [&a](std::size_t lo, std::size_t hi, unsigned) {
      for (std::size_t i = lo; i < hi; ++i) a.out[i] = host_add(a.a[i], a.b[i]);
    });
  }
};

}  // namespace

BENCH_DECLARE(VectorAdd, CpuThreads, AddTypes, "cpu_threads",
              "CPU reference: std::thread per core over host memory, timed by the same events", {}, {});

}  // namespace bench::vector_add
