#include "harness/half_host.hpp"

#include <cuda_fp16.h>

#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define BENCH_HAVE_F16C_PATH 1
#endif

namespace bench {
namespace {

#ifdef BENCH_HAVE_F16C_PATH
__attribute__((target("f16c"))) void to_floats_f16c(const std::uint16_t* in, float* out, std::size_t n) {
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    __m128i h;
    std::memcpy(&h, in + i, 8);  // the low 64 bits: four halves
    _mm_storeu_ps(out + i, _mm_cvtph_ps(h));
  }
  for (; i < n; ++i) out[i] = _cvtsh_ss(in[i]);
}

__attribute__((target("f16c"))) void to_halves_f16c(const float* in, std::uint16_t* out, std::size_t n) {
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const __m128i h = _mm_cvtps_ph(_mm_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT);
    std::memcpy(out + i, &h, 8);
  }
  for (; i < n; ++i) out[i] = _cvtss_sh(in[i], _MM_FROUND_TO_NEAREST_INT);
}
#endif

}  // namespace

bool host_has_f16c() {
#ifdef BENCH_HAVE_F16C_PATH
  static const bool has = __builtin_cpu_supports("f16c");
  return has;
#else
  return false;
#endif
}

void halves_to_floats_software(const std::uint16_t* in, float* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    __half_raw raw;
    raw.x = in[i];
    out[i] = __half2float(__half(raw));
  }
}

void floats_to_halves_software(const float* in, std::uint16_t* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<__half_raw>(__float2half_rn(in[i])).x;
}

void halves_to_floats(const std::uint16_t* in, float* out, std::size_t n) {
#ifdef BENCH_HAVE_F16C_PATH
  if (host_has_f16c()) return to_floats_f16c(in, out, n);
#endif
  halves_to_floats_software(in, out, n);
}

void floats_to_halves(const float* in, std::uint16_t* out, std::size_t n) {
#ifdef BENCH_HAVE_F16C_PATH
  if (host_has_f16c()) return to_halves_f16c(in, out, n);
#endif
  floats_to_halves_software(in, out, n);
}

}  // namespace bench
