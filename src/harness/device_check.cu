#include <cub/block/block_scan.cuh>

#include "common/float_sum.hpp"
#include "harness/device_check.cuh"

namespace bench {
namespace {

struct PrefixSumRight {
  const int* in;
  const int* out;
  std::size_t segment;
  __device__ bool operator()(std::size_t i) const {
    const unsigned got = static_cast<unsigned>(out[i]), x = static_cast<unsigned>(in[i]);
    return got == (segment_starts(i, segment) ? x : static_cast<unsigned>(out[i - 1]) + x);
  }
};

struct SameWord {
  const unsigned* got;
  const unsigned* want;
  __device__ bool operator()(std::size_t i) const { return got[i] == want[i]; }
};

__device__ float widened(float x) { return x; }
__device__ float widened(__half x) { return __half2float(x); }
__device__ float widened(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ void round_to(float x, float& out) { out = x; }
__device__ void round_to(float x, __half& out) { out = __float2half_rn(x); }
__device__ void round_to(float x, __nv_bfloat16& out) { out = __float2bfloat16_rn(x); }

template <class T>
__device__ unsigned bits_of(T x) {
  unsigned u = 0;
  memcpy(&u, &x, sizeof(T));
  return u;
}

template <class T>
struct SumRight {
  const T* a;
  const T* b;
  const T* out;
  __device__ bool operator()(std::size_t i) const {
    T want;
    round_to(__fadd_rn(widened(a[i]), widened(b[i])), want);
    const T got = out[i];
    if (bits_of(got) == bits_of(want)) return true;
    return widened(got) == widened(want);  // +0 and -0; NaN is never equal
  }
};

// The float32 prefix check's chunks: kScanThreads threads of kScanItems
// consecutive elements each.
constexpr unsigned kScanThreads = 256, kScanItems = 16;
constexpr std::size_t kScanChunk = std::size_t{kScanThreads} * kScanItems;

// A prefix in double: the sum and the sum of magnitudes.
struct DoublePrefix {
  double sum, abs;
};
struct AddPrefix {
  __device__ DoublePrefix operator()(const DoublePrefix& a, const DoublePrefix& b) const {
    return {a.sum + b.sum, a.abs + b.abs};
  }
};
using PrefixScan = cub::BlockScan<DoublePrefix, kScanThreads>;

// This thread's elements [lo, hi) of chunk blockIdx.x (hi <= lo: none).
__device__ void thread_range(std::size_t n, std::size_t* lo, std::size_t* hi) {
  const std::size_t first = blockIdx.x * kScanChunk + std::size_t{threadIdx.x} * kScanItems;
  *lo = first < n ? first : n;
  *hi = first + kScanItems < n ? first + kScanItems : n;
}
__device__ DoublePrefix thread_total(const float* in, std::size_t lo, std::size_t hi) {
  DoublePrefix t{0, 0};
  for (std::size_t i = lo; i < hi; ++i) {
    const double x = in[i];
    t.sum += x;
    t.abs += fabs(x);
  }
  return t;
}

// Pass 1: each chunk's totals.
__global__ void __launch_bounds__(kScanThreads) chunk_totals(const float* in, std::size_t n, DoublePrefix* totals) {
  __shared__ typename PrefixScan::TempStorage scratch;
  std::size_t lo, hi;
  thread_range(n, &lo, &hi);
  DoublePrefix before, total;
  PrefixScan(scratch).ExclusiveScan(thread_total(in, lo, hi), before, DoublePrefix{0, 0}, AddPrefix{}, total);
  if (threadIdx.x == 0) totals[blockIdx.x] = total;
}

// Pass 2, one block: the prefix before each chunk, in place (each thread a
// contiguous run of chunks).
__global__ void __launch_bounds__(kScanThreads) chunk_starts(DoublePrefix* totals, std::size_t chunks) {
  __shared__ typename PrefixScan::TempStorage scratch;
  const std::size_t per = (chunks + kScanThreads - 1) / kScanThreads;
  const std::size_t lo = std::min(chunks, threadIdx.x * per), hi = std::min(chunks, lo + per);
  DoublePrefix run{0, 0};
  for (std::size_t c = lo; c < hi; ++c) run = AddPrefix{}(run, totals[c]);
  PrefixScan(scratch).ExclusiveScan(run, run, DoublePrefix{0, 0}, AddPrefix{});
  for (std::size_t c = lo; c < hi; ++c) {
    const DoublePrefix t = totals[c];
    totals[c] = run;
    run = AddPrefix{}(run, t);
  }
}

// Pass 3: every element against its prefix; counts into found[0], the lowest
// wrong index into found[1]. With report < n, only the prefix at `report` is
// written (to *want): the message's expected value.
__global__ void __launch_bounds__(kScanThreads)
    check_prefixes(const float* in, const float* out, std::size_t n, const DoublePrefix* starts,
                   unsigned long long* found, std::size_t report, DoublePrefix* want) {
  __shared__ typename PrefixScan::TempStorage scratch;
  std::size_t lo, hi;
  thread_range(n, &lo, &hi);
  DoublePrefix p;
  PrefixScan(scratch).ExclusiveScan(thread_total(in, lo, hi), p, starts[blockIdx.x], AddPrefix{});
  unsigned long long wrong = 0, first = ~0ull;
  for (std::size_t i = lo; i < hi; ++i) {
    const double x = in[i];
    p.sum += x;
    p.abs += fabs(x);
    if (i == report) *want = p;
    if (!(fabs(static_cast<double>(out[i]) - p.sum) <= float_sum_tolerance(i + 1, p.abs)) && wrong++ == 0) first = i;
  }
  if (report >= n) device_check_detail::tally(found, wrong, first);
}

}  // namespace

WrongFloatPrefix wrong_float_prefix_sums(const float* in, const float* out, std::size_t n, cudaStream_t stream) {
  WrongFloatPrefix r;
  if (n == 0) return r;
  const std::size_t chunks = (n + kScanChunk - 1) / kScanChunk;  // at most 2^28 (n <= 2^40): one grid
  DeviceBuffer<DoublePrefix> starts(chunks + 1);  // the last: the reported prefix
  const unsigned grid = static_cast<unsigned>(chunks);
  chunk_totals<<<grid, kScanThreads, 0, stream>>>(in, n, starts.get());
  BENCH_CHECK_LAUNCH("chunk_totals");
  chunk_starts<<<1, kScanThreads, 0, stream>>>(starts.get(), chunks);
  BENCH_CHECK_LAUNCH("chunk_starts");
  device_check_detail::Tally tally(stream);
  check_prefixes<<<grid, kScanThreads, 0, stream>>>(in, out, n, starts.get(), tally.device(), n, nullptr);
  BENCH_CHECK_LAUNCH("check_prefixes");
  r.wrong = tally.read();
  if (r.wrong.count == 0) return r;
  check_prefixes<<<grid, kScanThreads, 0, stream>>>(in, out, n, starts.get(), tally.device(), r.wrong.first,
                                                    starts.get() + chunks);
  BENCH_CHECK_LAUNCH("check_prefixes (report)");
  DoublePrefix want{0, 0};
  BENCH_CUDA_CHECK(cudaMemcpyAsync(&want, starts.get() + chunks, sizeof want, cudaMemcpyDeviceToHost, stream));
  BENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
  r.expected = want.sum;
  r.abs_sum = want.abs;
  return r;
}

template <class T>
WrongElements wrong_sums(const T* a, const T* b, const T* out, std::size_t n, cudaStream_t stream) {
  return wrong_elements(n, SumRight<T>{a, b, out}, stream);
}
template WrongElements wrong_sums<float>(const float*, const float*, const float*, std::size_t, cudaStream_t);
template WrongElements wrong_sums<__half>(const __half*, const __half*, const __half*, std::size_t, cudaStream_t);
template WrongElements wrong_sums<__nv_bfloat16>(const __nv_bfloat16*, const __nv_bfloat16*, const __nv_bfloat16*,
                                                 std::size_t, cudaStream_t);

WrongElements wrong_prefix_sums(const int* in, const int* out, std::size_t n, std::size_t segment,
                                cudaStream_t stream) {
  return wrong_elements(n, PrefixSumRight{in, out, segment}, stream);
}

WrongElements wrong_words(const void* got, const void* want, std::size_t words, cudaStream_t stream) {
  return wrong_elements(words, SameWord{static_cast<const unsigned*>(got), static_cast<const unsigned*>(want)}, stream);
}

}  // namespace bench
