// The launch-floor max, min, argmax and dot as APIs (kernels/reduce/
// floor_minmax.cuh, floor_argmax.cuh, kernels/dot/floor_dot.cuh), beyond what
// every declaration is tested for (test_every_declaration.cpp): bitwise
// determinism of float results over 100 calls, argmax ties (in the head, the
// tail, across blocks: the lowest index wins), all-equal and single-element
// inputs, n = 0, NaN and infinities as the families' references fold them,
// every compiled block x batch at the edges between one block and two with
// every alignment (and b's alignment apart from a's for dot), both sides of
// the one-wave edge, small workspaces (contiguous runs), argmax's flagged
// (two-word) slot protocol, workspaces left zero, unsigned max and min that
// compare as unsigned, clear refusals.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "common/ops.cuh"
#include "gpu_test.hpp"
#include "harness/data.hpp"
#include "harness/device_buffer.hpp"
#include "kernels/dot/floor_dot.cuh"
#include "kernels/reduce/floor_argmax.cuh"
#include "kernels/reduce/floor_minmax.cuh"

namespace bench::testing {
namespace {

using launch_floor::Config;
using launch_floor::floor_argmax;
using launch_floor::floor_dot;
using launch_floor::floor_max;
using launch_floor::floor_min;
using launch_floor::kNoIndex;

// The tables of max and min depart from floor_sum's at 2^12 alone, which the
// build checks (departs_only_within); the check itself, on tables that drift:
// kAuto without its 2^18 row (2^14 < n <= 2^18 would take 256 x 4), and kAuto
// with its 2^12 row changed (refused unless that range is the one let go).
using launch_floor::AutoRow;
using launch_floor::departs_only_within;
using launch_floor::kAuto;
constexpr std::size_t kVec2p12 = std::size_t{1} << 10;  // vectors of 2^12 four-byte elements
constexpr AutoRow kMissingARow[] = {{std::size_t{1} << 8, {128, 4}}, {std::size_t{1} << 10, {256, 4}},
                                    {std::size_t{1} << 12, {512, 8}}, {std::size_t{1} << 18, {256, 4}},
                                    {std::size_t{1} << 20, {512, 4}}, {std::size_t{1} << 23, {512, 8}},
                                    {std::size_t{1} << 24, {1024, 4}}, {~std::size_t{0}, {512, 8}}};
constexpr AutoRow kOtherAt2p12[] = {{std::size_t{1} << 8, {128, 4}},  {std::size_t{1} << 10, {512, 2}},
                                    {std::size_t{1} << 12, {512, 8}}, {std::size_t{1} << 16, {256, 1}},
                                    {std::size_t{1} << 18, {256, 4}}, {std::size_t{1} << 20, {512, 4}},
                                    {std::size_t{1} << 23, {512, 8}}, {std::size_t{1} << 24, {1024, 4}},
                                    {~std::size_t{0}, {512, 8}}};
static_assert(departs_only_within(kAuto, kAuto, 0, 0), "a table departs from itself nowhere");
static_assert(!departs_only_within(kMissingARow, kAuto, 0, kVec2p12), "a lost row is seen");
static_assert(!departs_only_within(kOtherAt2p12, kAuto, 0, 0), "a changed row is seen");
static_assert(!departs_only_within(kOtherAt2p12, kAuto, kVec2p12 / 4 + 1, kVec2p12), "its first vector too");
static_assert(departs_only_within(kOtherAt2p12, kAuto, kVec2p12 / 4, kVec2p12), "the range it changes");
static_assert(departs_only_within(launch_floor::kExtremumAuto, kAuto, kVec2p12 / 2, kVec2p12), "max and min");
static_assert(!departs_only_within(launch_floor::kExtremumAuto, kAuto, kVec2p12 / 2 + 1, kVec2p12), "lower edge");
static_assert(!departs_only_within(launch_floor::kExtremumAuto, kAuto, kVec2p12 / 2, kVec2p12 - 1), "upper edge");
// Key 0 (n < 4: no whole vector) is outside a range that starts at 0.
constexpr AutoRow kOtherAtZero[] = {{4, {128, 4}}, {~std::size_t{0}, {512, 8}}};
constexpr AutoRow kAtZero[] = {{4, {256, 4}}, {~std::size_t{0}, {512, 8}}};
static_assert(!departs_only_within(kOtherAtZero, kAtZero, 0, 4), "key 0 is seen");

// Host results, folded from the identity as the families' references fold
// them (bench::Max / Min, the argmax rule: greater, or equal at a lower index).
template <class T>
T host_max(const T* x, std::size_t n) {
  T m = Max::identity<T>();
  for (std::size_t i = 0; i < n; ++i) m = Max::combine(m, x[i]);
  return m;
}
template <class T>
T host_min(const T* x, std::size_t n) {
  T m = Min::identity<T>();
  for (std::size_t i = 0; i < n; ++i) m = Min::combine(m, x[i]);
  return m;
}
template <class T>
struct Arg {
  T value;
  long long index;
};
template <class T>
Arg<T> host_argmax(const T* x, std::size_t n) {
  Arg<T> best{std::numeric_limits<T>::lowest(), kNoIndex};
  for (std::size_t i = 0; i < n; ++i) {
    const long long k = static_cast<long long>(i);
    if (x[i] > best.value || (x[i] == best.value && k < best.index)) best = {x[i], k};
  }
  return best;
}
// Small integers as floats: every product and partial sum is exact, so any
// order gives this.
float host_dot(const float* a, const float* b, std::size_t n) {
  double s = 0;
  for (std::size_t i = 0; i < n; ++i) s += static_cast<double>(a[i]) * b[i];
  return static_cast<float>(s);
}

// Values in [-2, 2] as floats (exact dot products up to 2^22 elements).
std::vector<float> small_floats(std::size_t n, unsigned seed) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<float>(static_cast<int>((i * 2654435761u + seed) % 5) - 2);
  return v;
}

template <class T>
DeviceBuffer<T> upload(const std::vector<T>& host) {
  DeviceBuffer<T> d(host.size());
  EXPECT_EQ(cudaMemcpy(d.get(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  return d;
}

std::string where(std::size_t n, std::size_t offset, Config cfg) {
  return "n " + std::to_string(n) + " offset " + std::to_string(offset) + " config " + std::to_string(cfg.block) +
         "/" + std::to_string(cfg.batch);
}

class FloorOps : public StreamTest {
 protected:
  void SetUp() override {
    StreamTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    out_ = DeviceBuffer<double>(1);
    index_ = DeviceBuffer<long long>(1);
  }
  template <class T>
  T fetch(const T* device) {
    T got{};
    EXPECT_EQ(cudaMemcpyAsync(&got, device, sizeof(T), cudaMemcpyDeviceToHost, stream_), cudaSuccess);
    EXPECT_EQ(cudaStreamSynchronize(stream_), cudaSuccess);
    return got;
  }
  template <class T>
  void poison(T* device) {
    EXPECT_EQ(cudaMemsetAsync(device, 0xA5, sizeof(T), stream_), cudaSuccess);
  }

  // Each op once on in[0, n) (device) against the host fold of host[0, n).
  template <class T>
  void expect_max_min_argmax(const T* in, const T* host, std::size_t n, Config cfg, const std::string& what) {
    SCOPED_TRACE(what);
    poison(out_.get());
    ASSERT_EQ(floor_max(in, n, reinterpret_cast<T*>(out_.get()), stream_, cfg), cudaSuccess);
    EXPECT_EQ(fetch(reinterpret_cast<T*>(out_.get())), host_max(host, n)) << "max";
    poison(out_.get());
    ASSERT_EQ(floor_min(in, n, reinterpret_cast<T*>(out_.get()), stream_, cfg), cudaSuccess);
    EXPECT_EQ(fetch(reinterpret_cast<T*>(out_.get())), host_min(host, n)) << "min";
    poison(out_.get());
    poison(index_.get());
    ASSERT_EQ(floor_argmax(in, n, reinterpret_cast<T*>(out_.get()), index_.get(), stream_, cfg), cudaSuccess);
    const Arg<T> want = host_argmax(host, n);
    EXPECT_EQ(fetch(reinterpret_cast<T*>(out_.get())), want.value) << "argmax value";
    EXPECT_EQ(fetch(index_.get()), want.index) << "argmax index";
  }

  DeviceBuffer<double> out_;  // room for any 4-byte result, 8-byte aligned
  DeviceBuffer<long long> index_;
};

// ---- determinism ------------------------------------------------------------
TEST_F(FloorOps, FloatResultsAreBitwiseIdenticalOver100Calls) {
  for (std::size_t n : {std::size_t{4099}, std::size_t{1} << 20, (std::size_t{1} << 24) + 5}) {  // tile, grid
    for (std::size_t offset : {0, 1}) {
      SCOPED_TRACE("n " + std::to_string(n) + " offset " + std::to_string(offset));
      const float* in = random_dataset<float>(n + offset + 2).device.get() + offset;
      const float* b = random_dataset<float>(n + offset + 2, 1).device.get();
      float* out = reinterpret_cast<float*>(out_.get());
      long long* index = index_.get();
      // One call of each op (dot with b in a's phase and out of it), its result as bytes.
      auto results = [&] {
        std::vector<unsigned char> r;
        auto take = [&](const void* device, std::size_t bytes) {
          std::vector<unsigned char> host(bytes);
          EXPECT_EQ(cudaMemcpyAsync(host.data(), device, bytes, cudaMemcpyDeviceToHost, stream_), cudaSuccess);
          EXPECT_EQ(cudaStreamSynchronize(stream_), cudaSuccess);
          r.insert(r.end(), host.begin(), host.end());
        };
        EXPECT_EQ(floor_max(in, n, out, stream_), cudaSuccess);
        take(out, sizeof(float));
        EXPECT_EQ(floor_min(in, n, out, stream_), cudaSuccess);
        take(out, sizeof(float));
        EXPECT_EQ(floor_argmax(in, n, out, index, stream_), cudaSuccess);
        take(out, sizeof(float));
        take(index, sizeof(long long));
        EXPECT_EQ(floor_dot(in, b + offset, n, out, stream_), cudaSuccess);
        take(out, sizeof(float));
        EXPECT_EQ(floor_dot(in, b + offset + 1, n, out, stream_), cudaSuccess);
        take(out, sizeof(float));
        return r;
      };
      const std::vector<unsigned char> first = results();
      for (int call = 1; call < 100; ++call) ASSERT_EQ(results(), first) << "call " << call;
    }
  }
}

// ---- argmax ties ---------------------------------------------------------------
// Values in [-16, 16] with a planted maximum at several places: the lowest
// place wins, whether it is in the head (before the first 16-byte boundary),
// the body, the tail (after the last whole vector) or another block. Int and
// float, one block and many (a tile per block, the grid kernel).
TEST_F(FloorOps, ArgmaxTiesGoToTheLowestIndex) {
  const std::size_t top = (std::size_t{1} << 23) + 8;
  const auto& ints = random_dataset<int>(top);
  for (std::size_t n : {std::size_t{1000}, std::size_t{4099}, (std::size_t{1} << 20) + 3, (std::size_t{1} << 23) + 5}) {
    for (std::size_t offset = 0; offset < 4; ++offset) {
      const std::size_t tile = 128 * 4;  // Config{128, 1}: one tile per 512 elements, many blocks
      const std::vector<std::vector<std::size_t>> plants = {
          {0},                                // the head (or the first vector when aligned)
          {n - 1},                            // the tail
          {n - 1, n - 2, n - 3},              // the tail, several
          {1, n - 1},                         // head and tail
          {n / 2, n - 1},                     // a middle block and the tail
          {tile * 3 + 7, tile + 5, n - 2},    // blocks past block 0: block 1's wins
          {n / 3, 2 * n / 3, n / 3 + 1, 5},   // across blocks, the earliest early
      };
      for (const auto& places : plants) {
        std::vector<int> host(ints.host.begin(), ints.host.begin() + static_cast<std::ptrdiff_t>(n + offset));
        for (std::size_t p : places)
          if (p < n) host[offset + p] = 1000;
        const DeviceBuffer<int> in = upload(host);
        std::vector<float> fhost(host.begin(), host.end());
        const DeviceBuffer<float> fin = upload(fhost);
        for (Config cfg : {Config{}, Config{128, 1}, Config{1024, 8}}) {
          const std::string what = where(n, offset, cfg) + " first plant " + std::to_string(places[0]);
          expect_max_min_argmax(in.get() + offset, host.data() + offset, n, cfg, what);
          expect_max_min_argmax(fin.get() + offset, fhost.data() + offset, n, cfg, what + " (float)");
        }
      }
    }
  }
}

// Every element equal (the maximum everywhere): index 0, whatever the value,
// including lowest() itself (the identity's value: the identity's index,
// kNoIndex, loses the tie) and values of blocks that read padding past the end.
TEST_F(FloorOps, AllEqualInputsGiveIndexZeroAndTheValue) {
  for (std::size_t n : {std::size_t{1}, std::size_t{3}, std::size_t{4}, std::size_t{517}, std::size_t{4096},
                        std::size_t{4101}, (std::size_t{1} << 20) + 1, (std::size_t{1} << 23) + 3}) {
    for (int value : {7, std::numeric_limits<int>::lowest(), std::numeric_limits<int>::max(), 0}) {
      std::vector<int> host(n + 3, value);
      const DeviceBuffer<int> in = upload(host);
      std::vector<float> fhost(n + 3, static_cast<float>(value));
      const DeviceBuffer<float> fin = upload(fhost);
      for (std::size_t offset : {0, 1, 3}) {
        for (Config cfg : {Config{}, Config{128, 1}}) {
          const std::string what = where(n, offset, cfg) + " value " + std::to_string(value);
          expect_max_min_argmax(in.get() + offset, host.data() + offset, n, cfg, what);
          expect_max_min_argmax(fin.get() + offset, fhost.data() + offset, n, cfg, what + " (float)");
        }
      }
    }
    std::vector<float> lowest(n + 3, std::numeric_limits<float>::lowest());
    const DeviceBuffer<float> lin = upload(lowest);
    expect_max_min_argmax(lin.get() + 1, lowest.data() + 1, n, Config{}, "float lowest, n " + std::to_string(n));
  }
}

// One element, at every alignment (the head when misaligned, the tail when
// aligned), of any value.
TEST_F(FloorOps, SingleElements) {
  std::vector<int> host = {-5, 12, std::numeric_limits<int>::lowest(), std::numeric_limits<int>::max(), 0};
  const DeviceBuffer<int> in = upload(host);
  std::vector<float> fhost = {-5.5f, 1e30f, -std::numeric_limits<float>::max(), 3.0f, -0.0f};
  const DeviceBuffer<float> fin = upload(fhost);
  std::vector<float> other = {2, -3, 4, 0.5f, 8};
  const DeviceBuffer<float> bin = upload(other);
  for (std::size_t offset = 0; offset < 5; ++offset) {
    expect_max_min_argmax(in.get() + offset, host.data() + offset, 1, Config{}, "int at " + std::to_string(offset));
    expect_max_min_argmax(fin.get() + offset, fhost.data() + offset, 1, Config{},
                          "float at " + std::to_string(offset));
    for (std::size_t boff = 0; boff < 5; ++boff) {
      float* out = reinterpret_cast<float*>(out_.get());
      poison(out);
      ASSERT_EQ(floor_dot(fin.get() + offset, bin.get() + boff, 1, out, stream_), cudaSuccess);
      EXPECT_EQ(fetch(out), fhost[offset] * other[boff]) << "dot " << offset << " " << boff;
    }
  }
}

// n = 0 writes the identity (max: lowest(), min: max(), argmax: lowest() and
// kNoIndex, dot: 0), and a null input is accepted with it.
TEST_F(FloorOps, EmptyInputWritesTheIdentity) {
  const DeviceBuffer<int> in(4);
  for (const int* p : {static_cast<const int*>(nullptr), static_cast<const int*>(in.get()),
                       static_cast<const int*>(in.get() + 1)}) {
    int* out = reinterpret_cast<int*>(out_.get());
    for (Config cfg : {Config{}, Config{512, 8}}) {
      poison(out);
      ASSERT_EQ(floor_max(p, 0, out, stream_, cfg), cudaSuccess);
      EXPECT_EQ(fetch(out), std::numeric_limits<int>::lowest());
      poison(out);
      ASSERT_EQ(floor_min(p, 0, out, stream_, cfg), cudaSuccess);
      EXPECT_EQ(fetch(out), std::numeric_limits<int>::max());
      poison(out);
      poison(index_.get());
      ASSERT_EQ(floor_argmax(p, 0, out, index_.get(), stream_, cfg), cudaSuccess);
      EXPECT_EQ(fetch(out), std::numeric_limits<int>::lowest());
      EXPECT_EQ(fetch(index_.get()), kNoIndex);
    }
  }
  float* fout = reinterpret_cast<float*>(out_.get());
  poison(fout);
  ASSERT_EQ(floor_max(static_cast<const float*>(nullptr), 0, fout, stream_), cudaSuccess);
  EXPECT_EQ(fetch(fout), std::numeric_limits<float>::lowest());
  poison(fout);
  ASSERT_EQ(floor_dot(nullptr, nullptr, 0, fout, stream_), cudaSuccess);
  EXPECT_EQ(fetch(fout), 0.0f);
}

// NaN never wins and the identity takes part, as the references' folds: max
// and min skip NaN, argmax never reports one; only NaN, or for max only -inf,
// gives the identity (CUB's Max with its default initial value does the same).
TEST_F(FloorOps, NaNAndInfinitiesFollowTheFamiliesFold) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  for (std::size_t n : {std::size_t{5}, std::size_t{4099}, (std::size_t{1} << 20) + 3}) {
    std::vector<float> host = small_floats(n + 1, 3);
    for (std::size_t i = 0; i < n; i += 7) host[i] = nan;  // NaN at the start, in the head, in every block
    host[n - 1] = nan;
    const DeviceBuffer<float> in = upload(host);
    std::vector<float> nans(n + 1, nan), minus_inf(n + 1, -inf), plus_inf(n + 1, inf);
    const DeviceBuffer<float> nin = upload(nans), min_in = upload(minus_inf), pin = upload(plus_inf);
    for (std::size_t offset : {0, 1}) {
      for (Config cfg : {Config{}, Config{128, 1}}) {
        const std::string what = where(n, offset, cfg);
        expect_max_min_argmax(in.get() + offset, host.data() + offset, n - offset, cfg, what + " some NaN");
        expect_max_min_argmax(nin.get() + offset, nans.data() + offset, n - offset, cfg, what + " only NaN");
        expect_max_min_argmax(min_in.get() + offset, minus_inf.data() + offset, n - offset, cfg, what + " only -inf");
        expect_max_min_argmax(pin.get() + offset, plus_inf.data() + offset, n - offset, cfg, what + " only +inf");
      }
    }
  }
}

// ---- every compiled pair at its edges ----------------------------------------
// Every block x batch on the edge between one block (n <= block x batch
// vectors: no combine) and two, at every alignment of the input (and of b
// apart from a's for dot), then an input that needs more blocks than are
// resident (the grid kernel), each twice in a row (the second call finds the
// slots the first one cleared).
TEST_F(FloorOps, EveryCompiledConfigAtTheTileEdgesAndPastOneWave) {
  const std::size_t big = (std::size_t{1} << 23) + 5;
  const auto& ints = random_dataset<int>(big + 4);
  const std::vector<float> a = small_floats(big + 4, 0), b = small_floats(big + 4, 1);
  const DeviceBuffer<float> da = upload(a), db = upload(b);
  float* out = reinterpret_cast<float*>(out_.get());
  for (int block : {128, 256, 512, 1024}) {
    for (int batch : {1, 2, 4, 8}) {
      const Config cfg{block, batch};
      const std::size_t tile = static_cast<std::size_t>(block) * batch * 4;
      for (std::size_t n : {tile - 1, tile, tile + 1, tile + 4, tile + 5, 3 * tile + 2, big}) {
        for (std::size_t offset = 0; offset < 4; ++offset) {
          if (n == big && offset > 1) continue;
          for (int call = 0; call < 2; ++call) {
            expect_max_min_argmax(ints.device.get() + offset, ints.host.data() + offset, n, cfg,
                                  where(n, offset, cfg) + " call " + std::to_string(call));
            for (std::size_t boff : {offset, (offset + 1) % 4, (offset + 2) % 4}) {
              poison(out);
              ASSERT_EQ(floor_dot(da.get() + offset, db.get() + boff, n, out, stream_, cfg), cudaSuccess);
              EXPECT_EQ(fetch(out), host_dot(a.data() + offset, b.data() + boff, n))
                  << "dot " << where(n, offset, cfg) << " b offset " << boff;
            }
          }
        }
      }
    }
  }
}

// Unsigned max and min take the unsigned warp instruction (redux.sync on
// unsigned): with values on both sides of 2^31 a signed comparison would
// return a value with the top bit set as the minimum and miss the maximum.
// Every block size (the second level of the block's reduction has fewer lanes
// than a warp below 1024 threads), one block and many, every alignment.
TEST_F(FloorOps, UnsignedMaxAndMinCompareAsUnsigned) {
  const std::size_t big = (std::size_t{1} << 20) + 3;
  std::vector<unsigned> x(big + 4);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<unsigned>((i * 2654435761u) ^ (i << 29)) | 1u;
  const DeviceBuffer<unsigned> dx = upload(x);
  unsigned* out = reinterpret_cast<unsigned*>(out_.get());
  for (int block : {128, 256, 512, 1024}) {
    for (int batch : {1, 4}) {
      const Config cfg{block, batch};
      const std::size_t tile = static_cast<std::size_t>(block) * batch * 4;
      for (std::size_t n : {tile - 1, tile + 5, 5 * tile + 3, big}) {
        for (std::size_t offset : {std::size_t{0}, std::size_t{3}}) {
          const unsigned* h = x.data() + offset;
          const unsigned want_max = *std::max_element(h, h + n), want_min = *std::min_element(h, h + n);
          ASSERT_GE(want_max, 1u << 31) << where(n, offset, cfg);
          ASSERT_LT(want_min, 1u << 31) << where(n, offset, cfg);
          poison(out);
          ASSERT_EQ(floor_max(dx.get() + offset, n, out, stream_, cfg), cudaSuccess);
          EXPECT_EQ(fetch(out), want_max) << "max " << where(n, offset, cfg);
          poison(out);
          ASSERT_EQ(floor_min(dx.get() + offset, n, out, stream_, cfg), cudaSuccess);
          EXPECT_EQ(fetch(out), want_min) << "min " << where(n, offset, cfg);
        }
      }
    }
  }
}

// The auto choice across its rows, for every op (the int results exact, dot
// against the same call with the row's fixed Config, bitwise: the auto path
// runs exactly the kernel its row names).
TEST_F(FloorOps, ChoiceByNAcrossTheTableRows) {
  const std::size_t top = (std::size_t{1} << 22) + 9;
  const auto& ints = random_dataset<int>(top);
  const float* fa = random_dataset<float>(top).device.get();
  const float* fb = random_dataset<float>(top, 1).device.get();
  DeviceBuffer<float> twin(1);
  for (std::size_t n : {std::size_t{1}, std::size_t{512}, std::size_t{513}, std::size_t{2048}, std::size_t{2051},
                        std::size_t{4096}, std::size_t{4100}, std::size_t{1} << 16, (std::size_t{1} << 17) + 4,
                        std::size_t{1} << 20, (std::size_t{1} << 21) + 4, top - 3}) {
    for (std::size_t offset : {0, 3}) {
      expect_max_min_argmax(ints.device.get() + offset, ints.host.data() + offset, n, Config{}, where(n, offset, {}));
      float* out = reinterpret_cast<float*>(out_.get());
      using Dot = launch_floor::DotPolicy<true>;  // the table's key: whole 16-byte vectors of both inputs
      const Config row = launch_floor::choose(launch_floor::kDotAuto, launch_floor::detail::vectors_read<Dot>(n));
      ASSERT_EQ(floor_dot(fa + offset, fb + offset, n, out, stream_), cudaSuccess);
      ASSERT_EQ(floor_dot(fa + offset, fb + offset, n, twin.get(), stream_, row), cudaSuccess);
      const float x = fetch(out), y = fetch(twin.get());
      EXPECT_EQ(std::memcmp(&x, &y, sizeof(float)), 0) << "dot " << where(n, offset, row) << ": " << x << " vs " << y;
    }
  }
}

// Where the tiles stop fitting in one wave, the tile per block gives way to the
// grid kernel: both sides of that edge, every alignment, argmax (a planted tie
// in the last block and the tail) and max.
TEST_F(FloorOps, BothSidesOfTheOneWaveEdge) {
  using P = launch_floor::ArgMaxPolicy<int>;
  unsigned resident = 0;
  ASSERT_EQ((launch_floor::detail::resident_grid<P, 256, 2>(&resident)), cudaSuccess);
  const Config cfg{256, 2};
  const std::size_t wave = std::size_t{resident} * cfg.block * cfg.batch * 4;
  const auto& data = random_dataset<int>(wave + 64).host;
  const std::vector<int> host(data.begin(), data.end());
  for (std::size_t n : {wave - 1, wave, wave + 4, wave + 9}) {
    for (std::size_t offset = 0; offset < 4; ++offset) {
      std::vector<int> planted = host;
      planted[offset + n - 1] = 99;
      planted[offset + n - 600] = 99;  // the last block's tile
      const DeviceBuffer<int> in = upload(planted);
      std::size_t grid = 0;
      poison(index_.get());
      ASSERT_EQ(launch_floor::detail::run(P{index_.get()}, launch_floor::kAuto, in.get() + offset, n,
                                          reinterpret_cast<int*>(out_.get()), nullptr,
                                          launch_floor::detail::kBuiltinSlots, stream_, cfg, &grid),
                cudaSuccess);
      EXPECT_EQ(grid, resident) << "one wave either way";
      EXPECT_EQ(fetch(index_.get()), static_cast<long long>(n - 600)) << where(n, offset, cfg);
      expect_max_min_argmax(in.get() + offset, planted.data() + offset, n, cfg, where(n, offset, cfg));
    }
  }
}

// A workspace of one to three slots: one block of the grid kernel reads
// everything, or two or three blocks read long contiguous runs (32 tiles or
// more), with and without blocks holding one tile more.
TEST_F(FloorOps, SmallWorkspacesRunContiguousRunsOverTheWholeInput) {
  const std::size_t top = (std::size_t{1} << 20) + 151;
  const auto& ints = random_dataset<int>(top + 1);
  const std::vector<float> a = small_floats(top + 1, 0), b = small_floats(top + 1, 1);
  const DeviceBuffer<float> da = upload(a), db = upload(b);
  const std::size_t slots = 3;
  DeviceBuffer<unsigned char> ws(slots * launch_floor::kSlotBytes);
  ASSERT_EQ(cudaMemset(ws.get(), 0, slots * launch_floor::kSlotBytes), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  int* out = reinterpret_cast<int*>(out_.get());
  for (std::size_t n : {(std::size_t{1} << 20) + 3, top}) {
    const int* in = ints.device.get() + 1;
    const int* host = ints.host.data() + 1;
    for (std::size_t used = 1; used <= slots; ++used) {
      const std::size_t bytes = used * launch_floor::kSlotBytes;
      for (Config cfg : {Config{}, Config{256, 4}, Config{1024, 8}}) {
        const std::string what = where(n, 1, cfg) + " slots " + std::to_string(used);
        poison(out);
        ASSERT_EQ(floor_max(in, n, out, ws.get(), bytes, stream_, cfg), cudaSuccess);
        EXPECT_EQ(fetch(out), host_max(host, n)) << what;
        poison(out);
        ASSERT_EQ(floor_min(in, n, out, ws.get(), bytes, stream_, cfg), cudaSuccess);
        EXPECT_EQ(fetch(out), host_min(host, n)) << what;
        poison(index_.get());
        ASSERT_EQ(floor_argmax(in, n, out, index_.get(), ws.get(), bytes, stream_, cfg), cudaSuccess);
        EXPECT_EQ(fetch(index_.get()), host_argmax(host, n).index) << what;
        float* fout = reinterpret_cast<float*>(out_.get());
        poison(fout);
        ASSERT_EQ(floor_dot(da.get() + 1, db.get() + 1, n, fout, ws.get(), bytes, stream_, cfg), cudaSuccess);
        EXPECT_EQ(fetch(fout), host_dot(a.data() + 1, b.data() + 1, n)) << what;
      }
    }
  }
  std::vector<unsigned char> left(slots * launch_floor::kSlotBytes, 0xFF);
  ASSERT_EQ(cudaMemcpy(left.data(), ws.get(), left.size(), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(std::count(left.begin(), left.end(), 0), static_cast<std::ptrdiff_t>(left.size()));
}

// Argmax above 2^31 - 1 elements publishes (value, index low) then (index
// high, flag) with release; forced on here at sizes a test can hold: the
// results equal the packed protocol's, and the slots are left zero for the
// packed ops that follow.
TEST_F(FloorOps, ArgmaxFlaggedSlotProtocol) {
  using P = launch_floor::ArgMaxPolicy<float>;
  const std::size_t top = (std::size_t{1} << 23) + 7;
  const auto& data = random_dataset<float>(top + 3);
  std::size_t bytes = 0;
  ASSERT_EQ(launch_floor::floor_argmax_workspace_bytes<float>(&bytes), cudaSuccess);
  DeviceBuffer<unsigned char> ws(bytes);
  ASSERT_EQ(cudaMemset(ws.get(), 0, bytes), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  float* out = reinterpret_cast<float*>(out_.get());
  for (std::size_t n : {std::size_t{4099}, (std::size_t{1} << 20) + 3, top}) {
    for (std::size_t offset : {0, 3}) {
      const Arg<float> want = host_argmax(data.host.data() + offset, n);
      for (Config cfg : {Config{}, Config{128, 1}, Config{512, 8}}) {
        for (auto* slots : {static_cast<unsigned long long*>(nullptr),
                            reinterpret_cast<unsigned long long*>(ws.get())}) {
          poison(out);
          poison(index_.get());
          const std::size_t capacity = slots ? bytes / launch_floor::kSlotBytes : launch_floor::detail::kBuiltinSlots;
          ASSERT_EQ(launch_floor::detail::run(P{index_.get(), true}, launch_floor::kAuto, data.device.get() + offset,
                                              n, out, slots, capacity, stream_, cfg, nullptr),
                    cudaSuccess);
          EXPECT_EQ(fetch(out), want.value) << where(n, offset, cfg);
          EXPECT_EQ(fetch(index_.get()), want.index) << where(n, offset, cfg);
          poison(out);  // a packed op on the same slots next
          if (slots == nullptr) {
            ASSERT_EQ(floor_max(data.device.get() + offset, n, out, stream_, cfg), cudaSuccess);
          } else {
            ASSERT_EQ(floor_max(data.device.get() + offset, n, out, ws.get(), bytes, stream_, cfg), cudaSuccess);
          }
          EXPECT_EQ(fetch(out), want.value) << "max after the flagged protocol, " << where(n, offset, cfg);
        }
      }
    }
  }
  std::vector<unsigned char> left(bytes, 0xFF);
  ASSERT_EQ(cudaMemcpy(left.data(), ws.get(), bytes, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(std::count(left.begin(), left.end(), 0), static_cast<std::ptrdiff_t>(bytes));
}

// ---- workspaces ----------------------------------------------------------------
// Caller workspaces on two streams at once, every op in turn on each; both
// workspaces, and the built-in one, are all zero afterwards.
TEST_F(FloorOps, WorkspacesAreLeftZeroAfterEveryOp) {
  const std::size_t n = (std::size_t{1} << 22) + 7;
  const auto& ints = random_dataset<int>(n + 1);
  const auto& fa = random_dataset<float>(n + 1);
  const auto& fb = random_dataset<float>(n + 1, 1);
  std::size_t bytes = 0, more = 0;
  ASSERT_EQ((launch_floor::floor_minmax_workspace_bytes<int, true>(&bytes)), cudaSuccess);
  ASSERT_EQ((launch_floor::floor_minmax_workspace_bytes<float, false>(&more)), cudaSuccess);
  bytes = std::max(bytes, more);
  ASSERT_EQ(launch_floor::floor_argmax_workspace_bytes<int>(&more), cudaSuccess);
  bytes = std::max(bytes, more);
  ASSERT_EQ(launch_floor::floor_dot_workspace_bytes(&more), cudaSuccess);
  bytes = std::max(bytes, more);
  ASSERT_GE(bytes, 2 * launch_floor::kSlotBytes);
  cudaStream_t other = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking), cudaSuccess);
  DeviceBuffer<unsigned char> ws_a(bytes), ws_b(bytes);
  ASSERT_EQ(cudaMemset(ws_a.get(), 0, bytes), cudaSuccess);
  ASSERT_EQ(cudaMemset(ws_b.get(), 0, bytes), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  DeviceBuffer<double> out_a(4), out_b(4);
  DeviceBuffer<long long> idx_a(1), idx_b(1);
  for (std::size_t size : {std::size_t{5000}, (std::size_t{1} << 20) + 1, n}) {
    for (int call = 0; call < 3; ++call) {
      for (auto [ws, out, idx, s] : {std::make_tuple(ws_a.get(), out_a.get(), idx_a.get(), stream_),
                                     std::make_tuple(ws_b.get(), out_b.get(), idx_b.get(), other)}) {
        int* iout = reinterpret_cast<int*>(out);
        float* fout = reinterpret_cast<float*>(out + 1);
        ASSERT_EQ(floor_max(ints.device.get() + 1, size, iout, ws, bytes, s), cudaSuccess);
        ASSERT_EQ(floor_min(fa.device.get(), size, fout, ws, bytes, s), cudaSuccess);
        ASSERT_EQ(floor_argmax(ints.device.get(), size, iout + 1, idx, ws, bytes, s), cudaSuccess);
        ASSERT_EQ(floor_dot(fa.device.get() + 1, fb.device.get(), size, fout + 1, ws, bytes, s), cudaSuccess);
      }
    }
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    for (DeviceBuffer<double>* out : {&out_a, &out_b}) {
      int got[2] = {};
      ASSERT_EQ(cudaMemcpy(got, out->get(), sizeof got, cudaMemcpyDeviceToHost), cudaSuccess);
      EXPECT_EQ(got[0], host_max(ints.host.data() + 1, size)) << "size " << size;
      EXPECT_EQ(got[1], host_argmax(ints.host.data(), size).value) << "size " << size;
    }
    // Every op once more on the built-in workspace (one stream).
    int* iout = reinterpret_cast<int*>(out_.get());
    float* fout = reinterpret_cast<float*>(out_.get());
    ASSERT_EQ(floor_max(ints.device.get() + 1, size, iout, stream_), cudaSuccess);
    ASSERT_EQ(floor_min(fa.device.get(), size, fout, stream_), cudaSuccess);
    ASSERT_EQ(floor_argmax(ints.device.get(), size, iout, index_.get(), stream_), cudaSuccess);
    ASSERT_EQ(floor_dot(fa.device.get() + 1, fb.device.get(), size, fout, stream_), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(stream_), cudaSuccess);
  }
  for (DeviceBuffer<unsigned char>* ws : {&ws_a, &ws_b}) {
    std::vector<unsigned char> left(bytes, 0xFF);
    ASSERT_EQ(cudaMemcpy(left.data(), ws->get(), bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(std::count(left.begin(), left.end(), 0), static_cast<std::ptrdiff_t>(bytes));
  }
  std::vector<unsigned long long> words(2 * launch_floor::detail::kBuiltinSlots, 1);
  ASSERT_EQ(cudaMemcpyFromSymbol(words.data(), launch_floor::detail::builtin_slots,
                                 words.size() * sizeof(unsigned long long)),
            cudaSuccess);
  EXPECT_EQ(std::count(words.begin(), words.end(), 0ull), static_cast<std::ptrdiff_t>(words.size()));
  EXPECT_EQ(cudaStreamDestroy(other), cudaSuccess);
}

TEST_F(FloorOps, RefusesWhatItCannotDoWithoutLaunching) {
  const auto& data = random_dataset<float>(1000);
  const float* in = data.device.get();
  float* out = reinterpret_cast<float*>(out_.get());
  DeviceBuffer<unsigned char> ws(4096);
  EXPECT_EQ(floor_max(in, 1000, out, stream_, Config{96, 4}), cudaErrorInvalidValue);  // not compiled
  EXPECT_EQ(floor_min(in, 1000, out, stream_, Config{256, 0}), cudaErrorInvalidValue);  // half auto
  EXPECT_EQ(floor_max(in, 1000, static_cast<float*>(nullptr), stream_), cudaErrorInvalidValue);
  EXPECT_EQ(floor_min(static_cast<const float*>(nullptr), 1000, out, stream_), cudaErrorInvalidValue);
  EXPECT_EQ(floor_max(in, 1000, out, ws.get() + 4, 4000, stream_), cudaErrorInvalidValue);  // misaligned
  EXPECT_EQ(floor_min(in, 1000, out, ws.get(), 8, stream_), cudaErrorInvalidValue);         // too small
  EXPECT_EQ(floor_argmax(in, 1000, out, static_cast<long long*>(nullptr), stream_), cudaErrorInvalidValue);
  EXPECT_EQ(floor_argmax(in, 1000, out, reinterpret_cast<long long*>(ws.get() + 4), stream_), cudaErrorInvalidValue);
  EXPECT_EQ(floor_argmax(in, 1000, out, index_.get(), nullptr, 4096, stream_), cudaErrorInvalidValue);
  EXPECT_EQ(floor_dot(in, nullptr, 1000, out, stream_), cudaErrorInvalidValue);
  EXPECT_EQ(floor_dot(in, reinterpret_cast<const float*>(ws.get() + 2), 1000, out, stream_), cudaErrorInvalidValue);
  EXPECT_EQ(floor_dot(in, in, 1000, out, stream_, Config{256, 3}), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "a refusal leaves no CUDA error behind";
}

}  // namespace
}  // namespace bench::testing
