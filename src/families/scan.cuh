// Family scan: the inclusive prefix sum out[i] = in[0] + ... + in[i], for
// int32 and float32.
//
// A variant is a struct derived from its role with
//     template <class T> static void launch(const Args<T>&);
// (optionally workspace_bytes(const Args<T>&)), declared with
//     BENCH_DECLARE(Scan, MyVariant, ScanTypes, "name", "description", block, batch);
//
// Verification, every element, on the device for GPU variants (no 4 GiB
// read-back at 2^30; the host check for the CPU reference): int32 exactly
// (two's-complement wrap, as the GPU adds); float32 within the float-sum
// tolerance of its own prefix,
//     |out[i] - sum_{j<=i} x_j| <= 2 eps_f32 (ceil(log2(i + 1)) + 1) sum_{j<=i} |x_j|
// (common/float_sum.hpp), against the prefix in double. A look-back or spine
// chain adds tile sums one after another, not as a tree, but on the zero-mean
// data used here its partial sums stay near sqrt(i), far below sum|x|, so even
// rounding errors of one sign at every step stay inside that bound.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <type_traits>
#include <vector>

#include "common/float_sum.hpp"
#include "common/types.cuh"
#include "families/contract.cuh"
#include "harness/device_check.hpp"
#include "harness/parallel.hpp"

