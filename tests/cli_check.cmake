# Runs one cuda_bench command line and checks its exit code and output:
#   cmake -DEXE=... -DARGS="a;b" -DEXPECT_RC=N -DEXPECT_REGEX=... -P cli_check.cmake
# NO_GPU_ONLY: a check of the no-GPU path, skipped (CTest's SKIP_REGULAR_EXPRESSION)
# where a GPU is present, since there the command would measure instead.
if(NO_GPU_ONLY)
  execute_process(COMMAND nvidia-smi -L RESULT_VARIABLE smi_rc OUTPUT_QUIET ERROR_QUIET)
  if(smi_rc EQUAL 0)
    message("SKIPPED: a GPU is present; this test checks the no-GPU path")
    return()
  endif()
endif()
execute_process(COMMAND ${EXE} ${ARGS} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL EXPECT_RC)
  message(FATAL_ERROR "exit code ${rc}, expected ${EXPECT_RC}\nstdout:\n${out}\nstderr:\n${err}")
endif()
if(NOT "${out}${err}" MATCHES "${EXPECT_REGEX}")
  message(FATAL_ERROR "output does not match '${EXPECT_REGEX}'\nstdout:\n${out}\nstderr:\n${err}")
endif()
