// The write-up compares the CPU with the GPU across sizes: a multi-threaded
// CPU vector add over host copies of the same data, timed by the same harness
// (the events bracket the host work, which runs synchronously between them).
// Threads are started per call, as a plain std::thread implementation does;
// each adds its range with the family's host_add (half through the CPU's F16C
// conversions where it has them).
#include "families/vector_add.cuh"
#include "harness/parallel.hpp"

namespace bench::vector_add {
namespace {

struct CpuThreads : CpuVariant {
  template <class T>
  static void launch(const Args<T>& a) {
    parallel_chunks(a.n, [&a](std::size_t lo, std::size_t hi, unsigned) {
      host_add(a.a + lo, a.b + lo, a.out + lo, hi - lo);
    });
  }
};

}  // namespace

BENCH_DECLARE(VectorAdd, CpuThreads, AddTypes, "cpu_threads",
              "CPU reference: std::thread per core over host memory, timed by the same events", {}, {});

}  // namespace bench::vector_add
