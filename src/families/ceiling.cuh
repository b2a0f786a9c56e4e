// Family ceiling: what this GPU actually does, measured in the same run as the
// kernels, the way empirical roofline tools do it. Bandwidth ceilings (read,
// write, copy by kernel and by cudaMemcpyAsync) and compute ceilings (FP32 FMA,
// FP16 half2 FMA, int32 add). Each is a declaration like any variant: its own
// bytes/ops model, a verified result, the same timer.
//
// A ceiling is its own case: a struct derived from its role with
//     static Work work(std::size_t n);
//     static constexpr std::size_t min_n;             // smallest meaningful N
//     explicit V(std::size_t n);                      // allocate and fill, untimed
//       (or V(std::size_t n, int placement): reads placed_dataset at it)
//     void launch(cudaStream_t);                      // the timed work
//     std::string verify(cudaStream_t);               // "" when right
// declared with BENCH_DECLARE(Ceiling, V, F32, "name", "description", {}, {}).
#pragma once

#include <memory>
#include <string>
#include <type_traits>

#include "common/types.cuh"
#include "families/contract.cuh"

namespace bench::ceiling {

using F32 = Types<float>;
using F16 = Types<__half>;
using I32 = Types<int>;

template <class V>
class CeilingCase final : public Case {
 public:
  explicit CeilingCase(const Point& p) : v_(make(p)) {}
  void launch(cudaStream_t s) override { v_.launch(s); }
  std::string verify(cudaStream_t s) override { return v_.verify(s); }

 private:
  // A ceiling that reads the shared dataset takes the point's placement too.
  static V make(const Point& p) {
    if constexpr (std::is_constructible_v<V, std::size_t, int>) return V(p.n, p.placement);
    else return V(p.n);
  }
  V v_;
};

// The contract's hooks, answered by each ceiling itself. Its data is its own:
// no inputs or output a test could misalign.
struct Ceiling {
  static constexpr const char* name = "ceiling";
  static constexpr int inputs = 0;
  static constexpr bool array_output = false;
  static constexpr std::size_t max_n = std::size_t(1) << 40;
  template <class T, class V>
  using Case = CeilingCase<V>;
  template <class T, class V>
  static Work work_of(std::size_t n) {
    return V::work(n);
  }
  template <class V>
  static constexpr std::size_t min_n_of() {
    return V::min_n;
  }
};

}  // namespace bench::ceiling
