// The block and batch axes variants declare. Most block-level kernels take the
// block size at run time; a value a kernel is compiled for (a template
// parameter) is written once, as a Compiled list.
#pragma once

#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "harness/cuda_check.hpp"
#include "harness/registry.hpp"

namespace bench {

// Block sizes every hand-written block-level kernel launches with (run-time
// values: any power of two from 64 to 1024).
inline Axis block_axis(std::vector<int> curated = {256}) {
  return Axis{std::move(curated), {64, 128, 256, 512, 1024}};
}

// A run-time batch axis (items per thread).
inline Axis batch_axis(std::vector<int> curated, std::vector<int> full) {
  return Axis{std::move(curated), std::move(full)};
}

// A compile-time axis: the values a kernel template is instantiated for (block
// sizes, items per thread), written once. The list feeds both the declared
// Axis (axis<List, curated...>()) and the dispatch to the instantiation, so a
// declared value that cannot launch cannot be written.
template <int... Vs>
struct Compiled {
  static constexpr bool contains(int v) { return ((v == Vs) || ...); }
  static std::vector<int> values() { return {Vs...}; }
  // Calls f(std::integral_constant<int, V>{}) for the V == value; a value not
  // in the list (only a caller outside the registry can pass one) is refused.
  template <class F>
  static void dispatch(int value, const char* what, F&& f) {
    const bool found = ((value == Vs ? (f(std::integral_constant<int, Vs>{}), true) : false) || ...);
    if (!found) throw Unsupported(std::string(what) + " " + std::to_string(value) + " is not compiled for this variant");
  }
};

// The declared axis of a compiled list: every value of it in the full suite,
// Curated... in the default suite (checked at compile time to be in the list).
template <class List, int... Curated>
Axis axis() {
  static_assert(sizeof...(Curated) > 0, "the default suite needs a curated value");
  static_assert((List::contains(Curated) && ...), "a curated value must be one the kernel is compiled for");
  return Axis{{Curated...}, List::values()};
}

// A compile-time axis written as a std::integer_sequence (how a header
// outside the harness, kernels/reduce/launch_floor.cuh, lists its values):
// every value in the full suite, `curated` in the default suite.
template <int... Vs>
Axis sequence_axis(std::integer_sequence<int, Vs...>, int curated) {
  return Axis{{curated}, {Vs...}};
}

}  // namespace bench
