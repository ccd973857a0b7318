//===- chain_loop.cpp - the dispatch benchmark's chain as a plain C loop --===//
//
// The baseline for gplace-run's dispatch (bench/runtime.py): the chain of
// OPS elementwise ops on 4 floats that runtime.py's program runs (op i is
// add, mul, sub or maximum by i % 4, with the constant 1.0; x starts at
// 1, 2, 3, 4), as a loop over the ops read from an array: what a chain
// costs with no runtime at all. Each op writes its 4 elements to a tensor
// of its own, as the graph's values are (`buffers`), or over its operand
// (`in-place`, a register's worth: the compiler keeps x in one).
// Usage: gplace-bench-chain OPS RUNS [buffers|in-place]; prints one
// sample, as gplace-run's --print-timing gives it: seconds per chain, the
// mean of RUNS chains after one untimed chain.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

int main(int argc, char **argv) {
  if (argc != 3 && argc != 4)
    return std::fprintf(stderr, "usage: gplace-bench-chain OPS RUNS "
                                "[buffers|in-place]\n"),
           1;
  int ops = std::atoi(argv[1]), runs = std::atoi(argv[2]);
  if (ops <= 0 || runs <= 0)
    return std::fprintf(stderr, "OPS and RUNS must be positive\n"), 1;
  std::string mode = argc == 4 ? argv[3] : "buffers";
  if (mode != "buffers" && mode != "in-place")
    return std::fprintf(stderr, "the mode is buffers or in-place\n"), 1;
  // The kinds from memory, so that the compiler cannot fold the chain.
  std::vector<unsigned char> kinds(ops);
  for (int i = 0; i < ops; ++i)
    kinds[i] = static_cast<unsigned char>((i + 1) % 4);
  volatile float one = 1.0f;
  float c = one, sum = 0;
  auto apply = [&](unsigned char kind, const float *in, float *out) {
    for (int j = 0; j < 4; ++j)
      switch (kind) {
      case 0: out[j] = in[j] + c; break;
      case 1: out[j] = in[j] * c; break;
      case 2: out[j] = in[j] - c; break;
      default: out[j] = std::max(in[j], c); break;
      }
  };
  // buffers: value i in values[4 * i, 4 * i + 4).
  std::vector<float> values(4 * (size_t(ops) + 1));
  auto chain = [&] {
    float x[4] = {1, 2, 3, 4};
    if (mode == "in-place") {
      for (unsigned char kind : kinds)
        apply(kind, x, x);
    } else {
      std::copy(x, x + 4, values.data());
      for (int i = 0; i < ops; ++i)
        apply(kinds[i], &values[4 * i], &values[4 * (i + 1)]);
      std::copy_n(&values[4 * size_t(ops)], 4, x);
    }
    sum += x[0] + x[1] + x[2] + x[3];
  };
  chain(); // Untimed, as gplace-run's first run.
  auto start = std::chrono::steady_clock::now();
  for (int r = 0; r < runs; ++r)
    chain();
  std::chrono::duration<double> elapsed =
      std::chrono::steady_clock::now() - start;
  std::printf("%.9f\n", elapsed.count() / runs);
  std::fprintf(stderr, "checksum %g\n", sum);
  return 0;
}
