// The block and batch axes variants declare. Block-level kernels take the
// block size at run time; a value a kernel is compiled for (a template
// parameter) is written once, as a Compiled list that feeds both the declared
// Axis and the dispatch to the instantiation.
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

// Calls f(std::integral_constant<int, B>{}) for the compiled B == value:
// block sizes and items per thread as template parameters unroll their loops.
template <int... Bs, typename F>
void dispatch(int value, const char* what, F&& f) {
  const bool found = ((value == Bs ? (f(std::integral_constant<int, Bs>{}), true) : false) || ...);
  if (!found) throw Unsupported(std::string(what) + " " + std::to_string(value) + " is not compiled for this variant");
}

}  // namespace bench
