// Launch validation of pointers: data aligned to vector_bytes, row stride in
// bytes a multiple of vector_bytes (when there is more than one row), non-NULL
// data when M > 0; NULL data with M == 0 is fine and launches nothing.
// RUN: %cc -std=c11 -I%include -I%S/Inputs %s -L%rtlib -lsoftgen_rt -Wl,-rpath,%rtlib -o %t
// RUN: rm -f %t.log
// RUN: env SOFTGEN_CUDA_LIBRARY=%fake_cuda FAKE_CUDA_LOG=%t.log %t | FileCheck %s
// RUN: FileCheck --check-prefix=LOG %s < %t.log
#include "rt_test.h"

int main(void) {
  sgrt_runtime *rt = open_or_die(SGRT_BACKEND_CUDA);
  sg_meta m = test_meta();
  sgrt_kernel *k = load_meta(rt, &m, OBJ_TEXT, "load");
  sgrt_tensor t[2];
  sg_diag d;
  make_tensors(t, 4, 1024, 1032, SG_DTYPE_F16);
  void *x = t[0].data;
  t[0].data = (char *)x + 8;
  report("misaligned x", sgrt_kernel_launch(k, t, 2, NULL, &d), &d);
  t[0].data = (char *)x + 16;
  report("x + 16 bytes", sgrt_kernel_launch(k, t, 2, NULL, &d), &d);
  t[1].row_stride = 1028;
  report("stride 1028", sgrt_kernel_launch(k, t, 2, NULL, &d), &d);
  t[0].rows = t[1].rows = 1;
  report("stride 1028 one row", sgrt_kernel_launch(k, t, 2, NULL, &d), &d);
  t[0].rows = t[1].rows = 4;
  t[1].row_stride = 1024;
  t[1].data = NULL;
  report("null y", sgrt_kernel_launch(k, t, 2, NULL, &d), &d);
  t[0].data = NULL;
  t[0].rows = t[1].rows = 0;
  report("null, no rows", sgrt_kernel_launch(k, t, 2, NULL, &d), &d);
  sgrt_kernel_destroy(k);
  sgrt_close(rt);
  return 0;
}
// CHECK: load: SG_OK
// CHECK-NEXT: misaligned x: SG_ERR_MISMATCH: tensor 'x' (#0): data 0x{{[0-9a-f]*}}8 is not aligned to the kernel's vector_bytes 16
// CHECK-NEXT: x + 16 bytes: SG_OK
// CHECK-NEXT: stride 1028: SG_ERR_MISMATCH: tensor 'y' (#1): row_stride 1028 (2056 bytes) is not a multiple of the kernel's vector_bytes 16
// CHECK-NEXT: stride 1028 one row: SG_OK
// CHECK-NEXT: null y: SG_ERR_INVALID_ARGUMENT: tensor 'y' (#1): data is NULL with 4 rows
// CHECK-NEXT: null, no rows: SG_OK
// LOG-COUNT-2: cuLaunchKernel
// LOG-NOT: cuLaunchKernel
