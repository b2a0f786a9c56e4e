// The combining operators the block-level building blocks are generic over:
// each has an identity and an associative combine.
#pragma once

#include <limits>

namespace bench {

struct Sum {
  template <class T> __host__ __device__ static T identity() { return T(0); }
  template <class T> __host__ __device__ static T combine(T a, T b) { return a + b; }
};

struct Max {
  template <class T> __host__ __device__ static T identity() { return std::numeric_limits<T>::lowest(); }
  template <class T> __host__ __device__ static T combine(T a, T b) { return b > a ? b : a; }
};

struct Min {
  template <class T> __host__ __device__ static T identity() { return std::numeric_limits<T>::max(); }
  template <class T> __host__ __device__ static T combine(T a, T b) { return b < a ? b : a; }
};

}  // namespace bench
