// Measured ceilings. Bandwidth: 16-byte accesses over a grid of SMs x resident
// blocks, four independent 16-byte loads in flight per thread per iteration.
// Compute: eight independent dependency chains per thread (enough to hide the
// pipeline latency), ITER iterations, one store per thread so nothing is dead.
#include <cuda_fp16.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "common/block_reduce.cuh"
#include "common/float_sum.hpp"
#include "common/launch.cuh"
#include "common/ops.cuh"
#include "harness/device_check.cuh"
#include "families/ceiling.cuh"

namespace bench::ceiling {
namespace {

constexpr int kBlock = 256;

// A full machine of resident blocks (2048 threads per SM), or fewer for small N.
unsigned stream_grid(std::size_t vectors) {
  const unsigned resident = static_cast<unsigned>(sm_count()) * (2048 / kBlock);
  return static_cast<unsigned>(std::max<std::size_t>(1, std::min<std::size_t>(resident, ceil_div(vectors, kBlock))));
}

// ---- bandwidth ----------------------------------------------------------------

__global__ void read_kernel(const float4* __restrict__ in, std::size_t vectors, float* __restrict__ partials) {
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  float sum = 0;
  std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  for (; i + 3 * stride < vectors; i += 4 * stride) {
    const float4 a = in[i], b = in[i + stride], c = in[i + 2 * stride], d = in[i + 3 * stride];
    sum += ((a.x + a.y) + (a.z + a.w)) + ((b.x + b.y) + (b.z + b.w)) + ((c.x + c.y) + (c.z + c.w)) +
           ((d.x + d.y) + (d.z + d.w));
  }
  for (; i < vectors; i += stride) {
    const float4 a = in[i];
    sum += (a.x + a.y) + (a.z + a.w);
  }
  sum = block_reduce_shfl<Sum>(sum);
  if (threadIdx.x == 0) partials[blockIdx.x] = sum;
}

__device__ inline float4 pattern(std::size_t i) {
  const float v = static_cast<float>(i & 1023);
  return make_float4(v, v + 0.25f, v + 0.5f, v + 0.75f);
}

__global__ void write_kernel(float4* __restrict__ out, std::size_t vectors) {
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
#pragma unroll 4
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < vectors; i += stride) out[i] = pattern(i);
}

__global__ void copy_kernel(const float4* __restrict__ in, float4* __restrict__ out, std::size_t vectors) {
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
#pragma unroll 4
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < vectors; i += stride) out[i] = in[i];
}

// N is rounded down to whole 16-byte vectors: the ceilings run at powers of two.
std::size_t vectors_of(std::size_t n) { return n / 4; }

struct ReadVec16 : KernelVariant {
  static constexpr std::size_t min_n = 1 << 12;
  static Work work(std::size_t n) { return Work{4.0 * n, 0, static_cast<double>(n)}; }
  ReadVec16(std::size_t n, int placement)
      : n_(n), in_(placed_dataset<float>(n, 0, placement)), partials_(stream_grid(vectors_of(n))) {}
  void launch(cudaStream_t s) {
    const unsigned grid = stream_grid(vectors_of(n_));
    read_kernel<<<grid, kBlock, 0, s>>>(reinterpret_cast<const float4*>(in_), vectors_of(n_), partials_.get());
    BENCH_CHECK_LAUNCH("read_kernel");
  }
  std::string verify(cudaStream_t s) {
    launch(s);
    const unsigned grid = stream_grid(vectors_of(n_));
    std::vector<float> partials(grid);
    BENCH_CUDA_CHECK(cudaMemcpyAsync(partials.data(), partials_.get(), grid * sizeof(float), cudaMemcpyDeviceToHost, s));
    BENCH_CUDA_CHECK(cudaStreamSynchronize(s));
    float got = 0;
    for (float p : partials) got += p;
    const float* x = random_dataset<float>(n_).host.data();
    const DoubleSum ref = double_sum(vectors_of(n_) * 4, [x](std::size_t i) { return static_cast<double>(x[i]); });
    return check_float_sum(ref.sum, ref.abs_sum, got, n_);
  }
  std::size_t n_;
  const float* in_;
  DeviceBuffer<float> partials_;
};

