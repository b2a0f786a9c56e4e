// Families reduce_sum, reduce_max, reduce_min: out = op(in[0..n)), for int32,
// float32, and (sum) half / bfloat16 inputs accumulated in float.
//
// A variant is a struct derived from its role with
//     template <class Op, class In> static void launch(const Args<Op, In>&);
// (optionally workspace_bytes(const Args<Op, In>&)), declared once per
// operator it supports:
//     BENCH_DECLARE(ReduceSum, MyVariant, SumTypes, "my_variant", "technique; lineage", block, batch);
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <type_traits>
#include <vector>

#include "common/float_sum.hpp"
#include "common/ops.cuh"
#include "common/types.cuh"
#include "families/contract.cuh"
#include "harness/half_host.hpp"
#include "harness/parallel.hpp"

namespace bench::reduce {

using SumTypes = Types<int, float>;  // also max and min
using AllSumTypes = Types<int, float, __half, __nv_bfloat16>;
using IntOnly = Types<int>;

template <class A>
struct Reference {
  A value;          // exact for integers and for max/min; the double sum rounded otherwise
  double exact;     // the result in double
  double abs_sum;   // sum of |x|, scales the float-sum tolerance
};

template <class Op, class In>
Reference<Acc<In>> compute_reference(const In* x, std::size_t n) {
  using A = Acc<In>;
  const unsigned chunks = default_chunks(n);
  std::vector<double> sums(chunks, 0.0), abs_sums(chunks, 0.0);
  std::vector<A> partial(chunks, Op::template identity<A>());
  std::vector<unsigned> wrapped(chunks, 0u);
  parallel_chunks(
      n,
      [&](std::size_t b, std::size_t e, unsigned c) {
        double s = 0, a = 0;
        unsigned w = 0;
        A p = Op::template identity<A>();
        auto take = [&](A v) {
          s += static_cast<double>(v);
          a += std::fabs(static_cast<double>(v));
          p = Op::combine(p, v);
          if constexpr (std::is_integral_v<A>) w += static_cast<unsigned>(v);
        };
        if constexpr (std::is_same_v<In, __half>) {  // widened a block at a time (F16C where the CPU has it)
          float block[kHalfBlock];
          for_each_half_block(b, e, [&](std::size_t i, std::size_t m) {
            halves_to_floats(reinterpret_cast<const std::uint16_t*>(x + i), block, m);
            for (std::size_t j = 0; j < m; ++j) take(block[j]);
          });
        } else {
          for (std::size_t i = b; i < e; ++i) take(to_acc<In>(x[i]));
        }
        sums[c] = s, abs_sums[c] = a, partial[c] = p, wrapped[c] = w;
      },
      chunks);
  Reference<A> r{Op::template identity<A>(), 0.0, 0.0};
  unsigned w = 0;
  A p = Op::template identity<A>();
  for (unsigned c = 0; c < chunks; ++c)
    r.exact += sums[c], r.abs_sum += abs_sums[c], w += wrapped[c], p = Op::combine(p, partial[c]);
  if constexpr (!std::is_same_v<Op, Sum>) {
    r.value = p;
    r.exact = static_cast<double>(p);
  } else if constexpr (std::is_integral_v<A>) {
    r.value = static_cast<A>(w);
  } else {
    r.value = static_cast<A>(r.exact);
  }
  return r;
}

// Integer sums (two's-complement wrap, as the GPU adds) and every max/min are
// compared exactly; float sums within common/float_sum.hpp's tolerance.
template <class Op, class A>
std::string check(const Reference<A>& ref, A got, std::size_t n) {
  if constexpr (std::is_integral_v<A> || !std::is_same_v<Op, Sum>) {
    if (got == ref.value) return "";
    char msg[160];
    std::snprintf(msg, sizeof msg, "expected %.9g, got %.9g (exact comparison, N=%zu)",
                  static_cast<double>(ref.value), static_cast<double>(got), n);
    return msg;
  } else {
    return check_float_sum(ref.exact, ref.abs_sum, static_cast<double>(got), n);
  }
}

template <class Op> inline constexpr const char* family_name = nullptr;
template <> inline constexpr const char* family_name<Sum> = "reduce_sum";
template <> inline constexpr const char* family_name<Max> = "reduce_max";
template <> inline constexpr const char* family_name<Min> = "reduce_min";

template <class Op>
struct Reduce : ScalarFamily<Reduce<Op>> {
  static constexpr const char* name = family_name<Op>;
  static constexpr int inputs = 1;
  template <class T> using Out = Acc<T>;

  // Bytes: the input read once, the result written once. Ops: n - 1 combines.
  template <class T>
  static Work work(std::size_t n) {
    return Work{static_cast<double>(n) * sizeof(T), sizeof(Acc<T>), n > 0 ? static_cast<double>(n) - 1 : 0};
  }
  template <class T>
  static Reference<Acc<T>> reference(const Inputs<T, 1>& x, std::size_t n) {
    return compute_reference<Op>(x.in, n);
  }
  template <class T>
  static std::string check(const Reference<Acc<T>>& ref, Acc<T> got, std::size_t n) {
    return reduce::check<Op>(ref, got, n);
  }
};

using ReduceSum = Reduce<Sum>;
using ReduceMax = Reduce<Max>;
using ReduceMin = Reduce<Min>;

template <class Op, class In>
using Args = bench::Args<Reduce<Op>, In>;

}  // namespace bench::reduce
