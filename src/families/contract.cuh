// The family contract: one generic case per shape of result, parameterized by
// a small traits struct per family, and one way to declare a variant.
//
// A family is a traits struct F derived from its shape:
//     struct F : ScalarFamily<F>   // the result is one value (a reduction)
//     struct F : ArrayFamily<F>    // the result is n values (an elementwise op, a scan)
// stating
//     static constexpr const char* name;            // "reduce_sum", "scan", ...
//     static constexpr int inputs;                  // 1 (Args::in) or 2 (Args::a, Args::b)
//     template <class T> using Out = ...;           // the result's element type
//     template <class T> static Work work(std::size_t n);       // bytes and ops for N
//   scalar shape:
//     template <class T> static Ref reference(const Inputs<T, inputs>& host, std::size_t n);
//     template <class T> static std::string check(const Ref&, const Out<T>& got, std::size_t n);
//   array shape:
//     template <class T> static std::string check(const Inputs<T, inputs>& host, const Out<T>* got, std::size_t n);
//     optionally, for outputs checked on the device (no read-back):
//     template <class T> static constexpr bool device_checked = ...;
//     template <class T> static std::string device_check(const Inputs<T, inputs>& device, const Out<T>* got,
//                                                        std::size_t n, cudaStream_t stream);
//   optionally static constexpr std::size_t max_n (sizes registered up to it).
// check returns "" when right, else what was expected and what came back. The
// generic case does everything else: the shared random inputs (input i from
// seed i, at its test offset), the result, the workspace, a run over a
// poisoned result, the cached reference.
//
// A variant is a struct derived from its role, with a static launch:
//     struct MyKernel : KernelVariant {
//       template <class T> static void launch(const Args<F, T>& a);   // enqueue on a.stream
//       // optional: template <class T> static std::size_t workspace_bytes(const Args<F, T>& a);
//       // optional: template <class T> static ExtraTraffic extra_traffic(const Point& p);
//     };
// and is declared, for the element types of a Types<...> alias, with
//     BENCH_DECLARE(F, MyKernel, TypeList, "name", "technique; lineage", block axis, batch axis);
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/types.cuh"
#include "harness/cuda_check.hpp"
#include "harness/data.hpp"
#include "harness/device_buffer.hpp"
#include "harness/parallel.hpp"
#include "harness/registry.hpp"

namespace bench {

// ---- roles: what a variant is -------------------------------------------------
// Derive a variant from one of these; override `host_work` (a library call
// that allocates, synchronises or returns its result to the host on every
// call) or `reference` (the family's yardstick for its types) where true.
struct KernelVariant {
  static constexpr Role role = Role::kernel;
  static constexpr bool host_work = false;
  // False for a call that a CUDA graph would run differently (Declaration::capturable).
  static constexpr bool capturable = true;
  static constexpr bool reference = false;
  template <class A>
  static std::size_t workspace_bytes(const A&) {
    return 0;
  }
  // Traffic beyond the family's compulsory bytes (harness/registry.hpp's
  // ExtraTraffic) at point p, for element type T; a variant whose bytes grow
  // with N beyond them states it. Per-block values of an SM-sized grid (a few
  // KiB) are not stated.
  template <class T>
  static ExtraTraffic extra_traffic(const Point&) {
    return {};
  }
};
struct LibraryVariant : KernelVariant {
  static constexpr Role role = Role::library;
};
// Works on host copies of the inputs and writes a host result.
struct CpuVariant : KernelVariant {
  static constexpr Role role = Role::cpu;
  static constexpr bool host_work = true;
};

// A library call with CUB's two-phase temporary storage, V::call(temp, bytes,
// args): sized once outside the timed region (as a careful user does), then
// called on that storage, so its time is the algorithm alone.
template <class V>
struct TwoPhaseLibrary : LibraryVariant {
  template <class A>
  static std::size_t workspace_bytes(const A& a) {
    std::size_t bytes = 0;
    BENCH_CUDA_CHECK(V::call(nullptr, bytes, a));
    return bytes;
  }
  template <class A>
  static void launch(const A& a) {
    std::size_t bytes = a.workspace_size;
    BENCH_CUDA_CHECK(V::call(a.workspace, bytes, a));
  }
};

// `count` partials of `size` bytes each, written by one pass and read back by the next.
inline ExtraTraffic partials_traffic(std::size_t count, std::size_t size) {
  const double bytes = static_cast<double>(count) * static_cast<double>(size);
  return {bytes, bytes, std::to_string(count) + " partials of " + std::to_string(size) + " B written, read back by the next pass"};
}

// ---- what a variant receives ---------------------------------------------------
template <class T, int Count> struct Inputs;
template <class T> struct Inputs<T, 1> { const T* in = nullptr; };
template <class T> struct Inputs<T, 2> { const T* a = nullptr; const T* b = nullptr; };

// Device memory, except for a cpu variant (host copies of the same data and a
// host result) and for a scalar result of a host_work library call, which
// returns its value to the host (*a.out is then a host variable).
template <class F, class T>
struct Args : Inputs<T, F::inputs> {
  using Out = typename F::template Out<T>;
  std::size_t n = 0;
  Out* out = nullptr;             // one value (scalar shape) or n values (array shape)
  int block = 0;                  // 0 when the variant takes no block axis
  int batch = 0;                  // items per thread; 0 when not taken
  void* workspace = nullptr;      // V::workspace_bytes(args) bytes, allocated outside the timed region
  std::size_t workspace_size = 0;
  cudaStream_t stream = nullptr;
};

// The point's inputs: input i is the shared random dataset of seed i, starting
// in_offset[i] elements into it (the host copy, or the device copy at the
// point's placement).
template <class T, int K>
Inputs<T, K> bind_inputs(const Point& p, bool host) {
  auto data = [&](int i) {
    const std::size_t n = p.n + p.in_offset[i];
    const auto seed = static_cast<std::uint64_t>(i);
    return (host ? random_dataset<T>(n, seed).host.data() : placed_dataset<T>(n, seed, p.placement)) + p.in_offset[i];
  };
  Inputs<T, K> x;
  if constexpr (K == 1) {
    x.in = data(0);
  } else {
    static_assert(K == 2, "families take one or two inputs");
    x.a = data(0);
    x.b = data(1);
  }
  return x;
}

// Args for point p with its inputs bound, before out and the workspace are set.
template <class F, class T>
Args<F, T> args_for(const Point& p, bool host) {
  Args<F, T> a;
  static_cast<Inputs<T, F::inputs>&>(a) = bind_inputs<T, F::inputs>(p, host);
  a.n = p.n;
  a.block = p.block;
  a.batch = p.batch;
  return a;
}

// ---- the cases -------------------------------------------------------------------
// The reference for the shared inputs at p, computed once per (n, offsets).
template <class F, class T>
const auto& cached_reference(const Point& p) {
  using Ref = std::decay_t<decltype(F::template reference<T>(std::declval<const Inputs<T, F::inputs>&>(), 0))>;
  static std::map<std::pair<std::size_t, std::array<std::size_t, 2>>, Ref> cache;
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  const auto key = std::make_pair(p.n, p.in_offset);
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, F::template reference<T>(bind_inputs<T, F::inputs>(p, true), p.n)).first;
  return it->second;
}