struct WriteVec16 : KernelVariant {
  static constexpr std::size_t min_n = 1 << 12;
  static Work work(std::size_t n) { return Work{0, 4.0 * n, 0}; }
  explicit WriteVec16(std::size_t n) : n_(n), out_(n) {}
  void launch(cudaStream_t s) {
    write_kernel<<<stream_grid(vectors_of(n_)), kBlock, 0, s>>>(reinterpret_cast<float4*>(out_.get()), vectors_of(n_));
    BENCH_CHECK_LAUNCH("write_kernel");
  }
  // The pattern write_kernel stores: element i of vector i/4.
  struct Written {
    const float* out;
    __host__ __device__ static float want(std::size_t i) { return static_cast<float>((i / 4) & 1023) + 0.25f * (i % 4); }
    __device__ bool operator()(std::size_t i) const { return out[i] == want(i); }
  };
  // Every element, on the device (no 4 GiB read-back at 2^30).
  std::string verify(cudaStream_t s) {
    BENCH_CUDA_CHECK(cudaMemsetAsync(out_.get(), 0xFF, out_.bytes(), s));
    launch(s);
    const std::size_t count = vectors_of(n_) * 4;
    const WrongElements wrong = wrong_elements(count, Written{out_.get()}, s);
    if (wrong.count == 0) return "";
    float got = 0;
    BENCH_CUDA_CHECK(cudaMemcpy(&got, out_.get() + wrong.first, sizeof got, cudaMemcpyDeviceToHost));
    return std::to_string(wrong.count) + " of " + std::to_string(count) + " elements wrong; first: element " +
           std::to_string(wrong.first) + ": expected " + std::to_string(Written::want(wrong.first)) + ", got " +
           std::to_string(got);
  }
  std::size_t n_;
  DeviceBuffer<float> out_;
};

template <bool Memcpy>
struct Copy : std::conditional_t<Memcpy, LibraryVariant, KernelVariant> {
  static constexpr std::size_t min_n = 1 << 12;
  // cudaMemcpyAsync as a program calls it, on a stream: captured into a graph
  // it becomes a copy-engine node (3516 us at 2^30 on an H100, against the
  // stream's 2925 us), which is not the ceiling this measures.
  static constexpr bool capturable = !Memcpy;
  static Work work(std::size_t n) { return Work{4.0 * n, 4.0 * n, 0}; }
  Copy(std::size_t n, int placement) : n_(n), in_(placed_dataset<float>(n, 0, placement)), out_(n) {}
  const float* in() const { return in_; }
  void launch(cudaStream_t s) {
    if constexpr (Memcpy) {
      BENCH_CUDA_CHECK(cudaMemcpyAsync(out_.get(), in(), n_ * sizeof(float), cudaMemcpyDeviceToDevice, s));
    } else {
      copy_kernel<<<stream_grid(vectors_of(n_)), kBlock, 0, s>>>(reinterpret_cast<const float4*>(in()),
                                                                 reinterpret_cast<float4*>(out_.get()), vectors_of(n_));
      BENCH_CHECK_LAUNCH("copy_kernel");
    }
  }
  std::string verify(cudaStream_t s) {
    BENCH_CUDA_CHECK(cudaMemsetAsync(out_.get(), 0xFF, out_.bytes(), s));
    launch(s);
    // Every element against the device copy of its source (the same data as the
    // host's: tests/harness/test_data.cu), on the device.
    const std::size_t copied = Memcpy ? n_ : vectors_of(n_) * 4;
    const WrongElements wrong = wrong_words(out_.get(), in(), copied, s);
    return wrong.count == 0 ? ""
                            : "copy differs from its source at " + std::to_string(wrong.count) + " of " +
                                  std::to_string(copied) + " elements, first at element " + std::to_string(wrong.first);
  }
  std::size_t n_;
  const float* in_;
  DeviceBuffer<float> out_;
};

// ---- compute ------------------------------------------------------------------
// N = number of scalar FMAs (or adds) per launch; each thread runs kChains
// chains for kIter iterations, so threads = N / (kChains * kIter * lanes).
constexpr int kChains = 8;
constexpr int kIter = 512;

