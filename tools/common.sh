# Shared by tools/run-benchmarks and tools/run-tests: install what is missing,
# then configure and build into build/. Sourced, not run.

log() { printf '==> %s\n' "$*" >&2; }

ensure_cuda() {
  if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
    export PATH=/usr/local/cuda/bin:$PATH
  fi
  command -v nvcc >/dev/null 2>&1 || { log "nvcc not found: install the CUDA toolkit (13.x, with CCCL)"; exit 1; }
}

# Debian packages for the C++ side, installed only when something is missing.
ensure_system_packages() {
  local missing=()
  command -v cmake >/dev/null 2>&1 || missing+=(cmake)
  command -v g++ >/dev/null 2>&1 || missing+=(g++)
  [ -e /usr/include/benchmark/benchmark.h ] || [ -e /usr/local/include/benchmark/benchmark.h ] || missing+=(libbenchmark-dev)
  [ -e /usr/include/gtest/gtest.h ] || [ -e /usr/local/include/gtest/gtest.h ] || missing+=(libgtest-dev)
  [ -e /usr/include/nlohmann/json.hpp ] || [ -e /usr/local/include/nlohmann/json.hpp ] || missing+=(nlohmann-json3-dev)
  [ ${#missing[@]} -eq 0 ] && return 0
  log "installing Debian packages: ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
}

# The Python tools' declared requirements (tools/pyproject.toml), when missing.
ensure_python_packages() {
  local extra="$1"  # "" or "[test]"
  local probe="import matplotlib, numpy, scipy"
  [ "$extra" = "[test]" ] && probe="$probe, pytest"
  python3 -c "$probe" >/dev/null 2>&1 && return 0
  log "installing the Python tools' requirements (tools/pyproject.toml$extra)"
  python3 -m pip install -q "./tools$extra"
}

# Builds into $BUILD_DIR (default build/); CUDABENCH_CMAKE_ARGS adds configure
# options, e.g. BUILD_DIR=build-slow CUDABENCH_CMAKE_ARGS=-DCUDABENCH_PLANTED_SLOWDOWN=ON.
BUILD_DIR=${BUILD_DIR:-build}
build() {
  local generator=()
  command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
  if [ ! -f "$BUILD_DIR/CMakeCache.txt" ]; then
    # shellcheck disable=SC2086  # CUDABENCH_CMAKE_ARGS is a list of options
    cmake -S . -B "$BUILD_DIR" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release ${CUDABENCH_CMAKE_ARGS:-} >/dev/null
  fi
  cmake --build "$BUILD_DIR" -j "$(nproc)"
}

export PYTHONPATH="$PWD/tools${PYTHONPATH:+:$PYTHONPATH}"
