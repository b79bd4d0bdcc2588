/* A C application of a model compiled with --profile (report-model.py's,
   named r): without a table attached run() writes nothing; attached, every
   mark is written once per run, in order; detached again, nothing. Prints
   the node of each mark and exits 1 at the first broken promise. */
#include "r.h"

#include <stdio.h>
#include <stdlib.h>

static float x[1 * 4 * 16 * 16], y[3];

static int run(void) {
  static _Alignas(64) unsigned char arena[r_ARENA_SIZE];
  return r_run(arena, x, y);
}

int main(void) {
  int64_t stamps[r_PROFILE_MARKS];
  int k;
  for (k = 0; k < 1 * 4 * 16 * 16; ++k)
    x[k] = (float)(k % 7) - 3.0f;
  for (k = 0; k < r_PROFILE_MARKS; ++k)
    stamps[k] = -1;
  if (run() != 0)
    return 1;
  for (k = 0; k < r_PROFILE_MARKS; ++k)
    if (stamps[k] != -1) {
      printf("mark %d written without a table\n", k);
      return 1;
    }
  r_profile_attach(stamps);
  if (run() != 0)
    return 1;
  for (k = 0; k < r_PROFILE_MARKS; ++k)
    if (stamps[k] < 0 || (k > 0 && stamps[k] < stamps[k - 1])) {
      printf("mark %d not after mark %d\n", k, k - 1);
      return 1;
    }
  r_profile_attach(NULL);
  stamps[0] = -1;
  if (run() != 0 || stamps[0] != -1) {
    printf("a run after detaching wrote the table\n");
    return 1;
  }
  if (r_profile_mark_node[r_PROFILE_MARKS - 1] != -1) {
    printf("the last mark is not the end of run()\n");
    return 1;
  }
  for (k = 0; k + 1 < r_PROFILE_MARKS; ++k) {
    const r_profile_node *node = &r_profile_nodes[r_profile_mark_node[k]];
    printf("mark %d: %s %s %s\n", k, node->name, node->op_type, node->path);
  }
  printf("%d nodes, %d marks\n", r_PROFILE_NODES, r_PROFILE_MARKS);
  return 0;
}
