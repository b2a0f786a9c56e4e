// The traffic a variant states beyond its family's compulsory bytes
// (Declaration::extra): what the DRAM-byte audit expects it to move more than
// the problem needs (docs/audit.md). Host-side: the model is a function of the
// point alone.
#include <gtest/gtest.h>

#include <string>

#include "harness/registry.hpp"

namespace bench {
namespace {

const Declaration& find(const std::string& id) {
  for (const auto& d : declarations())
    if (d.id() == id) return d;
  throw std::runtime_error("no declaration " + id);
}

ExtraTraffic extra(const std::string& id, std::size_t n, int block, int batch = 0) {
  const Declaration& d = find(id);
  EXPECT_TRUE(static_cast<bool>(d.extra)) << id;
  return d.extra(Point{n, block, batch});
}

constexpr std::size_t kN = std::size_t(1) << 26;

TEST(ExtraTraffic, MultiPassWritesAndReadsBackThePartialsOfEveryPassButTheLast) {
  // 2^26 inputs, 256 per block: 262144 partials, then 1024, then 4, then the result.
  const ExtraTraffic seq = extra("reduce_sum/i32/sequential_addressing", kN, 256);
  EXPECT_EQ(seq.bytes_written, 4.0 * (262144 + 1024 + 4));
  EXPECT_EQ(seq.bytes_read, seq.bytes_written);
  EXPECT_NE(seq.what.find("263172 partials of 4 B"), std::string::npos) << seq.what;
  // Two inputs per thread: 512 per block, 131072 partials, then 256.
  EXPECT_EQ(extra("reduce_sum/f32/first_add_on_load", kN, 256).bytes_written, 4.0 * (131072 + 256));
  // The batch axis sets the inputs per thread: 2048 per block.
  EXPECT_EQ(extra("reduce_sum/f32/multi_per_thread", kN, 256, 8).bytes_read, 4.0 * (32768 + 16));
  EXPECT_EQ(extra("reduce_sum/i32/grid_stride_tree", kN, 256, 8).bytes_read, 4.0 * (32768 + 16));
  EXPECT_EQ(extra("reduce_min/i32/sequential_addressing", kN, 256).bytes_written, seq.bytes_written);
  // One block writes the result itself: no partials.
  EXPECT_TRUE(extra("reduce_sum/i32/interleaved_mod", 256, 256).none());
}

TEST(ExtraTraffic, ArgmaxPartialsAreSixteenBytePairs) {
  for (const char* type : {"i32", "f32"}) {
    const ExtraTraffic e = extra(std::string("reduce_argmax/") + type + "/sequential_addressing", kN, 256);
    EXPECT_EQ(e.bytes_written, 16.0 * (262144 + 1024 + 4)) << type;  // value + padding + 8-byte index
    EXPECT_EQ(e.bytes_read, e.bytes_written) << type;
  }
}

TEST(ExtraTraffic, TwoPassWritesOnePartialPerBlockEvenForOneBlock) {
  EXPECT_EQ(extra("reduce_sum/f32/two_pass_tree", kN, 256).bytes_written, 4.0 * 262144);
  EXPECT_EQ(extra("reduce_sum/i32/two_pass_syncwarp", kN, 512).bytes_read, 4.0 * 131072);
  EXPECT_EQ(extra("reduce_sum/i32/two_pass_tree", 1, 256).bytes_written, 4.0);  // the second pass still runs
}

TEST(ExtraTraffic, ReduceThenScanReadsItsInputTwiceWhenItHasSeveralTiles) {
  const ExtraTraffic e = extra("scan/f32/reduce_then_scan", kN, 256, 8);
  EXPECT_EQ(e.bytes_read, 4.0 * kN);
  EXPECT_EQ(e.bytes_written, 0.0);
  EXPECT_FALSE(e.what.empty());
  EXPECT_TRUE(extra("scan/i32/reduce_then_scan", 2048, 256, 8).none());  // one tile: one pass
  EXPECT_EQ(extra("scan/i32/reduce_then_scan", 2049, 256, 8).bytes_read, 4.0 * 2049);
}

TEST(ExtraTraffic, DecoupledLookBackMovesItsTileStatusWords) {
  const ExtraTraffic e = extra("scan/i32/decoupled_lookback", kN, 256, 8);
  EXPECT_EQ(e.bytes_written, 8.0 * (1 + 32768));  // the tile counter and one word per 2048-element tile
  EXPECT_EQ(e.bytes_read, e.bytes_written);
}

TEST(ExtraTraffic, FloorScanStatesOneStatusWordPerTileAndNoneForOneTile) {
  // 2^26 at its own choice, aligned: the wide shape, 256 x 96, 2731 tiles;
  // misaligned, choose(n)'s 512 x 32, 4096 tiles. Fixed 128 x 8: 65536 tiles.
  EXPECT_EQ(extra("scan/f32/floor_scan", kN, 0, 0).bytes_written, 8.0 * 2731);
  Point misaligned{kN, 0, 0};
  misaligned.out_offset = 1;
  EXPECT_EQ(find("scan/i32/floor_scan").extra(misaligned).bytes_written, 8.0 * 4096);
  const ExtraTraffic e = extra("scan/i32/floor_scan_fixed", kN, 128, 8);
  EXPECT_EQ(e.bytes_written, 8.0 * 65536);
  EXPECT_EQ(e.bytes_read, e.bytes_written);
  EXPECT_FALSE(e.what.empty());
  EXPECT_TRUE(extra("scan/i32/floor_scan", 4096, 0, 0).none());  // one tile: no look-back
  EXPECT_TRUE(extra("scan/i32/floor_scan_fixed", 1024, 128, 8).none());
  EXPECT_EQ(extra("scan/i32/floor_scan_fixed", 1025, 128, 8).bytes_written, 8.0 * 2);
}

// Single-pass kernels, libraries (whose internals are theirs), the CPU and the
// ceilings state nothing: the audit holds them to the compulsory bytes.
TEST(ExtraTraffic, EverythingElseStatesNone) {
  int stated = 0;
  for (const auto& d : declarations()) {
    ASSERT_TRUE(static_cast<bool>(d.extra)) << d.id();
    const int block = d.block.used() ? d.block.curated.front() : 0, batch = d.batch.used() ? d.batch.curated.front() : 0;
    const ExtraTraffic e = d.extra(Point{kN, block, batch});
    if (d.role != Role::kernel || d.family == "vector_add" || d.family == "ceiling" || d.family == "dot")
      EXPECT_TRUE(e.none()) << d.id();
    if (!e.none()) {
      ++stated;
      EXPECT_FALSE(e.what.empty()) << d.id();
    }
  }
  // Per type (i32, f32): reduce_sum's 11 multi-pass and 2 two-pass variants,
  // reduce_max's and reduce_min's sequential_addressing, argmax's, and 4 scans
  // (reduce_then_scan, decoupled_lookback, floor_scan and floor_scan_fixed).
  EXPECT_EQ(stated, 2 * (11 + 2 + 1 + 1 + 1 + 4));
}

}  // namespace
}  // namespace bench
