// Runs cnn (symbolic-window.test) on images of the sizes given as
// arguments (H W pairs, batch 1) and prints run()'s status for each.
#include "cnn.h"

#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char **argv) {
  for (int i = 1; i + 1 < argc; i += 2) {
    int64_t h = std::atoll(argv[i]), w = std::atoll(argv[i + 1]);
    size_t size = cnn_arena_size(1, h, w);
    size_t rounded = (size + cnn_ARENA_ALIGN - 1) / cnn_ARENA_ALIGN * cnn_ARENA_ALIGN;
    void *arena = std::aligned_alloc(cnn_ARENA_ALIGN, rounded ? rounded : cnn_ARENA_ALIGN);
    std::vector<float> x(static_cast<size_t>(3 * h * w), 0.5f), y(4, 0.0f);
    int status = cnn_run(arena, size, 1, h, w, x.data(), y.data());
    std::printf("%lldx%lld: status %d\n", static_cast<long long>(h), static_cast<long long>(w),
                status);
    std::free(arena);
  }
  return 0;
}
