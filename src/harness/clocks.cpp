#include "harness/clocks.hpp"

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "harness/annotations.hpp"
#include "harness/cuda_check.hpp"
#include "harness/device_buffer.hpp"

#if __has_include(<nvml.h>)
#include <nvml.h>
#define CUDABENCH_HAVE_NVML_H 1
#endif

namespace bench {
namespace {

// The few NVML declarations used, as nvml.h has them (a stable C ABI). Declared
// here because NVML is loaded at run time and its header is not always installed;
// where it is, the values are checked against it.
namespace nvml_abi {
using Return = int;
constexpr Return kSuccess = 0;
using Device = struct nvmlDevice_st*;
constexpr int kClockSm = 1, kClockMem = 2;  // nvmlClockType_t
constexpr int kTemperatureGpu = 0;          // nvmlTemperatureSensors_t
}  // namespace nvml_abi

#ifdef CUDABENCH_HAVE_NVML_H
static_assert(NVML_CLOCK_SM == nvml_abi::kClockSm && NVML_CLOCK_MEM == nvml_abi::kClockMem);
static_assert(NVML_TEMPERATURE_GPU == nvml_abi::kTemperatureGpu && NVML_SUCCESS == nvml_abi::kSuccess);
#endif
#ifdef nvmlClocksEventReasonGpuIdle
static_assert(nvmlClocksEventReasonGpuIdle == 0x1 && nvmlClocksEventReasonSwPowerCap == 0x4);
#endif
#ifdef nvmlClocksThrottleReasonHwSlowdown
static_assert(nvmlClocksThrottleReasonHwSlowdown == 0x8);
#endif

// NVML's clocks event reasons (formerly "throttle reasons"), bit by bit.
constexpr std::pair<unsigned long long, const char*> kReasons[] = {
    {0x1, "gpu_idle"},
    {0x2, "applications_clocks_setting"},
    {0x4, "sw_power_cap"},
    {0x8, "hw_slowdown"},
    {0x10, "sync_boost"},
    {0x20, "sw_thermal_slowdown"},
    {0x40, "hw_thermal_slowdown"},
    {0x80, "hw_power_brake_slowdown"},
    {0x100, "display_clock_setting"},
};

class Nvml {
 public:
  // Loads libnvidia-ml.so.1 and finds the device by its PCI bus id (the CUDA
  // ordinal and NVML's index differ under CUDA_VISIBLE_DEVICES). On failure,
  // ok() is false and why() says what failed.
  explicit Nvml(int cuda_ordinal) {
    lib_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib_) {
      why_ = "libnvidia-ml.so.1 not loadable";
      return;
    }
    const bool all = load(init_, "nvmlInit_v2") && load(shutdown_, "nvmlShutdown") &&
                     load(error_string_, "nvmlErrorString") && load(by_pci_, "nvmlDeviceGetHandleByPciBusId_v2") &&
                     load(clock_, "nvmlDeviceGetClockInfo") && load(max_clock_, "nvmlDeviceGetMaxClockInfo");
    // The rest is recorded where the library has it (null when not).
    load(temperature_, "nvmlDeviceGetTemperature", false);
    load(power_, "nvmlDeviceGetPowerUsage", false);
    load(driver_version_, "nvmlSystemGetDriverVersion", false);
    load(nvml_version_, "nvmlSystemGetNVMLVersion", false);
    // Renamed in NVML 12.x; older drivers have only the old name.
    if (!load(reasons_, "nvmlDeviceGetCurrentClocksEventReasons", false))
      load(reasons_, "nvmlDeviceGetCurrentClocksThrottleReasons", false);
    if (!all) {
      why_ = "libnvidia-ml.so.1 lacks " + missing_;
      return;
    }
    if (const auto r = init_(); r != nvml_abi::kSuccess) {
      why_ = std::string("nvmlInit: ") + error_string_(r);
      return;
    }
    initialised_ = true;
    char pci[32] = {};
    if (cudaDeviceGetPCIBusId(pci, sizeof pci, cuda_ordinal) != cudaSuccess) {
      cudaGetLastError();
      why_ = "cudaDeviceGetPCIBusId failed";
      return;
    }
    if (const auto r = by_pci_(pci, &device_); r != nvml_abi::kSuccess) {
      why_ = std::string("nvmlDeviceGetHandleByPciBusId(") + pci + "): " + error_string_(r);
      return;
    }
    unsigned mhz = 0;
    if (max_clock_(device_, nvml_abi::kClockSm, &mhz) != nvml_abi::kSuccess || mhz == 0) {
      why_ = "nvmlDeviceGetMaxClockInfo gives no SM clock";
      return;
    }
    max_sm_mhz_ = mhz;
    if (max_clock_(device_, nvml_abi::kClockMem, &mhz) == nvml_abi::kSuccess) max_mem_mhz_ = mhz;
    char text[96] = {};
    if (driver_version_ && driver_version_(text, sizeof text) == nvml_abi::kSuccess) driver_ = text;
    if (nvml_version_ && nvml_version_(text, sizeof text) == nvml_abi::kSuccess) version_ = text;
    ok_ = true;
  }
  ~Nvml() {
    if (initialised_) shutdown_();
    if (lib_) dlclose(lib_);
  }
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  bool ok() const { return ok_; }
  const std::string& why() const { return why_; }
  double max_sm_mhz() const { return max_sm_mhz_; }
  double max_mem_mhz() const { return max_mem_mhz_; }
  const std::string& driver() const { return driver_; }
  const std::string& version() const { return version_; }

