// sgrt_kernel_launch_dense (the Python fast path's launch): dense [rows, N]
// tensors in the kernel's order, row stride N, the metadata's dtypes; checked as
// sgrt_kernel_launch_ex is (alignment, overlap, scalars); refused for the inner
// layout and a null kernel.
// RUN: %cc -std=c11 -I%include -I%S/Inputs %s -L%rtlib -lsoftgen_rt -Wl,-rpath,%rtlib -o %t
// RUN: rm -f %t.log
// RUN: env SOFTGEN_CUDA_LIBRARY=%fake_cuda FAKE_CUDA_LOG=%t.log FAKE_CUDA_NOEXEC=1 %t | FileCheck %s
// RUN: FileCheck --check-prefix=LOG %s < %t.log
#include "rt_test.h"

#define P(x) ((void *)(uintptr_t)(x))

int main(void) {
  sgrt_runtime *rt = open_or_die(SGRT_BACKEND_CUDA);
  sg_meta m = test_meta();
  sgrt_kernel *k = load_meta(rt, &m, OBJ_TEXT, "load");
  sg_diag d;
  report("dense", sgrt_kernel_launch_dense(k, 10, P(0xabc0), &d, P(0x2000000), P(0x1000000),
                                           P(0x3000000)), &d);
  report("in place", sgrt_kernel_launch_dense(k, 3, NULL, &d, P(0x2000000), P(0x2000000), NULL),
         &d);
  report("overlap", sgrt_kernel_launch_dense(k, 3, NULL, &d, P(0x2000000), P(0x2000800), NULL),
         &d);
  report("misaligned", sgrt_kernel_launch_dense(k, 3, NULL, &d, P(0x2000002), P(0x1000000), NULL),
         &d);
  report("null kernel", sgrt_kernel_launch_dense(NULL, 3, NULL, &d, P(16), P(32), NULL), &d);
  sgrt_kernel_destroy(k);
  m.layout = SG_LAYOUT_INNER;
  m.args[m.nargs++] = (sg_meta_arg){SG_ARG_INNER, -1};
  m.args[m.nargs++] = (sg_meta_arg){SG_ARG_NSTRIDE, 0};
  m.args[m.nargs++] = (sg_meta_arg){SG_ARG_NSTRIDE, 1};
  strcpy(m.kernel, "softgen_softmax_f16_n1024_inner");
  k = load_meta(rt, &m, OBJ_TEXT, "load inner");
  report("inner", sgrt_kernel_launch_dense(k, 3, NULL, &d, P(0x2000000), P(0x1000000), NULL), &d);
  sgrt_kernel_destroy(k);
  sgrt_close(rt);
  return 0;
}
// CHECK: load: SG_OK
// CHECK-NEXT: dense: SG_OK
// CHECK-NEXT: in place: SG_OK
// CHECK-NEXT: overlap: SG_ERR_INVALID_ARGUMENT: {{.*}}overlap
// CHECK-NEXT: misaligned: SG_ERR_MISMATCH: tensor 'x' (#0): data 0x2000002 is not aligned
// CHECK-NEXT: null kernel: SG_ERR_INVALID_ARGUMENT: sgrt_kernel_launch_dense: null kernel
// CHECK: inner: SG_ERR_INVALID_ARGUMENT: sgrt_kernel_launch_dense: softgen_softmax_f16_n1024_inner has 2 tensors in the inner layout (2 or 3 in the rows layout only)
// LOG: cuLaunchKernel fn=softgen_softmax_f16_n1024 grid=3,1,1 block=256,1,1 smem=0 stream=0xabc0 extra=0x0 args=5 x=0x2000000 y=0x1000000 M=10 stride_x=1024 stride_y=1024
// LOG-NEXT: cuLaunchKernel fn=softgen_softmax_f16_n1024 {{.*}} x=0x2000000 y=0x2000000 M=3
