// Family vector_add: out[i] = a[i] + b[i] for float32, half and bfloat16.
//
// A variant is a struct derived from its role with
//     template <class T> static void launch(const Args<T>&);
// declared with
//     BENCH_DECLARE(VectorAdd, MyVariant, AddTypes, "name", "description", block, batch);
// A CpuVariant receives host copies of the same data and a host output.
//
// Verification: every element against the exact sum of the (already rounded)
// inputs, rounded once to the element type: computed in double and rounded
// once, so a correct __hadd/__hadd2 kernel matches bit for bit (the float
// operands are exact in double; their sum rounds once).
#pragma once

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "common/types.cuh"
#include "families/contract.cuh"
#include "harness/parallel.hpp"

namespace bench::vector_add {

using AddTypes = Types<float, __half, __nv_bfloat16>;
using HalfTypes = Types<__half, __nv_bfloat16>;

// "" when every out[i] equals round(a[i] + b[i]); else the count and the first mismatch.
template <class T>
std::string add_check(const T* a, const T* b, const T* out, std::size_t n) {
  const unsigned chunks = default_chunks(n);
  std::vector<std::size_t> bad(chunks, 0), first(chunks, n);
  parallel_chunks(
      n,
      [&](std::size_t lo, std::size_t hi, unsigned c) {
        for (std::size_t i = lo; i < hi; ++i) {
          const double want = widen(round_to<T>(widen(a[i]) + widen(b[i])));
          if (!(widen(out[i]) == want)) {  // NaN (an unwritten, poisoned element) fails
            if (bad[c]++ == 0) first[c] = i;
          }
        }
      },
      chunks);
  std::size_t total = 0, at = n;
  for (unsigned c = 0; c < chunks; ++c) total += bad[c], at = std::min(at, first[c]);
  if (total == 0) return "";
  char msg[240];
  std::snprintf(msg, sizeof msg, "%zu of %zu elements wrong; first at index %zu: %.9g + %.9g expected %.9g, got %.9g",
                total, n, at, widen(a[at]), widen(b[at]), widen(round_to<T>(widen(a[at]) + widen(b[at]))),
                widen(out[at]));
  return msg;
}

struct VectorAdd : ArrayFamily<VectorAdd> {
  static constexpr const char* name = "vector_add";
  static constexpr int inputs = 2;
  template <class T> using Out = T;
  // The suite stops at 2^28 elements: far past the L2 for every type, and the
  // CPU reference stays within seconds.
  static constexpr std::size_t max_n = std::size_t(1) << 28;

  // Bytes: a and b read once, out written once. Ops: n additions. Intensity:
  // 1/12 op/byte for float32, 1/6 for half and bfloat16.
  template <class T>
  static Work work(std::size_t n) {
    return Work{2.0 * n * sizeof(T), 1.0 * n * sizeof(T), static_cast<double>(n)};
  }
  template <class T>
  static std::string check(const Inputs<T, 2>& x, const T* got, std::size_t n) {
    return add_check(x.a, x.b, got, n);
  }
};

template <class T>
using Args = bench::Args<VectorAdd, T>;

}  // namespace bench::vector_add
