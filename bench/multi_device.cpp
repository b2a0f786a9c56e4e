#include "multi_device.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <stdexcept>

#include "harness/results_file.hpp"

namespace bench::driver {
namespace {

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

std::string insert_before_extension(const std::string& path, const std::string& text) {
  const std::filesystem::path p(path);
  const std::string ext = p.extension().string();
  return path.substr(0, path.size() - ext.size()) + text + ext;
}

int severity(int code) {
  switch (code) {
    case 0: return 0;
    case 3: return 1;
    case 2: return 3;
    case 130:
    case 143: return 4;
    default: return 2;  // 1 and anything unexpected: a failure
  }
}

// The children, for the signal handler (which may only read plain data).
constexpr int kMaxChildren = 256;
volatile pid_t g_children[kMaxChildren];
volatile sig_atomic_t g_child_count = 0;

extern "C" void forward_signal(int sig) {
  for (int i = 0; i < g_child_count; ++i)
    if (g_children[i] > 0) kill(g_children[i], sig);
}

struct Child {
  int ordinal = 0;
  pid_t pid = -1;
  int fds[2] = {-1, -1};   // the child's stdout, stderr (read ends)
  std::string pending[2];  // an unfinished line of each
  int code = 0;
};

void emit(FILE* to, const std::string& prefix, const std::string& line) {
  std::fputs(prefix.c_str(), to);
  std::fwrite(line.data(), 1, line.size(), to);
  std::fputc('\n', to);
  std::fflush(to);
}

// Forwards every complete line read so far (all of it at the end of the stream).
void forward_lines(Child& c, int stream, bool at_end) {
  FILE* to = stream == 0 ? stdout : stderr;
  const std::string prefix = "[gpu " + std::to_string(c.ordinal) + "] ";
  std::string& buf = c.pending[stream];
  std::size_t start = 0;
  for (std::size_t nl; (nl = buf.find('\n', start)) != std::string::npos; start = nl + 1)
    emit(to, prefix, buf.substr(start, nl - start));
  buf.erase(0, start);
  if (at_end && !buf.empty()) {
    emit(to, prefix, buf);
    buf.clear();
  }
}

pid_t spawn(const std::string& executable, const std::vector<std::string>& args, int out_fd, int err_fd) {
  std::vector<std::string> copy = args;
  std::vector<char*> argv;
  for (auto& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t parent = getpid();
  // No forwarding handler may run in the child before exec: block the signals
  // across fork, and let the child restore their defaults first.
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  sigaddset(&block, SIGTERM);
  sigprocmask(SIG_BLOCK, &block, &old);
  const pid_t pid = fork();
  if (pid != 0) {
    sigprocmask(SIG_SETMASK, &old, nullptr);
    return pid;
  }
  // The child: async-signal-safe calls only until exec.
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  sigprocmask(SIG_SETMASK, &old, nullptr);
  setpgid(0, 0);  // its own group: a Ctrl-C reaches the parent alone, which forwards it once
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != parent) _exit(143);
  dup2(out_fd, STDOUT_FILENO);
  dup2(err_fd, STDERR_FILENO);
  execv(executable.c_str(), argv.data());
  _exit(127);
}

}  // namespace

std::vector<std::string> child_arguments(const std::vector<std::string>& args, int ordinal,
                                         const std::string& out_path) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (i > 0 && (starts_with(args[i], "--device=") || starts_with(args[i], "--benchmark_out="))) continue;
    out.push_back(args[i]);
  }
  out.push_back("--device=" + std::to_string(ordinal));
  if (!out_path.empty()) out.push_back("--benchmark_out=" + out_path);
  return out;
}

std::string per_device_path(const std::string& path, int ordinal) {
  return insert_before_extension(path, "_gpu" + std::to_string(ordinal));
}

std::string device_results_path(const std::string& dir, const std::string& gpu_name, std::time_t now, int ordinal) {
  const std::string first = new_results_path(dir, gpu_name, now);
  std::string path = per_device_path(first, ordinal);
  for (int k = 2; std::filesystem::exists(path); ++k)
    path = per_device_path(insert_before_extension(first, "_" + std::to_string(k)), ordinal);
  return path;
}