__global__ void fma_kernel(float* out, float a, float b) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  float x[kChains];
#pragma unroll
  for (int c = 0; c < kChains; ++c) x[c] = static_cast<float>((t + c) & 255) * 0.001f;
  for (int i = 0; i < kIter; ++i) {
#pragma unroll
    for (int c = 0; c < kChains; ++c) x[c] = fmaf(x[c], a, b);
  }
  float s = 0;
#pragma unroll
  for (int c = 0; c < kChains; ++c) s += x[c];
  out[t] = s;
}

__global__ void hfma2_kernel(__half2* out, __half2 a, __half2 b) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  __half2 x[kChains];
#pragma unroll
  for (int c = 0; c < kChains; ++c) x[c] = __floats2half2_rn(((t + c) & 63) * 0.01f, ((t + c + 1) & 63) * 0.01f);
  for (int i = 0; i < kIter; ++i) {
#pragma unroll
    for (int c = 0; c < kChains; ++c) x[c] = __hfma2(x[c], a, b);
  }
  __half2 s = x[0];
#pragma unroll
  for (int c = 1; c < kChains; ++c) s = __hadd2(s, x[c]);
  out[t] = s;
}

// Two dependent adds per step per chain (x += y; y += x): no closed form for
// the compiler to fold, and every add depends on the one before.
__global__ void iadd_kernel(unsigned* out, unsigned seed) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned x[kChains], y[kChains];
#pragma unroll
  for (int c = 0; c < kChains; ++c) x[c] = t + c, y[c] = seed ^ c;
  for (int i = 0; i < kIter / 2; ++i) {
#pragma unroll
    for (int c = 0; c < kChains; ++c) x[c] += y[c], y[c] += x[c];
  }
  unsigned s = 0;
#pragma unroll
  for (int c = 0; c < kChains; ++c) s ^= x[c] ^ y[c];
  out[t] = s;
}

template <class Out, int Lanes>
struct ComputeBase : KernelVariant {
  static constexpr std::size_t min_n = std::size_t(1) << 24;
  // Whole blocks of threads, at least one.
  static std::size_t threads(std::size_t n) {
    const std::size_t t = n / (std::size_t(kChains) * kIter * Lanes);
    return std::max<std::size_t>(1, t / kBlock) * kBlock;
  }
  explicit ComputeBase(std::size_t n) : n_(n), out_(threads(n)) {}
  unsigned grid() const { return static_cast<unsigned>(threads(n_) / kBlock); }
  // Compares the stored result of a sample of threads with the host's.
  template <class Host>
  std::string verify_sample(cudaStream_t s, Host host) {
    std::vector<Out> got(threads(n_));
    BENCH_CUDA_CHECK(cudaMemcpyAsync(got.data(), out_.get(), got.size() * sizeof(Out), cudaMemcpyDeviceToHost, s));
    BENCH_CUDA_CHECK(cudaStreamSynchronize(s));
    for (std::size_t t = 0; t < got.size(); t += 1 + got.size() / 257) {
      const Out want = host(static_cast<unsigned>(t));
      if (std::memcmp(&want, &got[t], sizeof(Out)) != 0) return "thread " + std::to_string(t) + ": result differs from the host's";
    }
    return "";
  }
  std::size_t n_;
  DeviceBuffer<Out> out_;
};

struct Fma : ComputeBase<float, 1> {
  using ComputeBase::ComputeBase;
  static constexpr float a = 0.999f, b = 0.001f;
  static Work work(std::size_t n) { return Work{0, 4.0 * threads(n), 2.0 * threads(n) * kChains * kIter}; }
  void launch(cudaStream_t s) {
    fma_kernel<<<grid(), kBlock, 0, s>>>(out_.get(), a, b);
    BENCH_CHECK_LAUNCH("fma_kernel");
  }
  std::string verify(cudaStream_t s) {
    launch(s);
    return verify_sample(s, [](unsigned t) {
      float sum = 0;
      for (int c = 0; c < kChains; ++c) {
        float x = static_cast<float>((t + c) & 255) * 0.001f;
        for (int i = 0; i < kIter; ++i) x = std::fma(x, a, b);
        sum += x;
      }
      return sum;
    });
  }
};

