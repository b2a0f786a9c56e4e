// floor_sum: a device-wide sum that costs one kernel launch and nothing else.
//
//   cudaError_t bench::launch_floor::floor_sum(const T* in, size_t n, T* out, cudaStream_t stream, Config = {});
//   cudaError_t bench::launch_floor::floor_sum(const T* in, size_t n, T* out, void* workspace,
//                                              size_t workspace_bytes, cudaStream_t stream, Config = {});
//
// T: int, unsigned, float, double (any 4- or 8-byte arithmetic type); integers
// wrap in two's complement. Any n (0 writes 0), any T-aligned input pointer.
// The caller never clears anything: no memset before a call, no second pass.
//
// Design (one launch, "last block" combine as in CUDA's threadFenceReduction
// sample, with the streaming loop of the measured read ceiling):
//   - grid: at most SMs x resident blocks per SM (the occupancy API), fewer when
//     the input is small, so each thread issues at most `batch` loads at once;
//   - each thread reads 16-byte vectors at a grid stride, `batch` independent
//     loads in flight per iteration (the read ceiling's loop); the head before
//     the first 16-byte boundary and the tail after the last whole vector are
//     added element by element by the first threads of the grid;
//   - each block reduces by warp shuffles, writes its partial, and takes a
//     ticket (cuda::atomic_ref fetch_add, acq_rel at device scope); the block
//     that draws the last ticket reads every partial, reduces them in index
//     order, writes *out and sets the ticket back to 0 for the next call.
//   - a grid of one block writes *out directly (no partial, no ticket).
// Deterministic: for a given n, input alignment, device and Config, the grid,
// every thread's share and every combination order are fixed; which block
// finishes last does not change the order in which partials are combined, so
// float results are bitwise identical from call to call.
//
// Workspace: the first overload uses a workspace built into the module (zero
// when the module loads). Calls that use it must be stream-ordered (one stream,
// or synchronised): concurrent calls on different streams need workspaces of
// their own, through the second overload: floor_sum_workspace_bytes<T>() bytes,
// 16-byte aligned and zero-filled once when allocated (e.g. cudaMemset after
// cudaMalloc); every call leaves it zero-filled again.
//
// Independent of the benchmark harness: only CUDA and libcu++ headers.
#pragma once

#include <cuda/atomic>
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

