// floor_argmax: the largest element and its index at the launch floor
// (launch_floor.cuh: one launch and nothing else, any n and alignment, a
// workspace that resets itself).
//
//   cudaError_t bench::launch_floor::floor_argmax(const T* in, size_t n, T* max_out, long long* index_out,
//                                                 cudaStream_t stream, Config = {});
//   cudaError_t bench::launch_floor::floor_argmax(const T* in, size_t n, T* max_out, long long* index_out,
//                                                 void* workspace, size_t workspace_bytes, cudaStream_t stream,
//                                                 Config = {});
//   (floor_argmax_workspace_bytes<T>() sizes a workspace)
//
// T: int, unsigned, float (4-byte). Ties go to the LOWEST index, as
// cub::DeviceReduce::ArgMax. The result is what folding (element, index) pairs
// into the identity (lowest(), kNoIndex) with that rule gives (the family's
// reference, families/argmax.cuh):
//   - n = 0 writes the identity: numeric_limits<T>::lowest() and index
//     kNoIndex (numeric_limits<long long>::max());
//   - a float NaN never wins, so an input of only NaN, or of nothing above
//     lowest() (only -inf), gives the identity too.
// Deterministic: value and index are the same on every call.
//
// Policy: the pair (value, 64-bit index) through the combine; a vector's four
// elements (ascending indices: a later one wins only when strictly greater);
// pairs shuffled as value and index. Slots: while every index fits 31 bits
// (n < 2^31) ONE relaxed 8-byte store carries value, index and flag
// (1 << 63 | index << 32 | value bits: the packed protocol, no fence); above,
// the value and the index's low half in word 0, then the index's high half and
// the flag in word 1 with release (the flagged protocol). floor_sum's auto
// table: the loads and bytes are the sum's; argmax only carries more through
// the block and grid combine.
//
// Independent of the benchmark harness: only CUDA and libcu++ headers.
#pragma once

#include "kernels/reduce/launch_floor.cuh"

namespace bench::launch_floor {

// The index floor_argmax writes where no element wins (n = 0; only NaN).
constexpr long long kNoIndex = std::numeric_limits<long long>::max();

template <class T>
struct ArgMaxPolicy {
  static_assert(std::is_arithmetic_v<T> && sizeof(T) == 4, "floor_argmax takes 4-byte arithmetic types");
  struct Value {
    T value;
    long long index;
  };
  // A loaded vector and whether it lies inside the input (padding past the
  // end must not win a tie against the identity's kNoIndex).
  struct Vec {
    uint4 v;
    bool valid;
  };
  using In = T;
  using Out = T;
  static constexpr bool kTicket = false;
  static constexpr int kInputs = 1;
  static constexpr int kFullOccupancyBatch = 2;  // a 64-bit index per accumulator
  static constexpr long long kPackedIndexes = 0x7FFFFFFF;  // 31 bits; the all-ones field is kNoIndex

  long long* index_out = nullptr;
  bool wide = false;  // the flagged slot protocol: n >= 2^31 - 1 (bind), or forced (tests)

  ArgMaxPolicy bind(const detail::Split&, std::size_t n) const {
    ArgMaxPolicy p = *this;
    p.wide = wide || n >= static_cast<std::size_t>(kPackedIndexes);
    return p;
  }