// What both shapes share: the variant's Args for the point (inputs bound, out
// set by the shape), its workspace, its launch.
template <class F, class T, class V>
class VariantCase : public Case {
 public:
  void launch(cudaStream_t stream) override {
    args_.stream = stream;
    V::launch(args_);
  }
  bool host_work() const override { return V::host_work; }

 protected:
  VariantCase(const Point& p, bool host_inputs) : point_(p), args_(args_for<F, T>(p, host_inputs)) {}
  // After out is set: the variant sizes its workspace from its Args. Zero-filled
  // once, as a workspace that resets itself (floor_scan's) asks of its caller.
  void allocate_workspace() {
    workspace_ = DeviceBuffer<unsigned char>(V::workspace_bytes(args_));
    args_.workspace = workspace_.get();
    args_.workspace_size = workspace_.size();
    if (workspace_.bytes() > 0) BENCH_CUDA_CHECK(cudaMemset(workspace_.get(), 0, workspace_.bytes()));
  }
  Point point_;
  Args<F, T> args_;

 private:
  DeviceBuffer<unsigned char> workspace_;
};

template <class F, class T, class V>
class ScalarCase final : public VariantCase<F, T, V> {
  using R = typename F::template Out<T>;
  static constexpr bool kHostInputs = V::role == Role::cpu;
  static constexpr bool kHostResult = kHostInputs || V::host_work;

 public:
  explicit ScalarCase(const Point& p) : VariantCase<F, T, V>(p, kHostInputs) {
    if constexpr (kHostResult) {
      this->args_.out = &host_out_;
    } else {
      out_ = DeviceBuffer<R>(1);
      this->args_.out = out_.get();
    }
    this->allocate_workspace();
  }

  // One run with the result poisoned, so an unwritten result cannot pass.
  std::string verify(cudaStream_t stream) override {
    std::memset(static_cast<void*>(&host_out_), 0xA5, sizeof(R));
    if constexpr (!kHostResult) BENCH_CUDA_CHECK(cudaMemsetAsync(out_.get(), 0xA5, sizeof(R), stream));
    this->launch(stream);
    BENCH_CHECK_LAUNCH("variant");
    R got = host_out_;
    if constexpr (!kHostResult)
      BENCH_CUDA_CHECK(cudaMemcpyAsync(&got, out_.get(), sizeof(R), cudaMemcpyDeviceToHost, stream));
    BENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
    return F::template check<T>(cached_reference<F, T>(this->point_), got, this->point_.n);
  }

 private:
  R host_out_{};
  DeviceBuffer<R> out_;
};

