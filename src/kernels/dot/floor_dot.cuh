// floor_dot: sum(a[i] * b[i]) over float at the launch floor
// (kernels/reduce/launch_floor.cuh: one launch and nothing else, any n and
// alignment, a workspace that resets itself, bitwise-deterministic).
//
//   cudaError_t bench::launch_floor::floor_dot(const float* a, const float* b, size_t n, float* out,
//                                              cudaStream_t stream, Config = {});
//   cudaError_t bench::launch_floor::floor_dot(const float* a, const float* b, size_t n, float* out,
//                                              void* workspace, size_t workspace_bytes, cudaStream_t stream,
//                                              Config = {});
//   (floor_dot_workspace_bytes() sizes a workspace)
//
// n = 0 writes 0. Any float-aligned a and b: the split follows a; where b
// shares a's 16-byte phase (the usual case: both from cudaMalloc, same offset)
// each step loads a 16-byte vector of each, otherwise b's four elements are
// loaded one by one (a second compiled kernel set, slower). Products of a
// vector are added as (x0 y0 + x1 y1) + (x2 y2 + x3 y3) (the compiler may fuse
// a multiply into the add: fixed per build), then floor_sum's float order, so
// results are bitwise identical from call to call.
//
// Policy: floor_sum's float sum over products; slots packed (flag << 32 |
// value bits, one relaxed store). The auto table (kDotAuto, below) is keyed,
// like every table, by the 16-byte vectors read over both inputs (n / 2), so a
// row meets dot at the bytes it met the sum; and each row's batch is halved,
// because a dot thread loads two vectors per batch step: (block, batch / 2)
// keeps the sum row's loads in flight per thread, bytes per tile and so tiles
// and blocks at the same bytes. The 1-batch row stays 1 (twice the bytes per
// tile, half the blocks). The dot sweep (floor_dot_fixed) re-picks it. At
// 2^11 < n <= 2^12, 512 x 2 rather than the halved 512 x 4: under
// `--timing=graph` at 2^12, tools/run-ab against 512 x 4, 6 rounds,
// 2026-11-27: an H100 2.8% and an H200 4.4% faster; events timing no
// different (results/versus/n12_landed_20261127/; max and min took the same
// step, floor_minmax.cuh).
//
// Independent of the benchmark harness: only CUDA and libcu++ headers.
#pragma once

#include "kernels/reduce/launch_floor.cuh"

namespace bench::launch_floor {

inline constexpr AutoRow kDotAuto[] = {
    {std::size_t{1} << 8, {128, 2}},   // n <= 2^9: the tile kernel, one block
    {std::size_t{1} << 10, {256, 2}},  // n <= 2^11
    {std::size_t{1} << 11, {512, 2}},  // n <= 2^12: 4 loads in flight per thread (see above)
    {std::size_t{1} << 12, {512, 4}},  // n <= 2^13
    {std::size_t{1} << 16, {256, 1}},  // n <= 2^17: a tile per block
    {std::size_t{1} << 18, {256, 2}},  // n <= 2^19
    {std::size_t{1} << 20, {512, 2}},  // n <= 2^21
    {~std::size_t{0}, {512, 4}},       // larger: the resident grid, 8 loads in flight
};
static_assert(auto_table_is_valid(kDotAuto), "kDotAuto: every row compiled, limits rising, the last unbounded");

// BSameAlignment: b + head is 16-byte aligned (b shares a's phase).
template <bool BSameAlignment>
struct DotPolicy : detail::Packed4<float> {  // slots: (flag << 32 | value bits), one store
  using In = float;
  using Value = float;
  using Out = float;
  struct Vec {
    uint4 a, b;
  };
  static constexpr bool kTicket = false;
  static constexpr int kInputs = 2;
  static constexpr int kFullOccupancyBatch = 2;  // two 16-byte loads per batch step

  const float* b = nullptr;
  std::ptrdiff_t b_minus_a = 0;  // bytes from a vector of a to b's vector at the same index

  DotPolicy bind(const detail::Split&, std::size_t) const { return *this; }

