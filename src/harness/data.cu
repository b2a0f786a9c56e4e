#include "harness/data.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <map>
#include <memory>
#include <utility>

#include "harness/parallel.hpp"

namespace bench {
namespace {

// splitmix64: a counter-based hash, so any element can be made independently.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// One per element type: frees that type's cache, returns the device bytes freed.
std::vector<std::size_t (*)()>& clearers() {
  static std::vector<std::size_t (*)()> fns;
  return fns;
}

template <typename T>
std::map<std::pair<std::size_t, std::uint64_t>, std::unique_ptr<Dataset<T>>>& cache() {
  static std::map<std::pair<std::size_t, std::uint64_t>, std::unique_ptr<Dataset<T>>> c;
  static bool once = [] {
    clearers().push_back([] {
      std::size_t bytes = 0;
      for (const auto& entry : cache<T>()) bytes += entry.second->device.bytes();
      cache<T>().clear();
      return bytes;
    });
    return true;
  }();
  (void)once;
  return c;
}

}  // namespace

template <>
int random_element<int>(std::uint64_t seed, std::size_t index) {
  const std::uint64_t h = mix(seed * 0x100000001B3ull ^ index);
  const int magnitude = static_cast<int>(h % 16) + 1;
  return (h >> 32) & 1 ? magnitude : -magnitude;
}

template <>
float random_element<float>(std::uint64_t seed, std::size_t index) {
  const std::uint64_t h = mix(seed * 0x100000001B3ull ^ index);
  const float u = static_cast<float>(h >> 40) * 0x1.0p-24f;  // [0, 1), 24 bits
  return (h & 1) ? 0.5f + u : -(0.5f + u);
}

// Half and bfloat16: the float distribution, rounded once to the type.
template <>
__half random_element<__half>(std::uint64_t seed, std::size_t index) {
  return __float2half_rn(random_element<float>(seed, index));
}

template <>
__nv_bfloat16 random_element<__nv_bfloat16>(std::uint64_t seed, std::size_t index) {
  return __float2bfloat16_rn(random_element<float>(seed, index));
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
  ds->host.resize(n);
  T* h = ds->host.data();
  parallel_chunks(n, [h, seed](std::size_t b, std::size_t e, unsigned) {
    for (std::size_t i = b; i < e; ++i) h[i] = random_element<T>(seed, i);
  });
  BENCH_CUDA_CHECK(cudaMemcpy(ds->device.get(), h, n * sizeof(T), cudaMemcpyHostToDevice));
  return *(c[key] = std::move(ds));
}

std::size_t clear_datasets() {
  std::size_t bytes = 0;
  for (auto fn : clearers()) bytes += fn();
  return bytes;
}

template const Dataset<int>& random_dataset<int>(std::size_t, std::uint64_t);
template const Dataset<float>& random_dataset<float>(std::size_t, std::uint64_t);
template const Dataset<__half>& random_dataset<__half>(std::size_t, std::uint64_t);
template const Dataset<__nv_bfloat16>& random_dataset<__nv_bfloat16>(std::size_t, std::uint64_t);

}  // namespace bench
