// floor_max, floor_min: a device-wide maximum or minimum at the launch floor
// (launch_floor.cuh: one launch and nothing else, any n and alignment, a
// workspace that resets itself).
//
//   cudaError_t bench::launch_floor::floor_max(const T* in, size_t n, T* out, cudaStream_t stream, Config = {});
//   cudaError_t bench::launch_floor::floor_max(const T* in, size_t n, T* out, void* workspace,
//                                              size_t workspace_bytes, cudaStream_t stream, Config = {});
//   (floor_min alike; floor_minmax_workspace_bytes<T, IsMax>() sizes a workspace)
//
// T: int, unsigned, float (4-byte). The result is what folding the elements
// into the identity with the family's operator gives (bench::Max/Min,
// common/ops.cuh), as CUB's Max/Min with their default initial value do:
//   - n = 0 writes the identity: numeric_limits<T>::lowest() for max, max() for min;
//   - floats ignore NaN (fmaxf/fminf: a NaN never wins), and the identity
//     takes part, so an input of only NaN (or only -inf, for max) gives the
//     identity, as the family's reference does; +0 and -0 compare equal, and
//     which of them comes back is fixed per call shape.
// Integers are exact in any order; the order is fixed anyway, so floats are
// bitwise identical from call to call.
//
// Policy: a 16-byte vector's four elements reduced pairwise; warps and a
// block's warps in one redux.sync each (floats as ordered keys); blocks publish
// (flag << 32 | value bits) in one relaxed 8-byte store (the packed slot),
// block 0 polls. floor_sum's auto table (same loads, same bytes) but at 2^12
// (kExtremumAuto, below).
//
// Independent of the benchmark harness: only CUDA and libcu++ headers.
#pragma once

#include "kernels/reduce/launch_floor.cuh"

namespace bench::launch_floor {

template <class T, bool IsMax>
struct ExtremumPolicy : detail::Packed4<T> {  // slots: (flag << 32 | value bits), one store
  static_assert(std::is_arithmetic_v<T> && sizeof(T) == 4, "floor_max/floor_min take 4-byte arithmetic types");
  using In = T;
  using Value = T;
  using Out = T;
  using Vec = uint4;
  static constexpr bool kTicket = false;
  static constexpr int kInputs = 1;
  static constexpr int kFullOccupancyBatch = 4;

  ExtremumPolicy bind(const detail::Split&, std::size_t) const { return *this; }

  __host__ __device__ static constexpr T identity_value() {
    return IsMax ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
  }
  __device__ Value identity() const { return identity_value(); }
  __device__ Value combine(Value a, Value b) const {
    if constexpr (std::is_floating_point_v<T>) {
      return IsMax ? fmaxf(a, b) : fminf(a, b);  // a NaN operand loses
    } else {
      return IsMax ? (b > a ? b : a) : (b < a ? b : a);
    }
  }
  __device__ Vec load(const uint4* p) const { return __ldg(p); }
  __device__ Vec empty() const {
    const unsigned u = static_cast<unsigned>(detail::bits_of(identity_value()));
    return make_uint4(u, u, u, u);
  }
  template <class I>
  __device__ Value reduce(const Vec& v, I) const {
    T e[4];
    std::memcpy(e, &v, 16);
    return combine(combine(e[0], e[1]), combine(e[2], e[3]));
  }
  template <class I>
  __device__ Value element(const In* in, I i) const {
    return in[i];
  }
  __device__ Value shfl_down(Value v, int offset) const { return __shfl_down_sync(0xFFFFFFFFu, v, offset); }
  // A warp's maximum or minimum in one redux.sync, which compares 4-byte
  // integers only (signed or unsigned as T). Floats go through it as ordered
  // keys: the bits with the sign bit set for a positive float and all bits
  // flipped for a negative one compare as unsigned integers the way the floats
  // do (-0 below +0). NaN first becomes the identity (a NaN operand loses, as
  // in combine), so no NaN key takes part. One fold with the identity, the
  // key, redux.sync and back: five shuffle rounds of fmaxf cost a block about
  // 0.1 us at 2^12 (see kWarpRedux in launch_floor.cuh).
  static constexpr bool kWarpRedux = true;
  __device__ Value warp_all(Value v) const {
    if constexpr (std::is_floating_point_v<T>) {
      const unsigned key = ordered_key(combine(v, identity()));
      return from_ordered_key(IsMax ? __reduce_max_sync(0xFFFFFFFFu, key) : __reduce_min_sync(0xFFFFFFFFu, key));
    } else {
      return IsMax ? __reduce_max_sync(0xFFFFFFFFu, v) : __reduce_min_sync(0xFFFFFFFFu, v);
    }
  }
  __host__ __device__ static constexpr unsigned key_mask(unsigned sign_source) {
    return (sign_source & 0x80000000u) ? 0xFFFFFFFFu : 0x80000000u;
  }
  // Host-callable too (tests/kernels/test_ordered_keys.cu checks the order and the round trip).
  __host__ __device__ static unsigned ordered_key(float f) {
#ifdef __CUDA_ARCH__
    const unsigned u = __float_as_uint(f);
#else
    unsigned u;
    std::memcpy(&u, &f, 4);
#endif
    return u ^ key_mask(u);
  }
  __host__ __device__ static float from_ordered_key(unsigned key) {
    const unsigned u = key ^ key_mask(~key);
#ifdef __CUDA_ARCH__
    return __uint_as_float(u);
#else
    float f;
    std::memcpy(&f, &u, 4);
    return f;
#endif
  }

