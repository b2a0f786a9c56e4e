// Family vector_add: out[i] = a[i] + b[i] for float32, half and bfloat16.
//
// A variant is a struct V with
//     template <class T> static void launch(const AddArgs<T>&);
// and optionally `static constexpr bool on_host` (a CPU variant: the pointers
// are host copies of the same data), declared with
// BENCH_DECLARE_VECTOR_ADD(V, Types<...>, spec).
//
// Verification: every element against the exact sum of the (already rounded)
// inputs, rounded once to the element type: computed in double and rounded
// once, so a correct __hadd/__hadd2 kernel matches bit for bit (the float
// operands are exact in double; their sum rounds once).
#pragma once

#include <cstring>

#include "families/reduce.cuh"

namespace bench::vector_add {

using reduce::Spec;
using reduce::Types;
using reduce::type_name;

template <class T>
struct AddArgs {
  const T* a;
  const T* b;
  T* out;
  std::size_t n;
  int block, batch;
  cudaStream_t stream;
};

struct VariantBase {
  static constexpr bool on_host = false;
};

// Bytes: a and b read once, out written once. Ops: n additions. Intensity:
// 1/12 op/byte for float32, 1/6 for half and bfloat16.
template <class T>
Work add_work(std::size_t n) {
  return Work{2.0 * n * sizeof(T), 1.0 * n * sizeof(T), static_cast<double>(n)};
}

template <class T>
inline T round_to(double x) {
  if constexpr (std::is_same_v<T, float>) return static_cast<float>(x);
  else if constexpr (std::is_same_v<T, __half>) return __double2half(x);
  else return __double2bfloat16(x);
}

template <class T>
inline double widen(T x) {
  return static_cast<double>(reduce::to_acc<T>(x));
}

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

template <class T, class V>
class AddCase final : public Case {
 public:
  explicit AddCase(const Point& p) : n_(p.n), offset_(p.offset) {
    const auto& da = random_dataset<T>(n_ + offset_, 0);
    const auto& db = random_dataset<T>(n_ + offset_, 1);
    if constexpr (V::on_host) {
      host_out_.resize(n_ + offset_);
      args_ = {da.host.data() + offset_, db.host.data() + offset_, host_out_.data() + offset_, n_, p.block, p.batch, nullptr};
    } else {
      out_ = DeviceBuffer<T>(n_ + offset_);
      args_ = {da.device.get() + offset_, db.device.get() + offset_, out_.get() + offset_, n_, p.block, p.batch, nullptr};
    }
  }

  void launch(cudaStream_t stream) override {
    args_.stream = stream;
    V::template launch<T>(args_);
  }

  bool host_work() const override { return V::on_host; }

  // One run over a poisoned output (all bits set: NaN), then every element checked.
  std::string verify(cudaStream_t stream) override {
    std::vector<T> got(n_);
    if constexpr (V::on_host) {
      std::memset(host_out_.data() + offset_, 0xFF, n_ * sizeof(T));
      launch(stream);
      std::memcpy(got.data(), host_out_.data() + offset_, n_ * sizeof(T));
    } else {
      BENCH_CUDA_CHECK(cudaMemsetAsync(args_.out, 0xFF, n_ * sizeof(T), stream));
      launch(stream);
      BENCH_CHECK_LAUNCH("variant");
      BENCH_CUDA_CHECK(cudaMemcpyAsync(got.data(), args_.out, n_ * sizeof(T), cudaMemcpyDeviceToHost, stream));
      BENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
    }
    const T* a = random_dataset<T>(n_ + offset_, 0).host.data() + offset_;
    const T* b = random_dataset<T>(n_ + offset_, 1).host.data() + offset_;
    return add_check(a, b, got.data(), n_);
  }

 private:
  std::size_t n_, offset_;
  DeviceBuffer<T> out_;
  std::vector<T> host_out_;
  AddArgs<T> args_{};
};

// The suite stops at 2^28 elements: far past the L2 for every type, and the CPU
// reference stays within seconds.
constexpr std::size_t kMaxN = std::size_t(1) << 28;

template <class V, class... Ts>
bool declare_add(const Spec& spec, Types<Ts...>) {
  auto one = [&spec](auto tag) {
    using T = decltype(tag);
    Declaration d = make_declaration("vector_add", type_name<T>(), spec, &add_work<T>,
                                     [](const Point& p) -> std::unique_ptr<Case> {
                                       return std::make_unique<AddCase<T, V>>(p);
                                     });
    d.max_n = kMaxN;
    return declare(std::move(d));
  };
  return (one(Ts{}) && ...);
}

using AllTypes = Types<float, __half, __nv_bfloat16>;
using HalfTypes = Types<__half, __nv_bfloat16>;

}  // namespace bench::vector_add

#define BENCH_DECLARE_VECTOR_ADD(V, TypeList, ...)                    \
  [[maybe_unused]] static const bool bench_declared_##V##_##TypeList = \
      ::bench::vector_add::declare_add<V>(::bench::vector_add::Spec{__VA_ARGS__}, ::bench::vector_add::TypeList{})
