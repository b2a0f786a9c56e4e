# Which GPU architectures to build for, decided before project() enables CUDA.
#
#   1. CMAKE_CUDA_ARCHITECTURES (-D or cache) or the CUDAARCHS environment
#      variable, when given, win.
#   2. Otherwise every distinct compute capability that nvidia-smi reports on
#      this machine (all its GPUs), e.g. "86;90".
#   3. Otherwise (no GPU, no driver, an nvidia-smi too old for compute_cap): 90.
#
# Never CMake's `native`: it fails to configure on machines without a GPU, and
# it cannot see every GPU of a mixed host when CUDA_VISIBLE_DEVICES hides some.
# The choice is printed; the driver records it (CUDABENCH_CUDA_ARCHITECTURES) and
# names it when a GPU finds no code for itself in the binary.

set(CUDABENCH_FALLBACK_CUDA_ARCHITECTURES 90)
# Oldest architecture CUDA 13 compiles for.
set(CUDABENCH_MIN_CUDA_ARCHITECTURE 75)

# "8.6\n9.0\n8.6\n" (nvidia-smi --query-gpu=compute_cap --format=csv,noheader)
# -> "86;90" in <out>; architectures older than CUDA 13 supports go to <dropped>.
function(cudabench_archs_from_compute_caps text out dropped)
  string(REPLACE "\r" "" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(archs "")
  set(old "")
  foreach(line IN LISTS lines)
    string(STRIP "${line}" line)
    if(line MATCHES "^([0-9]+)\\.([0-9]+)$")
      set(arch "${CMAKE_MATCH_1}${CMAKE_MATCH_2}")
      if(arch LESS CUDABENCH_MIN_CUDA_ARCHITECTURE)
        list(APPEND old "${line}")
      else()
        list(APPEND archs "${arch}")
      endif()
    endif()
  endforeach()
  list(REMOVE_DUPLICATES archs)
  list(SORT archs COMPARE NATURAL)
  list(REMOVE_DUPLICATES old)
  set(${out} "${archs}" PARENT_SCOPE)
  set(${dropped} "${old}" PARENT_SCOPE)
endfunction()

# Sets CMAKE_CUDA_ARCHITECTURES (a normal variable, so that the next configure
# on another machine detects again) unless the user gave it, and says why.
# CUDABENCH_NVIDIA_SMI names the program to ask (tests point it at a fake).
function(cudabench_choose_cuda_architectures)
  if(DEFINED CMAKE_CUDA_ARCHITECTURES)
    message(STATUS "cuda_bench: CUDA architectures ${CMAKE_CUDA_ARCHITECTURES} (given by CMAKE_CUDA_ARCHITECTURES)")
    return()
  endif()
  if(DEFINED ENV{CUDAARCHS})
    message(STATUS "cuda_bench: CUDA architectures $ENV{CUDAARCHS} (given by the CUDAARCHS environment variable)")
    return()
  endif()
  if(DEFINED CUDABENCH_NVIDIA_SMI)
    set(smi "${CUDABENCH_NVIDIA_SMI}")
  else()
    find_program(smi nvidia-smi NO_CACHE)
  endif()
  set(archs "")
  set(old "")
  set(why "no nvidia-smi on PATH")
  if(smi)
    execute_process(COMMAND "${smi}" --query-gpu=compute_cap --format=csv,noheader
      OUTPUT_VARIABLE caps ERROR_VARIABLE err RESULT_VARIABLE rc TIMEOUT 30)
    if(rc EQUAL 0)
      cudabench_archs_from_compute_caps("${caps}" archs old)
      string(STRIP "${caps}" caps)
      string(REPLACE "\n" ";" caps "${caps}")
      list(REMOVE_DUPLICATES caps)
      list(JOIN caps ", " caps)
      set(why "nvidia-smi reported no GPU")
      if(archs)
        set(why "the GPUs of this machine, compute capability ${caps} (nvidia-smi)")
      endif()
    else()
      string(STRIP "${err}" err)
      set(why "nvidia-smi failed (${rc})")
      if(err)
        set(why "${why}: ${err}")
      endif()
    endif()
  endif()
  if(old)
    message(WARNING "cuda_bench: CUDA 13 cannot build for compute capability ${old}; those GPUs are left out")
  endif()
  if(archs)
    set(CMAKE_CUDA_ARCHITECTURES "${archs}" PARENT_SCOPE)
    message(STATUS "cuda_bench: CUDA architectures ${archs} (${why}); -DCMAKE_CUDA_ARCHITECTURES=... overrides")
  else()
    set(CMAKE_CUDA_ARCHITECTURES "${CUDABENCH_FALLBACK_CUDA_ARCHITECTURES}" PARENT_SCOPE)
    message(STATUS "cuda_bench: CUDA architectures ${CUDABENCH_FALLBACK_CUDA_ARCHITECTURES} "
                   "(no GPU detected: ${why}); -DCMAKE_CUDA_ARCHITECTURES=... overrides")
  endif()
endfunction()