struct Hfma2 : ComputeBase<__half2, 2> {
  using ComputeBase::ComputeBase;
  // 2 lanes x 2 flops per __hfma2.
  static Work work(std::size_t n) { return Work{0, 4.0 * threads(n), 4.0 * threads(n) * kChains * kIter}; }
  static __half2 a() { return __floats2half2_rn(0.99f, 0.98f); }
  static __half2 b() { return __floats2half2_rn(0.01f, 0.02f); }
  void launch(cudaStream_t s) {
    hfma2_kernel<<<grid(), kBlock, 0, s>>>(out_.get(), a(), b());
    BENCH_CHECK_LAUNCH("hfma2_kernel");
  }
  std::string verify(cudaStream_t s) {
    launch(s);
    // A half FMA rounds once: the exact product and sum fit in a double.
    auto hfma = [](__half x, __half m, __half c) {
      return __double2half(static_cast<double>(__half2float(x)) * __half2float(m) + __half2float(c));
    };
    return verify_sample(s, [&](unsigned t) {
      const __half2 ma = a(), mb = b();
      __half lo_s = 0, hi_s = 0;
      for (int c = 0; c < kChains; ++c) {
        __half lo = __float2half_rn(((t + c) & 63) * 0.01f), hi = __float2half_rn(((t + c + 1) & 63) * 0.01f);
        for (int i = 0; i < kIter; ++i) lo = hfma(lo, __low2half(ma), __low2half(mb)), hi = hfma(hi, __high2half(ma), __high2half(mb));
        if (c == 0) {
          lo_s = lo, hi_s = hi;
        } else {
          lo_s = __double2half(static_cast<double>(__half2float(lo_s)) + __half2float(lo));
          hi_s = __double2half(static_cast<double>(__half2float(hi_s)) + __half2float(hi));
        }
      }
      return __halves2half2(lo_s, hi_s);
    });
  }
};

struct IntAdd : ComputeBase<unsigned, 1> {
  using ComputeBase::ComputeBase;
  static constexpr unsigned seed = 0x9E3779B9u;
  static Work work(std::size_t n) { return Work{0, 4.0 * threads(n), 1.0 * threads(n) * kChains * kIter}; }
  void launch(cudaStream_t s) {
    iadd_kernel<<<grid(), kBlock, 0, s>>>(out_.get(), seed);
    BENCH_CHECK_LAUNCH("iadd_kernel");
  }
  std::string verify(cudaStream_t s) {
    launch(s);
    return verify_sample(s, [](unsigned t) {
      unsigned r = 0;
      for (int c = 0; c < kChains; ++c) {
        unsigned x = t + c, y = seed ^ c;
        for (int i = 0; i < kIter / 2; ++i) x += y, y += x;
        r ^= x ^ y;
      }
      return r;
    });
  }
};

using CopyVec16 = Copy<false>;
using CopyMemcpy = Copy<true>;

}  // namespace

BENCH_DECLARE(Ceiling, ReadVec16, F32, "read_vec16", "ceiling: read-only streaming, float4 loads, 4 in flight per thread", {}, {});
BENCH_DECLARE(Ceiling, WriteVec16, F32, "write_vec16", "ceiling: write-only streaming, float4 stores", {}, {});
BENCH_DECLARE(Ceiling, CopyVec16, F32, "copy_vec16", "ceiling: copy kernel, float4 loads and stores", {}, {});
BENCH_DECLARE(Ceiling, CopyMemcpy, F32, "copy_memcpy", "ceiling: cudaMemcpyAsync device to device", {}, {});
BENCH_DECLARE(Ceiling, Fma, F32, "fma", "ceiling: FP32 FMA throughput, 8 independent chains per thread (2 flop per FMA)", {}, {});
BENCH_DECLARE(Ceiling, Hfma2, F16, "hfma2", "ceiling: FP16 __hfma2 throughput, 8 chains per thread (4 flop per half2 FMA)", {}, {});
BENCH_DECLARE(Ceiling, IntAdd, I32, "add", "ceiling: int32 add throughput, 8 dependent add chains per thread", {}, {});

}  // namespace bench::ceiling
