// Launch validation of rows and strides: rows equal across tensors and >= 0,
// row_stride >= cols, rows * row_stride must not overflow.
// RUN: %cc -std=c11 -I%include -I%S/Inputs %s -L%rtlib -lsoftgen_rt -Wl,-rpath,%rtlib -o %t
// RUN: rm -f %t.log
// RUN: env SOFTGEN_CUDA_LIBRARY=%fake_cuda FAKE_CUDA_LOG=%t.log %t | FileCheck %s
// RUN: not grep cuLaunchKernel %t.log
#include "rt_test.h"

int main(void) {
  sgrt_runtime *rt = open_or_die(SGRT_BACKEND_CUDA);
  sg_meta m = test_meta();
  sgrt_kernel *k = load_meta(rt, &m, OBJ_TEXT, "load");
  sgrt_tensor t[2];
  sg_diag d;
  make_tensors(t, 8, 1024, 1024, SG_DTYPE_F16);
  t[1].rows = 7;
  report("rows differ", sgrt_kernel_launch(k, t, 2, NULL, &d), &d);
  t[0].rows = t[1].rows = -1;
  report("negative rows", sgrt_kernel_launch(k, t, 2, NULL, &d), &d);
  t[0].rows = t[1].rows = 8;
  t[0].row_stride = 1000;
  report("stride < cols", sgrt_kernel_launch(k, t, 2, NULL, &d), &d);
  t[0].row_stride = -8;
  report("negative stride", sgrt_kernel_launch(k, t, 2, NULL, &d), &d);
  t[0].row_stride = INT64_MAX / 2;
  report("huge stride", sgrt_kernel_launch(k, t, 2, NULL, &d), &d);
  sgrt_kernel_destroy(k);
  sgrt_close(rt);
  return 0;
}
// CHECK: load: SG_OK
// CHECK-NEXT: rows differ: SG_ERR_INVALID_ARGUMENT: tensor 'y' (#1): rows 7 but tensor 'x' has 8
// CHECK-NEXT: negative rows: SG_ERR_INVALID_ARGUMENT: tensor 'x' (#0): rows -1 is negative
// CHECK-NEXT: stride < cols: SG_ERR_INVALID_ARGUMENT: tensor 'x' (#0): row_stride 1000 is less than cols 1024
// CHECK-NEXT: negative stride: SG_ERR_INVALID_ARGUMENT: tensor 'x' (#0): row_stride -8 is less than cols 1024
// CHECK-NEXT: huge stride: SG_ERR_INVALID_ARGUMENT: tensor 'x' (#0): rows 8 x row_stride 4611686018427387903 overflows
