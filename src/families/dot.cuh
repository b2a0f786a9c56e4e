// Family dot: out = sum(a[i] * b[i]) over float32, accumulated in float and
// checked against the double-precision dot product with the float-sum
// tolerance of families/reduce.cuh applied to sum|a[i] * b[i]|.
//
// A variant is a struct V with `static void launch(const DotArgs&)` (optionally
// workspace_bytes(n, block, batch) and result_on_host), declared with
// BENCH_DECLARE_DOT(V, spec).
#pragma once

#include "families/reduce.cuh"

namespace bench::dot {

using reduce::Spec;

struct DotArgs {
  const float* a;
  const float* b;
  std::size_t n;
  float* out;
  float* host_out;
  int block, batch;
  void* workspace;
  std::size_t workspace_size;
  cudaStream_t stream;
};

struct VariantBase {
  static std::size_t workspace_bytes(std::size_t, int, int) { return 0; }
  static constexpr bool result_on_host = false;
};

// Bytes: both inputs read once, the result written once. Ops: n multiplies and
// n - 1 adds, counted as 2n floating-point operations.
inline Work dot_work(std::size_t n) { return Work{2.0 * n * sizeof(float), sizeof(float), 2.0 * n}; }

struct DotReference {
  double exact;
  double abs_sum;
};

inline DotReference dot_reference(const float* a, const float* b, std::size_t n) {
  const unsigned chunks = default_chunks(n);
  std::vector<double> sums(chunks), abs_sums(chunks);
  parallel_chunks(
      n,
      [&](std::size_t lo, std::size_t hi, unsigned c) {
        double s = 0, m = 0;
        for (std::size_t i = lo; i < hi; ++i) {
          const double p = static_cast<double>(a[i]) * b[i];
          s += p;
          m += std::fabs(p);
        }
        sums[c] = s, abs_sums[c] = m;
      },
      chunks);
  DotReference r{0, 0};
  for (unsigned c = 0; c < chunks; ++c) r.exact += sums[c], r.abs_sum += abs_sums[c];
  return r;
}

inline std::string dot_check(const DotReference& ref, float got, std::size_t n) {
  const double tol = reduce::float_tolerance(n, ref.abs_sum);
  const double err = std::fabs(static_cast<double>(got) - ref.exact);
  if (err <= tol) return "";
  char msg[200];
  std::snprintf(msg, sizeof msg, "expected %.9g, got %.9g (|error| %.3g > tolerance %.3g, N=%zu)", ref.exact,
                static_cast<double>(got), err, tol, n);
  return msg;
}

template <class V>
class DotCase final : public Case {
 public:
  explicit DotCase(const Point& p)
      : n_(p.n),
        offset_(p.offset),
        out_(1),
        workspace_(V::workspace_bytes(p.n, p.block, p.batch)),
        args_{random_dataset<float>(p.n + p.offset, 0).device.get() + p.offset,
              random_dataset<float>(p.n + p.offset, 1).device.get() + p.offset,
              p.n, out_.get(), &host_out_, p.block, p.batch, workspace_.get(), workspace_.size(), nullptr} {}

  void launch(cudaStream_t stream) override {
    args_.stream = stream;
    V::launch(args_);
  }

  bool host_work() const override { return V::result_on_host; }

  std::string verify(cudaStream_t stream) override {
    const float got =
        run_poisoned([this](cudaStream_t s) { launch(s); }, out_.get(), &host_out_, V::result_on_host, stream);
    const float* a = random_dataset<float>(n_ + offset_, 0).host.data() + offset_;
    const float* b = random_dataset<float>(n_ + offset_, 1).host.data() + offset_;
    return dot_check(dot_reference(a, b, n_), got, n_);
  }

 private:
  std::size_t n_, offset_;
  DeviceBuffer<float> out_;
  DeviceBuffer<unsigned char> workspace_;
  float host_out_ = 0;
  DotArgs args_;
};

template <class V>
bool declare_dot(const Spec& spec) {
  return declare(make_declaration("dot", "f32", spec, &dot_work, [](const Point& p) -> std::unique_ptr<Case> {
    return std::make_unique<DotCase<V>>(p);
  }));
}

}  // namespace bench::dot

#define BENCH_DECLARE_DOT(V, ...) \
  [[maybe_unused]] static const bool bench_declared_##V = ::bench::dot::declare_dot<V>(::bench::dot::Spec{__VA_ARGS__})
