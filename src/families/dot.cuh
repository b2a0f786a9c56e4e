// Family dot: out = sum(a[i] * b[i]) over float32, accumulated in float and
// checked against the double-precision dot product with the float-sum
// tolerance (common/float_sum.hpp) applied to sum|a[i] * b[i]|.
//
// A variant is a struct derived from its role with
//     static void launch(const Args&);
// (optionally workspace_bytes(const Args&)), declared with
//     BENCH_DECLARE(Dot, MyVariant, DotTypes, "name", "description", block, batch);
#pragma once

#include <string>

#include "common/float_sum.hpp"
#include "common/types.cuh"
#include "families/contract.cuh"

namespace bench::dot {

using DotTypes = Types<float>;

struct Dot : ScalarFamily<Dot> {
  static constexpr const char* name = "dot";
  static constexpr int inputs = 2;
  template <class T> using Out = T;

  // Bytes: both inputs read once, the result written once. Ops: n multiplies
  // and n - 1 adds, counted as 2n floating-point operations.
  template <class T>
  static Work work(std::size_t n) {
    return Work{2.0 * n * sizeof(T), sizeof(T), 2.0 * n};
  }
  template <class T>
  static DoubleSum reference(const Inputs<T, 2>& x, std::size_t n) {
    return double_sum(n, [&x](std::size_t i) { return static_cast<double>(x.a[i]) * x.b[i]; });
  }
  template <class T>
  static std::string check(const DoubleSum& ref, T got, std::size_t n) {
    return check_float_sum(ref.sum, ref.abs_sum, static_cast<double>(got), n);
  }
};

using Args = bench::Args<Dot, float>;

}  // namespace bench::dot
