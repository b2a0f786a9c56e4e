#include "harness/stop.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>

namespace bench {
namespace {

// Shared with the signal handler: lock-free atomics and fixed buffers only.
static_assert(std::atomic<int>::is_always_lock_free && std::atomic<long long>::is_always_lock_free);
std::atomic<int> g_signals{0};       // signals received so far
std::atomic<int> g_first_signal{0};  // the one that asked to stop
std::atomic<bool> g_cuda_error{false};
pthread_t g_main_thread;
std::atomic<int> g_fd{-1};
std::atomic<long long> g_committed{0}, g_benchmarks{0};
char g_path[4096];
const char* g_closing = "";
std::size_t g_closing_len = 0;

std::string g_cuda_message;  // main thread only
std::function<void(StopReason)>& stop_action() {
  static std::function<void(StopReason)> action;
  return action;
}

// --- async-signal-safe helpers ----------------------------------------------
bool write_all(int fd, const char* p, std::size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}
void say(const char* text) { write_all(STDERR_FILENO, text, std::strlen(text)); }
void say_number(long long v) {
  char digits[24];
  int i = sizeof digits;
  digits[--i] = '\0';
  do {
    digits[--i] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v > 0 && i > 0);
  say(digits + i);
}
const char* signal_name(int sig) { return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "signal"; }

// The second signal: cut the file back to its last complete benchmark, close
// the JSON there, and leave now.
[[noreturn]] void abort_now(int sig) {
  say("cuda_bench: ");
  say(signal_name(sig));
  say(" again: aborted during the current benchmark");
  const int fd = g_fd.load();
  if (fd >= 0) {
    const long long bytes = g_committed.load();
    const bool closed = ::ftruncate(fd, bytes) == 0 && ::lseek(fd, bytes, SEEK_SET) == bytes &&
                        write_all(fd, g_closing, g_closing_len);
    say("; ");
    say_number(g_benchmarks.load());
    say(closed ? " finished benchmarks in " : " finished benchmarks, but could not close ");
    say(g_path);
  }
  say("\n");
  ::_exit(128 + sig);
}

extern "C" void on_stop_signal(int sig) {
  const int saved_errno = errno;
  if (!pthread_equal(pthread_self(), g_main_thread)) {
    // Only the main thread writes the results file, so only it may cut it:
    // while the handler runs there, no write of the file is half done elsewhere.
    pthread_kill(g_main_thread, sig);
    errno = saved_errno;
    return;
  }
  if (g_signals.fetch_add(1) > 0) abort_now(sig);
  g_first_signal.store(sig);
  say("cuda_bench: ");
  say(signal_name(sig));
  say(sig == SIGINT ? ": stopping after the current benchmark (Ctrl-C again aborts at once)\n"
                    : ": stopping after the current benchmark (a second signal aborts at once)\n");
  errno = saved_errno;
}

}  // namespace

void install_stop_handlers() {
  g_main_thread = pthread_self();
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;  // a CUDA call or a write in progress resumes
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

void request_cuda_error_stop(const std::string& benchmark, const std::string& message) {
  if (g_cuda_error.load()) return;  // the first one is the cause
  g_cuda_message = benchmark + ": " + message;
  g_cuda_error.store(true);
}

StopReason stop_reason() {
  if (g_cuda_error.load()) return StopReason::cuda_error;
  switch (g_first_signal.load()) {
    case SIGINT: return StopReason::interrupted;
    case SIGTERM: return StopReason::terminated;
    default: return StopReason::none;
  }
}

int exit_code(StopReason reason) {
  switch (reason) {
    case StopReason::interrupted: return 128 + SIGINT;   // 130, as a shell reports it
    case StopReason::terminated: return 128 + SIGTERM;   // 143
    case StopReason::cuda_error: return 1;
    case StopReason::none: break;
  }
  return 0;
}

std::string describe(StopReason reason) {
  switch (reason) {
    case StopReason::interrupted: return "interrupted (SIGINT)";
    case StopReason::terminated: return "terminated (SIGTERM)";
    case StopReason::cuda_error:
      return "sticky CUDA error in " + g_cuda_message +
             "; the CUDA context is unusable, nothing more was run on it";
    case StopReason::none: break;
  }
  return "not stopped";
}

void honour_stop_request() {
  const StopReason reason = stop_reason();
  if (reason == StopReason::none) return;
  std::cout.flush();
  std::fflush(stdout);
  if (stop_action()) stop_action()(reason);
  else std::fprintf(stderr, "cuda_bench: %s: stopped\n", describe(reason).c_str());
  std::fflush(stderr);
  std::_Exit(exit_code(reason));
}

void set_stop_action(std::function<void(StopReason)> action) { stop_action() = std::move(action); }

void set_abort_file(int fd, const std::string& path, const char* closing) {
  g_fd.store(-1);  // the handler ignores the file while it changes
  std::snprintf(g_path, sizeof g_path, "%s", path.c_str());
  g_closing = closing;
  g_closing_len = std::strlen(closing);
  g_committed.store(0);
  g_benchmarks.store(0);
  g_fd.store(fd);
}

void set_abort_committed(long long bytes, long long benchmarks) {
  g_committed.store(bytes);
  g_benchmarks.store(benchmarks);
}

}  // namespace bench
