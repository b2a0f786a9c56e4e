#include "progress.hpp"

#include <cmath>
#include <cstdio>
#include <iostream>

namespace bench::driver {

std::string format_duration(double seconds) {
  const long long s = std::isfinite(seconds) && seconds > 0 ? std::llround(seconds) : 0;
  char buf[32];
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", s / 3600, (s / 60) % 60, s % 60);
  else
    std::snprintf(buf, sizeof buf, "%lld:%02lld", s / 60, s % 60);
  return buf;
}

std::string benchmark_group(const std::string& name) {
  const std::size_t first = name.find('/');
  if (first == std::string::npos) return name;
  const std::size_t second = name.find('/', first + 1);
  return name.substr(0, second);
}

std::string progress_text(std::size_t done, std::size_t total, double elapsed_seconds, const std::string& group) {
  char pct[16];
  std::snprintf(pct, sizeof pct, "%.1f%%", total ? 100.0 * static_cast<double>(done) / static_cast<double>(total) : 100.0);
  std::string text = "progress: " + std::to_string(done) + "/" + std::to_string(total) + " (" + pct + "), " +
                     format_duration(elapsed_seconds) + " elapsed";
  if (done >= total) return text + ", done";
  if (done == 0) text += ", estimating the time left";
  else
    text += ", about " +
            format_duration(elapsed_seconds / static_cast<double>(done) * static_cast<double>(total - done)) + " left";
  if (!group.empty()) text += "; " + group;
  return text;
}

ProgressReporter::ProgressReporter(benchmark::BenchmarkReporter* display, std::size_t total, bool in_place,
                                   std::ostream& progress, Clock clock)
    : display_(display), total_(total), in_place_(in_place), out_(progress), clock_(std::move(clock)) {
  if (!clock_) {
    clock_ = [] {
      return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
    };
  }
}

void ProgressReporter::erase() {
  if (in_place_ && drawn_) out_ << "\r\033[K" << std::flush;
  drawn_ = false;
}

void ProgressReporter::draw(const std::string& text) {
  if (in_place_) {
    out_ << "\r" << text << "\033[K" << std::flush;
    drawn_ = true;
  } else {
    out_ << text << "\n" << std::flush;
  }
}

bool ProgressReporter::ReportContext(const Context& context) {
  start_ = clock_();
  const bool ok = display_->ReportContext(context);
  std::cout.flush();
  if (in_place_) draw(progress_text(0, total_, 0, ""));
  return ok;
}

void ProgressReporter::ReportRuns(const std::vector<Run>& runs) {
  erase();
  display_->ReportRuns(runs);
  std::cout.flush();  // a child of --device writes into a pipe: keep lines moving
  if (runs.empty()) return;
  const Run& run = runs.front();
  // One entry per benchmark, however many repetitions and aggregates it reports.
  done_.insert({static_cast<long long>(run.family_index), static_cast<long long>(run.per_family_instance_index)});
  const std::string group = benchmark_group(run.run_name.function_name);
  const bool new_group = group != group_;
  group_ = group;
  const std::size_t done = done_.size() < total_ ? done_.size() : total_;
  if (done == total_) return;  // Finalize says it
  if (in_place_ || new_group) draw(progress_text(done, total_, clock_() - start_, group));
}

void ProgressReporter::Finalize() {
  erase();
  display_->Finalize();
  std::cout.flush();
  if (in_place_) drawn_ = false;
  const double elapsed = clock_() - start_;
  if (done_.size() >= total_) {
    out_ << progress_text(total_, total_, elapsed, "") << "\n" << std::flush;
  } else {  // stopped early (an interrupt, a fatal CUDA error)
    out_ << "progress: stopped after " << done_.size() << "/" << total_ << ", " << format_duration(elapsed)
         << " elapsed\n" << std::flush;
  }
}

}  // namespace bench::driver
