// Family reduce_argmax: the largest value of in[0..n) and its index; ties go to
// the lowest index, as cub::DeviceReduce::ArgMax resolves them. int32 data has
// many ties (values in [-16, 16]), so the tie rule is exercised on every run.
//
// A variant is a struct V with
//     template <class T> static void launch(const ArgArgs<T>&);
// (optionally workspace_bytes<T>(n, block, batch) and result_on_host), declared
// with BENCH_DECLARE_ARGMAX(V, spec) for int32 and float32.
#pragma once

#include <cstdio>
#include <limits>

#include "families/reduce.cuh"

namespace bench::reduce {

template <class T>
struct ArgPair {
  T value;
  long long index;
};

// The argmax operator: larger value wins; equal values, the lower index.
struct ArgMaxOp {
  static constexpr const char* family = "reduce_argmax";
  template <class P>
  __host__ __device__ static P identity() {
    return P{std::numeric_limits<decltype(P::value)>::lowest(), std::numeric_limits<long long>::max()};
  }
  template <class P>
  __host__ __device__ static P combine(P a, P b) {
    return (b.value > a.value || (b.value == a.value && b.index < a.index)) ? b : a;
  }
};

template <class T>
struct ArgArgs {
  const T* in;
  std::size_t n;
  ArgPair<T>* out;       // device result
  ArgPair<T>* host_out;  // for result_on_host variants
  int block, batch;
  void* workspace;
  std::size_t workspace_size;
  cudaStream_t stream;
};

// Bytes: input once, value and index written once. Ops: n - 1 comparisons.
template <class T>
Work argmax_work(std::size_t n) {
  return Work{static_cast<double>(n) * sizeof(T), sizeof(T) + sizeof(long long), n > 0 ? n - 1.0 : 0};
}

template <class T>
ArgPair<T> argmax_reference(const T* x, std::size_t n) {
  const unsigned chunks = default_chunks(n);
  std::vector<ArgPair<T>> best(chunks, ArgMaxOp::identity<ArgPair<T>>());
  parallel_chunks(
      n,
      [&](std::size_t b, std::size_t e, unsigned c) {
        ArgPair<T> p = ArgMaxOp::identity<ArgPair<T>>();
        for (std::size_t i = b; i < e; ++i) p = ArgMaxOp::combine(p, ArgPair<T>{x[i], static_cast<long long>(i)});
        best[c] = p;
      },
      chunks);
  ArgPair<T> r = ArgMaxOp::identity<ArgPair<T>>();
  for (const auto& p : best) r = ArgMaxOp::combine(r, p);
  return r;
}

template <class T>
std::string argmax_check(const ArgPair<T>& want, const ArgPair<T>& got) {
  if (want.value == got.value && want.index == got.index) return "";
  char msg[160];
  std::snprintf(msg, sizeof msg, "expected max %.9g at index %lld, got %.9g at index %lld",
                static_cast<double>(want.value), want.index, static_cast<double>(got.value), got.index);
  return msg;
}

template <class T, class V>
class ArgMaxCase final : public Case {
 public:
  explicit ArgMaxCase(const Point& p)
      : n_(p.n),
        offset_(p.offset),
        out_(1),
        workspace_(V::template workspace_bytes<T>(p.n, p.block, p.batch)),
        args_{random_dataset<T>(p.n + p.offset).device.get() + p.offset, p.n, out_.get(), &host_out_,
              p.block, p.batch, workspace_.get(), workspace_.size(), nullptr} {}

  void launch(cudaStream_t stream) override {
    args_.stream = stream;
    V::template launch<T>(args_);
  }

  bool host_work() const override { return V::result_on_host; }

  std::string verify(cudaStream_t stream) override {
    const ArgPair<T> got =
        run_poisoned([this](cudaStream_t s) { launch(s); }, out_.get(), &host_out_, V::result_on_host, stream);
    const auto& data = random_dataset<T>(n_ + offset_).host;
    return argmax_check(argmax_reference(data.data() + offset_, n_), got);
  }

 private:
  std::size_t n_, offset_;
  DeviceBuffer<ArgPair<T>> out_;
  DeviceBuffer<unsigned char> workspace_;
  ArgPair<T> host_out_{};
  ArgArgs<T> args_;
};

struct ArgVariantBase {
  template <class T>
  static std::size_t workspace_bytes(std::size_t, int, int) { return 0; }
  static constexpr bool result_on_host = false;
};

template <class V, class... Ts>
bool declare_argmax(const Spec& spec, Types<Ts...>) {
  auto one = [&spec](auto tag) {
    using T = decltype(tag);
    return declare(make_declaration(ArgMaxOp::family, type_name<T>(), spec, &argmax_work<T>,
                                    [](const Point& p) -> std::unique_ptr<Case> {
                                      return std::make_unique<ArgMaxCase<T, V>>(p);
                                    }));
  };
  return (one(Ts{}) && ...);
}

}  // namespace bench::reduce

#define BENCH_DECLARE_ARGMAX(V, ...)                        \
  [[maybe_unused]] static const bool bench_declared_##V = \
      ::bench::reduce::declare_argmax<V>(::bench::reduce::Spec{__VA_ARGS__}, ::bench::reduce::SumTypes{})