  __device__ Value identity() const { return {std::numeric_limits<T>::lowest(), kNoIndex}; }
  // b replaces a when greater, or equal at a lower index; a NaN never stays
  // against a number (in either position), so no order lets one win.
  __device__ Value combine(Value a, Value b) const {
    bool take = b.value > a.value || (b.value == a.value && b.index < a.index);
    if constexpr (std::is_floating_point_v<T>) take = take || a.value != a.value;
    return take ? b : a;
  }
  __device__ Vec load(const uint4* p) const { return {__ldg(p), true}; }
  __device__ Vec empty() const { return {make_uint4(0, 0, 0, 0), false}; }
  template <class I>
  __device__ Value reduce(const Vec& v, I first) const {
    T e[4];
    std::memcpy(e, &v.v, 16);
    Value best{e[0], static_cast<long long>(first)};
#pragma unroll
    for (int j = 1; j < 4; ++j) {
      bool take = e[j] > best.value;  // ascending indices: equal keeps the earlier
      if constexpr (std::is_floating_point_v<T>) take = take || best.value != best.value;
      if (take) best = {e[j], static_cast<long long>(first) + j};
    }
    return v.valid ? best : identity();
  }
  template <class I>
  __device__ Value element(const In* in, I i) const {
    return {in[i], static_cast<long long>(i)};
  }
  __device__ Value shfl_down(Value v, int offset) const {
    return {__shfl_down_sync(0xFFFFFFFFu, v.value, offset), __shfl_down_sync(0xFFFFFFFFu, v.index, offset)};
  }

  __device__ bool packed() const { return !wide; }
  __device__ unsigned long long pack(Value v) const {
    const unsigned long long index = v.index < kPackedIndexes ? static_cast<unsigned long long>(v.index)
                                                              : static_cast<unsigned long long>(kPackedIndexes);
    return (1ull << 63) | (index << 32) | detail::bits_of(v.value);
  }
  __device__ bool unpack(unsigned long long w, Value* v) const {
    const long long index = static_cast<long long>((w >> 32) & kPackedIndexes);
    *v = {detail::from_bits<T>(w), index == kPackedIndexes ? kNoIndex : index};
    return (w >> 63) != 0;
  }
  __device__ void pack2(Value v, unsigned long long* w0, unsigned long long* w1) const {
    const auto index = static_cast<unsigned long long>(v.index);  // >= 0
    *w0 = (index << 32) | detail::bits_of(v.value);
    *w1 = ((index >> 32) << 1) | 1;
  }
  __device__ bool unpack2(unsigned long long w0, unsigned long long w1, Value* v) const {
    *v = {detail::from_bits<T>(w0), static_cast<long long>(((w1 >> 1) << 32) | (w0 >> 32))};
    return (w1 & 1) != 0;
  }

  // The identity folded in last (only NaN, or nothing above lowest(), gives it).
  __device__ void write(Out* out, Value v) const {
    v = combine(identity(), v);
    *out = v.value;
    *index_out = v.index;
  }
};

// Bytes of a caller's workspace for floor_argmax with this Config on the
// current device (Config{}: every row of the auto table).
template <class T>
cudaError_t floor_argmax_workspace_bytes(std::size_t* bytes, Config cfg = {}) {
  return detail::workspace_bytes<ArgMaxPolicy<T>>(kAuto, bytes, cfg);
}

// The largest of in[0, n) into *max_out and its lowest index into *index_out
// (device memory), using the built-in workspace: calls must be stream-ordered.
// One kernel launch; cudaErrorInvalidValue for a null or misaligned pointer or
// a Config that is not compiled.
template <class T>
cudaError_t floor_argmax(const T* in, std::size_t n, T* max_out, long long* index_out, cudaStream_t stream,
                         Config cfg = {}) {
  if (index_out == nullptr || detail::misaligned(index_out, alignof(long long))) return cudaErrorInvalidValue;
  return detail::run_builtin(ArgMaxPolicy<T>{index_out}, kAuto, in, n, max_out, stream, cfg);
}

// As above with the caller's workspace (floor_argmax_workspace_bytes<T>(cfg)
// bytes, 16-byte aligned, zero-filled once when allocated; each call leaves it zeroed).
template <class T>
cudaError_t floor_argmax(const T* in, std::size_t n, T* max_out, long long* index_out, void* workspace,
                         std::size_t workspace_bytes, cudaStream_t stream, Config cfg = {}) {
  if (index_out == nullptr || detail::misaligned(index_out, alignof(long long))) return cudaErrorInvalidValue;
  return detail::run_caller(ArgMaxPolicy<T>{index_out}, kAuto, in, n, max_out, workspace, workspace_bytes, stream,
                            cfg);
}

}  // namespace bench::launch_floor
