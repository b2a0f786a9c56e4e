// Family vector_add: out[i] = a[i] + b[i] for float32, half and bfloat16.
//
// A variant is a struct derived from its role with
//     template <class T> static void launch(const Args<T>&);
// declared with
//     BENCH_DECLARE(VectorAdd, MyVariant, AddTypes, "name", "description", block, batch);
// A CpuVariant receives host copies of the same data and a host output.
//
// Verification: every element against the exact sum of the (already rounded)
// inputs, rounded once to the element type, so a correct __hadd/__hadd2 kernel
// matches bit for bit. host_add computes it: in float, which for half and
// bfloat16 is exact after one rounding (float's 24 bits are at least twice the
// type's 11 or 8 plus 2: the sum rounded to float, then to the type, is the
// exact sum rounded once; the tests compare it with the double path), with the
// CPU's F16C conversions for half (harness/half_host.hpp). GPU variants are
// checked on the device by the same rule (wrong_sums, harness/device_check.hpp:
// float add, one rounding to the type), the CPU variant on the host.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "common/types.cuh"
#include "families/contract.cuh"
#include "harness/device_check.hpp"
#include "harness/half_host.hpp"
#include "harness/parallel.hpp"

namespace bench::vector_add {

using AddTypes = Types<float, __half, __nv_bfloat16>;
using HalfTypes = Types<__half, __nv_bfloat16>;

// out[i] = a[i] + b[i] rounded once to T, on the host, for n elements.
template <class T>
void host_add(const T* a, const T* b, T* out, std::size_t n) {
  if constexpr (std::is_same_v<T, __half>) {
    float x[kHalfBlock], y[kHalfBlock];
    for_each_half_block(0, n, [&](std::size_t i, std::size_t m) {
      halves_to_floats(reinterpret_cast<const std::uint16_t*>(a + i), x, m);
      halves_to_floats(reinterpret_cast<const std::uint16_t*>(b + i), y, m);
      for (std::size_t j = 0; j < m; ++j) x[j] += y[j];
      floats_to_halves(x, reinterpret_cast<std::uint16_t*>(out + i), m);
    });
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    for (std::size_t i = 0; i < n; ++i) out[i] = __float2bfloat16_rn(__bfloat162float(a[i]) + __bfloat162float(b[i]));
  } else {
    for (std::size_t i = 0; i < n; ++i) out[i] = a[i] + b[i];
  }
}

// The verdict on `wrong` of n sums, the first at index `at` (a + b, got out).
template <class T>
std::string add_mismatch(std::size_t wrong, std::size_t n, std::size_t at, T a, T b, T out) {
  T want;
  host_add(&a, &b, &want, 1);
  char msg[240];
  std::snprintf(msg, sizeof msg, "%zu of %zu elements wrong; first at index %zu: %.9g + %.9g expected %.9g, got %.9g",
                wrong, n, at, widen(a), widen(b), widen(want), widen(out));
  return msg;
}

// "" when every out[i] equals round(a[i] + b[i]); else the count and the first mismatch.
template <class T>
std::string add_check(const T* a, const T* b, const T* out, std::size_t n) {
  const unsigned chunks = default_chunks(n);
  std::vector<std::size_t> bad(chunks, 0), first(chunks, n);
  parallel_chunks(
      n,
      [&](std::size_t lo, std::size_t hi, unsigned c) {
        T want[kHalfBlock];
        for_each_half_block(lo, hi, [&](std::size_t i, std::size_t m) {
          host_add(a + i, b + i, want, m);
          for (std::size_t j = 0; j < m; ++j) {
            // Equal bits, else equal values (+0 and -0); NaN (an unwritten, poisoned element) fails.
            if (std::memcmp(&out[i + j], &want[j], sizeof(T)) != 0 && !(to_acc(out[i + j]) == to_acc(want[j]))) {
              if (bad[c]++ == 0) first[c] = i + j;
            }
          }
        });
      },
      chunks);
  std::size_t total = 0, at = n;
  for (unsigned c = 0; c < chunks; ++c) total += bad[c], at = std::min(at, first[c]);
  if (total == 0) return "";
  return add_mismatch(total, n, at, a[at], b[at], out[at]);
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
  // The GPU variants' outputs are checked on the device, by the same rule
  // (harness/device_check.hpp's wrong_sums), with no read-back; the message is
  // the host check's, from the first wrong element read back alone.
  template <class T>
  static constexpr bool device_checked = true;
  template <class T>
  static std::string device_check(const Inputs<T, 2>& x, const T* got, std::size_t n, cudaStream_t stream) {
    const WrongElements wrong = wrong_sums(x.a, x.b, got, n, stream);
    if (wrong.count == 0) return "";
    const std::size_t i = wrong.first;
    T a{}, b{}, out{};
    BENCH_CUDA_CHECK(cudaMemcpy(&a, x.a + i, sizeof(T), cudaMemcpyDeviceToHost));
    BENCH_CUDA_CHECK(cudaMemcpy(&b, x.b + i, sizeof(T), cudaMemcpyDeviceToHost));
    BENCH_CUDA_CHECK(cudaMemcpy(&out, got + i, sizeof(T), cudaMemcpyDeviceToHost));
    return add_mismatch(wrong.count, n, i, a, b, out) + " (checked on the device)";
  }
};

template <class T>
using Args = bench::Args<VectorAdd, T>;

}  // namespace bench::vector_add
