// floor_sum: a device-wide sum that costs one kernel launch and nothing else.
//
//   cudaError_t bench::launch_floor::floor_sum(const T* in, size_t n, S* out, cudaStream_t stream, Config = {});
//   cudaError_t bench::launch_floor::floor_sum(const T* in, size_t n, S* out, void* workspace,
//                                              size_t workspace_bytes, cudaStream_t stream, Config = {});
//
// T: int, unsigned, float, double (any 4- or 8-byte arithmetic type), S = T;
// or __half, __nv_bfloat16, summed in float, S = float (as
// cub::DeviceReduce::Sum gives into a float output). Integers wrap in two's
// complement. Any n (0 writes 0), any T-aligned input pointer.
// The caller never clears anything: no memset before a call, no second pass.
// Config{} (the default) picks block, batch and grid from n (kAuto,
// launch_floor.cuh); an explicit Config runs that compiled kernel (the
// benchmark sweep).
//
// The design (split, tile and grid kernels, combine, workspace, determinism)
// is launch_floor.cuh's; this file is its sum policy:
//   - 4-byte integers combine through ONE 64-bit relaxed atomic add per block
//     that carries the value and the count together (kTicket);
//   - floats publish (flag << 32 | value bits) in one relaxed 8-byte store;
//     8-byte T publish the value, then the flag word with release;
//   - a 16-byte vector's elements are added pairwise (halves widened to
//     float first, two at a time).
// Integer sums are exact mod 2^bits in any order; float sums (and the float
// sums of halves) are bitwise identical from call to call.
//
// Independent of the benchmark harness: only CUDA and libcu++ headers.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "kernels/reduce/launch_floor.cuh"

namespace bench::launch_floor {

namespace detail {

// 2-byte floating inputs are summed in float.
template <class T>
inline constexpr bool kHalfInput = std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;
template <class T>
using SumOf = std::conditional_t<kHalfInput<T>, float, T>;

// Two 2-byte floats (one 32-bit word of a vector) widened to float.
template <class T>
__device__ inline float2 widen2(unsigned bits) {
  if constexpr (std::is_same_v<T, __half>) {
    __half2 h;
    std::memcpy(&h, &bits, 4);
    return __half22float2(h);
  } else {
    __nv_bfloat162 h;
    std::memcpy(&h, &bits, 4);
    return __bfloat1622float2(h);
  }
}

}  // namespace detail

template <class T>
struct SumPolicy {
  static_assert((std::is_arithmetic_v<T> && (sizeof(T) == 4 || sizeof(T) == 8)) || detail::kHalfInput<T>,
                "floor_sum sums 4- or 8-byte arithmetic types, __half or __nv_bfloat16");
  using In = T;
  using Value = detail::SumOf<T>;
  using Out = Value;
  using Vec = uint4;
  static constexpr bool kTicket = std::is_integral_v<T> && sizeof(T) == 4;
  static constexpr int kInputs = 1;
  static constexpr int kFullOccupancyBatch = 4;

  SumPolicy bind(const detail::Split&, std::size_t) const { return *this; }

  __device__ Value identity() const { return T(0); }
  __device__ Value combine(Value a, Value b) const { return detail::add(a, b); }
  __device__ Vec load(const uint4* p) const { return __ldg(p); }
  __device__ Vec empty() const { return make_uint4(0, 0, 0, 0); }
  // The elements of one 16-byte vector, summed pairwise.
  template <class I>
  __device__ Value reduce(const Vec& v, I) const {
    if constexpr (detail::kHalfInput<T>) {
      const float2 a = detail::widen2<T>(v.x), b = detail::widen2<T>(v.y), c = detail::widen2<T>(v.z),
                   d = detail::widen2<T>(v.w);
      return ((a.x + a.y) + (b.x + b.y)) + ((c.x + c.y) + (d.x + d.y));
    } else {
      constexpr int kCount = 16 / sizeof(T);
      T e[kCount];
      std::memcpy(e, &v, 16);
      if constexpr (kCount == 4) {
        return detail::add(detail::add(e[0], e[1]), detail::add(e[2], e[3]));
      } else {
        return detail::add(e[0], e[1]);
      }
    }
  }
  template <class I>
  __device__ Value element(const In* in, I i) const {
    return static_cast<Value>(in[i]);
  }
  __device__ Value shfl_down(Value v, int offset) const { return __shfl_down_sync(0xFFFFFFFFu, v, offset); }
  // 4-byte integers: a warp's sum in one redux.sync (wrapping, as detail::add).
  // warp_all is called (and instantiated) only where kWarpRedux holds.
  static constexpr bool kWarpRedux = std::is_integral_v<Value> && sizeof(Value) == 4;
  __device__ Value warp_all(Value v) const {
    static_assert(kWarpRedux, "redux.sync adds 4-byte integers only");
    return static_cast<Value>(__reduce_add_sync(0xFFFFFFFFu, static_cast<unsigned>(v)));
  }

  // Slots: a 4-byte Value packed (flag << 32 | value bits); an 8-byte one
  // flagged (word 0 the value, word 1 = 1 with release).
  __device__ bool packed() const { return sizeof(Value) == 4; }
  __device__ unsigned long long pack(Value v) const { return detail::Packed4<Value>::pack(v); }
  __device__ bool unpack(unsigned long long w, Value* v) const { return detail::Packed4<Value>::unpack(w, v); }
  __device__ void pack2(Value v, unsigned long long* w0, unsigned long long* w1) const {
    *w0 = detail::bits_of(v);
    *w1 = 1;
  }
  __device__ bool unpack2(unsigned long long w0, unsigned long long, Value* v) const {
    *v = detail::from_bits<Value>(w0);
    return true;
  }
  __device__ void write(Out* out, Value v) const { *out = v; }
};

// Bytes of a workspace for the second overload of floor_sum on the current
// device: one 16-byte slot per block of the largest grid this Config can use
// (Config{}: the largest over the auto table's rows).
template <class T>
cudaError_t floor_sum_workspace_bytes(std::size_t* bytes, Config cfg = {}) {
  return detail::workspace_bytes<SumPolicy<T>>(kAuto, bytes, cfg);
}

// The sum of in[0, n) into *out (device memory; a float for half inputs),
// using the built-in workspace: calls must be stream-ordered. One kernel
// launch; cudaErrorInvalidValue for a null or misaligned pointer or a Config
// that is not compiled.
template <class T>
cudaError_t floor_sum(const T* in, std::size_t n, detail::SumOf<T>* out, cudaStream_t stream, Config cfg = {}) {
  return detail::run_builtin(SumPolicy<T>{}, kAuto, in, n, out, stream, cfg);
}

// As above with the caller's workspace (floor_sum_workspace_bytes<T>(cfg) bytes,
// 16-byte aligned, zero-filled once when allocated; each call leaves it zeroed).
template <class T>
cudaError_t floor_sum(const T* in, std::size_t n, detail::SumOf<T>* out, void* workspace, std::size_t workspace_bytes,
                      cudaStream_t stream, Config cfg = {}) {
  return detail::run_caller(SumPolicy<T>{}, kAuto, in, n, out, workspace, workspace_bytes, stream, cfg);
}

}  // namespace bench::launch_floor
