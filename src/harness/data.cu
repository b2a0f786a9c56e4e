#include "harness/data.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>

#include "harness/cuda_check.hpp"
#include "harness/half_host.hpp"
#include "harness/parallel.hpp"

namespace bench {
namespace {

// splitmix64: a counter-based hash, so any element can be made independently,
// on the host or on the device, with the same bits.
__host__ __device__ inline std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

__host__ __device__ inline std::uint64_t element_hash(std::uint64_t seed, std::size_t index) {
  return mix(seed * 0x100000001B3ull ^ index);
}

// The element values (data.hpp says why these). Every step is exact or rounded
// to nearest the same way on both sides: (h >> 40) * 2^-24 is exact, so a fused
// multiply-add on the device rounds 0.5 + u exactly as the host's add does.
template <typename T>
struct Element;

template <>
struct Element<int> {
  __host__ __device__ static int make(std::uint64_t seed, std::size_t index) {
    const std::uint64_t h = element_hash(seed, index);
    const int magnitude = static_cast<int>(h % 16) + 1;
    return (h >> 32) & 1 ? magnitude : -magnitude;
  }
};

// The host makes gigabytes of these while a suite sets up, so the float path
// has no branch on the random bits (a branch on them is mispredicted half the
// time): the sign is bit 0 of the hash put in the sign bit, the 24 bits convert
// from 32-bit (not 64-bit) integers. The same values as (h & 1) ? 0.5 + u :
// -(0.5 + u), about 3.5 times faster on the host (tests/harness/test_elements.cpp).
template <>
struct Element<float> {
  __host__ __device__ static float make(std::uint64_t seed, std::size_t index) {
    const std::uint64_t h = element_hash(seed, index);
    const float u = static_cast<float>(static_cast<std::uint32_t>(h >> 40)) * 0x1.0p-24f;  // [0, 1), 24 bits
    const float magnitude = 0.5f + u;
    std::uint32_t bits;
    std::memcpy(&bits, &magnitude, sizeof bits);
    bits |= static_cast<std::uint32_t>(~h & 1u) << 31;
    float v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
  }
};

template <>
struct Element<__half> {
  __host__ __device__ static __half make(std::uint64_t seed, std::size_t index) {
    return __float2half_rn(Element<float>::make(seed, index));
  }
};

// Rounded to nearest even: on the device by its instruction; on the host by
// the same rounding in integer arithmetic (cuda_bf16's host function branches
// on the bits it drops, twice as slow on random data). Never NaN here.
template <>
struct Element<__nv_bfloat16> {
  __host__ __device__ static __nv_bfloat16 make(std::uint64_t seed, std::size_t index) {
    const float f = Element<float>::make(seed, index);
#ifdef __CUDA_ARCH__
    return __float2bfloat16_rn(f);
#else
    std::uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    __nv_bfloat16_raw raw;
    raw.x = static_cast<unsigned short>((bits + 0x7FFFu + ((bits >> 16) & 1u)) >> 16);
    return __nv_bfloat16(raw);
#endif
  }
};

template <typename T>
__global__ void fill_kernel(T* out, std::size_t n, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x)
    out[i] = Element<T>::make(seed, i);
}

// One per element type: frees that type's cache, returns the device bytes freed.
std::vector<std::size_t (*)()>& clearers() {
  static std::vector<std::size_t (*)()> fns;
  return fns;
}

// The device copies at placements k > 0, by (n, seed, k).
template <typename T>
using Placements = std::map<std::tuple<std::size_t, std::uint64_t, int>, DeviceBuffer<T>>;

template <typename T>
Placements<T>& placements();

template <typename T>
std::map<std::pair<std::size_t, std::uint64_t>, std::unique_ptr<Dataset<T>>>& cache() {
  static std::map<std::pair<std::size_t, std::uint64_t>, std::unique_ptr<Dataset<T>>> c;
  static bool once = [] {
    clearers().push_back([] {
      std::size_t bytes = 0;
      for (const auto& entry : cache<T>()) bytes += entry.second->device.bytes();
      for (const auto& entry : placements<T>()) bytes += entry.second.bytes();
      cache<T>().clear();
      placements<T>().clear();
      return bytes;
    });
    return true;
  }();
  (void)once;
  return c;
}

template <typename T>
Placements<T>& placements() {
  static Placements<T> p;
  return p;
}

template <typename T>
void fill_device(T* out, std::size_t n, std::uint64_t seed, cudaStream_t stream) {
  if (n == 0) return;
  const unsigned blocks = static_cast<unsigned>(std::min<std::size_t>((n + 255) / 256, 4096));
  fill_kernel<T><<<blocks, 256, 0, stream>>>(out, n, seed);
  BENCH_CHECK_LAUNCH("fill_kernel");
}

}  // namespace

