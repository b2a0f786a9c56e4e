// What the GPU tests run over every declaration, whatever its family: shared by
// the GPU test (kernels/test_every_declaration.cpp) and the host test that
// fails when a family or a declaration has no GPU coverage
// (kernels/test_gpu_coverage.cpp). Host only: nothing here touches the GPU.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "harness/registry.hpp"

namespace bench::testing {

// The declarations the GPU tests are instantiated over: every one.
inline std::vector<std::string> gpu_test_ids() {
  std::vector<std::string> ids;
  for (const auto& d : declarations()) ids.push_back(d.id());
  return ids;
}

// CUDABENCH_TEST_MAX_N (environment), when set, drops the test sizes above it:
// tools/run-sanitizers sets it for racecheck, whose cost grows with every
// shared-memory access (a shared-memory hazard is a block's, whatever N).
inline std::size_t test_size_cap() {
  static const std::size_t cap = [] {
    const char* text = std::getenv("CUDABENCH_TEST_MAX_N");
    if (text == nullptr || *text == '\0') return ~std::size_t{0};
    char* end = nullptr;
    const unsigned long long v = std::strtoull(text, &end, 10);
    if (*end != '\0' || v == 0 || text[0] == '-') {
      std::fprintf(stderr, "CUDABENCH_TEST_MAX_N='%s' is not a positive integer\n", text);
      std::exit(2);
    }
    return static_cast<std::size_t>(v);
  }();
  return cap;
}

inline std::vector<std::size_t> capped(std::vector<std::size_t> sizes) {
  sizes.erase(std::remove_if(sizes.begin(), sizes.end(), [](std::size_t n) { return n > test_size_cap(); }), sizes.end());
  return sizes;
}

// Sizes that are not multiples of anything a kernel tiles by.
inline const std::vector<std::size_t>& awkward_sizes() {
  static const std::vector<std::size_t> sizes = capped({1, 2, 31, 1000, 4097, 1000003, (std::size_t(1) << 24) + 5});
  return sizes;
}

// Every block x batch the declaration supports, at every awkward size within
// its [min_n, max_n].
inline std::vector<Point> sized_points(const Declaration& d) { return expand(d, awkward_sizes(), Suite::full); }

// The arrays a test can misalign: the inputs (0 .. inputs-1), then the output
// when it is an array. A ceiling owns its data: none.
inline int misalignable_arrays(const Declaration& d) { return d.inputs + (d.array_output ? 1 : 0); }

inline void set_offset(const Declaration& d, Point& p, int array, std::size_t offset) {
  if (array < d.inputs) p.in_offset[static_cast<std::size_t>(array)] = offset;
  else p.out_offset = offset;
}

// Pointers 1 and 3 elements past an aligned allocation: each input and the
// output alone (independent misalignments), then all of them together (a
// shared misalignment, which head/tail code handles); the curated block and
// batch; N = 1, 31 and 1000003.
inline std::vector<Point> misaligned_points(const Declaration& d) {
  std::vector<Point> points;
  const int arrays = misalignable_arrays(d);
  for (const Point& base : expand(d, capped({1, 31, 1000003}), Suite::curated)) {
    for (std::size_t offset : {1, 3}) {
      for (int j = 0; j < arrays; ++j) {
        Point p = base;
        set_offset(d, p, j, offset);
        points.push_back(p);
      }
      if (arrays > 1) {
        Point p = base;
        for (int j = 0; j < arrays; ++j) set_offset(d, p, j, offset);
        points.push_back(p);
      }
    }
  }
  return points;
}

// The point's offsets for a failure message, e.g. "offsets: in0+1 out+3".
inline std::string offsets_label(const Declaration& d, const Point& p) {
  std::string s = "offsets:";
  for (int i = 0; i < d.inputs; ++i) s += " in" + std::to_string(i) + "+" + std::to_string(p.in_offset[i]);
  if (d.array_output) s += " out+" + std::to_string(p.out_offset);
  return s;
}

}  // namespace bench::testing
