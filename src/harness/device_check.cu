#include "harness/device_check.cuh"

namespace bench {
namespace {

struct PrefixSumRight {
  const int* in;
  const int* out;
  std::size_t segment;
  __device__ bool operator()(std::size_t i) const {
    const unsigned got = static_cast<unsigned>(out[i]), x = static_cast<unsigned>(in[i]);
    return got == (segment_starts(i, segment) ? x : static_cast<unsigned>(out[i - 1]) + x);
  }
};

struct SameWord {
  const unsigned* got;
  const unsigned* want;
  __device__ bool operator()(std::size_t i) const { return got[i] == want[i]; }
};

__device__ float widened(float x) { return x; }
__device__ float widened(__half x) { return __half2float(x); }
__device__ float widened(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ void round_to(float x, float& out) { out = x; }
__device__ void round_to(float x, __half& out) { out = __float2half_rn(x); }
__device__ void round_to(float x, __nv_bfloat16& out) { out = __float2bfloat16_rn(x); }

template <class T>
__device__ unsigned bits_of(T x) {
  unsigned u = 0;
  memcpy(&u, &x, sizeof(T));
  return u;
}

template <class T>
struct SumRight {
  const T* a;
  const T* b;
  const T* out;
  __device__ bool operator()(std::size_t i) const {
    T want;
    round_to(__fadd_rn(widened(a[i]), widened(b[i])), want);
    const T got = out[i];
    if (bits_of(got) == bits_of(want)) return true;
    return widened(got) == widened(want);  // +0 and -0; NaN is never equal
  }
};

}  // namespace

template <class T>
WrongElements wrong_sums(const T* a, const T* b, const T* out, std::size_t n, cudaStream_t stream) {
  return wrong_elements(n, SumRight<T>{a, b, out}, stream);
}
template WrongElements wrong_sums<float>(const float*, const float*, const float*, std::size_t, cudaStream_t);
template WrongElements wrong_sums<__half>(const __half*, const __half*, const __half*, std::size_t, cudaStream_t);
template WrongElements wrong_sums<__nv_bfloat16>(const __nv_bfloat16*, const __nv_bfloat16*, const __nv_bfloat16*,
                                                 std::size_t, cudaStream_t);

WrongElements wrong_prefix_sums(const int* in, const int* out, std::size_t n, std::size_t segment,
                                cudaStream_t stream) {
  return wrong_elements(n, PrefixSumRight{in, out, segment}, stream);
}

WrongElements wrong_words(const void* got, const void* want, std::size_t words, cudaStream_t stream) {
  return wrong_elements(words, SameWord{static_cast<const unsigned*>(got), static_cast<const unsigned*>(want)}, stream);
}

}  // namespace bench
