// How float sums are verified (reductions, dot, the read ceiling, each prefix
// of a scan): against the sum in double, within
//     |got - exact| <= 2 * eps_f32 * (ceil(log2 n) + 1) * sum|x|,
// twice the worst-case bound of pairwise (tree) summation of n terms. Block
// trees, grid-stride loops, atomics and look-back chains all stay far inside it
// on the zero-mean data used here (harness/data.hpp). The tolerance itself is
// also a device function (the float32 scan is checked on the device,
// harness/device_check.cu); the rest is host only.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "common/types.cuh"
#include "harness/parallel.hpp"

#ifdef __CUDACC__
#define BENCH_FLOAT_SUM_HD __host__ __device__
#else
#define BENCH_FLOAT_SUM_HD
#endif

namespace bench {

// ceil(log2 n) for n >= 1, in integers: the bit width of n - 1. The scan's check
// asks it once per element (2^30 times at the largest N), where std::log2 and
// std::ceil cost more than the rest of the check.
BENCH_FLOAT_SUM_HD inline int ceil_log2(std::size_t n) {
#ifdef __CUDA_ARCH__
  return n <= 1 ? 0 : 64 - __clzll(static_cast<long long>(n - 1));
#else
  return n <= 1 ? 0 : 64 - __builtin_clzll(static_cast<unsigned long long>(n - 1));
#endif
}

constexpr double kFloatEpsilon = std::numeric_limits<float>::epsilon();

BENCH_FLOAT_SUM_HD inline double float_sum_tolerance(std::size_t n, double abs_sum) {
  const double levels = static_cast<double>(ceil_log2(n > 1 ? n : 2)) + 1.0;
  return 2.0 * kFloatEpsilon * levels * abs_sum;
}

// "" when `got` is within the tolerance of `exact`, else what was expected and
// what came back. NaN fails.
inline std::string check_float_sum(double exact, double abs_sum, double got, std::size_t n) {
  const double tol = float_sum_tolerance(n, abs_sum);
  const double err = std::fabs(got - exact);
  if (err <= tol) return "";
  char msg[200];
  std::snprintf(msg, sizeof msg, "expected %.9g, got %.9g (|error| %.3g > tolerance %.3g, N=%zu)", exact, got, err, tol,
                n);
  return msg;
}

// The sum of f(i) and the sum of |f(i)| over i in [0, n), in double, in parallel.
struct DoubleSum {
  double sum = 0;
  double abs_sum = 0;
};

template <class Term>
DoubleSum double_sum(std::size_t n, Term term) {
  const unsigned chunks = default_chunks(n);
  std::vector<DoubleSum> parts(chunks);
  parallel_chunks(
      n,
      [&](std::size_t lo, std::size_t hi, unsigned c) {
        DoubleSum s;
        for (std::size_t i = lo; i < hi; ++i) {
          const double t = term(i);
          s.sum += t;
          s.abs_sum += std::fabs(t);
        }
        parts[c] = s;
      },
      chunks);
  DoubleSum r;
  for (const auto& p : parts) r.sum += p.sum, r.abs_sum += p.abs_sum;
  return r;
}

}  // namespace bench
