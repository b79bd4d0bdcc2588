// Runs a model compiled with --threads 2 (as `one`) and --threads 1 (as
// `single`) on the same input: on the model's own pool, then on a pool the
// application installs, which here runs the parts in reverse order and
// counts them. Prints whether all three outputs are bitwise equal.
#include "one.h"
#include "single.h"

#include <cstdio>
#include <cstring>

static long parts_run = 0;

static void reverse_serial(void *ctx, int64_t parts, void (*fn)(void *task, int64_t part),
                           void *task) {
  ++*static_cast<int *>(ctx);
  for (int64_t p = parts - 1; p >= 0; --p, ++parts_run)
    fn(task, p);
}

int main() {
  static float image[1 * 3 * 8 * 8];
  for (int i = 0; i < 1 * 3 * 8 * 8; ++i)
    image[i] = static_cast<float>((i * 37) % 11) / 7.0f - 0.5f;
  float a[10], b[10], c[10];
  static one::Model pooled;
  static single::Model plain;
  if (pooled.run(image, a) || plain.run(image, c))
    return 1;
  int jobs = 0;
  one_set_parallel(reverse_serial, &jobs);
  if (pooled.run(image, b))
    return 1;
  std::printf("threads %d, jobs %d, parts %ld, pool %s, own pool %s\n", one_THREADS, jobs,
              parts_run, std::memcmp(a, c, sizeof a) ? "differs" : "same",
              std::memcmp(b, c, sizeof b) ? "differs" : "same");
  return 0;
}