  // NVML is thread-safe: the sampler thread and the main thread both read.
  ClockSample sample() const {
    ClockSample s;
    unsigned v = 0;
    if (clock_(device_, nvml_abi::kClockSm, &v) == nvml_abi::kSuccess) s.sm_mhz = v;
    if (clock_(device_, nvml_abi::kClockMem, &v) == nvml_abi::kSuccess) s.mem_mhz = v;
    if (temperature_ && temperature_(device_, nvml_abi::kTemperatureGpu, &v) == nvml_abi::kSuccess)
      s.temperature_c = v;
    if (power_ && power_(device_, &v) == nvml_abi::kSuccess) s.power_w = v * 1e-3;  // mW
    s.reasons_known = reasons_ && reasons_(device_, &s.reasons) == nvml_abi::kSuccess;
    return s;
  }

 private:
  template <class Fn>
  bool load(Fn& fn, const char* symbol, bool required = true) {
    fn = reinterpret_cast<Fn>(dlsym(lib_, symbol));
    if (!fn && required) missing_ += (missing_.empty() ? "" : ", ") + std::string(symbol);
    return fn != nullptr;
  }

  using Return = nvml_abi::Return;
  using Device = nvml_abi::Device;
  void* lib_ = nullptr;
  Return (*init_)() = nullptr;
  Return (*shutdown_)() = nullptr;
  const char* (*error_string_)(Return) = nullptr;
  Return (*by_pci_)(const char*, Device*) = nullptr;
  Return (*clock_)(Device, int, unsigned*) = nullptr;
  Return (*max_clock_)(Device, int, unsigned*) = nullptr;
  Return (*temperature_)(Device, int, unsigned*) = nullptr;
  Return (*power_)(Device, unsigned*) = nullptr;
  Return (*reasons_)(Device, unsigned long long*) = nullptr;
  Return (*driver_version_)(char*, unsigned) = nullptr;
  Return (*nvml_version_)(char*, unsigned) = nullptr;
  Device device_ = nullptr;
  bool initialised_ = false, ok_ = false;
  double max_sm_mhz_ = 0, max_mem_mhz_ = 0;
  std::string why_, missing_, driver_, version_;
};

std::string mhz_text(double mhz) {
  char text[32];
  std::snprintf(text, sizeof text, "%.0f", mhz);
  return text;
}

// min, median, max of the known (>= 0) values; null when there are none.
nlohmann::json spread(std::vector<double> values) {
  values.erase(std::remove_if(values.begin(), values.end(), [](double v) { return v < 0; }), values.end());
  if (values.empty()) return nullptr;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  const double median = n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
  return {{"min", values.front()}, {"median", median}, {"max", values.back()}};
}

}  // namespace

std::vector<std::string> reason_names(unsigned long long reasons) {
  std::vector<std::string> names;
  for (const auto& [bit, name] : kReasons)
    if ((reasons & bit) && bit != 0x1) names.push_back(name);
  unsigned long long known = 0;
  for (const auto& entry : kReasons) known |= entry.first;
  if (const unsigned long long other = reasons & ~known) {
    char text[40];
    std::snprintf(text, sizeof text, "other_0x%llx", other);
    names.push_back(text);
  }
  return names;
}

struct ClockMonitor::Impl {
  explicit Impl(const DeviceInfo& device) : nvml(device.ordinal), fallback_max_sm_mhz(device.sm_clock_khz * 1e-3) {}
  ~Impl() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      quit = true;
    }
    wake.notify_all();
    if (thread.joinable()) thread.join();
  }

  void loop() {
    std::unique_lock<std::mutex> lock(mutex);
    while (!quit) {
      if (!active) {
        wake.wait(lock);
        continue;
      }
      const unsigned long long round = generation;
      if (wake.wait_for(lock, kPeriod, [&] { return quit || !active || generation != round; })) continue;
      lock.unlock();
      const ClockSample s = nvml.sample();
      lock.lock();
      if (active && generation == round) samples.push_back(s);
    }
  }

  void start_thread() {
    // The sampler never takes SIGINT or SIGTERM: they go to the main thread,
    // which writes the results file (src/harness/stop.hpp).
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    thread = std::thread([this] { loop(); });
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
  }

  static constexpr std::chrono::milliseconds kPeriod{10};
  Nvml nvml;
  double fallback_max_sm_mhz;
  DeviceBuffer<unsigned long long> probe_scratch;  // the in-kernel fallback's, allocated on first use
  std::thread thread;
  std::mutex mutex;
  std::condition_variable wake;
  bool active = false, quit = false;
  unsigned long long generation = 0;
  std::vector<ClockSample> samples;
};

