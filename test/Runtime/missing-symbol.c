// Every driver symbol is checked at open: a library lacking one (here a double
// without cuLaunchKernel) is SG_ERR_NO_DRIVER naming the symbol, and the
// library is closed again. The double's path is derived from %fake_cuda.
// RUN: %cc -std=c11 -I%include -I%S/Inputs %s -L%rtlib -lsoftgen_rt -Wl,-rpath,%rtlib -o %t
// RUN: %t %fake_cuda 2>&1 | FileCheck %s
#include "rt_test.h"

int main(int argc, char **argv) {
  char path[4096];
  if (argc < 2)
    return 2;
  snprintf(path, sizeof path, "%s", argv[1]);
  char *slash = strrchr(path, '/');
  snprintf(slash + 1, sizeof path - (size_t)(slash + 1 - path), "libfake_cuda_nosym.so");
  setenv("SOFTGEN_CUDA_LIBRARY", path, 1);
  sgrt_runtime *rt = NULL;
  sg_diag d;
  for (int i = 0; i < 2; i++) {
    sg_status st = sgrt_open(SGRT_BACKEND_CUDA, 0, &rt, &d);
    report("open nosym", st, &d);
    printf("runtime %s\n", rt ? "non-null" : "null");
  }
  setenv("SOFTGEN_CUDA_LIBRARY", argv[1], 1);
  report("open full", sgrt_open(SGRT_BACKEND_CUDA, 0, &rt, &d), &d);
  sgrt_close(rt);
  return 0;
}
// CHECK: open nosym: SG_ERR_NO_DRIVER: driver library {{.*}}libfake_cuda_nosym.so lacks symbol cuLaunchKernel
// CHECK-NEXT: runtime null
// CHECK-NEXT: open nosym: SG_ERR_NO_DRIVER: driver library {{.*}}libfake_cuda_nosym.so lacks symbol cuLaunchKernel
// CHECK-NEXT: runtime null
// CHECK: open full: SG_OK
