// Versions recorded in every results file.
#pragma once

#include <string>

namespace bench {

// CCCL (CUB, Thrust, libcu++) as compiled in, e.g. "3.0.1".
std::string cccl_version();

// The project's git commit at build time ("-dirty" when the tree had local
// changes). The environment variable CUDABENCH_GIT_COMMIT overrides it, for
// builds from a copy of the tree without .git.
std::string git_commit();

// SHA-256 (16 hex digits) of the code the binaries are built from: every file
// under src/, bench/ and cmake/ and CMakeLists.txt, path and content
// (cmake/GitCommit.cmake). Builds of one source hash run the same code whatever
// their commits; the gate pools their A/A runs as one build (docs/gate.md).
std::string source_hash();

}  // namespace bench