namespace bench::launch_floor {

// The compiled tunables (one list each: the dispatch below and the benchmark
// declaration's axes both read them): threads per block, and 16-byte loads in
// flight per thread per loop iteration.
using BlockSizes = std::integer_sequence<int, 128, 256, 512, 1024>;
using Batches = std::integer_sequence<int, 1, 2, 4, 8>;

struct Config {
  int block = 256;  // the read ceiling's block: 8 resident blocks per SM fill it
  int batch = 4;    // the read ceiling's four loads in flight
};

// A caller's workspace starts with the ticket, padded to keep the partials aligned.
constexpr std::size_t kWorkspaceHeader = 16;

namespace detail {

// Integers add as unsigned (two's-complement wrap, no signed overflow).
template <class T>
__host__ __device__ inline T add(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}

// The elements of one 16-byte vector, summed pairwise.
template <class T>
__device__ inline T sum16(const uint4& v) {
  constexpr int kCount = 16 / sizeof(T);
  T e[kCount];
  std::memcpy(e, &v, 16);
  if constexpr (kCount == 4) {
    return add(add(e[0], e[1]), add(e[2], e[3]));
  } else {
    return add(e[0], e[1]);
  }
}

template <class T>
__device__ inline T warp_sum(T v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) v = add(v, __shfl_down_sync(0xFFFFFFFFu, v, offset));
  return v;
}

// Warp shuffles, then the warps' sums by warp 0: a fixed tree. Result in thread 0.
template <int Block, class T>
__device__ inline T block_sum(T v) {
  __shared__ T warp_sums[Block / 32];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  v = warp_sum(v);
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  if (warp == 0) v = warp_sum(lane < Block / 32 ? warp_sums[lane] : T(0));
  return v;
}

// The workspace built into the module: zero when it loads, left zero by every call.
constexpr unsigned kBuiltinPartials = 8192;
namespace {
__device__ unsigned int builtin_ticket;
__device__ std::uint64_t builtin_partials[kBuiltinPartials];  // 8-byte slots hold any T
}  // namespace

// Up to four loads in flight fit in 32 registers: a full SM (2048 threads) of
// resident blocks, as the read ceiling has. Eight need more.
template <int Block, int Batch>
constexpr int kMinBlocksPerSm = Batch <= 4 ? 2048 / Block : 1;

template <class T, int Block, int Batch>
__global__ void __launch_bounds__(Block, (kMinBlocksPerSm<Block, Batch>)) floor_sum_kernel(const T* __restrict__ in, std::size_t n, T* __restrict__ out,
                                                          T* partials, unsigned int* ticket) {
  constexpr std::size_t kPerVec = 16 / sizeof(T);
  if (partials == nullptr) {
    partials = reinterpret_cast<T*>(builtin_partials);
    ticket = &builtin_ticket;
  }
  // head | whole 16-byte vectors | tail
  const std::size_t misalign = reinterpret_cast<std::uintptr_t>(in) % 16;
  const std::size_t to_boundary = misalign == 0 ? 0 : (16 - misalign) / sizeof(T);
  const std::size_t head = to_boundary < n ? to_boundary : n;
  const std::size_t vectors = (n - head) / kPerVec;
  const std::size_t tail = head + vectors * kPerVec;
  const uint4* __restrict__ body = reinterpret_cast<const uint4*>(in + head);

  const std::size_t stride = std::size_t{gridDim.x} * Block;
  const std::size_t t = std::size_t{blockIdx.x} * Block + threadIdx.x;
  T acc[Batch];
#pragma unroll
  for (int b = 0; b < Batch; ++b) acc[b] = T(0);
  std::size_t i = t;
  for (; i + (Batch - 1) * stride < vectors; i += Batch * stride) {
    uint4 v[Batch];
#pragma unroll
    for (int b = 0; b < Batch; ++b) v[b] = __ldg(body + i + b * stride);
#pragma unroll
    for (int b = 0; b < Batch; ++b) acc[b] = add(acc[b], sum16<T>(v[b]));
  }
  for (; i < vectors; i += stride) acc[0] = add(acc[0], sum16<T>(__ldg(body + i)));
#pragma unroll
  for (int width = Batch / 2; width > 0; width /= 2) {
#pragma unroll
    for (int b = 0; b < width; ++b) acc[b] = add(acc[b], acc[b + width]);
  }
  T sum = acc[0];
  if (t < head) sum = add(sum, in[t]);
  if (t < n - tail) sum = add(sum, in[tail + t]);
  sum = block_sum<Block>(sum);

  if (gridDim.x == 1) {
    if (threadIdx.x == 0) *out = sum;
    return;
  }
  __shared__ bool last;
  cuda::atomic_ref<unsigned int, cuda::thread_scope_device> ticket_ref(*ticket);
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = sum;
    // release: this block's partial is visible before its ticket; acquire: the
    // last block sees every partial released before the tickets it follows.
    last = ticket_ref.fetch_add(1u, cuda::memory_order_acq_rel) == gridDim.x - 1;
  }
  __syncthreads();  // orders the other threads' reads after thread 0's acquire
  if (!last) return;
  T total = T(0);
  for (unsigned b = threadIdx.x; b < gridDim.x; b += Block) total = add(total, __ldcg(partials + b));
  total = block_sum<Block>(total);
  if (threadIdx.x == 0) {
    *out = total;
    ticket_ref.store(0u, cuda::memory_order_relaxed);  // every block has drawn its ticket
  }
}

// SMs x resident blocks per SM of this kernel on the current device, asked once
// per device (the occupancy API is too slow to ask on every call).
template <class T, int Block, int Batch>
cudaError_t resident_grid(unsigned* grid) {
  constexpr int kDevices = 64;
  static std::atomic<unsigned> cache[kDevices] = {};
  int device = 0;
  if (const cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) return e;
  const bool cached = device < kDevices && (*grid = cache[device].load(std::memory_order_relaxed)) != 0;
  if (cached) return cudaSuccess;
  int sms = 0, per_sm = 0;
  if (const cudaError_t e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device); e != cudaSuccess)
    return e;
  if (const cudaError_t e =
          cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, floor_sum_kernel<T, Block, Batch>, Block, 0);
      e != cudaSuccess)
    return e;
  *grid = static_cast<unsigned>(sms) * static_cast<unsigned>(per_sm > 0 ? per_sm : 1);
  if (device < kDevices) cache[device].store(*grid, std::memory_order_relaxed);
  return cudaSuccess;
}

