#include "harness/results_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <ostream>

#include "harness/annotations.hpp"
#include "harness/device.hpp"
#include "harness/run_record.hpp"
#include "harness/stop.hpp"

namespace bench {
namespace {

// Google Benchmark indents a run's fields by six spaces.
constexpr const char* kFieldIndent = "\n      ";

// `object` with `added`'s fields inserted before its closing brace, each on its
// own line as Google Benchmark writes its fields; a key Google Benchmark
// already wrote keeps its value.
template <class Json>
std::string merge_fields(std::string object, const Json& added) {
  std::string fields;
  for (const auto& [key, value] : added.items()) {
    const std::string quoted = nlohmann::json(key).dump();
    if (object.find(kFieldIndent + quoted + ":") != std::string::npos) continue;
    fields += "," + std::string(kFieldIndent) + quoted + ": " + value.dump();
  }
  const std::size_t brace = object.rfind('}');
  const std::size_t line = brace == std::string::npos ? std::string::npos : object.rfind('\n', brace);
  if (fields.empty() || line == std::string::npos) return object;
  object.insert(line, fields);
  return object;
}

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// A run's sampling record as JSON fields, times in the run's unit; empty when
// the run has none (an aggregate, an error, a profiled call).
nlohmann::ordered_json record_fields(const benchmark::BenchmarkReporter::Run& run) {
  nlohmann::ordered_json fields = nlohmann::ordered_json::object();
  if (run.run_type != benchmark::BenchmarkReporter::Run::RT_Iteration) return fields;
  const auto record = find_run(run.run_name.function_name, run.repetition_index);
  if (!record) return fields;
  const double unit = benchmark::GetTimeUnitMultiplier(run.time_unit);
  fields["samples"] = record->samples;
  fields["ci_low"] = record->ci_low_seconds * unit;
  fields["ci_high"] = record->ci_high_seconds * unit;
  fields["stop_reason"] = to_string(record->stop);
  fields["setup_seconds"] = record->setup_seconds;
  fields["verify_seconds"] = record->verify_seconds;
  fields["sampling_seconds"] = record->sampling_seconds;
  fields["placements"] = record->placements;
  fields["launch"] = record->launch;
  if (!record->interleave_group.empty()) fields["interleave_group"] = record->interleave_group;
  if (!record->sample_seconds.empty()) {
    nlohmann::ordered_json& times = fields["sample_times"] = nlohmann::ordered_json::array();
    for (double t : record->sample_seconds) times.push_back(t * unit);
  }
  return fields;
}

// Google Benchmark's context closes with this, then opens "benchmarks".
constexpr const char* kContextEnd = "\n  },\n  \"benchmarks\": [";

}  // namespace

std::string new_results_path(const std::string& dir, const std::string& gpu_name, std::time_t now) {
  char stamp[32];
  std::tm utc{};
  gmtime_r(&now, &utc);
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &utc);
  const std::filesystem::path base = std::filesystem::path(dir) / (slug(gpu_name) + "_" + stamp);
  std::filesystem::path path = base.string() + ".json";
  for (int k = 2; std::filesystem::exists(path); ++k) path = base.string() + "_" + std::to_string(k) + ".json";
  return path.string();
}

int claim_results_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return errno;
  ::close(fd);
  return 0;
}

ResultsWriter::ResultsWriter(Clock::time_point start) : start_(start) {
  json_.SetOutputStream(&text_);
  json_.SetErrorStream(&discarded_);
}

ResultsWriter::ResultsWriter(std::string path, Clock::time_point start) : ResultsWriter(start) {
  path_ = std::move(path);
}

ResultsWriter::~ResultsWriter() {
  set_stop_action(nullptr);
  if (fd_ >= 0) {
    set_abort_file(-1, "", "");
    ::close(fd_);
  }
}

bool ResultsWriter::ReportContext(const Context& context) {
  if (!path_.empty()) {
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) write_failed("open", errno);
  }
  text_.str("");
  json_.ReportContext(context);
  std::string text = text_.str();  // '{ "context": {...}, "benchmarks": [' and a newline
  if (const std::size_t end = text.find(kContextEnd); end != std::string::npos) {
    const std::string field = ",\n    \"" + std::string(kWallKey) + "\": ";
    text.insert(end, field + "null" + std::string(kWallWidth - 4, ' '));
    long long base = committed_;
    if (fd_ < 0) base = static_cast<long long>(GetOutputStream().tellp());  // -1: not seekable
    if (base >= 0) wall_offset_ = base + static_cast<long long>(end + field.size());
  }
  append(text, 0);
  if (fd_ >= 0) set_abort_file(fd_, path_, kClosing);
  set_abort_committed(committed_, 0);
  // A stop closes the file and says where it is (then the process exits).
  set_stop_action([this](StopReason) { finish_after_stop(); });
  return true;
}

