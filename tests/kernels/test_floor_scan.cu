// floor_scan as an API (kernels/scan/floor_scan.cuh), beyond what every
// declaration is tested for (test_every_declaration.cpp): bitwise determinism
// of float prefixes over 100 calls across many groups of tiles, every compiled
// block x items pair at the edges of one tile, a group and 32 groups with
// input and output misaligned apart, the persistent grid's blocks looping over
// tiles (and which kernel each call size takes, at compile time), one
// workspace reused by calls of other sizes and configurations (the counter
// back to zero after each), the one call in 2^32 - 1 whose tag is the last (it
// zeroes the workspace and the next call starts again), and clear refusals.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "families/scan.cuh"
#include "gpu_test.hpp"
#include "harness/device_buffer.hpp"
#include "kernels/scan/floor_scan.cuh"

namespace bench::testing {
namespace {

using floor_scan::Config;
using floor_scan::inclusive_sum;
using Word = unsigned long long;
// The tile of the wide shape (floor_scan::detail::kWide).
constexpr std::size_t kWideTile = 256 * 96;

// Integers whose prefixes wrap at 2^32 now and then; floats of both signs.
template <class T>
std::vector<T> data(std::size_t n, unsigned seed) {
  std::vector<T> v(n);
  std::uint64_t s = 0x9E3779B97F4A7C15ull * (seed + 1);
  for (auto& x : v) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    if constexpr (std::is_integral_v<T>) x = static_cast<T>(static_cast<std::uint32_t>(s >> 11));
    else x = static_cast<T>(static_cast<double>(s >> 40) / double(1 << 23) - 1.0);
  }
  return v;
}

std::size_t workspace_for(std::size_t n, Config c) {
  std::size_t bytes = 0;
  EXPECT_EQ(floor_scan::workspace_bytes(n, &bytes, c), cudaSuccess);
  return bytes;
}

class FloorScan : public StreamTest {
 protected:
  // A workspace of `bytes`, zero-filled once as the API asks.
  void make_workspace(std::size_t bytes) {
    ws_ = DeviceBuffer<Word>((bytes + 7) / 8);
    ASSERT_EQ(cudaMemset(ws_.get(), 0, ws_.bytes()), cudaSuccess);
  }
  // in[0, n) at element offset in_off of a device copy, out at out_off; the
  // result checked element by element (scan_check); returns the result.
  template <class T>
  std::vector<T> scan_and_check(const std::vector<T>& host, std::size_t in_off, std::size_t out_off, Config c,
                                const std::string& what) {
    SCOPED_TRACE(what);
    const std::size_t n = host.size();
    DeviceBuffer<T> in(n + in_off), out(n + out_off);
    EXPECT_EQ(cudaMemcpy(in.get() + in_off, host.data(), n * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
    EXPECT_EQ(cudaMemset(out.get(), 0xFF, out.bytes()), cudaSuccess);  // NaN / -1: an unwritten element fails
    EXPECT_EQ(inclusive_sum(in.get() + in_off, out.get() + out_off, n, ws_.get(), ws_.bytes(), stream_, c),
              cudaSuccess);
    std::vector<T> got(n);
    EXPECT_EQ(cudaMemcpyAsync(got.data(), out.get() + out_off, n * sizeof(T), cudaMemcpyDeviceToHost, stream_),
              cudaSuccess);
    EXPECT_EQ(cudaStreamSynchronize(stream_), cudaSuccess);
    EXPECT_EQ(scan::scan_check(host.data(), got.data(), n), "");
    if (ws_.get()) {
      EXPECT_EQ(counter(), 0u) << what << ": the tile counter is back to zero after the call";
      EXPECT_EQ(word(2), 0u) << what << ": the count of blocks done is back to zero after the call";
    }
    return got;
  }
  Word word(std::size_t i) {
    Word w = 0;
    EXPECT_EQ(cudaMemcpy(&w, ws_.get() + i, sizeof w, cudaMemcpyDeviceToHost), cudaSuccess);
    return w;
  }
  unsigned counter() { return static_cast<unsigned>(word(0)); }
  unsigned epoch() { return static_cast<unsigned>(word(0) >> 32); }

  DeviceBuffer<Word> ws_;
};

TEST_F(FloorScan, FloatPrefixesAreBitwiseIdenticalOver100Calls) {
  // 256 x 32 (the choice to 2^22): 512 tiles, the flat look-back's most;
  // 512 x 32 (above): 1024 tiles, staged (a persistent grid, the helpers'
  // sums as A), the last tile partial; 1025 tiles = 33 groups, the last of one tile;
  // 128 x 8: 1281 tiles = 41 groups on the persistent grid, so groups 33-40 add
  // P[g-33] to the G of the 31 groups before; the same at the wide shape 256 x 96.
  const std::pair<std::size_t, Config> calls[] = {{(std::size_t{1} << 22) - 3, Config{}},
                                                  {(std::size_t{1} << 24) - 5, Config{}},
                                                  {(std::size_t{1} << 24) + 5, Config{}},
                                                  {1281 * 1024 - 5, Config{128, 8}},
                                                  {1281 * kWideTile - 5, Config{}}};
  for (const auto& [n, c] : calls) {
    SCOPED_TRACE("n " + std::to_string(n) + (c.block ? " 128 x 8" : ""));
    make_workspace(workspace_for(n, c));
    const auto host = data<float>(n, 1);
    DeviceBuffer<float> in(n), out(n);
    ASSERT_EQ(cudaMemcpy(in.get(), host.data(), n * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
    std::vector<float> first(n), again(n);
    for (int call = 0; call < 100; ++call) {
      ASSERT_EQ(inclusive_sum(in.get(), out.get(), n, ws_.get(), ws_.bytes(), stream_, c), cudaSuccess);
      ASSERT_EQ(cudaMemcpyAsync((call == 0 ? first : again).data(), out.get(), n * sizeof(float),
                                cudaMemcpyDeviceToHost, stream_),
                cudaSuccess);
      ASSERT_EQ(cudaStreamSynchronize(stream_), cudaSuccess);
      if (call == 0) {
        ASSERT_EQ(scan::scan_check(host.data(), first.data(), n), "");
      } else {
        ASSERT_EQ(std::memcmp(first.data(), again.data(), n * sizeof(float)), 0) << "call " << call;
      }
    }
    EXPECT_EQ(epoch(), 100u) << "one epoch per call of more than one tile";
  }
}

// floor_scan.cuh in two translation units of one program (this file and the
// scan variants, src/kernels/scan/floor_scan.cu), both making staged calls. The
// staged kernel at 512 x 32 needs 64 KiB of dynamic shared memory, which each
// unit's own kernel handle must be allowed, while the cached grid is one per
// program (kernels/resident_grid.cuh). Both orders, twice.
TEST_F(FloorScan, StagedCallsFromTwoTranslationUnitsOfOneProgram) {
  const std::size_t n = std::size_t{1} << 24;  // 1024 tiles of 512 x 32: staged
  const Config c{512, 32};
  make_workspace(workspace_for(n, c));
  const auto host = data<int>(n, 2);
  const Declaration& variant = find("scan/i32/floor_scan_fixed");
  Point p;
  p.n = n;
  p.block = 512;
  p.batch = 32;
  for (int round = 0; round < 2; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    scan_and_check(host, 0, 0, c, "this unit");
    try {
      EXPECT_EQ(variant.make_case(p)->verify(stream_), "") << "the variants' unit";
    } catch (const std::exception& e) {
      ADD_FAILURE() << "the variants' unit: " << e.what();
    }
  }
}

TEST_F(FloorScan, EveryCompiledPairAtTheEdgesOfATileAGroupTheFlatLookBackAnd32GroupsAnyAlignment) {
  const int blocks[] = {128, 256, 512}, items[] = {8, 16, 32};
  for (int b : blocks) {
    for (int k : items) {
      const Config c{b, k};
      const std::size_t tile = std::size_t(b) * k;
      make_workspace(workspace_for(1025 * tile + 7, c));
      // 512 tiles: the flat look-back's most; one more: the groups', staged
      // when aligned (to 1024 tiles, the last partial or whole); 1025 not.
      const std::size_t sizes[] = {1,          tile - 1,       tile,        tile + 1,       32 * tile - 3,
                                   32 * tile + 1, 512 * tile, 512 * tile + 1, 1024 * tile, 1024 * tile + 7};
      for (std::size_t n : sizes) {
        const auto host = data<int>(n, static_cast<unsigned>(n));
        for (auto [in_off, out_off] : {std::pair{0, 0}, std::pair{1, 3}, std::pair{2, 0}, std::pair{0, 1}}) {
          if (n > 32 * tile + 1 && (in_off || out_off) && in_off != 2) continue;  // the big sizes: two alignments
          scan_and_check(host, in_off, out_off, c,
                         "int32 " + std::to_string(b) + "x" + std::to_string(k) + " n " + std::to_string(n) +
                             " in+" + std::to_string(in_off) + " out+" + std::to_string(out_off));
        }
      }
      const std::size_t n = 32 * tile + 1;  // floats: two groups and an element
      scan_and_check(data<float>(n, 7), 0, 0, c, "float32 " + std::to_string(b) + "x" + std::to_string(k));
    }
  }
}

// Which kernel enqueue launches, at its edges: the staged grid to kStagedTiles
// tiles, the persistent grid above (aligned, with the look-back), else one
// tile a block.
namespace fsd = floor_scan::detail;
static_assert(!fsd::staged_call(true, fsd::kFlatTiles) && fsd::staged_call(true, fsd::kFlatTiles + 1));
static_assert(fsd::staged_call(true, fsd::kStagedTiles) && !fsd::staged_call(true, fsd::kStagedTiles + 1));
static_assert(!fsd::staged_call(false, fsd::kStagedTiles));
static_assert(!fsd::persistent_call(true, fsd::kStagedTiles, true) &&
              fsd::persistent_call(true, fsd::kStagedTiles + 1, true));
static_assert(!fsd::persistent_call(false, 4 * fsd::kStagedTiles, true), "misaligned: one tile a block");
static_assert(!fsd::persistent_call(true, 4 * fsd::kStagedTiles, false), "tiles_only: one tile a block");

// The wide shape (kWide): a call by n takes it where it would take the
// persistent grid at it, and only there; never a call with a Config, a
// misaligned call or tiles_only (no look-back).
static_assert(std::size_t(fsd::kWide.block) * fsd::kWide.items == kWideTile);
static_assert(!fsd::wide_call(fsd::kStagedTiles * kWideTile, {}, true, true) &&
              fsd::wide_call(fsd::kStagedTiles * kWideTile + 1, {}, true, true));
static_assert(!fsd::wide_call(std::size_t{1} << 30, Config{512, 32}, true, true), "a Config is kept");
static_assert(!fsd::wide_call(std::size_t{1} << 30, {}, false, true), "misaligned: choose(n)");
static_assert(!fsd::wide_call(std::size_t{1} << 30, {}, true, false), "tiles_only: choose(n)");
// Its tiles are fewer than choose(n)'s wherever it is taken (choose(n)'s tile
// there is 512 x 32's, smaller), so workspace_bytes(n) holds for it.
static_assert(fsd::kStagedTiles * kWideTile + 1 > (std::size_t{1} << 22));
static_assert(std::size_t(floor_scan::choose(fsd::kStagedTiles * kWideTile + 1).block) *
                  floor_scan::choose(fsd::kStagedTiles * kWideTile + 1).items <= kWideTile);
static_assert(fsd::tile_count(std::size_t{1} << 30, fsd::kWide) < fsd::tile_count(std::size_t{1} << 30, Config{512, 32}));
// Two blocks an SM at 512 x 32 (64 registers) and at the wide shape (128).
static_assert(fsd::kMinBlocksPerSm<512, 32> == 2 && fsd::kMinBlocksPerSm<256, 96> == 2 &&
              fsd::kMinBlocksPerSm<256, 32> == 4);

// The persistent grid's L2 prefetch stays inside the input: 3/4 of the grid
// ahead; a whole tile, the last tile's part rounded down to 16 bytes (a tile of
// 1024 elements, n = 3 tiles + 7), nothing past the last tile.
static_assert(fsd::prefetch_ahead(264) == 198 && fsd::prefetch_ahead(1) == 0);
static_assert(fsd::prefetch_bytes<int>(3 * 1024 + 7, 1024, 0) == 4096);
static_assert(fsd::prefetch_bytes<float>(3 * 1024 + 7, 1024, 2) == 4096);
static_assert(fsd::prefetch_bytes<int>(3 * 1024 + 7, 1024, 3) == 16, "7 elements: 28 bytes, 16 of them");
static_assert(fsd::prefetch_bytes<int>(3 * 1024 + 3, 1024, 3) == 0, "3 elements: under one granule");
static_assert(fsd::prefetch_bytes<int>(3 * 1024 + 7, 1024, 4) == 0 && fsd::prefetch_bytes<int>(3 * 1024, 1024, 3) == 0);

// The persistent grid (more than kStagedTiles tiles, aligned): blocks loop over
// several tiles each where the tiles outnumber the resident blocks (512 x 32:
// two blocks an SM, 264 on an H100, so 1025 tiles are about four a block;
// 128 x 8: ten an SM by its 48 registers, so 3001 tiles loop and 1025 take one
// tile a block), the last tile partial or whole; each call leaves the counter at
// zero (scan_and_check), and a second call gives the same floats bit for bit.
// (Which kernel a call takes: the static_asserts above.)
TEST_F(FloorScan, PersistentGridCallsLoopOverTheirTilesAndLeaveTheWorkspaceReady) {
  for (const Config c : {Config{512, 32}, Config{128, 8}}) {
    const std::size_t tile = std::size_t(c.block) * c.items;
    for (const std::size_t tiles : {fsd::kStagedTiles + 1, std::size_t{3001}}) {
      for (const std::size_t n : {tiles * tile, tiles * tile - tile + 3}) {
        const std::string what = std::to_string(c.block) + "x" + std::to_string(c.items) + " n " + std::to_string(n);
        SCOPED_TRACE(what);
        make_workspace(workspace_for(n, c));
        scan_and_check(data<int>(n, 11), 0, 0, c, "int32 " + what);
        const auto x = data<float>(n, 12);
        const auto first = scan_and_check(x, 0, 0, c, "float32 " + what);
        const auto again = scan_and_check(x, 0, 0, c, "float32 again " + what);
        EXPECT_EQ(std::memcmp(first.data(), again.data(), n * sizeof(float)), 0);
      }
    }
  }
}

// Calls by n that take the wide shape, at its edges: 1024 wide tiles (not
// wide: choose(n)'s 512 x 32 on the persistent grid), one element more (1025,
// the last of one element), 1025 whole, and 3001 tiles with the last partial
// (every block loops); misaligned at 1025 tiles (choose(n) again). Each call's
// tile count (call_tiles) is the one its kernel took: the workspace's high-water
// word, fresh for each call, is that count's layout end. Floats twice bit for bit.
TEST_F(FloorScan, CallsByNTakeTheWideShapeAtItsEdges) {
  auto run = [&](auto zero, const char* type) {
    using T = decltype(zero);
    const std::size_t tile = kWideTile;
    const std::size_t sizes[] = {1024 * tile, 1024 * tile + 1, 1025 * tile, 3001 * tile - tile + 3};
    // A fresh workspace, one call: the high water its kernel set.
    auto high_water_after = [&](const std::vector<T>& x, std::size_t in_off, std::size_t out_off,
                                const std::string& what) {
      make_workspace(workspace_for(x.size(), {}));
      const auto got = scan_and_check(x, in_off, out_off, {}, what);
      EXPECT_EQ(word(fsd::kHighWater), fsd::layout(floor_scan::call_tiles(x.size(), {}, !in_off && !out_off)).end)
          << what << ": the tiles its kernel took";
      return got;
    };
    for (const std::size_t n : sizes) {
      const std::string what = std::string(type) + " n " + std::to_string(n);
      const bool wide = n > 1024 * tile;
      EXPECT_EQ(floor_scan::call_tiles(n), wide ? (n + tile - 1) / tile : floor_scan::tiles(n)) << what;
      EXPECT_EQ(floor_scan::call_tiles(n, {}, false), floor_scan::tiles(n)) << what;
      const auto x = data<T>(n, static_cast<unsigned>(n));
      const auto first = high_water_after(x, 0, 0, what);
      if constexpr (std::is_floating_point_v<T>) {
        const auto again = scan_and_check(x, 0, 0, {}, what + " again");
        EXPECT_EQ(std::memcmp(first.data(), again.data(), n * sizeof(T)), 0) << what;
      }
    }
    high_water_after(data<T>(sizes[2], 4), 1, 0, std::string(type) + " misaligned in, 1025 wide tiles");
    high_water_after(data<T>(sizes[2], 5), 0, 3, std::string(type) + " misaligned out, 1025 wide tiles");
  };
  run(0.0f, "float32");
  run(0, "int32");
  run(0u, "uint32");
}

TEST_F(FloorScan, OneWorkspaceServesCallsOfEverySizeAndConfigInTurn) {
  const std::size_t big = (std::size_t{1} << 22) + 3;
  make_workspace(workspace_for(big, Config{128, 8}));  // the most tiles of any pair
  const auto x = data<int>(big, 3);
  const std::vector<int> small(x.begin(), x.begin() + 5000);
  scan_and_check(x, 0, 0, {}, "big, chosen config");
  scan_and_check(small, 0, 0, {}, "small, chosen config");
  scan_and_check(x, 0, 0, Config{128, 8}, "big, 128 x 8");
  scan_and_check(small, 1, 0, Config{512, 32}, "small, 512 x 32, misaligned");
  scan_and_check(x, 0, 0, {}, "big again");
}

// A call of one wave, 2^20 + 11 (129 tiles at 256 x 32: 5 groups), one of
// several, 2^24 + 5 (1025 tiles at 512 x 32 on the persistent grid: 33 groups,
// the last of one tile), a staged one, 2^24 - 5 (1024 tiles, a persistent grid),
// and one at the wide shape (1026 tiles of 256 x 96).
TEST_F(FloorScan, TheLastTagsCallZeroesTheWorkspaceAndTheNextStartsAgain) {
  for (const std::size_t n : {(std::size_t{1} << 20) + 11, (std::size_t{1} << 24) + 5, (std::size_t{1} << 24) - 5,
                              1025 * kWideTile + 5}) {
    const std::string size = "n " + std::to_string(n) + ": ";
    make_workspace(workspace_for(n, {}));
    const auto x = data<float>(n, 5);
    const Word near_end = Word{0xFFFFFFFCu} << 32;  // epoch 0xFFFFFFFC: tag 0xFFFFFFFD
    ASSERT_EQ(cudaMemcpy(ws_.get(), &near_end, sizeof near_end, cudaMemcpyHostToDevice), cudaSuccess);
    const auto want = scan_and_check(x, 0, 0, {}, size + "tag 0xFFFFFFFD");
    EXPECT_EQ(epoch(), 0xFFFFFFFDu) << size;
    scan_and_check(x, 0, 0, {}, size + "tag 0xFFFFFFFE");
    EXPECT_EQ(epoch(), 0xFFFFFFFEu) << size;
    scan_and_check(x, 0, 0, {}, size + "tag 0xFFFFFFFF, the last");
    std::vector<Word> all(ws_.size());
    ASSERT_EQ(cudaMemcpy(all.data(), ws_.get(), ws_.bytes(), cudaMemcpyDeviceToHost), cudaSuccess);
    for (std::size_t i = 0; i < all.size(); ++i)
      ASSERT_EQ(all[i], 0u) << size << "word " << i << " after the last tag's call";
    const auto again = scan_and_check(x, 0, 0, {}, size + "tag 1, after the wrap");
    EXPECT_EQ(std::memcmp(want.data(), again.data(), n * sizeof(float)), 0) << size;
    EXPECT_EQ(epoch(), 1u) << size;
  }
}

TEST_F(FloorScan, OneTileNeedsNoWorkspaceAndNothingIsNoOp) {
  const auto x = data<int>(4096, 9);
  ws_ = DeviceBuffer<Word>();
  scan_and_check(x, 0, 0, {}, "one tile, no workspace");
  EXPECT_EQ(inclusive_sum<int>(nullptr, nullptr, 0, nullptr, 0, stream_), cudaSuccess);
}

TEST_F(FloorScan, RefusesWhatItCannotDo) {
  const std::size_t n = 1 << 20;
  DeviceBuffer<int> in(n), out(n);
  make_workspace(workspace_for(n, {}));
  EXPECT_EQ(inclusive_sum(in.get(), out.get(), n, ws_.get(), ws_.bytes() - 8, stream_), cudaErrorInvalidValue)
      << "workspace too small";
  EXPECT_EQ(inclusive_sum(in.get(), out.get(), n, nullptr, 0, stream_), cudaErrorInvalidValue) << "no workspace";
  EXPECT_EQ(inclusive_sum(in.get(), out.get(), n, reinterpret_cast<char*>(ws_.get()) + 4, ws_.bytes() - 8, stream_),
            cudaErrorInvalidValue)
      << "workspace not 8-byte aligned";
  EXPECT_EQ(inclusive_sum(in.get(), out.get(), n, ws_.get(), ws_.bytes(), stream_, Config{256, 12}),
            cudaErrorInvalidValue)
      << "items not compiled";
  EXPECT_EQ(inclusive_sum<int>(nullptr, out.get(), n, ws_.get(), ws_.bytes(), stream_), cudaErrorInvalidValue);
  std::size_t bytes = 0;
  EXPECT_EQ(floor_scan::workspace_bytes(n, &bytes, Config{100, 16}), cudaErrorInvalidValue) << "block not compiled";
  EXPECT_EQ(floor_scan::workspace_bytes(n, nullptr), cudaErrorInvalidValue);
}

}  // namespace
}  // namespace bench::testing
