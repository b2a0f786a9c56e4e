// The 16-byte head/body/tail split: n elements of T from a pointer of any
// alignment are a head (elements before the first aligned unit), whole
// aligned units of W elements, and a tail. Kernels that load 16 bytes at a time
// take the head and tail element by element and the body as vectors, so they
// are right for any N and any offset.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/types.cuh"

namespace bench {

// Units of W elements aligned to Align bytes (16-byte vectors by default).
// Host and device.
template <class T, std::size_t W = 16 / sizeof(T), std::size_t Align = 16>
struct AlignedSplit {
  std::size_t head;   // elements before the first aligned unit (all n when fewer)
  std::size_t units;  // whole units after the head
  std::size_t tail;   // index of the first element after the last whole unit
  __host__ __device__ AlignedSplit(const void* p, std::size_t n) {
    const std::size_t misaligned = reinterpret_cast<std::uintptr_t>(p) % Align;
    head = ((Align - misaligned) % Align) / sizeof(T);
    if (head > n) head = n;
    units = (n - head) / W;
    tail = head + units * W;
  }
};

// A grid-stride walk over p[0..n) split at 16-byte boundaries: scalar(i) for
// each head and tail element this thread owns (one per thread of the grid),
// vector(i) for each whole 16-byte vector it owns, i its first element.
template <class T, class Scalar, class Vector>
__device__ void for_each_vec16(const T* p, std::size_t n, Scalar&& scalar, Vector&& vector) {
  constexpr std::size_t V = 16 / sizeof(T);
  const AlignedSplit<T> s(p, n);
  const std::size_t tid = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  if (tid < s.head) scalar(tid);
#pragma unroll 4
  for (std::size_t v = tid; v < s.units; v += stride) vector(s.head + v * V);
  if (tid < n - s.tail) scalar(s.tail + tid);
}

// 16 bytes of In at p (16-byte aligned), converted to the accumulator and combined.
template <class In>
struct Vec16 {
  static constexpr int count = 16 / sizeof(In);
  template <class Op>
  __device__ static Acc<In> load_combine(const In* p, Acc<In> acc) {
    const uint4 raw = *reinterpret_cast<const uint4*>(p);
    const In* e = reinterpret_cast<const In*>(&raw);
#pragma unroll
    for (int j = 0; j < count; ++j) acc = Op::combine(acc, to_acc<In>(e[j]));
    return acc;
  }
};

inline bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

}  // namespace bench
