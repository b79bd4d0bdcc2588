// test_rng.h - the seeded generator the kernel tests of test/runtime draw
// their cases from (xorshift64: the same sequence on every host and ISA).
#ifndef ONNXCC_TEST_RUNTIME_TEST_RNG_H
#define ONNXCC_TEST_RUNTIME_TEST_RNG_H

#include <cstdint>

struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed * 0x9E3779B97F4A7C15ull + 1) {}
  uint32_t next() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return static_cast<uint32_t>(s >> 11);
  }
  float uniform() { return (next() & 0xffffff) / float(1 << 23) - 1.0f; } // [-1, 1)
  int below(int n) { return static_cast<int>(next() % static_cast<uint32_t>(n)); }
};

#endif // ONNXCC_TEST_RUNTIME_TEST_RNG_H
