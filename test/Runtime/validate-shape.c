// Launch validation against the metadata: tensor count, dtype, N. Nothing is
// launched when a check fails.
// RUN: %cc -std=c11 -I%include -I%S/Inputs %s -L%rtlib -lsoftgen_rt -Wl,-rpath,%rtlib -o %t
// RUN: rm -f %t.log
// RUN: env SOFTGEN_CUDA_LIBRARY=%fake_cuda FAKE_CUDA_LOG=%t.log %t | FileCheck %s
// RUN: FileCheck --check-prefix=LOG %s < %t.log
#include "rt_test.h"

int main(void) {
  sgrt_runtime *rt = open_or_die(SGRT_BACKEND_CUDA);
  sg_meta m = test_meta();
  sgrt_kernel *k = load_meta(rt, &m, OBJ_TEXT, "load");
  sgrt_tensor t[3];
  sg_diag d;
  make_tensors(t, 8, 1024, 1024, SG_DTYPE_F16);
  t[2] = t[1];
  report("one tensor", sgrt_kernel_launch(k, t, 1, NULL, &d), &d);
  report("three tensors", sgrt_kernel_launch(k, t, 3, NULL, &d), &d);
  report("zero tensors", sgrt_kernel_launch(k, t, 0, NULL, &d), &d);
  t[1].dtype = SG_DTYPE_BF16;
  report("bf16 output", sgrt_kernel_launch(k, t, 2, NULL, &d), &d);
  t[1].dtype = SG_DTYPE_F16;
  t[0].dtype = SG_DTYPE_F32;
  report("f32 input", sgrt_kernel_launch(k, t, 2, NULL, &d), &d);
  t[0].dtype = (sg_dtype)42;
  report("bad dtype", sgrt_kernel_launch(k, t, 2, NULL, &d), &d);
  t[0].dtype = SG_DTYPE_F16;
  t[0].cols = 512;
  report("wrong N", sgrt_kernel_launch(k, t, 2, NULL, &d), &d);
  t[0].cols = 1024;
  t[1].cols = 2048;
  t[1].row_stride = 2048;
  report("wrong N out", sgrt_kernel_launch(k, t, 2, NULL, &d), &d);
  t[1].cols = 1024;
  t[1].row_stride = 1024;
  report("good", sgrt_kernel_launch(k, t, 2, NULL, &d), &d);
  sgrt_kernel_destroy(k);
  sgrt_close(rt);
  return 0;
}
// CHECK: load: SG_OK
// CHECK-NEXT: one tensor: SG_ERR_MISMATCH: kernel 'softgen_softmax_f16_n1024' takes 2 tensors (x, y), got 1
// CHECK-NEXT: three tensors: SG_ERR_MISMATCH: kernel 'softgen_softmax_f16_n1024' takes 2 tensors (x, y), got 3
// CHECK-NEXT: zero tensors: SG_ERR_MISMATCH: kernel 'softgen_softmax_f16_n1024' takes 2 tensors (x, y), got 0
// CHECK-NEXT: bf16 output: SG_ERR_MISMATCH: tensor 'y' (#1): dtype bf16 but the kernel takes f16
// CHECK-NEXT: f32 input: SG_ERR_MISMATCH: tensor 'x' (#0): dtype f32 but the kernel takes f16
// CHECK-NEXT: bad dtype: SG_ERR_INVALID_ARGUMENT: tensor 'x' (#0): invalid dtype 42
// CHECK-NEXT: wrong N: SG_ERR_MISMATCH: tensor 'x' (#0): cols 512 but the kernel was generated for n = 1024
// CHECK-NEXT: wrong N out: SG_ERR_MISMATCH: tensor 'y' (#1): cols 2048 but the kernel was generated for n = 1024
// CHECK-NEXT: good: SG_OK
// LOG-COUNT-1: cuLaunchKernel
// LOG-NOT: cuLaunchKernel
