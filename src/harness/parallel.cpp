#include "harness/parallel.hpp"

#include <algorithm>
#include <thread>
#include <vector>

namespace bench {

unsigned default_chunks(std::size_t n) {
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  // Small inputs are not worth a thread each.
  const std::size_t by_size = std::max<std::size_t>(1, n / (1u << 16));
  return static_cast<unsigned>(std::min<std::size_t>(hw, by_size));
}

void parallel_chunks(std::size_t n, const std::function<void(std::size_t, std::size_t, unsigned)>& fn,
                     unsigned chunks) {
  if (chunks == 0) chunks = default_chunks(n);
  if (chunks <= 1) {
    fn(0, n, 0);
    return;
  }
  std::vector<std::thread> threads;
  threads.reserve(chunks);
  for (unsigned c = 0; c < chunks; ++c) {
    const std::size_t begin = n * c / chunks, end = n * (c + 1) / chunks;
    threads.emplace_back(fn, begin, end, c);
  }
  for (auto& t : threads) t.join();
}

}  // namespace bench
