// One profiled call per benchmark, for a hardware-counter tool (ncu) to read:
// the DRAM-byte audit (tools/run-audit, docs/audit.md) compares what each call
// really moved with what its declaration says it must move.
//
// With `cuda_bench --profile-one` (or CUDABENCH_PROFILE=1), each benchmark, once
// verified, skips the timer and runs instead:
//   warm-up launches; two L2 flushes (dirty lines of earlier work are written
//   back here, outside the window); then, inside cudaProfilerStart/Stop and an NVTX
//   range named after the benchmark: ONE launch and ONE more flush.
// Under `ncu --profile-from-start off --cache-control none`, only the call's
// kernels and that last flush are profiled. Once per process, before the first
// benchmark's window, a window of its own (NVTX range kProfilerStartRange)
// holds one flush: the profiler's own start-up writes land there, not in the
// first benchmark's window (the H200 audit of 2026-11-22 charged 12.6 MiB of
// them to its first benchmark, a compute ceiling that writes 32 KiB). The
// results' context names that range (`profile_start_range`) so the audit can
// set the window aside. The flush reads its own buffer
// (not the call's bytes) and its DRAM writes are the write-backs of the lines
// the call left dirty in L2, which belong to the call.
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
#include <string>
#include <vector>

#include "harness/registry.hpp"
#include "harness/timer.hpp"

namespace bench {

// The NVTX range of the profiler start-up window (above); no benchmark has it.
inline constexpr char kProfilerStartRange[] = "cuda_bench.profiler_start";

// Profile-one mode: on after set_profile_one(true), or when the environment
// sets CUDABENCH_PROFILE=1.
void set_profile_one(bool on);
bool profile_one_enabled();

// The NVTX range of a benchmark: its name with '/' as '.' and ':' as '=', since
// ncu's NVTX filters and CSV columns use '/' and ':' as separators
// ("reduce_sum/i32/x/N:1024/block:256" -> "reduce_sum.i32.x.N=1024.block=256").
std::string nvtx_range_name(const std::string& benchmark_name);

// The profiled call (above), done once per benchmark name; a later call (a
// repetition) only returns its recorded time. Returns the one call's event
// seconds (not a timing to quote: under ncu the call is replayed and serialised).
double profile_one(GpuTimer& timer, const std::string& benchmark_name, const std::function<void(cudaStream_t)>& launch);

// Annotates every benchmark the options register with its declared
// "bytes_read" and "bytes_written" (Declaration::work), and where its variant
// states traffic beyond them (Declaration::extra), "extra_bytes_read",
// "extra_bytes_written" and "extra_traffic" (what they are): the audit
// compares the measured DRAM bytes with both.
void annotate_declared_bytes(const std::vector<Declaration>& decls, const RegistrationOptions& options);

}  // namespace bench
