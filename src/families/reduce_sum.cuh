// Family reduce_sum: out = sum of in[0..n), for int32 (exact, wrapping) and
// float32 (float accumulation, checked against a double reference).
//
// A variant is a struct V with
//     template <typename T> static void launch(const Args<T>&);
// and optionally
//     template <typename T> static std::size_t workspace_bytes(std::size_t n, int block, int batch);
//     static constexpr bool result_on_host;   // launch writes *host_out, not *out
// declared once with BENCH_DECLARE_REDUCE_SUM(V, spec). Bytes, verification,
// data and registration are this file's business, not the variant's.
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>

#include "harness/cuda_check.hpp"
#include "harness/data.hpp"
#include "harness/parallel.hpp"
#include "harness/registry.hpp"

namespace bench::reduce_sum {

template <typename T>
struct Args {
  const T* in;
  std::size_t n;
  T* out;          // device result (one element)
  T* host_out;     // host result, for variants with result_on_host
  int block;       // 0 when the variant takes no block axis
  int batch;       // items per thread; 0 when not taken
  void* workspace; // V::workspace_bytes<T>(n, block, batch) bytes, allocated outside timing
  cudaStream_t stream;
};

// The type-independent part of a declaration.
struct Spec {
  const char* name;
  const char* description;
  Axis block;
  Axis batch;
};

// Defaults for the optional parts of a variant.
struct VariantBase {
  template <typename T>
  static std::size_t workspace_bytes(std::size_t, int, int) { return 0; }
  static constexpr bool result_on_host = false;
};

template <typename T> constexpr const char* type_name();
template <> constexpr const char* type_name<int>() { return "i32"; }
template <> constexpr const char* type_name<float>() { return "f32"; }

// Bytes: the input read once and the result written once. Ops: n - 1 additions.
template <typename T>
Work work(std::size_t n) {
  return Work{static_cast<double>(n) * sizeof(T), sizeof(T), n > 0 ? static_cast<double>(n) - 1 : 0};
}

template <typename T>
struct Reference {
  T value;          // int: exact sum modulo 2^32; float: the double sum rounded
  double exact;     // the sum in double (int: exact)
  double abs_sum;   // sum of |x|, scales the float tolerance
};

// Float tolerance: |got - exact| <= 2 * eps_f32 * (ceil(log2 n) + 1) * sum|x|.
// That is twice the worst-case bound of pairwise (tree) summation; the block
// trees, grid-stride loops and atomic combines here all stay inside it on the
// zero-mean data (observed errors are orders of magnitude smaller). Integers are
// compared exactly.
inline double float_tolerance(std::size_t n, double abs_sum) {
  const double levels = std::ceil(std::log2(static_cast<double>(n > 1 ? n : 2))) + 1.0;
  return 2.0 * std::numeric_limits<float>::epsilon() * levels * abs_sum;
}

template <typename T>
Reference<T> compute_reference(const T* x, std::size_t n) {
  const unsigned chunks = default_chunks(n);
  std::vector<double> sums(chunks, 0.0), abs_sums(chunks, 0.0);
  std::vector<unsigned> wrapped(chunks, 0u);
  parallel_chunks(
      n,
      [&](std::size_t b, std::size_t e, unsigned c) {
        double s = 0, a = 0;
        unsigned w = 0;
        for (std::size_t i = b; i < e; ++i) {
          s += static_cast<double>(x[i]);
          a += std::fabs(static_cast<double>(x[i]));
          if constexpr (std::is_integral_v<T>) w += static_cast<unsigned>(x[i]);
        }
        sums[c] = s, abs_sums[c] = a, wrapped[c] = w;
      },
      chunks);
  Reference<T> r{T{}, 0.0, 0.0};
  unsigned w = 0;
  for (unsigned c = 0; c < chunks; ++c) r.exact += sums[c], r.abs_sum += abs_sums[c], w += wrapped[c];
  if constexpr (std::is_integral_v<T>) {
    r.value = static_cast<T>(w);
  } else {
    r.value = static_cast<T>(r.exact);
  }
  return r;
}

// Empty when `got` is right for `ref` over n elements, else what was wrong.
template <typename T>
std::string check(const Reference<T>& ref, T got, std::size_t n) {
  char msg[256];
  if constexpr (std::is_integral_v<T>) {
    if (got == ref.value) return "";
    std::snprintf(msg, sizeof msg, "expected %lld, got %lld (N=%zu)", static_cast<long long>(ref.value),
                  static_cast<long long>(got), n);
  } else {
    const double tol = float_tolerance(n, ref.abs_sum);
    const double err = std::fabs(static_cast<double>(got) - ref.exact);
    if (err <= tol) return "";  // NaN fails here too
    std::snprintf(msg, sizeof msg, "expected %.9g, got %.9g (|error| %.3g > tolerance %.3g, N=%zu)",
                  ref.exact, static_cast<double>(got), err, tol, n);
  }
  return msg;
}

// The reference for the shared random dataset of size n, computed once.
template <typename T>
const Reference<T>& dataset_reference(std::size_t n) {
  static std::map<std::size_t, Reference<T>> cache;
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(n);
  if (it == cache.end()) {
    const auto& ds = random_dataset<T>(n);
    it = cache.emplace(n, compute_reference(ds.host.data(), n)).first;
  }
  return it->second;
}

template <typename T, class V>
class SumCase final : public Case {
 public:
  SumCase(const Point& p, const T* in)
      : n_(p.n),
        out_(1),
        workspace_(V::template workspace_bytes<T>(p.n, p.block, p.batch)),
        args_{in, p.n, out_.get(), &host_out_, p.block, p.batch, workspace_.get(), nullptr} {}