void ResultsWriter::ReportRuns(const std::vector<Run>& reports) {
  std::string chunk;
  long long benchmarks = benchmarks_;
  for (const Run& run : reports) {
    text_.str("");
    json_.ReportRuns({run});  // one object, with a ",\n" before all but its first
    std::string object = text_.str();
    if (starts_with(object, ",\n")) object.erase(0, 2);
    object = merge_fields(std::move(object), record_fields(run));
    object = merge_fields(std::move(object), annotations_for(run.run_name.function_name));
    chunk += (any_object_ || !chunk.empty() ? ",\n" : "") + object;
    if (const std::string name = run.run_name.str(); name != last_benchmark_) {
      last_benchmark_ = name;
      ++benchmarks;
    }
  }
  if (chunk.empty()) return;
  append(chunk, benchmarks);
  benchmarks_ = benchmarks;
  any_object_ = true;
}

void ResultsWriter::Finalize() {
  if (closed_) return;
  if (const int err = close_json()) write_failed("closing it", err);
  // A stop requested during the last benchmark is honoured here: there is no
  // next benchmark to honour it before.
  honour_stop_request();
}

void ResultsWriter::append(const std::string& text, long long benchmarks_after) {
  if (fd_ < 0) {
    std::ostream& out = GetOutputStream();
    out << text << std::flush;
    if (!out) write_failed("write", EIO);
  } else {
    const char* p = text.data();
    std::size_t left = text.size();
    while (left > 0) {
      const ssize_t w = ::write(fd_, p, left);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) write_failed("write", w < 0 ? errno : ENOSPC);
      p += w;
      left -= static_cast<std::size_t>(w);
    }
  }
  committed_ += static_cast<long long>(text.size());
  set_abort_committed(committed_, benchmarks_after);
}

int ResultsWriter::write_wall_seconds() {
  if (wall_offset_ < 0) return 0;
  char value[64];
  const double seconds = std::chrono::duration<double>(Clock::now() - start_).count();
  std::snprintf(value, sizeof value, "%-*.3f", static_cast<int>(kWallWidth), seconds);
  if (std::strlen(value) != kWallWidth) return 0;  // a run of 30 years: keep null
  if (fd_ < 0) {
    std::ostream& out = GetOutputStream();
    const auto end = out.tellp();
    out.seekp(wall_offset_);
    out.write(value, static_cast<std::streamsize>(kWallWidth));
    out.seekp(end);
    return out ? 0 : EIO;
  }
  const ssize_t w = ::pwrite(fd_, value, kWallWidth, static_cast<off_t>(wall_offset_));
  if (w < 0 && errno == ESPIPE) return 0;  // not a file (a pipe): the placeholder stays
  return w == static_cast<ssize_t>(kWallWidth) ? 0 : (w < 0 ? errno : ENOSPC);
}

int ResultsWriter::close_json() {
  if (fd_ < 0) {
    std::ostream& out = GetOutputStream();
    out << kClosing << std::flush;
    const int wall = write_wall_seconds();
    out.flush();
    closed_ = static_cast<bool>(out) && wall == 0;
    return closed_ ? 0 : EIO;
  }
  // What a second signal's handler would do too (src/harness/stop.cpp), so
  // wherever it interrupts this, the file ends closed at a complete benchmark.
  const auto len = static_cast<ssize_t>(std::strlen(kClosing));
  int err = 0;
  if (::ftruncate(fd_, committed_) != 0 || ::lseek(fd_, committed_, SEEK_SET) != committed_) err = errno;
  if (err == 0 && ::write(fd_, kClosing, len) != len) err = errno ? errno : ENOSPC;
  if (err == 0) err = write_wall_seconds();
  // fsync: some file systems report a full disk only here. Not every file can
  // be synced (a pipe, /dev/stdout): EINVAL and the like say so, and are no write error.
  if (err == 0 && ::fsync(fd_) != 0 && errno != EINVAL && errno != EROFS && errno != ENOTSUP) err = errno;
  set_abort_file(-1, path_, kClosing);
  if (::close(fd_) != 0 && err == 0) err = errno;
  fd_ = -1;
  closed_ = err == 0;
  return err;
}

void ResultsWriter::write_failed(const char* what, int err) {
  std::cout.flush();
  const std::string file = path_.empty() ? "(stream)" : path_;
  std::fprintf(stderr, "cuda_bench: cannot write the results file %s: %s failed: %s (errno %d)\n", file.c_str(),
               what, std::strerror(err), err);
  if (!path_.empty()) {
    const bool closed = fd_ >= 0 && close_json() == 0;
    std::fprintf(stderr, "cuda_bench: %s holds the first %lld benchmarks%s; the run stops here\n", file.c_str(),
                 benchmarks_,
                 closed ? " (closed, valid JSON)" : ", not closed (the tools still read each complete one)");
  }
  std::fflush(stderr);
  std::_Exit(1);
}

void ResultsWriter::finish_after_stop() {
  const bool closed = closed_ || close_json() == 0;
  std::fprintf(stderr, "cuda_bench: %s: stopped after %lld benchmarks; results in %s%s\n",
               describe(stop_reason()).c_str(), benchmarks_, path_.empty() ? "(stream)" : path_.c_str(),
               closed ? " (closed, valid JSON)" : " (could not close it)");
}

}  // namespace bench
