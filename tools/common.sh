# Shared by the tools/run-* scripts: find or install what is missing, then
# configure and build into build/. Sourced, not run, by a script that has
# changed to the project root. docs/setup.md explains the choices.
# shellcheck shell=bash

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

log() { printf '==> %s\n' "$*" >&2; }

# What a tools/ script's --help prints: its header comment, from line 2 up to its
# `set -euo pipefail`, without the '# '. Read by the script's path under ROOT, since
# the script has changed to the project root by then (a header that grows needs no
# line count changed).
usage() { sed -n '2,/^set -euo/p' "$ROOT/tools/${0##*/}" | sed '$d; s/^# \{0,1\}//'; }

# For a script that takes no arguments: called with "$@" after $1, a hint for the
# refusal (or ""). --help prints usage and exits 0; any other argument is refused,
# naming it, with exit 2; none returns.
no_arguments() {
  local hint=$1
  shift
  [ $# -gt 0 ] || return 0
  [[ $1 = -h || $1 = --help ]] && { usage; exit 0; }
  log "tools/${0##*/} takes no arguments (got '$1')$hint"
  exit 2
}

# CUDABENCH_VERBOSE=1 (tools/run-tests -v) shows build output as it comes.
CUDABENCH_VERBOSE=${CUDABENCH_VERBOSE:-0}

apt_install() {
  command -v apt-get >/dev/null 2>&1 || { log "missing: $* (install them; no apt-get here)"; exit 1; }
  log "installing Debian packages: $*"
  local sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "$@" >/dev/null
}

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
  [ ${#missing[@]} -eq 0 ] || apt_install "${missing[@]}"
}

# The Python tools' requirements, pinned with hashes in tools/requirements.lock
# (from tools/pyproject.toml by tools/lock-requirements; docs/setup.md). In order:
#   1. python3 as it is when it has exactly the locked versions (nothing is downloaded);
#   2. the project's virtual environment .venv/ when it has them;
#   3. .venv/ made or brought to the lock: pip install --require-hashes -r tools/requirements.lock;
#   4. when that cannot be done (an air-gapped GPU runner), python3 or .venv/ as it is
#      if it meets pyproject.toml's lower bounds for the groups asked for, with a
#      warning: the numbers are the same, redrawn charts may differ from the
#      committed ones in their bytes.
# Argument: the optional groups this command needs: "", "[test]" or "[lint]"
# (the lock holds every group; the lower-bound check of step 4 only these).
VENV=$ROOT/.venv
LOCK=$ROOT/tools/requirements.lock
ensure_python_packages() {
  local groups=() py
  IFS=', ' read -r -a groups <<<"$(printf '%s' "${1:-}" | tr -d '[]')"
  command -v python3 >/dev/null 2>&1 || apt_install python3
  python3 "$ROOT/tools/requirements.py" --check-lock 2>/dev/null && return 0
  if ! { [ -x "$VENV/bin/python3" ] && "$VENV/bin/python3" "$ROOT/tools/requirements.py" --check-lock 2>/dev/null; } &&
    ! make_venv; then
    for py in "$VENV/bin/python3" python3; do
      [ "$py" = python3 ] || [ -x "$py" ] || continue
      if "$py" "$ROOT/tools/requirements.py" --check ${groups[@]+"${groups[@]}"} 2>/dev/null; then
        log "warning: using $(command -v "$py") as it is, not at tools/requirements.lock: charts it draws may differ in bytes from the committed ones"
        [ "$py" = python3 ] || export PATH=$VENV/bin:$PATH
        return 0
      fi
    done
    python3 "$ROOT/tools/requirements.py" --check ${groups[@]+"${groups[@]}"} || true
    log "no Python with the tools' requirements: install tools/requirements.lock's packages into python3 (pip install --require-hashes -r tools/requirements.lock)"
    exit 1
  fi
  export PATH=$VENV/bin:$PATH
}

# Makes .venv/ (once) and installs the lock into it; returns 1 when pip cannot
# (no network), leaving the decision to the caller.
make_venv() {
  # Debian keeps venv's pip bootstrap (ensurepip) in python3-venv.
  python3 -c 'import venv, ensurepip' 2>/dev/null || apt_install python3-venv
  if ! "$VENV/bin/python3" -c '' 2>/dev/null; then
    log "making the project's virtual environment .venv/ with $(command -v python3)"
    python3 -m venv --clear "$VENV"
  fi
  log "installing tools/requirements.lock into .venv/ (pinned versions, --require-hashes)"
  if ! "$VENV/bin/python3" -m pip install -q --disable-pip-version-check --retries 1 --timeout 20 \
    --require-hashes -r "$LOCK"; then
    log "could not install the lock into .venv/ (no network?)"
    return 1
  fi
  "$VENV/bin/python3" "$ROOT/tools/requirements.py" --check-lock
}

# Builds into $BUILD_DIR (default build/); CUDABENCH_CMAKE_ARGS adds configure
# options, e.g. BUILD_DIR=build-slow CUDABENCH_CMAKE_ARGS=-DCUDABENCH_PLANTED_SLOWDOWN=ON;
# CUDABENCH_BUILD_TARGET builds that target only (default: all).
# The options a folder was configured with are kept beside its cache
# ($BUILD_DIR/cudabench-cmake-args; a folder without it counts as configured with
# none): other options reconfigure the folder from scratch, so a planted slowdown
# or another CCCL never stays in a folder built without asking for it.
# Quiet: the output goes to $BUILD_DIR/build-log.txt, shown when the build fails.
BUILD_DIR=${BUILD_DIR:-build}
# Whether $1 (a build folder) was configured with CUDABENCH_CMAKE_ARGS as they are now.
configured_as_asked() {
  local had=""
  [ -f "$1/CMakeCache.txt" ] || return 1
  [ ! -f "$1/cudabench-cmake-args" ] || had=$(cat "$1/cudabench-cmake-args")
  [ "$had" = "${CUDABENCH_CMAKE_ARGS:-}" ]
}
build() {
  local build_log=$BUILD_DIR/build-log.txt configure=()
  if [ -f "$BUILD_DIR/CMakeCache.txt" ] && ! configured_as_asked "$BUILD_DIR"; then
    log "$BUILD_DIR/ was configured with CUDABENCH_CMAKE_ARGS='$(cat "$BUILD_DIR/cudabench-cmake-args" 2>/dev/null)'; configuring it again with '${CUDABENCH_CMAKE_ARGS:-}'"
    rm -rf "$BUILD_DIR/CMakeCache.txt" "$BUILD_DIR/CMakeFiles" "$BUILD_DIR/build.ninja" "$BUILD_DIR/Makefile" \
      "$BUILD_DIR/cudabench-cmake-args"
  fi
  if [ ! -f "$BUILD_DIR/CMakeCache.txt" ]; then
    configure=(cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release)
    command -v ninja >/dev/null 2>&1 && configure+=(-G Ninja)
    command -v ccache >/dev/null 2>&1 &&
      configure+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
    # shellcheck disable=SC2206  # CUDABENCH_CMAKE_ARGS is a list of options
    configure+=(${CUDABENCH_CMAKE_ARGS:-})
  elif [ ! -f "$BUILD_DIR/build.ninja" ] && [ ! -f "$BUILD_DIR/Makefile" ]; then
    configure=(cmake -S . -B "$BUILD_DIR")  # an earlier configure failed: again, with its cache
  fi
  mkdir -p "$BUILD_DIR"
  log "building into $BUILD_DIR/ (log: $build_log)"
  local rc=0
  if [ "$CUDABENCH_VERBOSE" = 1 ]; then
    { [ ${#configure[@]} -eq 0 ] || "${configure[@]}"; } 2>&1 | tee "$build_log" || rc=$?
    [ $rc -ne 0 ] || cmake --build "$BUILD_DIR" -j "$(nproc)" ${CUDABENCH_BUILD_TARGET:+--target "$CUDABENCH_BUILD_TARGET"} 2>&1 |
      tee -a "$build_log" || rc=$?
  else
    { { [ ${#configure[@]} -eq 0 ] || "${configure[@]}"; } &&
      cmake --build "$BUILD_DIR" -j "$(nproc)" ${CUDABENCH_BUILD_TARGET:+--target "$CUDABENCH_BUILD_TARGET"}; } \
      >"$build_log" 2>&1 || rc=$?
    [ $rc -eq 0 ] || cat "$build_log" >&2
  fi
  [ $rc -eq 0 ] || { log "build failed (exit $rc); log: $build_log"; exit 1; }
  # Only a folder that configured and built says what it was configured with: after
  # a failure the next build starts from scratch again.
  printf '%s' "${CUDABENCH_CMAKE_ARGS:-}" >"$BUILD_DIR/cudabench-cmake-args"
}

# A revision's commit (git rev-parse), or exit 2 naming it.
revision() {
  git rev-parse --verify --quiet "$1^{commit}" ||
    { log "'$1' is not a revision of this repository (git rev-parse; cuda_bench options take --name=value); nothing was built or measured"; exit 2; }
}

# Builds commit $1 in its own worktree build/ab/<sha>/src and build folder
# build/ab/<sha>/build (build-<checksum> for CMake options other than none; reused);
# sets built to its cuda_bench. With $2 = base, CUDABENCH_BASE_CMAKE_ARGS, when
# set (empty too), replaces CUDABENCH_CMAKE_ARGS: a planted candidate against a
# clean base.
built=""
build_revision() {
  local sha=$1 dir=$ROOT/build/ab/$1 CUDABENCH_CMAKE_ARGS=${CUDABENCH_CMAKE_ARGS:-}
  [ "${2:-}" != base ] || CUDABENCH_CMAKE_ARGS=${CUDABENCH_BASE_CMAKE_ARGS-$CUDABENCH_CMAKE_ARGS}
  local folder=$dir/build
  [ -z "$CUDABENCH_CMAKE_ARGS" ] || folder+=-$(printf '%s' "$CUDABENCH_CMAKE_ARGS" | cksum | cut -d' ' -f1)
  built=$folder/cuda_bench
  if [ -x "$built" ] && configured_as_asked "$folder"; then
    log "reusing the build of ${sha:0:12}: ${built#"$ROOT"/}"
    return 0
  fi
  if [ ! -e "$dir/src/.git" ]; then
    git worktree prune
    mkdir -p "$dir"
    git worktree add --detach "$dir/src" "$sha" >/dev/null 2>&1 ||
      { log "git worktree add $dir/src ${sha:0:12} failed"; exit 1; }
  fi
  (cd "$dir/src" && BUILD_DIR=$folder build)
  [ -x "$built" ] || { log "the build of ${sha:0:12} made no cuda_bench (${built#"$ROOT"/})"; exit 1; }
}

# Whether the cuda_bench at $1 lists the option $2 (a name of letters and '-':
# --launch, --keep-samples) in its --help, at the start of a line (not an option
# another one's text mentions): how run-ab and run-regression --base tell an older
# build's options. (The help is read whole first: grep -q closing a pipe early
# would fail it under pipefail.)
bench_has_option() {
  local help
  help=$("$1" --help 2>&1 || true)
  grep -qE -- "^[[:space:]]*$2([= ]|$)" <<<"$help"
}

# This machine's NVIDIA GPUs from nvidia-smi: GPU_NAMES (one a line), or
# GPU_PROBLEM saying why there is none (return 1).
# shellcheck disable=SC2034  # both are read by the sourcing script
detect_gpus() {
  GPU_NAMES="" GPU_PROBLEM=""
  if ! command -v nvidia-smi >/dev/null 2>&1; then
    GPU_PROBLEM="no NVIDIA driver (nvidia-smi not found)"
    return 1
  fi
  local out
  if ! out=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>&1) || [ -z "$out" ]; then
    GPU_PROBLEM="nvidia-smi: $(printf '%s\n' "${out:-lists no GPU}" | head -n 1)"
    return 1
  fi
  GPU_NAMES=$out
}

# A GPU name as a file name, exactly as slug() in src/harness/device.cpp makes
# it for results files: ASCII letters and digits lowercased, every other run
# of characters one '-', none at either end ("NVIDIA H200" -> nvidia-h200).
gpu_slug() {
  local s
  s=$(printf '%s' "$1" | LC_ALL=C tr '[:upper:]' '[:lower:]' | LC_ALL=C sed -E 's/[^a-z0-9]+/-/g; s/^-//; s/-$//')
  printf '%s\n' "${s:-unknown-gpu}"
}

# A path the user gave, taken from the folder the script was called from: each script
# that takes one sets caller=$PWD before it changes to the repository root.
from_caller() { case "$1" in /*) printf '%s' "$1" ;; *) printf '%s/%s' "$caller" "$1" ;; esac; }

# A run's new outputs are written into a temporary folder inside its output folder
# first, and replace the previous outputs only once the run has succeeded:
#   stage_outputs OUT               makes OUT (if missing) and staging=OUT/.<script>.XXXXXX,
#                                   removed when the script exits, however it ends
#                                   (done, failed, interrupted)
#   replace_outputs OUT REMOVE...   the run succeeded: runs REMOVE (the command that removes
#                                   the previous outputs, only the script's own files), then
#                                   moves every file of staging into OUT
staging=""
stage_outputs() {
  mkdir -p "$1"
  staging=$(mktemp -d "$1/.${0##*/}.XXXXXX")
  trap 'rm -rf "$staging"' EXIT
}
replace_outputs() {
  local out=$1
  shift
  "$@"
  mv "$staging"/* "$out"/
}

export PYTHONPATH="$ROOT/tools${PYTHONPATH:+:$PYTHONPATH}"
