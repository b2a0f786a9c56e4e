# CUDABENCH_CCCL_DIR: build against another CCCL (CUB, Thrust, libcu++) than the
# CUDA toolkit's, e.g. the newest from PyPI's header-only wheel:
#   tools/cccl-from-wheel                      # nvidia-cuda-cccl 13.3.* -> .cccl/
#   cmake -S . -B build-cccl -DCUDABENCH_CCCL_DIR=$PWD/.cccl ...
# The value is an install prefix (with lib/cmake/cccl) or the folder holding
# cccl-config.cmake. Its headers go on every target's include path with -I, so
# they come before nvcc's own (-I<toolkit>/include, which has nv/, and
# -isystem <toolkit>/include/cccl). The results' cccl_version says which CCCL
# a binary was built with.
set(CUDABENCH_CCCL_DIR "" CACHE PATH
  "Build against the CCCL found here (an install prefix or its lib/cmake/cccl) instead of the CUDA toolkit's")

if(CUDABENCH_CCCL_DIR)
  find_package(CCCL CONFIG REQUIRED NO_DEFAULT_PATH
    PATHS "${CUDABENCH_CCCL_DIR}" "${CUDABENCH_CCCL_DIR}/lib/cmake/cccl")
  set(_cudabench_cccl_include "")
  foreach(candidate "${CCCL_DIR}/../../../include" "${CCCL_DIR}/../../../include/cccl")
    if(EXISTS "${candidate}/cub/version.cuh" AND EXISTS "${candidate}/cuda/std/__cccl/version.h")
      get_filename_component(_cudabench_cccl_include "${candidate}" REALPATH)
      break()
    endif()
  endforeach()
  if(NOT _cudabench_cccl_include)
    message(FATAL_ERROR "CUDABENCH_CCCL_DIR=${CUDABENCH_CCCL_DIR}: CCCL ${CCCL_VERSION}'s package at ${CCCL_DIR} "
                        "has no include/ folder with cub/ and cuda/ beside it (tools/cccl-from-wheel lays a wheel out)")
  endif()
  include_directories(BEFORE "${_cudabench_cccl_include}")
  message(STATUS "CCCL ${CCCL_VERSION} from ${_cudabench_cccl_include} (CUDABENCH_CCCL_DIR)")
endif()
