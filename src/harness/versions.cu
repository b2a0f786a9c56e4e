#include "harness/versions.hpp"

#include <cuda/version>

#include <cstdlib>

#include "git_commit.hpp"

namespace bench {

std::string cccl_version() {
  return std::to_string(CCCL_MAJOR_VERSION) + "." + std::to_string(CCCL_MINOR_VERSION) + "." +
         std::to_string(CCCL_PATCH_VERSION);
}

std::string git_commit() {
  if (const char* env = std::getenv("CUDABENCH_GIT_COMMIT"); env && *env) return env;
  return CUDABENCH_GIT_COMMIT;
}

std::string source_hash() { return CUDABENCH_SOURCE_HASH; }

}  // namespace bench
