// Verification on the device, for outputs too large to read back and check on
// the host quickly (a scan or a copy of 2^30 elements is 4 GiB): a kernel
// tests every element against a rule that needs no host reference, and counts
// the wrong ones. Each check is complete (every element), not a sample.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>

namespace bench {

// How many elements a device check found wrong, and the first of them (valid
// when count > 0).
struct WrongElements {
  std::size_t count = 0;
  std::size_t first = 0;
};

// int32 inclusive prefix sums, two's-complement wrap as the GPU adds,
// restarting every `segment` elements (0: one scan of all n): out[i] == in[i]
// at a segment's start, out[i] == out[i-1] + in[i] elsewhere. Together these
// hold exactly when every out[i] is its prefix sum: below the first broken
// index every earlier output is right, so that index's right value is
// out[first-1] + in[first].
WrongElements wrong_prefix_sums(const int* in, const int* out, std::size_t n, std::size_t segment,
                                cudaStream_t stream);

// float32 inclusive prefix sums (one scan of all n), each within the float-sum
// tolerance of its prefix (common/float_sum.hpp), as the host check has it:
//     |out[i] - S_i| <= float_sum_tolerance(i + 1, A_i),
// S_i and A_i the sums of in[j] and |in[j]| over j <= i, in double, made on the
// device: each chunk's totals, their exclusive prefix, then every chunk walks
// its elements in order from there (the same two passes as the host check,
// in double, whose rounding is some 10^-9 of the tolerance). NaN fails.
// `expected` and `abs_sum`: S_i and A_i at the first wrong index (count > 0).
struct WrongFloatPrefix {
  WrongElements wrong;
  double expected = 0, abs_sum = 0;
};
WrongFloatPrefix wrong_float_prefix_sums(const float* in, const float* out, std::size_t n, cudaStream_t stream);

// Whether a prefix sum restarts at index i (segments of `segment` elements, 0: one).
__host__ __device__ inline bool segment_starts(std::size_t i, std::size_t segment) {
  return i == 0 || (segment != 0 && i % segment == 0);
}

// 4-byte words of `got` that differ from `want` (both device memory).
WrongElements wrong_words(const void* got, const void* want, std::size_t words, cudaStream_t stream);

// Elements with out[i] != a[i] + b[i] rounded once to T (float, __half,
// __nv_bfloat16), the sum taken as the host reference takes it (in float, then
// rounded to T: exact after one rounding); equal bits or equal values (+0, -0)
// pass, NaN fails.
template <class T>
WrongElements wrong_sums(const T* a, const T* b, const T* out, std::size_t n, cudaStream_t stream);

}  // namespace bench
