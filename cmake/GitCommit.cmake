# Writes OUTPUT with the commit of SOURCE_DIR ("unknown" outside a git checkout) and the
# hash of what the binaries are built from (CUDABENCH_SOURCE_HASH: SHA-256, first 16 hex
# digits, of a manifest: the path and SHA-256 of every file under src/, bench/ and cmake/
# and of CMakeLists.txt, in path order, git or not, committed or not; hidden files such
# as editor locks left out; then BUILD_CONFIG, the configuration CMakeLists.txt passes:
# build type, architectures, compilers and flags, CCCL, Google Benchmark, test-only
# options). Two builds of one source hash run the same code whatever their commits (a
# commit that changes only the tools or the docs keeps it): the gate's noise model pools
# their A/A runs as one build. The file is touched only when the text changes, so that
# nothing rebuilds needlessly.
execute_process(COMMAND git -C "${SOURCE_DIR}" rev-parse HEAD
  OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR commit STREQUAL "")
  set(commit "unknown")
else()
  execute_process(COMMAND git -C "${SOURCE_DIR}" status --porcelain --untracked-files=no
    OUTPUT_VARIABLE dirty OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(NOT dirty STREQUAL "")
    string(APPEND commit "-dirty")
  endif()
endif()
file(GLOB_RECURSE sources LIST_DIRECTORIES false FOLLOW_SYMLINKS RELATIVE "${SOURCE_DIR}"
  "${SOURCE_DIR}/src/*" "${SOURCE_DIR}/bench/*" "${SOURCE_DIR}/cmake/*")
list(APPEND sources CMakeLists.txt)
list(SORT sources)
set(manifest "")
foreach(f IN LISTS sources)
  if(f MATCHES "(^|/)\\." OR NOT EXISTS "${SOURCE_DIR}/${f}" OR IS_DIRECTORY "${SOURCE_DIR}/${f}")
    continue()  # hidden (editor locks and swap files), or a dangling link
  endif()
  file(SHA256 "${SOURCE_DIR}/${f}" h)
  string(APPEND manifest "${f} ${h}\n")
endforeach()
string(APPEND manifest "config ${BUILD_CONFIG}\n")
string(SHA256 source_hash "${manifest}")
string(SUBSTRING "${source_hash}" 0 16 source_hash)
set(text "#pragma once\n#define CUDABENCH_GIT_COMMIT \"${commit}\"\n#define CUDABENCH_SOURCE_HASH \"${source_hash}\"\n")
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUTPUT}" "${text}")
endif()
