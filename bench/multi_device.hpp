// --device=N,M / --device=all: one process per GPU, all at once. The driver
// runs itself again for each GPU with --device=N (the child selects it with
// cudaSetDevice, so ordinals stay the machine's own, unlike CUDA_VISIBLE_DEVICES),
// prefixes each line a child prints with "[gpu N] ", and exits with the most
// severe of the children's exit codes.
#pragma once

#include <ctime>
#include <string>
#include <vector>

namespace bench::driver {

// The child's arguments: the parent's (args[0] is the program) without --device
// and --benchmark_out, plus --device=<ordinal>, plus --benchmark_out=<out_path>
// when out_path is not empty.
std::vector<std::string> child_arguments(const std::vector<std::string>& args, int ordinal,
                                         const std::string& out_path);

// "dir/run.json" -> "dir/run_gpu1.json" (the suffix goes before the extension).
std::string per_device_path(const std::string& path, int ordinal);

// A new results file for one GPU of a --device run: "<dir>/<gpu>_<UTC time>_gpuN.json",
// never an existing one.
std::string device_results_path(const std::string& dir, const std::string& gpu_name, std::time_t now, int ordinal);

// The exit code of a child from its wait status: its exit status; killed by
// SIGINT or SIGTERM: 130 or 143; killed by any other signal (a crash): 1.
int exit_code_of(int wait_status);

// Severity, lowest first: 0 ok < 3 no GPU < 1 benchmark errors (or another
// failure) < 2 bad input (e.g. no code for that GPU) < 130/143 interrupted.
// Any failure of any device makes the whole non-zero.
int combine_exit_codes(const std::vector<int>& codes);

// "ok", "benchmark errors", "bad input", "no GPU", "interrupted", "terminated", "exit 7".
std::string describe_exit_code(int code);

// Runs the children (one per ordinal; out_paths[i] is passed as --benchmark_out
// when not empty), forwards their output line by line with "[gpu N] ", forwards
// SIGINT and SIGTERM to them, and returns combine_exit_codes of their codes.
// `executable` is this program (tests run another).
int run_on_devices(const std::vector<std::string>& args, const std::vector<int>& ordinals,
                   const std::vector<std::string>& out_paths, const std::string& executable = "/proc/self/exe");

}  // namespace bench::driver
