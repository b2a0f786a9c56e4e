// Stopping a run early without losing what it measured.
//
// Three things stop a run: SIGINT, SIGTERM, and a sticky CUDA error (the
// context is unusable). The first signal, or the error, only asks to stop: the
// current benchmark finishes and is reported, then, before the next one starts
// (honour_stop_request, called by the runner), the results writer closes its
// JSON and the process exits: 130 (SIGINT), 143 (SIGTERM), 1 (CUDA error). A
// second signal aborts at once: the handler cuts the results file back to the
// last complete benchmark and closes the JSON with async-signal-safe calls.
#pragma once

#include <functional>
#include <string>

namespace bench {

enum class StopReason { none, interrupted, terminated, cuda_error };

// Installs the SIGINT and SIGTERM handlers (call once, from the main thread).
void install_stop_handlers();

// A sticky CUDA error in `benchmark`: nothing more may run on the context.
void request_cuda_error_stop(const std::string& benchmark, const std::string& message);

StopReason stop_reason();
int exit_code(StopReason reason);  // 0, 130, 143, 1
// "interrupted (SIGINT)", "terminated (SIGTERM)", "sticky CUDA error in <benchmark>: <message>".
std::string describe(StopReason reason);

// Between benchmarks: when a stop was requested, runs the stop action, then
// exits the process with exit_code() at once (std::_Exit: no destructor touches
// a CUDA context that may be broken). Returns when no stop was requested.
void honour_stop_request();

// What honour_stop_request does before exiting (the results writer: close the
// JSON and say where it is). Without one, it writes one line on stderr.
void set_stop_action(std::function<void(StopReason)> action);

// The results file as the second-signal abort finds it: its descriptor (-1:
// none, or already closed), the bytes of complete JSON in it and how many
// benchmarks they hold, and `closing`, the text that completes it. Kept
// current by the results writer after every write.
void set_abort_file(int fd, const std::string& path, const char* closing);
void set_abort_committed(long long bytes, long long benchmarks);

}  // namespace bench