  __device__ Value identity() const { return 0.0f; }
  __device__ Value combine(Value x, Value y) const { return x + y; }
  __device__ Vec load(const uint4* p) const {
    const auto q = reinterpret_cast<std::uintptr_t>(p) + b_minus_a;
    if constexpr (BSameAlignment) {
      return {__ldg(p), __ldg(reinterpret_cast<const uint4*>(q))};
    } else {
      const float* f = reinterpret_cast<const float*>(q);
      return {__ldg(p), make_uint4(__float_as_uint(__ldg(f)), __float_as_uint(__ldg(f + 1)),
                                   __float_as_uint(__ldg(f + 2)), __float_as_uint(__ldg(f + 3)))};
    }
  }
  __device__ Vec empty() const { return {make_uint4(0, 0, 0, 0), make_uint4(0, 0, 0, 0)}; }
  template <class I>
  __device__ Value reduce(const Vec& v, I) const {
    float x[4], y[4];
    std::memcpy(x, &v.a, 16);
    std::memcpy(y, &v.b, 16);
    return (x[0] * y[0] + x[1] * y[1]) + (x[2] * y[2] + x[3] * y[3]);
  }
  template <class I>
  __device__ Value element(const In* a, I i) const {
    return a[i] * __ldg(b + i);
  }
  __device__ Value shfl_down(Value v, int offset) const { return __shfl_down_sync(0xFFFFFFFFu, v, offset); }

  __device__ void write(Out* out, Value v) const { *out = v; }
};

namespace detail {
inline bool same_phase(const float* a, const float* b) {
  return reinterpret_cast<std::uintptr_t>(a) % 16 == reinterpret_cast<std::uintptr_t>(b) % 16;
}
template <bool Same>
DotPolicy<Same> dot_policy(const float* a, const float* b) {
  DotPolicy<Same> p;
  p.b = b;
  p.b_minus_a = static_cast<std::ptrdiff_t>(reinterpret_cast<std::uintptr_t>(b) - reinterpret_cast<std::uintptr_t>(a));
  return p;
}
}  // namespace detail

// Bytes of a caller's workspace for floor_dot with this Config on the current
// device (Config{}: every row of the auto table; both kernel sets).
inline cudaError_t floor_dot_workspace_bytes(std::size_t* bytes, Config cfg = {}) {
  std::size_t same = 0, other = 0;
  if (const cudaError_t e = detail::workspace_bytes<DotPolicy<true>>(kDotAuto, &same, cfg); e != cudaSuccess) return e;
  const cudaError_t e = detail::workspace_bytes<DotPolicy<false>>(kDotAuto, &other, cfg);
  *bytes = std::max(same, other);
  return e;
}

// sum(a[i] * b[i]) over [0, n) into *out (device memory), using the built-in
// workspace: calls must be stream-ordered. One kernel launch;
// cudaErrorInvalidValue for a null or misaligned pointer or a Config that is
// not compiled.
inline cudaError_t floor_dot(const float* a, const float* b, std::size_t n, float* out, cudaStream_t stream,
                             Config cfg = {}) {
  if ((b == nullptr && n > 0) || detail::misaligned(b, sizeof(float))) return cudaErrorInvalidValue;
  if (detail::same_phase(a, b)) return detail::run_builtin(detail::dot_policy<true>(a, b), kDotAuto, a, n, out, stream, cfg);
  return detail::run_builtin(detail::dot_policy<false>(a, b), kDotAuto, a, n, out, stream, cfg);
}

// As above with the caller's workspace (floor_dot_workspace_bytes(cfg) bytes,
// 16-byte aligned, zero-filled once when allocated; each call leaves it zeroed).
inline cudaError_t floor_dot(const float* a, const float* b, std::size_t n, float* out, void* workspace,
                             std::size_t workspace_bytes, cudaStream_t stream, Config cfg = {}) {
  if ((b == nullptr && n > 0) || detail::misaligned(b, sizeof(float))) return cudaErrorInvalidValue;
  if (detail::same_phase(a, b))
    return detail::run_caller(detail::dot_policy<true>(a, b), kDotAuto, a, n, out, workspace, workspace_bytes, stream,
                              cfg);
  return detail::run_caller(detail::dot_policy<false>(a, b), kDotAuto, a, n, out, workspace, workspace_bytes, stream,
                            cfg);
}

}  // namespace bench::launch_floor
