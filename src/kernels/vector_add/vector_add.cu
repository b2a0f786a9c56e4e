// The step-by-step vector add write-up (RTX Titan, Nsight Compute): f32,
// f32x4, f16, f16x2, f16x8 and f16x8_pack, with bf16 counterparts. Each variant
// is one "unit" of W elements a thread adds at a time: one element, a float4, a
// half2 / bfloat162, four half2 (four 32-bit loads per operand), or eight halves
// as one 128-bit load per operand and one 128-bit store. `batch` = elements per
// thread = W x units, units block-strided so a warp's accesses stay contiguous.
// Unlike the write-up, the tail (and a misaligned head) is added element by
// element instead of being read past the end or dropped.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "common/axes.hpp"
#include "common/launch.cuh"
#include "common/span.cuh"
#include "families/vector_add.cuh"

namespace bench::vector_add {
namespace {

__device__ inline float add1(float x, float y) { return x + y; }
__device__ inline __half add1(__half x, __half y) { return __hadd(x, y); }
__device__ inline __nv_bfloat16 add1(__nv_bfloat16 x, __nv_bfloat16 y) { return __hadd(x, y); }

template <class T> struct Pair2;
template <> struct Pair2<__half> { using type = __half2; };
template <> struct Pair2<__nv_bfloat16> { using type = __nv_bfloat162; };

// How a unit of W elements is loaded, added and stored.
enum class Unit { element, float4, pair, four_pairs, pack128 };

template <class T, Unit U> constexpr int width() {
  if constexpr (U == Unit::element) return 1;
  else if constexpr (U == Unit::float4) return 4;
  else if constexpr (U == Unit::pair) return 2;
  else return 8;
}

// Bytes of alignment the unit's loads need.
template <class T, Unit U> constexpr int alignment() {
  if constexpr (U == Unit::float4 || U == Unit::pack128) return 16;
  else if constexpr (U == Unit::element) return sizeof(T);
  else return 2 * sizeof(T);  // half2 / bfloat162 loads
}

template <class T, Unit U>
__device__ inline void add_unit(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ out) {
  if constexpr (U == Unit::element) {
    *out = add1(*a, *b);
  } else if constexpr (U == Unit::float4) {
    const float4 x = *reinterpret_cast<const float4*>(a), y = *reinterpret_cast<const float4*>(b);
    *reinterpret_cast<float4*>(out) = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  } else if constexpr (U == Unit::pair) {
    using P = typename Pair2<T>::type;
    *reinterpret_cast<P*>(out) = __hadd2(*reinterpret_cast<const P*>(a), *reinterpret_cast<const P*>(b));
  } else if constexpr (U == Unit::four_pairs) {
    using P = typename Pair2<T>::type;
    const P* pa = reinterpret_cast<const P*>(a);
    const P* pb = reinterpret_cast<const P*>(b);
    P* po = reinterpret_cast<P*>(out);
#pragma unroll
    for (int k = 0; k < 4; ++k) po[k] = __hadd2(pa[k], pb[k]);
  } else {  // pack128: one 128-bit load per operand, four __hadd2 in registers, one 128-bit store
    using P = typename Pair2<T>::type;
    const uint4 x = *reinterpret_cast<const uint4*>(a), y = *reinterpret_cast<const uint4*>(b);
    uint4 r;
    const P* px = reinterpret_cast<const P*>(&x);
    const P* py = reinterpret_cast<const P*>(&y);
    P* pr = reinterpret_cast<P*>(&r);
#pragma unroll
    for (int k = 0; k < 4; ++k) pr[k] = __hadd2(px[k], py[k]);
    *reinterpret_cast<uint4*>(out) = r;
  }
}

// The head (elements before the first aligned unit) and the tail after the
// last whole unit are added one by one by the first threads of the grid.
template <class T, Unit U, int Units>
__global__ void vector_add_kernel(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ out,
                                  std::size_t n, AlignedSplit<T, width<T, U>(), alignment<T, U>()> s) {
  constexpr int W = width<T, U>();
  const std::size_t first = blockIdx.x * (std::size_t{blockDim.x} * Units) + threadIdx.x;
#pragma unroll
  for (int u = 0; u < Units; ++u) {
    const std::size_t k = first + std::size_t(u) * blockDim.x;
    if (k < s.units) add_unit<T, U>(a + s.head + k * W, b + s.head + k * W, out + s.head + k * W);
  }
  const std::size_t g = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (g < s.head) out[g] = add1(a[g], b[g]);
  if (g < n - s.tail) out[s.tail + g] = add1(a[s.tail + g], b[s.tail + g]);
}

using UnitsPerThread = Compiled<1, 2, 4, 8>;

template <Unit U>
struct Kernel : KernelVariant {
  template <class T>
  static void launch(const Args<T>& a) {
    constexpr int W = width<T, U>(), R = alignment<T, U>();
    const auto mis = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % R; };
    if (mis(a.a) != mis(a.out) || mis(a.b) != mis(a.out))
      throw Unsupported("a, b and out must share their " + std::to_string(R) + "-byte alignment");
    const AlignedSplit<T, W, R> split(a.out, a.n);
    if (a.batch % W != 0) throw Unsupported("batch must be a multiple of " + std::to_string(W));
    UnitsPerThread::dispatch(a.batch / W, "units per thread", [&](auto u) {
      constexpr int Units = decltype(u)::value;
      const unsigned grid = grid_for(std::max<std::size_t>(split.units, 1), std::size_t(a.block) * Units);
      vector_add_kernel<T, U, Units><<<grid, a.block, 0, a.stream>>>(a.a, a.b, a.out, a.n, split);
      BENCH_CHECK_LAUNCH("vector_add_kernel");
    });
  }
};

// batch = elements per thread = w (one unit's elements) x each compiled units
// count; one unit per thread in the default suite.
template <int... Us>
Axis batches_of(Compiled<Us...>, int w) {
  return Axis{{w}, {w * Us...}};
}
Axis batches(int w) { return batches_of(UnitsPerThread{}, w); }

}  // namespace

using Elem = Kernel<Unit::element>;
using X4 = Kernel<Unit::float4>;
using X2 = Kernel<Unit::pair>;
using X8 = Kernel<Unit::four_pairs>;
using X8Pack = Kernel<Unit::pack128>;
using F32 = Types<float>;

BENCH_DECLARE(VectorAdd, Elem, AddTypes, "elem",
              "write-up f32 / f16 / bf16: one element per unit (__hadd for 16-bit types)", block_axis(), batches(1));
BENCH_DECLARE(VectorAdd, X4, F32, "x4",
              "write-up f32x4: float4 loads and stores (16 bytes); refuses a, b and out of different alignments",
              block_axis(), batches(4));
BENCH_DECLARE(VectorAdd, X2, HalfTypes, "x2",
              "write-up f16x2 / bf16x2: half2 / bfloat162 with __hadd2 (4-byte loads); refuses a, b and out of "
              "different alignments",
              block_axis(), batches(2));
BENCH_DECLARE(VectorAdd, X8, HalfTypes, "x8",
              "write-up f16x8 / bf16x8: four half2 per unit (four 4-byte loads per operand); refuses a, b and out of "
              "different alignments",
              block_axis(), batches(8));
BENCH_DECLARE(VectorAdd, X8Pack, HalfTypes, "x8_pack",
              "write-up f16x8_pack / bf16x8_pack: one 128-bit load of a, one of b, one 128-bit store; refuses a, b "
              "and out of different alignments",
              block_axis(), batches(8));

}  // namespace bench::vector_add
