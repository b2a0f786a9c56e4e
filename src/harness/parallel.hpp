// Host-side data parallelism for input generation and reference results
// (2^30 elements take seconds on one core).
#pragma once

#include <cstddef>
#include <functional>

namespace bench {

// Calls fn(begin, end, chunk) over [0, n) split into `chunks` contiguous ranges,
// one thread per chunk. chunks == 0 picks the hardware concurrency.
void parallel_chunks(std::size_t n, const std::function<void(std::size_t, std::size_t, unsigned)>& fn,
                     unsigned chunks = 0);

// How many chunks parallel_chunks(n, fn, 0) uses.
unsigned default_chunks(std::size_t n);

}  // namespace bench
