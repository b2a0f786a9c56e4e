// Family ceiling: what this GPU actually does, measured in the same run as the
// kernels, the way empirical roofline tools do it. Bandwidth ceilings (read,
// write, copy by kernel and by cudaMemcpyAsync) and compute ceilings (FP32 FMA,
// FP16 half2 FMA, int32 add). Each is a declaration like any variant: its own
// bytes/ops model, a verified result, the same timer.
//
// A ceiling is a struct V with
//     static Work work(std::size_t n);
//     static std::size_t min_n;                       // smallest meaningful N
//     explicit V(std::size_t n);                      // allocate and fill, untimed
//     void launch(cudaStream_t);                      // the timed work
//     std::string verify(cudaStream_t);               // "" when right
// declared with BENCH_DECLARE_CEILING(V, type, name, description).
#pragma once

#include <memory>
#include <string>

#include "harness/cuda_check.hpp"
#include "harness/data.hpp"
#include "harness/registry.hpp"

namespace bench::ceiling {

template <class V>
class CeilingCase final : public Case {
 public:
  explicit CeilingCase(const Point& p) : v_(p.n) {}
  void launch(cudaStream_t s) override { v_.launch(s); }
  std::string verify(cudaStream_t s) override { return v_.verify(s); }

 private:
  V v_;
};

template <class V>
bool declare_ceiling(const char* type, const char* name, const char* description) {
  Declaration d = make_declaration("ceiling", type, VariantSpec{name, description, {}, {}}, &V::work,
                                   [](const Point& p) -> std::unique_ptr<Case> {
                                     return std::make_unique<CeilingCase<V>>(p);
                                   });
  d.min_n = V::min_n;
  return declare(std::move(d));
}

}  // namespace bench::ceiling

#define BENCH_DECLARE_CEILING(V, type, name, description) \
  [[maybe_unused]] static const bool bench_declared_##V = ::bench::ceiling::declare_ceiling<V>(type, name, description)
