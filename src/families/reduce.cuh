// Families reduce_sum, reduce_max, reduce_min: out = op(in[0..n)), for int32,
// float32, and (sum) half / bfloat16 inputs accumulated in float.
//
// A variant is a struct V with
//     template <class Op, class In> static void launch(const Args<Op, In>&);
// and optionally
//     template <class Op, class In> static std::size_t workspace_bytes(std::size_t n, int block, int batch);
//     static constexpr bool result_on_host;   // launch writes *host_out, not *out
// declared once with BENCH_DECLARE_REDUCE(V, Op, Types<...>, spec) for the
// operators and input types it supports. Bytes, data, reference, verification
// and registration live here, not in the variant.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
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
#include <utility>

#include "families/scalar_result.hpp"
#include "harness/cuda_check.hpp"
#include "harness/data.hpp"
#include "harness/parallel.hpp"
#include "harness/registry.hpp"

namespace bench::reduce {

// ---- operators -------------------------------------------------------------
struct Sum {
  static constexpr const char* family = "reduce_sum";
  template <class T> __host__ __device__ static T identity() { return T(0); }
  template <class T> __host__ __device__ static T combine(T a, T b) { return a + b; }
};
struct Max {
  static constexpr const char* family = "reduce_max";
  template <class T> __host__ __device__ static T identity() { return std::numeric_limits<T>::lowest(); }
  template <class T> __host__ __device__ static T combine(T a, T b) { return b > a ? b : a; }
};
struct Min {
  static constexpr const char* family = "reduce_min";
  template <class T> __host__ __device__ static T identity() { return std::numeric_limits<T>::max(); }
  template <class T> __host__ __device__ static T combine(T a, T b) { return b < a ? b : a; }
};

// ---- element types ---------------------------------------------------------
// Accumulation (and result) type: half and bfloat16 inputs accumulate in float.
template <class In> struct AccumOf { using type = In; };
template <> struct AccumOf<__half> { using type = float; };
template <> struct AccumOf<__nv_bfloat16> { using type = float; };
template <class In> using Acc = typename AccumOf<In>::type;

template <class In> __host__ __device__ inline Acc<In> to_acc(In x) { return static_cast<Acc<In>>(x); }
template <> __host__ __device__ inline float to_acc<__half>(__half x) { return __half2float(x); }
template <> __host__ __device__ inline float to_acc<__nv_bfloat16>(__nv_bfloat16 x) { return __bfloat162float(x); }

template <class In> constexpr const char* type_name();
template <> constexpr const char* type_name<int>() { return "i32"; }
template <> constexpr const char* type_name<float>() { return "f32"; }
template <> constexpr const char* type_name<__half>() { return "f16"; }
template <> constexpr const char* type_name<__nv_bfloat16>() { return "bf16"; }

template <class... Ts> struct Types {};
using SumTypes = Types<int, float>;                               // also max/min
using AllSumTypes = Types<int, float, __half, __nv_bfloat16>;
using IntOnly = Types<int>;

// ---- what a variant receives -----------------------------------------------
template <class Op, class In>
struct Args {
  const In* in;
  std::size_t n;
  Acc<In>* out;        // device result (one element)
  Acc<In>* host_out;   // host result, for variants with result_on_host
  int block;           // 0 when the variant takes no block axis
  int batch;           // items per thread; 0 when not taken
  void* workspace;     // V::workspace_bytes bytes, allocated outside the timed region
  std::size_t workspace_size;
  cudaStream_t stream;
};

using Spec = VariantSpec;

struct VariantBase {
  template <class Op, class In>
  static std::size_t workspace_bytes(std::size_t, int, int) { return 0; }
  static constexpr bool result_on_host = false;
};

// Bytes: the input read once, the result written once. Ops: n - 1 combines.
template <class In>
Work work(std::size_t n) {
  return Work{static_cast<double>(n) * sizeof(In), sizeof(Acc<In>), n > 0 ? static_cast<double>(n) - 1 : 0};
}

// ---- reference and verification -------------------------------------------
template <class A>
struct Reference {
  A value;          // exact for integers and for max/min; the double sum rounded otherwise
  double exact;     // the result in double
  double abs_sum;   // sum of |x|, scales the float-sum tolerance
};

// Float-sum tolerance: |got - exact| <= 2 * eps_f32 * (ceil(log2 n) + 1) * sum|x|,
// twice the worst-case bound of pairwise (tree) summation. Block trees,
// grid-stride loops and atomic combines all stay far inside it on the zero-mean
// data used here. Integer sums (two's-complement wrap, like the GPU) and every
// max/min are compared exactly.
inline double float_tolerance(std::size_t n, double abs_sum) {
  const double levels = std::ceil(std::log2(static_cast<double>(n > 1 ? n : 2))) + 1.0;
  return 2.0 * std::numeric_limits<float>::epsilon() * levels * abs_sum;
}

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
        for (std::size_t i = b; i < e; ++i) {
          const A v = to_acc<In>(x[i]);
          s += static_cast<double>(v);
          a += std::fabs(static_cast<double>(v));
          p = Op::combine(p, v);
          if constexpr (std::is_integral_v<A>) w += static_cast<unsigned>(v);
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

// Empty when `got` is right, else what was expected and what came back.
template <class Op, class A>
std::string check(const Reference<A>& ref, A got, std::size_t n) {
  char msg[256];
  if constexpr (std::is_integral_v<A> || !std::is_same_v<Op, Sum>) {
    if (got == ref.value) return "";
    std::snprintf(msg, sizeof msg, "expected %.9g, got %.9g (exact comparison, N=%zu)",
                  static_cast<double>(ref.value), static_cast<double>(got), n);
  } else {
    const double tol = float_tolerance(n, ref.abs_sum);
    const double err = std::fabs(static_cast<double>(got) - ref.exact);
    if (err <= tol) return "";  // NaN fails here too
    std::snprintf(msg, sizeof msg, "expected %.9g, got %.9g (|error| %.3g > tolerance %.3g, N=%zu)", ref.exact,
                  static_cast<double>(got), err, tol, n);
  }
  return msg;
}

// The reference for the shared random dataset (elements [offset, offset + n)),
// computed once per (n, offset).
template <class Op, class In>
const Reference<Acc<In>>& dataset_reference(std::size_t n, std::size_t offset) {
  static std::map<std::pair<std::size_t, std::size_t>, Reference<Acc<In>>> cache;
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  const auto key = std::make_pair(n, offset);
  auto it = cache.find(key);
  if (it == cache.end()) {
    const auto& ds = random_dataset<In>(n + offset);
    it = cache.emplace(key, compute_reference<Op, In>(ds.host.data() + offset, n)).first;
  }
  return it->second;
}

template <class Op, class In, class V>
class ReduceCase final : public Case {
  using A = Acc<In>;

 public:
  explicit ReduceCase(const Point& p)
      : n_(p.n),
        offset_(p.offset),
        out_(1),
        workspace_(V::template workspace_bytes<Op, In>(p.n, p.block, p.batch)),
        args_{random_dataset<In>(p.n + p.offset).device.get() + p.offset,
              p.n, out_.get(), &host_out_, p.block, p.batch, workspace_.get(), workspace_.size(), nullptr} {}

  void launch(cudaStream_t stream) override {
    args_.stream = stream;
    V::template launch<Op, In>(args_);
  }

  bool host_work() const override { return V::result_on_host; }

  // One run with a poisoned result, so an unwritten output cannot pass.
  std::string verify(cudaStream_t stream) override {
    const A got = run_poisoned([this](cudaStream_t s) { launch(s); }, out_.get(), &host_out_, V::result_on_host, stream);
    return check<Op>(dataset_reference<Op, In>(n_, offset_), got, n_);
  }

 private:
  std::size_t n_, offset_;
  DeviceBuffer<A> out_;
  DeviceBuffer<unsigned char> workspace_;
  A host_out_{};
  Args<Op, In> args_;
};

template <class V, class Op, class... Ins>
bool declare_types(const Spec& spec, Types<Ins...>) {
  return (declare(make_declaration(Op::family, type_name<Ins>(), spec, &work<Ins>,
                                   [](const Point& p) -> std::unique_ptr<Case> {
                                     return std::make_unique<ReduceCase<Op, Ins, V>>(p);
                                   })) &&
          ...);
}

}  // namespace bench::reduce

// Declares variant V for operator Op over the input types in Types<...>.
#define BENCH_DECLARE_REDUCE(V, Op, TypeList, ...)                                        \
  [[maybe_unused]] static const bool bench_declared_##V##_##Op =                          \
      ::bench::reduce::declare_types<V, ::bench::reduce::Op>(::bench::reduce::Spec{__VA_ARGS__}, TypeList{})
