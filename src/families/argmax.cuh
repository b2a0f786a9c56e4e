// Family reduce_argmax: the largest value of in[0..n) and its index; ties go to
// the lowest index, as cub::DeviceReduce::ArgMax resolves them. int32 data has
// many ties (values in [-16, 16]), so the tie rule is exercised on every run.
//
// A variant is a struct derived from its role with
//     template <class T> static void launch(const Args<T>&);
// (optionally workspace_bytes(const Args<T>&)), declared with
//     BENCH_DECLARE(Argmax, MyVariant, ArgmaxTypes, "name", "description", block, batch);
#pragma once

#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "common/types.cuh"
#include "families/contract.cuh"
#include "harness/parallel.hpp"

namespace bench::argmax {

using ArgmaxTypes = Types<int, float>;

template <class T>
struct ArgPair {
  T value;
  long long index;
};

// The argmax operator: larger value wins; equal values, the lower index.
struct ArgMaxOp {
  template <class P>
  __host__ __device__ static P identity() {
    return P{std::numeric_limits<decltype(P::value)>::lowest(), std::numeric_limits<long long>::max()};
  }
  template <class P>
  __host__ __device__ static P combine(P a, P b) {
    return (b.value > a.value || (b.value == a.value && b.index < a.index)) ? b : a;
  }
};

struct Argmax : ScalarFamily<Argmax> {
  static constexpr const char* name = "reduce_argmax";
  static constexpr int inputs = 1;
  template <class T> using Out = ArgPair<T>;

  // Bytes: input once, value and index written once. Ops: n - 1 comparisons.
  template <class T>
  static Work work(std::size_t n) {
    return Work{static_cast<double>(n) * sizeof(T), sizeof(T) + sizeof(long long), n > 0 ? n - 1.0 : 0};
  }

  template <class T>
  static ArgPair<T> reference(const Inputs<T, 1>& x, std::size_t n) {
    const unsigned chunks = default_chunks(n);
    std::vector<ArgPair<T>> best(chunks, ArgMaxOp::identity<ArgPair<T>>());
    parallel_chunks(
        n,
        [&](std::size_t b, std::size_t e, unsigned c) {
          ArgPair<T> p = ArgMaxOp::identity<ArgPair<T>>();
          for (std::size_t i = b; i < e; ++i) p = ArgMaxOp::combine(p, ArgPair<T>{x.in[i], static_cast<long long>(i)});
          best[c] = p;
        },
        chunks);
    ArgPair<T> r = ArgMaxOp::identity<ArgPair<T>>();
    for (const auto& p : best) r = ArgMaxOp::combine(r, p);
    return r;
  }

  template <class T>
  static std::string check(const ArgPair<T>& want, const ArgPair<T>& got, std::size_t) {
    if (want.value == got.value && want.index == got.index) return "";
    char msg[160];
    std::snprintf(msg, sizeof msg, "expected max %.9g at index %lld, got %.9g at index %lld",
                  static_cast<double>(want.value), want.index, static_cast<double>(got.value), got.index);
    return msg;
  }
};

template <class T>
using Args = bench::Args<Argmax, T>;

}  // namespace bench::argmax
