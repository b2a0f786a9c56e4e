# Checks cmake/CudaArchitectures.cmake with stand-ins for nvidia-smi:
#   cmake -DMODULE=.../CudaArchitectures.cmake -DWORK=<scratch dir> -P cuda_archs_check.cmake
include(${MODULE})
file(MAKE_DIRECTORY ${WORK})

function(expect what got want)
  if(NOT "${got}" STREQUAL "${want}")
    message(FATAL_ERROR "${what}: got '${got}', expected '${want}'")
  endif()
endfunction()

# Parsing nvidia-smi's lines: distinct, sorted, too-old GPUs set apart.
cudabench_archs_from_compute_caps("9.0\n8.6\r\n9.0\n12.0\n" archs old)
expect("mixed host" "${archs}" "86;90;120")
expect("mixed host, old" "${old}" "")
cudabench_archs_from_compute_caps("7.0\n8.0\n" archs old)
expect("with a V100" "${archs}" "80")
expect("with a V100, old" "${old}" "7.0")
cudabench_archs_from_compute_caps("No devices were found\n" archs old)
expect("no GPU" "${archs}" "")

# A fake nvidia-smi that prints its argument file.
function(fake_smi name text rc)
  file(WRITE ${WORK}/${name}.txt "${text}")
  file(WRITE ${WORK}/${name} "#!/bin/sh\ncat '${WORK}/${name}.txt'\nexit ${rc}\n")
  file(CHMOD ${WORK}/${name} PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
endfunction()

function(choose smi out)
  unset(CMAKE_CUDA_ARCHITECTURES)
  set(CUDABENCH_NVIDIA_SMI "${smi}")
  cudabench_choose_cuda_architectures()
  set(${out} "${CMAKE_CUDA_ARCHITECTURES}" PARENT_SCOPE)
endfunction()

unset(ENV{CUDAARCHS})
fake_smi(smi_two "8.9\n9.0\n8.9\n" 0)
choose(${WORK}/smi_two got)
expect("two GPU models" "${got}" "89;90")
fake_smi(smi_fails "" 9)
choose(${WORK}/smi_fails got)
expect("nvidia-smi fails" "${got}" "90")
choose(${WORK}/no_such_program got)
expect("no nvidia-smi" "${got}" "90")

# Given values win.
set(CMAKE_CUDA_ARCHITECTURES 80)
set(CUDABENCH_NVIDIA_SMI ${WORK}/smi_two)
cudabench_choose_cuda_architectures()
expect("given" "${CMAKE_CUDA_ARCHITECTURES}" "80")