namespace bench::scan {

using ScanTypes = Types<int, float>;

// The verdict on float32 prefix sums that are not all within the tolerance:
// how many, the first, its prefix in double and the tolerance there.
inline std::string float_prefix_verdict(std::size_t wrong, std::size_t n, std::size_t first, double expected,
                                        double got, double abs_sum) {
  char msg[240];
  std::snprintf(msg, sizeof msg,
                "%zu of %zu prefix sums wrong; first at index %zu: expected %.9g, got %.9g (tolerance %.3g)", wrong, n,
                first, expected, got, float_sum_tolerance(first + 1, abs_sum));
  return msg;
}

// "" when every out[i] is the inclusive prefix sum of x up to i, else how many
// are not and the first of them. Two parallel passes over the same chunks: the
// sums of each chunk, then each chunk walks its prefix from those before it.
template <class T>
std::string scan_check(const T* x, const T* out, std::size_t n) {
  struct Prefix {
    unsigned wrapped = 0;  // int32: the sum modulo 2^32
    double sum = 0;        // float32: the sum and the sum of |x| in double
    double abs_sum = 0;
    void add(T v) {
      if constexpr (std::is_integral_v<T>) {
        wrapped += static_cast<unsigned>(v);
      } else {
        sum += static_cast<double>(v);
        abs_sum += std::fabs(static_cast<double>(v));
      }
    }
    bool matches(T got, std::size_t terms) const {
      if constexpr (std::is_integral_v<T>) return static_cast<unsigned>(got) == wrapped;
      else return std::fabs(static_cast<double>(got) - sum) <= float_sum_tolerance(terms, abs_sum);  // NaN fails
    }
    double expected() const { return std::is_integral_v<T> ? static_cast<double>(static_cast<int>(wrapped)) : sum; }
  };
  const unsigned chunks = default_chunks(n);
  std::vector<Prefix> totals(chunks);
  parallel_chunks(
      n,
      [&](std::size_t lo, std::size_t hi, unsigned c) {
        for (std::size_t i = lo; i < hi; ++i) totals[c].add(x[i]);
      },
      chunks);
  std::vector<Prefix> starts(chunks);  // the prefix before each chunk
  for (unsigned c = 1; c < chunks; ++c) {
    starts[c] = starts[c - 1];
    starts[c].wrapped += totals[c - 1].wrapped;
    starts[c].sum += totals[c - 1].sum;
    starts[c].abs_sum += totals[c - 1].abs_sum;
  }
  struct Mismatch {
    std::size_t count = 0, first = 0;
    Prefix want;
  };
  std::vector<Mismatch> bad(chunks);
  parallel_chunks(
      n,
      [&](std::size_t lo, std::size_t hi, unsigned c) {
        Prefix p = starts[c];
        for (std::size_t i = lo; i < hi; ++i) {
          p.add(x[i]);
          if (!p.matches(out[i], i + 1) && bad[c].count++ == 0) bad[c].first = i, bad[c].want = p;
        }
      },
      chunks);
  std::size_t total = 0;
  const Mismatch* first = nullptr;
  for (const auto& b : bad) {
    total += b.count;
    if (b.count && !first) first = &b;  // chunks are in index order
  }
  if (total == 0) return "";
  const double got = static_cast<double>(out[first->first]);
  if constexpr (std::is_integral_v<T>) {
    char msg[240];
    std::snprintf(msg, sizeof msg, "%zu of %zu prefix sums wrong; first at index %zu: expected %.0f, got %.0f", total,
                  n, first->first, first->want.expected(), got);
    return msg;
  } else {
    return float_prefix_verdict(total, n, first->first, first->want.sum, got, first->want.abs_sum);
  }
}

// The device check of int32 prefix sums (restarting every `segment` elements,
// 0: never): "" when right, else the first wrong sum with its right value
// (every element before the first break of the rule is right, so that value is
// out[i-1] + in[i], or in[i] where a segment starts) and how many indices break
// the rule (one wrong element breaks it at two indices, a lost carry at one).
inline std::string prefix_sums_device_check(const int* in, const int* out, std::size_t n, std::size_t segment,
                                            cudaStream_t stream) {
  const WrongElements wrong = wrong_prefix_sums(in, out, n, segment, stream);
  if (wrong.count == 0) return "";
  const std::size_t i = wrong.first;
  int got = 0, x = 0, before = 0;
  BENCH_CUDA_CHECK(cudaMemcpy(&got, out + i, sizeof got, cudaMemcpyDeviceToHost));
  BENCH_CUDA_CHECK(cudaMemcpy(&x, in + i, sizeof x, cudaMemcpyDeviceToHost));
  if (!segment_starts(i, segment))
    BENCH_CUDA_CHECK(cudaMemcpy(&before, out + i - 1, sizeof before, cudaMemcpyDeviceToHost));
  const int want = static_cast<int>(static_cast<unsigned>(before) + static_cast<unsigned>(x));
  char msg[240];
  std::snprintf(msg, sizeof msg,
                "first wrong prefix sum at index %zu of %zu: expected %d, got %d; the rule out[i] = out[i-1] + "
                "in[i] breaks at %zu indices (checked on the device)",
                i, n, want, got, wrong.count);
  return msg;
}

// The device check of float32 prefix sums: "" when every one is within the
// tolerance, else the host check's verdict, said to come from the device.
inline std::string float_prefix_sums_device_check(const float* in, const float* out, std::size_t n,
                                                  cudaStream_t stream) {
  const WrongFloatPrefix w = wrong_float_prefix_sums(in, out, n, stream);
  if (w.wrong.count == 0) return "";
  float got = 0;
  BENCH_CUDA_CHECK(cudaMemcpy(&got, out + w.wrong.first, sizeof got, cudaMemcpyDeviceToHost));
  return float_prefix_verdict(w.wrong.count, n, w.wrong.first, w.expected, got, w.abs_sum) +
         " (checked on the device)";
}

struct Scan : ArrayFamily<Scan> {
  static constexpr const char* name = "scan";
  static constexpr int inputs = 1;
  template <class T> using Out = T;

  // Bytes: the input read once, the output written once. Ops: n - 1 additions.
  template <class T>
  static Work work(std::size_t n) {
    return Work{static_cast<double>(n) * sizeof(T), static_cast<double>(n) * sizeof(T),
                n > 0 ? static_cast<double>(n) - 1 : 0};
  }
  template <class T>
  static std::string check(const Inputs<T, 1>& x, const T* got, std::size_t n) {
    return scan_check(x.in, got, n);
  }
  // Checked on the device, with no 4 GiB read-back at 2^30: int32 exactly, so
  // out[i] = out[i-1] + in[i] at every i (and out[0] = in[0]) is the whole
  // verdict; float32 against its prefix in double, made on the device.
  template <class T>
  static constexpr bool device_checked = true;
  template <class T>
  static std::string device_check(const Inputs<T, 1>& x, const T* got, std::size_t n, cudaStream_t stream) {
    if constexpr (std::is_same_v<T, int>) return prefix_sums_device_check(x.in, got, n, 0, stream);
    else return float_prefix_sums_device_check(x.in, got, n, stream);
  }
};

template <class T>
using Args = bench::Args<Scan, T>;

}  // namespace bench::scan
