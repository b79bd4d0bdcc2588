/* Runs invalid.onnx (Inputs/control-flow-model.py, compiled with x of 6
   elements): the then branch, then the else branch that cannot run. */
#include "invalid.h"

#include <stdbool.h>
#include <stdio.h>

int main(void) {
  static _Alignas(64) unsigned char arena[invalid_ARENA_SIZE + 64];
  float x[6] = {0, 1, 2, 3, 4, 5}, y[6] = {0};
  bool yes = true, no = false;
  int status = invalid_run(arena, x, &yes, y);
  printf("then %d %g %g\n", status, y[0], y[5]);
  printf("else %d\n", invalid_run(arena, x, &no, y));
  return 0;
}