int exit_code_of(int wait_status) {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) {
    const int sig = WTERMSIG(wait_status);
    return sig == SIGINT || sig == SIGTERM ? 128 + sig : 1;
  }
  return 1;
}

int combine_exit_codes(const std::vector<int>& codes) {
  int worst = 0;
  for (int c : codes)
    if (severity(c) > severity(worst)) worst = c;
  return worst;
}

std::string describe_exit_code(int code) {
  switch (code) {
    case 0: return "ok";
    case 1: return "benchmark errors";
    case 2: return "bad input";
    case 3: return "no GPU";
    case 130: return "interrupted";
    case 143: return "terminated";
    default: return "exit " + std::to_string(code);
  }
}

int run_on_devices(const std::vector<std::string>& args, const std::vector<int>& ordinals,
                   const std::vector<std::string>& out_paths, const std::string& executable) {
  if (ordinals.size() > static_cast<std::size_t>(kMaxChildren)) throw std::runtime_error("too many GPUs");
  std::vector<Child> children(ordinals.size());
  struct sigaction forward {}, old_int{}, old_term{};
  forward.sa_handler = forward_signal;
  sigemptyset(&forward.sa_mask);
  sigaction(SIGINT, &forward, &old_int);
  sigaction(SIGTERM, &forward, &old_term);
  std::fflush(stdout);
  std::fflush(stderr);

  for (std::size_t i = 0; i < ordinals.size(); ++i) {
    Child& c = children[i];
    c.ordinal = ordinals[i];
    int out[2], err[2];
    if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0)
      throw std::runtime_error("cannot create a pipe for GPU " + std::to_string(c.ordinal));
    c.pid = spawn(executable, child_arguments(args, c.ordinal, out_paths[i]), out[1], err[1]);
    close(out[1]);
    close(err[1]);
    c.fds[0] = out[0];
    c.fds[1] = err[0];
    if (c.pid < 0) {
      close(out[0]);
      close(err[0]);
      c.fds[0] = c.fds[1] = -1;
      c.code = 1;
      std::fprintf(stderr, "[gpu %d] cuda_bench: cannot start a process for this GPU\n", c.ordinal);
      continue;
    }
    g_children[g_child_count] = c.pid;
    g_child_count = g_child_count + 1;
  }

  // Forward the children's output as it comes, line by line.
  for (;;) {
    std::vector<pollfd> fds;
    std::vector<std::pair<Child*, int>> owners;
    for (Child& c : children)
      for (int s = 0; s < 2; ++s)
        if (c.fds[s] >= 0) {
          fds.push_back({c.fds[s], POLLIN, 0});
          owners.push_back({&c, s});
        }
    if (fds.empty()) break;
    if (poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;  // a forwarded signal
      break;
    }
    for (std::size_t k = 0; k < fds.size(); ++k) {
      if (!fds[k].revents) continue;
      auto [c, s] = owners[k];
      char buf[4096];
      const ssize_t got = read(c->fds[s], buf, sizeof buf);
      if (got < 0 && errno == EINTR) continue;
      if (got > 0) {
        c->pending[s].append(buf, static_cast<std::size_t>(got));
        forward_lines(*c, s, false);
      } else {
        forward_lines(*c, s, true);
        close(c->fds[s]);
        c->fds[s] = -1;
      }
    }
  }

  std::vector<int> codes;
  std::string summary;
  for (Child& c : children) {
    if (c.pid > 0) {
      int status = 0;
      while (waitpid(c.pid, &status, 0) < 0 && errno == EINTR) {
      }
      c.code = exit_code_of(status);
      if (WIFSIGNALED(status) && c.code == 1)
        std::fprintf(stderr, "[gpu %d] cuda_bench: killed by signal %d\n", c.ordinal, WTERMSIG(status));
    }
    codes.push_back(c.code);
    summary += (summary.empty() ? "" : ", ") + std::string("gpu ") + std::to_string(c.ordinal) + " " +
               describe_exit_code(c.code);
  }
  g_child_count = 0;
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
  const int code = combine_exit_codes(codes);
  std::fprintf(stderr, "cuda_bench: %zu GPUs: %s; exit code %d\n", children.size(), summary.c_str(), code);
  return code;
}

}  // namespace bench::driver
