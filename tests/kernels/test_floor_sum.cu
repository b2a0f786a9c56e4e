// The launch-floor sum as an API (kernels/reduce/floor_sum.cuh), beyond what
// every reduce_sum declaration is tested for (test_reduce.cpp): bitwise
// determinism of float sums over 100 calls, every head/tail split, n = 0, the
// caller-workspace overload with two streams at once (left zero-filled), the
// choice by n across its size classes, grids past one wave and both sides of
// it, integer carries through the atomic combine, unsigned sums that wrap,
// half and bfloat16 inputs
// summed in float (exactly, on small integers; bitwise alike from call to
// call), and clear refusals.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "gpu_test.hpp"
#include "harness/data.hpp"
#include "harness/device_buffer.hpp"
#include "kernels/reduce/floor_sum.cuh"

namespace bench::testing {
namespace {

using launch_floor::Config;
using launch_floor::floor_sum;

class FloorSum : public StreamTest {
 protected:
  template <class T>
  T fetch(const DeviceBuffer<T>& out) {
    T got{};
    EXPECT_EQ(cudaMemcpyAsync(&got, out.get(), sizeof(T), cudaMemcpyDeviceToHost, stream_), cudaSuccess);
    EXPECT_EQ(cudaStreamSynchronize(stream_), cudaSuccess);
    return got;
  }
  void poison(DeviceBuffer<int>& out) { ASSERT_EQ(cudaMemsetAsync(out.get(), 0xA5, sizeof(int), stream_), cudaSuccess); }
};

int host_sum(const int* x, std::size_t n) {
  unsigned s = 0;
  for (std::size_t i = 0; i < n; ++i) s += static_cast<unsigned>(x[i]);
  return static_cast<int>(s);
}

TEST_F(FloorSum, FloatSumIsBitwiseIdenticalOver100Calls) {
  for (std::size_t n : {std::size_t{4099}, std::size_t{1} << 20, (std::size_t{1} << 24) + 5}) {  // tile, grid
    for (std::size_t offset : {0, 1}) {
      SCOPED_TRACE("n " + std::to_string(n) + " offset " + std::to_string(offset));
      const float* in = random_dataset<float>(n + offset).device.get() + offset;
      DeviceBuffer<float> out(1);
      ASSERT_EQ(floor_sum(in, n, out.get(), stream_), cudaSuccess);
      const float first = fetch(out);
      for (int call = 1; call < 100; ++call) {
        ASSERT_EQ(floor_sum(in, n, out.get(), stream_), cudaSuccess);
        const float again = fetch(out);
        ASSERT_EQ(std::memcmp(&first, &again, sizeof(float)), 0) << "call " << call << ": " << first << " vs " << again;
      }
    }
  }
}

TEST_F(FloorSum, EveryHeadAndTailSplitAndEmptyInput) {
  const auto& data = random_dataset<int>(4096 + 3);
  DeviceBuffer<int> out(1);
  for (std::size_t offset = 0; offset < 4; ++offset) {
    for (std::size_t n = 0; n <= 70; ++n) {
      poison(out);
      ASSERT_EQ(floor_sum(data.device.get() + offset, n, out.get(), stream_), cudaSuccess);
      EXPECT_EQ(fetch(out), host_sum(data.host.data() + offset, n)) << "n " << n << " offset " << offset;
    }
    for (Config cfg : {Config{128, 1}, Config{1024, 8}}) {  // 8 blocks publishing to block 0; one block
      poison(out);
      ASSERT_EQ(floor_sum(data.device.get() + offset, 4096, out.get(), stream_, cfg), cudaSuccess);
      EXPECT_EQ(fetch(out), host_sum(data.host.data() + offset, 4096)) << "block " << cfg.block;
    }
  }
}

// Unsigned sums wrap modulo 2^32, through the warp instruction (redux.sync on
// unsigned) and the ticket combine: every value has its top bit set, so almost
// every partial sum wraps. Every block size, one block and many.
TEST_F(FloorSum, UnsignedSumsWrapModulo2To32) {
  const std::size_t big = (std::size_t{1} << 20) + 3;
  std::vector<unsigned> x(big);
  for (std::size_t i = 0; i < big; ++i) x[i] = static_cast<unsigned>(i * 2654435761u) | 0x80000000u;
  DeviceBuffer<unsigned> dx(big), out(1);
  ASSERT_EQ(cudaMemcpy(dx.get(), x.data(), big * sizeof(unsigned), cudaMemcpyHostToDevice), cudaSuccess);
  for (Config cfg : {Config{}, Config{128, 1}, Config{256, 4}, Config{512, 8}, Config{1024, 2}}) {
    for (std::size_t n : {std::size_t{33}, std::size_t{4095}, big}) {
      unsigned want = 0;
      for (std::size_t i = 0; i < n; ++i) want += x[i];
      ASSERT_EQ(cudaMemsetAsync(out.get(), 0xA5, sizeof(unsigned), stream_), cudaSuccess);
      ASSERT_EQ(floor_sum(dx.get(), n, out.get(), stream_, cfg), cudaSuccess);
      EXPECT_EQ(fetch(out), want) << "n " << n << " config " << cfg.block << "/" << cfg.batch;
    }
  }
}

TEST_F(FloorSum, CallerWorkspacesOnTwoStreamsAtOnce) {
  const std::size_t n = (std::size_t{1} << 22) + 7;
  const auto& data = random_dataset<int>(n);
  const int want = host_sum(data.host.data(), n);
  std::size_t bytes = 0;
  ASSERT_EQ(launch_floor::floor_sum_workspace_bytes<int>(&bytes), cudaSuccess);
  ASSERT_GE(bytes, 2 * launch_floor::kSlotBytes);
  cudaStream_t other = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking), cudaSuccess);
  DeviceBuffer<unsigned char> ws_a(bytes), ws_b(bytes);
  DeviceBuffer<int> out_a(1), out_b(1);
  ASSERT_EQ(cudaMemset(ws_a.get(), 0, bytes), cudaSuccess);  // once, when allocated
  ASSERT_EQ(cudaMemset(ws_b.get(), 0, bytes), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);  // `other` does not wait for the legacy stream
  for (int call = 0; call < 20; ++call) {
    ASSERT_EQ(floor_sum(data.device.get(), n, out_a.get(), ws_a.get(), bytes, stream_), cudaSuccess);
    ASSERT_EQ(floor_sum(data.device.get(), n, out_b.get(), ws_b.get(), bytes, other), cudaSuccess);
  }
  ASSERT_EQ(cudaStreamSynchronize(other), cudaSuccess);
  EXPECT_EQ(fetch(out_a), want);
  int got_b = 0;
  ASSERT_EQ(cudaMemcpy(&got_b, out_b.get(), sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(got_b, want);
  // Every slot is clear again after the calls (the next call relies on it).
  std::vector<unsigned char> left(bytes, 0xFF);
  ASSERT_EQ(cudaMemcpy(left.data(), ws_a.get(), bytes, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(std::count(left.begin(), left.end(), 0), static_cast<std::ptrdiff_t>(bytes));
  EXPECT_EQ(cudaStreamDestroy(other), cudaSuccess);
}

// The choice by n: each row of the table, and the edges between rows, for int
// and float (float against the same call's fixed-config twin, bitwise: the
// auto path must run exactly the kernel its row names).
TEST_F(FloorSum, ChoiceByNMatchesTheTableAndTheHost) {
  const std::size_t top = (std::size_t{1} << 26) + 9;
  const auto& ints = random_dataset<int>(top);
  const auto& floats = random_dataset<float>(top);
  DeviceBuffer<int> out(1);
  DeviceBuffer<float> fout(1), ftwin(1);
  for (std::size_t n : {std::size_t{1}, std::size_t{4096}, std::size_t{4100}, std::size_t{1} << 16,
                        std::size_t{1} << 20, (std::size_t{1} << 20) + 4, (std::size_t{1} << 22) + 6,
                        (std::size_t{1} << 25) + 4, std::size_t{1} << 26, top - 3}) {
    for (std::size_t offset : {0, 3}) {
      SCOPED_TRACE("n " + std::to_string(n) + " offset " + std::to_string(offset));
      poison(out);
      ASSERT_EQ(floor_sum(ints.device.get() + offset, n, out.get(), stream_), cudaSuccess);
      EXPECT_EQ(fetch(out), host_sum(ints.host.data() + offset, n));
      const Config row = launch_floor::choose(n / 4);
      ASSERT_EQ(floor_sum(floats.device.get() + offset, n, fout.get(), stream_), cudaSuccess);
      ASSERT_EQ(floor_sum(floats.device.get() + offset, n, ftwin.get(), stream_, row), cudaSuccess);
      const float a = fetch(fout), b = fetch(ftwin);
      EXPECT_EQ(std::memcmp(&a, &b, sizeof(float)), 0) << a << " vs " << b;
    }
  }
}

// Every compiled pair on an input that needs more blocks than are resident
// (grid clamped to SMs x resident) and on one that needs a few, twice in a row
// (the second call finds the slots the first one cleared).
TEST_F(FloorSum, EveryCompiledConfigTwiceInARow) {
  const std::size_t big = (std::size_t{1} << 23) + 5;
  const auto& data = random_dataset<int>(big + 1);
  DeviceBuffer<int> out(1);
  for (int block : {128, 256, 512, 1024}) {
    for (int batch : {1, 2, 4, 8}) {
      for (std::size_t n : {big, std::size_t{3} * block * batch * 4 + 1}) {
        for (int call = 0; call < 2; ++call) {
          poison(out);
          ASSERT_EQ(floor_sum(data.device.get() + 1, n, out.get(), stream_, Config{block, batch}), cudaSuccess);
          EXPECT_EQ(fetch(out), host_sum(data.host.data() + 1, n)) << block << "/" << batch << " n " << n;
        }
      }
      // The edge between one block (n <= block x batch vectors: no combine) and
      // two (the combine): a full tile, one element either side, every alignment.
      const std::size_t tile = static_cast<std::size_t>(block) * batch * 4;
      for (std::size_t n : {tile - 1, tile, tile + 1, tile + 4, tile + 5}) {
        for (std::size_t offset = 0; offset < 4; ++offset) {
          poison(out);
          ASSERT_EQ(floor_sum(data.device.get() + offset, n, out.get(), stream_, Config{block, batch}), cudaSuccess);
          EXPECT_EQ(fetch(out), host_sum(data.host.data() + offset, n))
              << block << "/" << batch << " n " << n << " offset " << offset;
        }
      }
    }
  }
}

// A workspace of one slot holds no partials: one block of the grid kernel
// reads everything (a tile per block only runs while the tiles fit in the
// workspace's slots). With one, two or three slots the blocks have 11 to 257 tiles each:
// the grid stride (1024 x 8 on two or three slots) and the contiguous runs
// (32 tiles or more), with and without blocks holding one tile more (`extra`),
// with and without a partial last tile.
TEST_F(FloorSum, SmallWorkspacesRunContiguousRunsOverTheWholeInput) {
  const std::size_t top = (std::size_t{1} << 20) + 151;
  const auto& data = random_dataset<int>(top + 1);
  const std::size_t slots = 3;
  DeviceBuffer<unsigned char> ws(slots * launch_floor::kSlotBytes);
  ASSERT_EQ(cudaMemset(ws.get(), 0, slots * launch_floor::kSlotBytes), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  DeviceBuffer<int> out(1);
  for (std::size_t n : {(std::size_t{1} << 20) + 3, top}) {
    for (std::size_t used = 1; used <= slots; ++used) {
      for (Config cfg : {Config{}, Config{256, 4}, Config{1024, 8}}) {
        poison(out);
        ASSERT_EQ(floor_sum(data.device.get() + 1, n, out.get(), ws.get(), used * launch_floor::kSlotBytes, stream_,
                            cfg),
                  cudaSuccess);
        EXPECT_EQ(fetch(out), host_sum(data.host.data() + 1, n))
            << cfg.block << "/" << cfg.batch << " n " << n << " slots " << used;
      }
    }
  }
}

// 8-byte T (two per 16-byte vector; value and flag in separate words): the
// tile kernel and the grid, aligned and not, on integer-valued doubles (exact);
// the workspace is all zero afterwards.
TEST_F(FloorSum, DoublesInTheTileAndTheGrid) {
  const std::size_t top = (std::size_t{1} << 20) + 9;
  std::vector<double> host(top);
  for (std::size_t i = 0; i < top; ++i) host[i] = static_cast<double>(static_cast<int>(i * 2654435761u % 2001) - 1000);
  DeviceBuffer<double> in(top), out(1);
  ASSERT_EQ(cudaMemcpy(in.get(), host.data(), top * sizeof(double), cudaMemcpyHostToDevice), cudaSuccess);
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{2047}, std::size_t{2048},
                        std::size_t{2049}, std::size_t{1} << 16, top - 1}) {
    for (std::size_t offset : {0, 1}) {
      double want = 0;
      for (std::size_t i = 0; i < n; ++i) want += host[offset + i];
      for (Config cfg : {Config{}, Config{256, 4}}) {
        ASSERT_EQ(cudaMemsetAsync(out.get(), 0xA5, sizeof(double), stream_), cudaSuccess);
        ASSERT_EQ(floor_sum(in.get() + offset, n, out.get(), stream_, cfg), cudaSuccess);
        EXPECT_EQ(fetch(out), want) << "n " << n << " offset " << offset << " block " << cfg.block;
      }
    }
  }
  // Both words of every flagged slot are cleared: a packed op (float, max,
  // argmax) that uses this workspace next reads word 0 as value and flag.
  std::vector<unsigned long long> words(2 * launch_floor::detail::kBuiltinSlots, 1);
  ASSERT_EQ(cudaMemcpyFromSymbol(words.data(), launch_floor::detail::builtin_slots,
                                 words.size() * sizeof(unsigned long long)),
            cudaSuccess);
  EXPECT_EQ(std::count(words.begin(), words.end(), 0ull), static_cast<std::ptrdiff_t>(words.size()));
}

// 4-byte integers combine through one 64-bit atomic per block that carries the
// sum's low 32 bits, its carries and the count. All-ones words make every
// block's sum a large unsigned value, so the adds carry out of bit 31 (into
// the carry field, never into the count): one block, a tile per block, the
// resident grid; unsigned and int; the count word is zero again afterwards.
TEST_F(FloorSum, IntegerSumsWrapAndCarryThroughTheCombine) {
  const std::size_t top = (std::size_t{1} << 23) + 7;
  DeviceBuffer<unsigned> in(top + 1), out(1);
  ASSERT_EQ(cudaMemset(in.get(), 0xFF, (top + 1) * sizeof(unsigned)), cudaSuccess);
  for (std::size_t n : {std::size_t{1000}, std::size_t{1} << 16, (std::size_t{1} << 20) + 3, top}) {
    for (std::size_t offset : {0, 1}) {
      for (Config cfg : {Config{}, Config{128, 1}, Config{1024, 8}}) {
        ASSERT_EQ(cudaMemsetAsync(out.get(), 0, sizeof(unsigned), stream_), cudaSuccess);
        ASSERT_EQ(floor_sum(in.get() + offset, n, out.get(), stream_, cfg), cudaSuccess);
        const unsigned want = static_cast<unsigned>(0u - static_cast<unsigned>(n));  // n x (2^32 - 1) mod 2^32
        EXPECT_EQ(fetch(out), want) << "n " << n << " offset " << offset << " block " << cfg.block;
        DeviceBuffer<int> iout(1);
        ASSERT_EQ(floor_sum(reinterpret_cast<const int*>(in.get()) + offset, n, iout.get(), stream_, cfg),
                  cudaSuccess);
        EXPECT_EQ(fetch(iout), static_cast<int>(want)) << "int, n " << n;
      }
    }
  }
  unsigned long long word = 1;
  ASSERT_EQ(cudaMemcpyFromSymbol(&word, launch_floor::detail::builtin_slots, sizeof(word)), cudaSuccess);
  EXPECT_EQ(word, 0u) << "the count word is left zero";
}

// Where the tiles stop fitting in one wave (SMs x resident blocks), the tile
// per block gives way to the grid kernel: both sides of that edge, every
// alignment, int (exact) and float (the auto call against its fixed twin).
TEST_F(FloorSum, BothSidesOfTheOneWaveEdge) {
  for (Config cfg : {Config{256, 2}, Config{512, 8}}) {
    unsigned resident = 0;
    if (cfg.block == 256) {
      ASSERT_EQ((launch_floor::detail::resident_grid<launch_floor::SumPolicy<int>, 256, 2>(&resident)), cudaSuccess);
    } else {
      ASSERT_EQ((launch_floor::detail::resident_grid<launch_floor::SumPolicy<int>, 512, 8>(&resident)), cudaSuccess);
    }
    const std::size_t wave = std::size_t{resident} * cfg.block * cfg.batch * 4;  // elements in one wave of tiles
    const auto& data = random_dataset<int>(wave + 64);
    DeviceBuffer<int> out(1);
    for (std::size_t n : {wave - 1, wave, wave + 4, wave + 9}) {
      for (std::size_t offset = 0; offset < 4; ++offset) {
        std::size_t grid = 0;
        poison(out);
        ASSERT_EQ(launch_floor::detail::run(launch_floor::SumPolicy<int>{}, launch_floor::kAuto,
                                            data.device.get() + offset, n, out.get(), nullptr,
                                            launch_floor::detail::kBuiltinSlots, stream_, cfg, &grid),
                  cudaSuccess);
        EXPECT_EQ(grid, resident) << "one wave either way";
        EXPECT_EQ(fetch(out), host_sum(data.host.data() + offset, n))
            << cfg.block << "/" << cfg.batch << " n " << n << " offset " << offset;
      }
    }
  }
}

// Half and bfloat16 inputs, summed in float, 8 to a 16-byte vector: on 1s and
// 2s in a hashed order (exact in both types; every partial sum an integer
// below 2^24, exact in float, but far past what a half or bfloat16
// accumulator holds exactly, and every element counts) the sum must be exact
// for every head/tail split (offsets 0-7 elements), the tile kernel, the tile
// per block and the grid, every compiled pair at the edges of its one-block
// tile, auto and fixed. Random data: bitwise identical over 100 calls.
template <class H>
void halves_exact_and_deterministic(cudaStream_t stream) {
  const std::size_t top = (std::size_t{1} << 22) + 13;
  std::vector<H> host(top + 8);
  for (std::size_t i = 0; i < host.size(); ++i)
    host[i] = H(static_cast<float>(1u + ((static_cast<unsigned>(i) * 2654435761u) >> 31)));
  DeviceBuffer<H> in(host.size());
  DeviceBuffer<float> out(1);
  ASSERT_EQ(cudaMemcpy(in.get(), host.data(), host.size() * sizeof(H), cudaMemcpyHostToDevice), cudaSuccess);
  auto fetch = [&] {
    float got = 0;
    EXPECT_EQ(cudaMemcpyAsync(&got, out.get(), sizeof(float), cudaMemcpyDeviceToHost, stream), cudaSuccess);
    EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    return got;
  };
  auto sum = [&](std::size_t offset, std::size_t n, Config cfg) {
    EXPECT_EQ(cudaMemsetAsync(out.get(), 0xA5, sizeof(float), stream), cudaSuccess);
    EXPECT_EQ(floor_sum(in.get() + offset, n, out.get(), stream, cfg), cudaSuccess);
    return fetch();
  };
  auto want = [&](std::size_t offset, std::size_t n) {
    long long s = 0;
    for (std::size_t i = 0; i < n; ++i) s += static_cast<long long>(static_cast<float>(host[offset + i]));
    return static_cast<float>(s);
  };
  for (std::size_t offset = 0; offset < 8; ++offset) {
    for (std::size_t n = 0; n <= 40; ++n) ASSERT_EQ(sum(offset, n, Config{}), want(offset, n)) << "n " << n << " offset " << offset;
    for (std::size_t n : {std::size_t{4096}, std::size_t{4099}, std::size_t{1} << 16, (std::size_t{1} << 20) + 5, top})
      EXPECT_EQ(sum(offset, n, Config{}), want(offset, n)) << "n " << n << " offset " << offset;
  }
  for (int block : {128, 256, 512, 1024}) {
    for (int batch : {1, 2, 4, 8}) {
      const std::size_t tile = static_cast<std::size_t>(block) * batch * 8;
      for (std::size_t n : {tile - 1, tile, tile + 1, tile + 9, top})
        for (std::size_t offset : {0, 1, 3})
          EXPECT_EQ(sum(offset, n, Config{block, batch}), want(offset, n))
              << block << "/" << batch << " n " << n << " offset " << offset;
    }
  }
  for (std::size_t n : {std::size_t{4099}, std::size_t{1} << 20, (std::size_t{1} << 24) + 5}) {
    for (std::size_t offset : {0, 1}) {
      SCOPED_TRACE("random data, n " + std::to_string(n) + " offset " + std::to_string(offset));
      const H* data = random_dataset<H>(n + offset).device.get() + offset;
      ASSERT_EQ(floor_sum(data, n, out.get(), stream), cudaSuccess);
      const float first = fetch();
      for (int call = 1; call < 100; ++call) {
        ASSERT_EQ(floor_sum(data, n, out.get(), stream), cudaSuccess);
        const float again = fetch();
        ASSERT_EQ(std::memcmp(&first, &again, sizeof(float)), 0) << "call " << call << ": " << first << " vs " << again;
      }
    }
  }
}

TEST_F(FloorSum, HalvesAreSummedInFloatExactlyAndDeterministically) { halves_exact_and_deterministic<__half>(stream_); }
TEST_F(FloorSum, Bfloat16sAreSummedInFloatExactlyAndDeterministically) {
  halves_exact_and_deterministic<__nv_bfloat16>(stream_);
}

TEST_F(FloorSum, RefusesWhatItCannotDoWithoutLaunching) {
  const auto& data = random_dataset<int>(1000);
  DeviceBuffer<int> out(1);
  DeviceBuffer<unsigned char> ws(4096);
  const int* in = data.device.get();
  EXPECT_EQ(floor_sum(in, 1000, out.get(), stream_, Config{96, 4}), cudaErrorInvalidValue);  // not compiled
  EXPECT_EQ(floor_sum(in, 1000, out.get(), stream_, Config{256, 3}), cudaErrorInvalidValue);
  EXPECT_EQ(floor_sum(in, 1000, static_cast<int*>(nullptr), stream_), cudaErrorInvalidValue);
  EXPECT_EQ(floor_sum(static_cast<const int*>(nullptr), 1000, out.get(), stream_), cudaErrorInvalidValue);
  EXPECT_EQ(floor_sum(in, 1000, out.get(), ws.get() + 4, 4000, stream_), cudaErrorInvalidValue);  // misaligned
  EXPECT_EQ(floor_sum(in, 1000, out.get(), ws.get(), 8, stream_), cudaErrorInvalidValue);         // too small
  EXPECT_EQ(floor_sum(in, 1000, out.get(), stream_, Config{256, 0}), cudaErrorInvalidValue);  // half auto
  const auto& halves = random_dataset<__half>(1000);
  DeviceBuffer<float> fout(1);
  EXPECT_EQ(floor_sum(reinterpret_cast<const __half*>(reinterpret_cast<const char*>(halves.device.get()) + 1), 999,
                      fout.get(), stream_),
            cudaErrorInvalidValue);  // not 2-byte aligned
  EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "a refusal leaves no CUDA error behind";
}

}  // namespace
}  // namespace bench::testing