  void launch(cudaStream_t stream) override {
    args_.stream = stream;
    V::template launch<T>(args_);
  }

  // Runs once with a poisoned output, so an unwritten result cannot pass.
  std::string verify(cudaStream_t stream) override { return check(dataset_reference<T>(n_), run_once(stream), n_); }

  T run_once(cudaStream_t stream) {
    BENCH_CUDA_CHECK(cudaMemsetAsync(out_.get(), 0xA5, sizeof(T), stream));
    std::memset(&host_out_, 0xA5, sizeof(T));
    launch(stream);
    BENCH_CHECK_LAUNCH("variant");
    T got{};
    BENCH_CUDA_CHECK(cudaMemcpyAsync(&got, out_.get(), sizeof(T), cudaMemcpyDeviceToHost, stream));
    BENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
    return V::result_on_host ? host_out_ : got;
  }

 private:
  std::size_t n_;
  DeviceBuffer<T> out_;
  DeviceBuffer<unsigned char> workspace_;
  T host_out_{};
  Args<T> args_;
};

template <class V, typename T>
Declaration make_declaration(const Spec& spec) {
  Declaration d;
  d.family = "reduce_sum";
  d.type = type_name<T>();
  d.variant = spec.name;
  d.description = spec.description;
  d.block = spec.block;
  d.batch = spec.batch;
  d.work = &work<T>;
  d.make_case = [](const Point& p) -> std::unique_ptr<Case> {
    return std::make_unique<SumCase<T, V>>(p, random_dataset<T>(p.n).device.get());
  };
  return d;
}

template <class V, typename... Ts>
bool declare_types(const Spec& spec) {
  return (declare(make_declaration<V, Ts>(spec)) && ...);
}

}  // namespace bench::reduce_sum

// Declares variant V for int32 and float32.
#define BENCH_DECLARE_REDUCE_SUM(V, ...)                                                    \
  [[maybe_unused]] static const bool bench_declared_##V =                                   \
      ::bench::reduce_sum::declare_types<V, int, float>(::bench::reduce_sum::Spec{__VA_ARGS__})