// ---- the array-result case ------------------------------------------------------
template <class F, class T, class V>
class ArrayCase final : public VariantCase<F, T, V> {
  using O = typename F::template Out<T>;
  static constexpr bool kHost = V::role == Role::cpu;

 public:
  explicit ArrayCase(const Point& p) : VariantCase<F, T, V>(p, kHost) {
    if constexpr (kHost) {
      host_out_.resize(p.n + p.out_offset);
      this->args_.out = host_out_.data() + p.out_offset;
    } else {
      // Shared with the other members of an interleaved group at this placement
      // (they write in turn on one stream): one output at 2^30, not one each.
      out_ = shared_device_bytes((p.n + p.out_offset) * sizeof(O), p.placement);
      this->args_.out = reinterpret_cast<O*>(out_->get()) + p.out_offset;
    }
    this->allocate_workspace();
  }

  // One run over a poisoned output, then every element checked. The poison is
  // NaN for floating types and 0xA5A5A5A5 for integers: no sum of this data
  // comes near it.
  std::string verify(cudaStream_t stream) override {
    constexpr int poison = std::is_integral_v<O> ? 0xA5 : 0xFF;
    const std::size_t n = this->point_.n, bytes = n * sizeof(O);
    O* out = this->args_.out;
    const O* got = out;
    if constexpr (kHost) {
      // By every core: the first touch of the output's pages (up to 1 GB, not
      // zero-filled when allocated) is most of what this costs.
      auto* bytes_out = reinterpret_cast<unsigned char*>(out);
      parallel_chunks(bytes, [bytes_out](std::size_t lo, std::size_t hi, unsigned) {
        std::memset(bytes_out + lo, poison, hi - lo);
      });
      this->launch(stream);
    } else {
      BENCH_CUDA_CHECK(cudaMemsetAsync(out, poison, bytes, stream));
      this->launch(stream);
      BENCH_CHECK_LAUNCH("variant");
      if constexpr (F::template device_checked<T>)
        return F::template device_check<T>(bind_inputs<T, F::inputs>(this->point_, false), out, n, stream);
      got = read_back(out, n, stream);
    }
    return F::template check<T>(bind_inputs<T, F::inputs>(this->point_, true), got, n);
  }

 private:
  HostArray<O> host_out_;  // not zero-filled: verify poisons it, by every core
  std::shared_ptr<DeviceBuffer<unsigned char>> out_;
};

// ---- shapes -----------------------------------------------------------------------
// What the declare function asks of every family; the shapes answer for theirs.
template <class F, template <class, class, class> class CaseT, bool Array>
struct Shape {
  template <class T, class V>
  using Case = CaseT<F, T, V>;
  static constexpr bool array_output = Array;
  static constexpr std::size_t max_n = std::size_t(1) << 40;
  template <class T, class V>
  static Work work_of(std::size_t n) {
    return F::template work<T>(n);
  }
  template <class V>
  static constexpr std::size_t min_n_of() {
    return 1;
  }
  // Array shape: whether outputs of element type T are checked on the device,
  // by F::device_check<T>(device inputs, device output, n, stream), instead of
  // read back and checked on the host by F::check. Host variants always take check.
  template <class T>
  static constexpr bool device_checked = false;
};
template <class F> using ScalarFamily = Shape<F, ScalarCase, false>;
template <class F> using ArrayFamily = Shape<F, ArrayCase, true>;

// ---- declaring ------------------------------------------------------------------
template <class F, class V, class T>
Declaration declaration(const VariantSpec& spec) {
  Declaration d = make_declaration(F::name, type_name<T>(), spec, &F::template work_of<T, V>,
                                   [](const Point& p) -> std::unique_ptr<Case> {
                                     return std::make_unique<typename F::template Case<T, V>>(p);
                                   });
  d.min_n = F::template min_n_of<V>();
  d.max_n = F::max_n;
  d.extra = [](const Point& p) { return V::template extra_traffic<T>(p); };
  d.role = V::role;
  d.host_work = V::host_work;
  d.capturable = V::capturable;
  d.is_reference = V::reference;
  d.inputs = F::inputs;
  d.array_output = F::array_output;
  return d;
}

template <class F, class V, class... Ts>
bool declare_variant(const VariantSpec& spec, Types<Ts...>) {
  return (declare(declaration<F, V, Ts>(spec)) && ...);
}

}  // namespace bench

#define BENCH_CONCAT_(a, b) a##b
#define BENCH_CONCAT(a, b) BENCH_CONCAT_(a, b)

// Declares variant V of family F for every element type of TypeList (a
// Types<...> alias), with its VariantSpec: "name", "description", block axis,
// batch axis ({} for an axis it does not take).
#define BENCH_DECLARE(F, V, TypeList, ...)                                   \
  [[maybe_unused]] static const bool BENCH_CONCAT(bench_declared_, __LINE__) = \
      ::bench::declare_variant<F, V>(::bench::VariantSpec{__VA_ARGS__}, TypeList{})
