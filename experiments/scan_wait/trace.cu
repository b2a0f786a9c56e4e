// Session 26: where floor_scan's persistent-grid tiles spend their time (H200).
// Built with -DFS_TRACE against wait.patch (floor_scan.cuh's marks): for n =
// 2^28 and 2^30 int32, random input, a verified call, warm calls, then one
// traced call; writes trace_<n>.bin (8 uint64 a tile: globaltimer at its
// ticket, A published, prefix known, stores issued, P published (a group's
// last tile; else 0), block << 32 | SM, G published (a group's last tile), the
// first round of status reads back (FS_ONELOOP, not a group's last tile)). FS_NAP / FS_POLL / FS_SENTINEL
// as in wait.patch. A diagnostic, not a benchmark: timings come from cuda_bench.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "kernels/scan/floor_scan.cuh"

#define CHECK(x)                                                                     \
  do {                                                                               \
    cudaError_t e_ = (x);                                                            \
    if (e_ != cudaSuccess) {                                                         \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                  \
    }                                                                                \
  } while (0)

__global__ void fill(int* x, std::size_t n, unsigned seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    unsigned h = static_cast<unsigned>(i) * 2654435761u ^ seed;
    h ^= h >> 15, h *= 2246822519u, h ^= h >> 13;
    x[i] = static_cast<int>(h % 2001) - 1000;
  }
}

int main(int argc, char** argv) {
  const char* dir = argc > 1 ? argv[1] : ".";
  for (int lg : {28, 30}) {
    const std::size_t n = std::size_t{1} << lg;
    int *in, *out;
    CHECK(cudaMalloc(&in, n * 4));
    CHECK(cudaMalloc(&out, n * 4));
    fill<<<1024, 256>>>(in, n, 12345u + lg);
    std::size_t ws_bytes = 0;
    CHECK(bench::floor_scan::workspace_bytes(n, &ws_bytes));
    void* ws;
    CHECK(cudaMalloc(&ws, ws_bytes));
    CHECK(cudaMemset(ws, 0, ws_bytes));
    const std::size_t tiles = bench::floor_scan::tiles(n);
    unsigned long long* trace;
    CHECK(cudaMalloc(&trace, tiles * 8 * 8));
    CHECK(cudaMemset(trace, 0, tiles * 8 * 8));
    CHECK(bench::floor_scan::inclusive_sum(in, out, n, ws, ws_bytes));
    CHECK(cudaDeviceSynchronize());
    {  // verify (int32 wraps as unsigned)
      std::vector<int> h_in(n), h_out(n);
      CHECK(cudaMemcpy(h_in.data(), in, n * 4, cudaMemcpyDeviceToHost));
      CHECK(cudaMemcpy(h_out.data(), out, n * 4, cudaMemcpyDeviceToHost));
      unsigned acc = 0;
      std::size_t bad = 0;
      for (std::size_t i = 0; i < n; ++i) {
        acc += static_cast<unsigned>(h_in[i]);
        if (static_cast<unsigned>(h_out[i]) != acc && bad++ == 0) std::printf("first mismatch at %zu\n", i);
      }
      std::printf("n=2^%d tiles=%zu verify: %zu wrong\n", lg, tiles, bad);
    }
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    for (int i = 0; i < 10; ++i) CHECK(bench::floor_scan::inclusive_sum(in, out, n, ws, ws_bytes));
    CHECK(cudaEventRecord(a));
    for (int i = 0; i < 10; ++i) CHECK(bench::floor_scan::inclusive_sum(in, out, n, ws, ws_bytes));
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    std::printf("n=2^%d untraced mean %.1f us a call (10 warm calls)\n", lg, ms * 100);
    CHECK(cudaMemcpyToSymbol(bench::floor_scan::detail::g_fs_trace, &trace, sizeof trace));
    CHECK(cudaEventRecord(a));
    CHECK(bench::floor_scan::inclusive_sum(in, out, n, ws, ws_bytes));
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    CHECK(cudaEventElapsedTime(&ms, a, b));
    std::printf("n=2^%d traced call %.1f us\n", lg, ms * 1000);
    unsigned long long* none = nullptr;
    CHECK(cudaMemcpyToSymbol(bench::floor_scan::detail::g_fs_trace, &none, sizeof none));
    std::vector<unsigned long long> h(tiles * 8);
    CHECK(cudaMemcpy(h.data(), trace, h.size() * 8, cudaMemcpyDeviceToHost));
    char path[512];
    std::snprintf(path, sizeof path, "%s/trace_%d.bin", dir, lg);
    FILE* f = std::fopen(path, "wb");
    if (!f || std::fwrite(h.data(), 8, h.size(), f) != h.size()) return std::fprintf(stderr, "cannot write %s\n", path), 1;
    std::fclose(f);
    CHECK(cudaFree(in));
    CHECK(cudaFree(out));
    CHECK(cudaFree(ws));
    CHECK(cudaFree(trace));
  }
  return 0;
}