  // The identity folded in last (a float result of only NaN, or of only -inf
  // for max, becomes the identity, as the reference's fold from it gives).
  __device__ void write(Out* out, Value v) const {
    if constexpr (std::is_floating_point_v<T>) v = combine(identity(), v);
    *out = v;
  }
};

// The auto table of max and min: floor_sum's (kAuto), but 512 x 2 for calls
// of 2^9 < vectors <= 2^10, about 2^11 < n <= 2^12 (one block, a 4096-element
// tile of two loads per thread in flight, where the sum's row has 256 x 4). Under
// `--timing=graph` (the device's cost per launch) at 2^12, tools/run-ab
// against 256 x 4, 6 rounds, 2026-11-27 (results/versus/n12_landed_20261127/):
// an H100 2.3-3.3% faster, int32 and float32; an H200 2.2-2.5% faster, min
// int32 no different (-0.7%). Events timing tells them apart on neither (the
// launch's offsets, 0.5-2%). With 256 x 4, CUB's Reduce with
// cuda::maximum/minimum had read up to 1.4% cheaper than floor_max/min under
// graph timing on H100s; with 512 x 2 no CUB path is cheaper on either board. The
// sum keeps 256 x 4 (int32 0.6-1.4% slower with 512 x 2 on H100s).
inline constexpr AutoRow kExtremumAuto[] = {
    {std::size_t{1} << 8, {128, 4}},   // n <= 2^10
    {std::size_t{1} << 9, {256, 4}},   // n <= 2^11
    {std::size_t{1} << 10, {512, 2}},  // n <= 2^12: one block, 2 loads in flight per thread
    {std::size_t{1} << 12, {512, 8}},  // from here as kAuto
    {std::size_t{1} << 16, {256, 1}},
    {std::size_t{1} << 18, {256, 4}},
    {std::size_t{1} << 20, {512, 4}},
    {std::size_t{1} << 23, {512, 8}},
    {std::size_t{1} << 24, {1024, 4}},
    {~std::size_t{0}, {512, 8}},
};
static_assert(auto_table_is_valid(kExtremumAuto), "kExtremumAuto: every row compiled, limits rising, the last unbounded");
static_assert(departs_only_within(kExtremumAuto, kAuto, std::size_t{1} << 9, std::size_t{1} << 10),
              "kExtremumAuto: kAuto's rows but for 2^11 < n <= 2^12");

template <class T>
using MaxPolicy = ExtremumPolicy<T, true>;
template <class T>
using MinPolicy = ExtremumPolicy<T, false>;

// Bytes of a caller's workspace for floor_max (IsMax) or floor_min with this
// Config on the current device (Config{}: every row of the auto table).
template <class T, bool IsMax>
cudaError_t floor_minmax_workspace_bytes(std::size_t* bytes, Config cfg = {}) {
  return detail::workspace_bytes<ExtremumPolicy<T, IsMax>>(kExtremumAuto, bytes, cfg);
}

// The maximum of in[0, n) into *out (device memory), using the built-in
// workspace: calls must be stream-ordered. One kernel launch;
// cudaErrorInvalidValue for a null or misaligned pointer or a Config that is
// not compiled.
template <class T>
cudaError_t floor_max(const T* in, std::size_t n, T* out, cudaStream_t stream, Config cfg = {}) {
  return detail::run_builtin(MaxPolicy<T>{}, kExtremumAuto, in, n, out, stream, cfg);
}
// As above with the caller's workspace (floor_minmax_workspace_bytes<T, true>(cfg)
// bytes, 16-byte aligned, zero-filled once when allocated; each call leaves it zeroed).
template <class T>
cudaError_t floor_max(const T* in, std::size_t n, T* out, void* workspace, std::size_t workspace_bytes,
                      cudaStream_t stream, Config cfg = {}) {
  return detail::run_caller(MaxPolicy<T>{}, kExtremumAuto, in, n, out, workspace, workspace_bytes, stream, cfg);
}

// The minimum, as floor_max.
template <class T>
cudaError_t floor_min(const T* in, std::size_t n, T* out, cudaStream_t stream, Config cfg = {}) {
  return detail::run_builtin(MinPolicy<T>{}, kExtremumAuto, in, n, out, stream, cfg);
}
template <class T>
cudaError_t floor_min(const T* in, std::size_t n, T* out, void* workspace, std::size_t workspace_bytes,
                      cudaStream_t stream, Config cfg = {}) {
  return detail::run_caller(MinPolicy<T>{}, kExtremumAuto, in, n, out, workspace, workspace_bytes, stream, cfg);
}

}  // namespace bench::launch_floor
