/* A hand-written stand-in for `onnxcc compile` output (codegen/cpp/ABI.md), so
   that verify's harness and comparison are tested without the compiler:
     y = x + w   (float32[2,3]; w = 1.0, read from fake.cpp.weights)
     m = n * 2   (int64[3])
     b = n > 0   (bool[3])
   An x[0] of -999 makes run() crash, for the crash report. */
#ifndef FAKE_H
#define FAKE_H
#include <stddef.h>
#include <stdint.h>

#define fake_ARENA_SIZE 64
#define fake_ARENA_ALIGN 64
#define fake_NUM_INPUTS 2
#define fake_NUM_OUTPUTS 3

#ifdef __cplusplus
extern "C" {
#endif
typedef struct fake_tensor_info {
  const char *name;
  const char *dtype;
  int32_t elem_size;
  int32_t rank;
  const int64_t *shape;
} fake_tensor_info;
extern const fake_tensor_info fake_inputs[];
extern const fake_tensor_info fake_outputs[];

int fake_run(void *arena, const float *x, const int64_t *n, float *y, int64_t *m,
             uint8_t *b);
int fake_run_generic(void *arena, const void *const *inputs, void *const *outputs);
#ifdef __cplusplus
}
#endif
#endif
