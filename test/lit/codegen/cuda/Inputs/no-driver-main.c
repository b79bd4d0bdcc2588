/* Without a CUDA driver, creating the model fails with status 20 and a
   message; nothing else is touched. Built as C against the generated header. */
#include "tiny_cnn.h"

#include <stdio.h>

int main(void) {
  tiny_cnn_cuda *model = (tiny_cnn_cuda *)1;
  int status = tiny_cnn_cuda_create(&model, 0);
  printf("create: %d (%s), model %s\n", status, tiny_cnn_cuda_status_message(NULL, status),
         model ? "set" : "null");
  /* run with a null model is status 1, destroy of null is a no-op */
  printf("run: %d\n", tiny_cnn_cuda_run(NULL, NULL, 1, NULL, NULL));
  tiny_cnn_cuda_destroy(NULL);
  return status == 20 ? 0 : 1;
}