template <typename T>
T random_element(std::uint64_t seed, std::size_t index) {
  return Element<T>::make(seed, index);
}

template <typename T>
const Dataset<T>& random_dataset(std::size_t n, std::uint64_t seed) {
  auto& c = cache<T>();
  const auto key = std::make_pair(n, seed);
  if (auto it = c.find(key); it != c.end()) return *it->second;

  auto ds = std::make_unique<Dataset<T>>();
  // Device memory first: out of memory (bench::OutOfMemory) before seconds of
  // host generation, not after. No eviction here: a case may hold pointers into
  // other cached datasets; the runner frees the cache between attempts.
  ds->device = DeviceBuffer<T>(n);
  fill_device(ds->device.get(), n, seed, cudaStreamPerThread);  // while the host's threads make theirs
  ds->host.resize(n);
  T* h = ds->host.data();
  parallel_chunks(n, [h, seed](std::size_t b, std::size_t e, unsigned) {
    if constexpr (std::is_same_v<T, __half>) {  // rounded a block at a time (F16C where the CPU has it)
      float block[kHalfBlock];
      for_each_half_block(b, e, [&](std::size_t i, std::size_t m) {
        for (std::size_t j = 0; j < m; ++j) block[j] = Element<float>::make(seed, i + j);
        floats_to_halves(block, reinterpret_cast<std::uint16_t*>(h + i), m);
      });
    } else {
      for (std::size_t i = b; i < e; ++i) h[i] = Element<T>::make(seed, i);
    }
  });
  BENCH_CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
  return *(c[key] = std::move(ds));
}

template <typename T>
const T* placed_dataset(std::size_t n, std::uint64_t seed, int placement) {
  if (placement == 0) return random_dataset<T>(n, seed).device.get();
  (void)cache<T>();  // registers the clearer, which frees the placements too
  auto& p = placements<T>();
  const auto key = std::make_tuple(n, seed, placement);
  if (auto it = p.find(key); it != p.end()) return it->second.get();
  DeviceBuffer<T> copy(n);
  fill_device(copy.get(), n, seed, cudaStreamPerThread);
  BENCH_CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
  return (p[key] = std::move(copy)).get();
}

std::size_t clear_datasets() {
  std::size_t bytes = 0;
  for (auto fn : clearers()) bytes += fn();
  return bytes;
}

namespace {

// The read-back buffer: page-locked when the host grants it (a copy then runs
// at the link's speed), else ordinary memory.
struct ReadBackBuffer {
  void* data = nullptr;
  std::size_t bytes = 0;
  bool pinned = false;
  void release() {
    if (data == nullptr) return;
    if (pinned) {
      cudaFreeHost(data);  // errors only at process exit, when the runtime is gone
    } else {
      ::operator delete(data);
    }
    data = nullptr;
    bytes = 0;
  }
  ~ReadBackBuffer() { release(); }
};

ReadBackBuffer& read_back_buffer() {
  static ReadBackBuffer buffer;
  return buffer;
}

}  // namespace

const void* read_back_bytes(const void* device, std::size_t bytes, cudaStream_t stream) {
  ReadBackBuffer& b = read_back_buffer();
  if (b.bytes < bytes) {
    b.release();
    if (cudaMallocHost(&b.data, bytes) == cudaSuccess) {
      b.pinned = true;
    } else {
      cudaGetLastError();  // not sticky: fall back to ordinary memory
      b.data = ::operator new(bytes);
      b.pinned = false;
    }
    b.bytes = bytes;
  }
  if (bytes > 0) BENCH_CUDA_CHECK(cudaMemcpyAsync(b.data, device, bytes, cudaMemcpyDeviceToHost, stream));
  BENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
  return b.data;
}

template int random_element<int>(std::uint64_t, std::size_t);
template float random_element<float>(std::uint64_t, std::size_t);
template __half random_element<__half>(std::uint64_t, std::size_t);
template __nv_bfloat16 random_element<__nv_bfloat16>(std::uint64_t, std::size_t);
template const Dataset<int>& random_dataset<int>(std::size_t, std::uint64_t);
template const int* placed_dataset<int>(std::size_t, std::uint64_t, int);
template const Dataset<float>& random_dataset<float>(std::size_t, std::uint64_t);
template const float* placed_dataset<float>(std::size_t, std::uint64_t, int);
template const Dataset<__half>& random_dataset<__half>(std::size_t, std::uint64_t);
template const __half* placed_dataset<__half>(std::size_t, std::uint64_t, int);
template const Dataset<__nv_bfloat16>& random_dataset<__nv_bfloat16>(std::size_t, std::uint64_t);
template const __nv_bfloat16* placed_dataset<__nv_bfloat16>(std::size_t, std::uint64_t, int);

}  // namespace bench
