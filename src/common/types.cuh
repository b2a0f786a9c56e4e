// Element types, their names in benchmark names, and the arithmetic a kernel
// does on them: int32 and float32 as themselves, half and bfloat16 in float.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <type_traits>

namespace bench {

// A list of element types a variant is declared for.
template <class... Ts>
struct Types {};

// The type's name in benchmark names: family/<type>/variant/...
template <class T> constexpr const char* type_name();
template <> constexpr const char* type_name<int>() { return "i32"; }
template <> constexpr const char* type_name<float>() { return "f32"; }
template <> constexpr const char* type_name<__half>() { return "f16"; }
template <> constexpr const char* type_name<__nv_bfloat16>() { return "bf16"; }

// The type arithmetic on T is done in (and accumulated in): float for half and
// bfloat16, T itself otherwise.
template <class T> struct AccumOf { using type = T; };
template <> struct AccumOf<__half> { using type = float; };
template <> struct AccumOf<__nv_bfloat16> { using type = float; };
template <class T> using Acc = typename AccumOf<T>::type;

template <class T> __host__ __device__ inline Acc<T> to_acc(T x) { return static_cast<Acc<T>>(x); }
template <> __host__ __device__ inline float to_acc<__half>(__half x) { return __half2float(x); }
template <> __host__ __device__ inline float to_acc<__nv_bfloat16>(__nv_bfloat16 x) { return __bfloat162float(x); }

// Host references: an element as a double (exact for every type here), and a
// double rounded once to T.
template <class T>
inline double widen(T x) {
  return static_cast<double>(to_acc<T>(x));
}

template <class T>
inline T round_to(double x) {
  if constexpr (std::is_same_v<T, __half>) return __double2half(x);
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return __double2bfloat16(x);
  else return static_cast<T>(x);
}

}  // namespace bench