ClockMonitor::ClockMonitor(const DeviceInfo& device) : impl_(std::make_unique<Impl>(device)) {}
ClockMonitor::~ClockMonitor() = default;

bool ClockMonitor::nvml() const { return impl_->nvml.ok(); }

double ClockMonitor::max_sm_mhz() const {
  return nvml() ? impl_->nvml.max_sm_mhz() : impl_->fallback_max_sm_mhz;
}

std::vector<std::pair<std::string, std::string>> ClockMonitor::context_entries() const {
  std::vector<std::pair<std::string, std::string>> e{{"clock_source", source()}};
  if (!nvml()) e.emplace_back("clock_source_note", "NVML unavailable (" + impl_->nvml.why() + "): SM clock only, in-kernel");
  e.emplace_back("gpu_sm_clock_max_mhz", mhz_text(max_sm_mhz()));
  if (nvml()) {
    if (impl_->nvml.max_mem_mhz() > 0) e.emplace_back("gpu_mem_clock_max_mhz", mhz_text(impl_->nvml.max_mem_mhz()));
    if (!impl_->nvml.driver().empty()) e.emplace_back("gpu_driver_version", impl_->nvml.driver());
    if (!impl_->nvml.version().empty()) e.emplace_back("nvml_version", impl_->nvml.version());
  }
  char fraction[16];
  std::snprintf(fraction, sizeof fraction, "%.2f", kThrottleFraction);
  e.emplace_back("throttle_fraction", fraction);
  return e;
}

void ClockMonitor::start() {
  if (!nvml()) return;
  if (!impl_->thread.joinable()) impl_->start_thread();
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->samples.clear();
    impl_->active = true;
    ++impl_->generation;
  }
  impl_->wake.notify_all();
}

void ClockMonitor::cancel() {
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->active = false;
    impl_->samples.clear();
  }
  impl_->wake.notify_all();
}

std::vector<ClockSample> ClockMonitor::stop(cudaStream_t stream) {
  std::vector<ClockSample> samples;
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->active = false;
    samples.swap(impl_->samples);
  }
  impl_->wake.notify_all();
  if (nvml()) {
    samples.push_back(impl_->nvml.sample());
  } else {
    if (impl_->probe_scratch.size() == 0) impl_->probe_scratch = DeviceBuffer<unsigned long long>(2);
    ClockSample s;
    s.sm_mhz = kernel_sm_clock_mhz(stream, impl_->probe_scratch.get());
    samples.push_back(s);
  }
  return samples;
}

std::string record_clocks(const std::string& benchmark, const std::vector<ClockSample>& samples,
                          const char* source, double max_sm_mhz) {
  // Samples the driver marks idle (the GPU waited on the host) say nothing
  // about throttling; the rest are the busy GPU's clocks.
  std::vector<const ClockSample*> busy;
  for (const auto& s : samples)
    if (!s.idle() && s.sm_mhz >= 0) busy.push_back(&s);
  const bool any_busy = !busy.empty();
  if (!any_busy)
    for (const auto& s : samples) busy.push_back(&s);

  std::vector<double> sm, mem, temperature, power;
  unsigned long long reasons = 0;
  for (const ClockSample* s : busy) {
    sm.push_back(s->sm_mhz);
    mem.push_back(s->mem_mhz);
    temperature.push_back(s->temperature_c);
    power.push_back(s->power_w);
    reasons |= s->reasons;
  }
  nlohmann::json clocks = {
      {"source", source},
      {"samples", samples.size()},
      {"idle_samples", std::count_if(samples.begin(), samples.end(), [](const ClockSample& s) { return s.idle(); })},
      {"sm_mhz", spread(sm)},
      {"sm_max_mhz", max_sm_mhz},
      {"mem_mhz", spread(mem)},
      {"temperature_c", spread(temperature)},
      {"power_w", spread(power)},
      {"reasons", reason_names(reasons)},
  };
  std::string why;
  if (!clocks["sm_mhz"].is_null() && max_sm_mhz > 0) {
    const double lowest = clocks["sm_mhz"]["min"].get<double>();
    const double fraction = lowest / max_sm_mhz;
    clocks["sm_min_fraction"] = std::round(fraction * 1000) / 1000;
    if (any_busy && fraction < kThrottleFraction) {
      char text[128];
      std::snprintf(text, sizeof text, "SM clock fell to %.0f MHz, %.1f%% of %.0f MHz", lowest, 100 * fraction,
                    max_sm_mhz);
      why = text;
      const auto names = reason_names(reasons);
      for (std::size_t i = 0; i < names.size(); ++i) why += (i == 0 ? "; " : ", ") + names[i];
    }
  }
  annotate(benchmark, "clocks", std::move(clocks));
  annotate(benchmark, "throttled", !why.empty());
  return why;
}

}  // namespace bench
