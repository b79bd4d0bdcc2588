/* main.c - a C99 program that calls a model compiled by onnxcc through its C ABI
 * (codegen/cpp/ABI.md).
 *
 * mlp.onnx has a symbolic batch dim, so the arena is sized at run time with
 * mlp_arena_size(batch). The program lists the model's inputs and outputs from
 * the mlp_inputs/mlp_outputs tables, sizes every buffer from them, runs the
 * model through mlp_run_generic (arrays of pointers, for harnesses that do not
 * know the model) and through the typed mlp_run, checks that both give the
 * same bytes, and prints the outputs. */
#include "mlp.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BATCH 3

static void print_info(const char *kind, const mlp_tensor_info *info) {
  int32_t d;
  printf("%s %s %s [", kind, info->name, info->dtype);
  for (d = 0; d < info->rank; ++d)
    printf("%s%lld", d ? ", " : "", (long long)info->shape[d]);
  printf("]\n");
}

/* Elements of a tensor for the given batch (the model's only symbol). */
static size_t num_elements(const mlp_tensor_info *info, int64_t batch) {
  size_t n = 1;
  int32_t d;
  for (d = 0; d < info->rank; ++d)
    n *= (size_t)(info->shape[d] < 0 ? batch : info->shape[d]);
  return n;
}

int main(void) {
  const int64_t dims[mlp_NUM_SYMBOLS] = {BATCH}; /* in mlp_symbols order: "batch" */
  size_t arena_size, n_in, n_hidden, n_probs;
  unsigned char *arena_memory;
  void *arena;
  float *features, *outputs[mlp_NUM_OUTPUTS], *typed[mlp_NUM_OUTPUTS];
  const void *inputs[mlp_NUM_INPUTS];
  int status, i, b, k;

  if (mlp_NUM_SYMBOLS != 1 || strcmp(mlp_symbols[0], "batch") != 0) {
    fprintf(stderr, "c_api: error: expected one symbolic dim, batch\n");
    return 1;
  }
  for (i = 0; i < mlp_NUM_INPUTS; ++i)
    print_info("input", &mlp_inputs[i]);
  for (i = 0; i < mlp_NUM_OUTPUTS; ++i)
    print_info("output", &mlp_outputs[i]);

  /* The arena: mlp_arena_size(batch) bytes aligned to mlp_ARENA_ALIGN (done by
   * hand here: C99 has no aligned_alloc). */
  arena_size = mlp_arena_size(BATCH);
  arena_memory = (unsigned char *)malloc(arena_size + mlp_ARENA_ALIGN);
  n_in = num_elements(&mlp_inputs[0], BATCH);
  n_hidden = num_elements(&mlp_outputs[0], BATCH);
  n_probs = num_elements(&mlp_outputs[1], BATCH);
  features = (float *)malloc(n_in * sizeof(float));
  outputs[0] = (float *)malloc(n_hidden * sizeof(float));
  outputs[1] = (float *)malloc(n_probs * sizeof(float));
  typed[0] = (float *)malloc(n_hidden * sizeof(float));
  typed[1] = (float *)malloc(n_probs * sizeof(float));
  if (!arena_memory || !features || !outputs[0] || !outputs[1] || !typed[0] || !typed[1]) {
    fprintf(stderr, "c_api: error: out of memory\n");
    return 1;
  }
  arena = arena_memory + (mlp_ARENA_ALIGN - (uintptr_t)arena_memory % mlp_ARENA_ALIGN) %
                             mlp_ARENA_ALIGN;

  /* The same inputs as make_mlp.py's reference. */
  for (i = 0; i < (int)n_in; ++i)
    features[i] = (float)(i % 7) / 7.0f - 0.5f;
  inputs[0] = features;

  status = mlp_run_generic(arena, arena_size, dims, inputs, (void *const *)outputs);
  if (status == 0)
    status = mlp_run(arena, arena_size, BATCH, features, typed[0], typed[1]);
  if (status != 0) {
    fprintf(stderr, "c_api: error: the model failed with status %d\n", status);
    return 1;
  }
  if (memcmp(outputs[0], typed[0], n_hidden * sizeof(float)) != 0 ||
      memcmp(outputs[1], typed[1], n_probs * sizeof(float)) != 0) {
    fprintf(stderr, "c_api: error: mlp_run and mlp_run_generic disagree\n");
    return 1;
  }

  printf("batch %d\n", BATCH);
  for (b = 0; b < BATCH; ++b) {
    printf("hidden[%d]", b);
    for (k = 0; k < (int)(n_hidden / BATCH); ++k)
      printf(" %.6e", outputs[0][b * (n_hidden / BATCH) + k]);
    printf("\nprobabilities[%d]", b);
    for (k = 0; k < (int)(n_probs / BATCH); ++k)
      printf(" %.6e", outputs[1][b * (n_probs / BATCH) + k]);
    printf("\n");
  }
  free(typed[1]);
  free(typed[0]);
  free(outputs[1]);
  free(outputs[0]);
  free(features);
  free(arena_memory);
  return 0;
}