// One call with compiled tunables. `capacity`: partials the workspace holds.
template <class T, int Block, int Batch>
cudaError_t launch(const T* in, std::size_t n, T* out, T* partials, unsigned int* ticket, std::size_t capacity,
                   cudaStream_t stream, std::size_t* grid_out) {
  unsigned resident = 0;
  if (const cudaError_t e = resident_grid<T, Block, Batch>(&resident); e != cudaSuccess) return e;
  const std::size_t vectors = n / (16 / sizeof(T));  // at least the kernel's whole vectors
  const std::size_t per_block = std::size_t{Block} * Batch;
  std::size_t grid = (vectors + per_block - 1) / per_block;
  grid = std::max<std::size_t>(1, std::min({grid, std::size_t{resident}, capacity}));
  if (grid_out) *grid_out = grid;
  floor_sum_kernel<T, Block, Batch><<<static_cast<unsigned>(grid), Block, 0, stream>>>(in, n, out, partials, ticket);
  return cudaGetLastError();
}

// Calls f(integral_constant<Block>, integral_constant<Batch>) for the compiled
// pair equal to cfg; false when cfg names none.
template <class F, int... Blocks, int... Bs>
bool dispatch(const Config& cfg, F&& f, std::integer_sequence<int, Blocks...>, std::integer_sequence<int, Bs...>) {
  auto for_block = [&](auto block) {
    return ((cfg.batch == Bs ? (f(block, std::integral_constant<int, Bs>{}), true) : false) || ...);
  };
  return ((cfg.block == Blocks ? for_block(std::integral_constant<int, Blocks>{}) : false) || ...);
}

template <class T>
constexpr void check_type() {
  static_assert(std::is_arithmetic_v<T> && (sizeof(T) == 4 || sizeof(T) == 8),
                "floor_sum sums 4- or 8-byte arithmetic types");
}

inline bool misaligned(const void* p, std::size_t alignment) {
  return reinterpret_cast<std::uintptr_t>(p) % alignment != 0;
}

template <class T>
cudaError_t run(const T* in, std::size_t n, T* out, T* partials, unsigned int* ticket, std::size_t capacity,
                cudaStream_t stream, const Config& cfg, std::size_t* grid) {
  check_type<T>();
  if ((in == nullptr && n > 0) || out == nullptr || misaligned(in, sizeof(T)) || misaligned(out, sizeof(T)))
    return cudaErrorInvalidValue;
  cudaError_t status = cudaErrorInvalidValue;  // stays so when cfg names no compiled kernel
  dispatch(
      cfg,
      [&](auto block, auto batch) {
        status = launch<T, decltype(block)::value, decltype(batch)::value>(in, n, out, partials, ticket, capacity,
                                                                           stream, grid);
      },
      BlockSizes{}, Batches{});
  return status;
}

}  // namespace detail

// Bytes of a workspace for the second overload of floor_sum with this Config
// on the current device: a ticket, then one partial per block of the largest grid.
template <class T>
cudaError_t floor_sum_workspace_bytes(std::size_t* bytes, Config cfg = {}) {
  detail::check_type<T>();
  cudaError_t status = cudaErrorInvalidValue;
  detail::dispatch(
      cfg,
      [&](auto block, auto batch) {
        unsigned grid = 0;
        status = detail::resident_grid<T, decltype(block)::value, decltype(batch)::value>(&grid);
        *bytes = kWorkspaceHeader + std::size_t{grid} * sizeof(T);
      },
      BlockSizes{}, Batches{});
  return status;
}

// The sum of in[0, n) into *out (device memory), using the built-in workspace:
// calls must be stream-ordered. One kernel launch; cudaErrorInvalidValue for a
// null or misaligned pointer or a Config that is not compiled.
template <class T>
cudaError_t floor_sum(const T* in, std::size_t n, T* out, cudaStream_t stream, Config cfg = {}) {
  return detail::run<T>(in, n, out, nullptr, nullptr, detail::kBuiltinPartials, stream, cfg, nullptr);
}

// As above with the caller's workspace (floor_sum_workspace_bytes<T>(cfg) bytes,
// 16-byte aligned, zero-filled once when allocated; each call leaves it zeroed).
template <class T>
cudaError_t floor_sum(const T* in, std::size_t n, T* out, void* workspace, std::size_t workspace_bytes,
                      cudaStream_t stream, Config cfg = {}) {
  if (workspace == nullptr || detail::misaligned(workspace, 16) || workspace_bytes < kWorkspaceHeader + sizeof(T))
    return cudaErrorInvalidValue;
  auto* bytes = static_cast<unsigned char*>(workspace);
  const std::size_t capacity = (workspace_bytes - kWorkspaceHeader) / sizeof(T);
  return detail::run<T>(in, n, out, reinterpret_cast<T*>(bytes + kWorkspaceHeader),
                        reinterpret_cast<unsigned int*>(bytes), capacity, stream, cfg, nullptr);
}

}  // namespace bench::launch_floor
