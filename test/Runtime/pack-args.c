// Kernel parameters follow the metadata's "arg" lines in order: tensor base
// pointers, M as i64, row strides in elements; block and grid come from it.
// RUN: %cc -std=c11 -I%include -I%S/Inputs %s -L%rtlib -lsoftgen_rt -Wl,-rpath,%rtlib -o %t
// RUN: rm -f %t.log
// RUN: env SOFTGEN_CUDA_LIBRARY=%fake_cuda FAKE_CUDA_LOG=%t.log FAKE_CUDA_NOEXEC=1 %t | FileCheck %s
// RUN: FileCheck --check-prefix=LOG %s < %t.log
#include "rt_test.h"

int main(void) {
  sgrt_runtime *rt = open_or_die(SGRT_BACKEND_CUDA);
  sg_meta m = test_meta();
  /* unusual order: rows, stride y, y, x, stride x */
  m.args[0] = (sg_meta_arg){SG_ARG_ROWS, -1};
  m.args[1] = (sg_meta_arg){SG_ARG_STRIDE, 1};
  m.args[2] = (sg_meta_arg){SG_ARG_TENSOR, 1};
  m.args[3] = (sg_meta_arg){SG_ARG_TENSOR, 0};
  m.args[4] = (sg_meta_arg){SG_ARG_STRIDE, 0};
  m.block = 128;
  sgrt_kernel *k = load_meta(rt, &m, OBJ_TEXT, "load");
  sgrt_tensor t[2];
  make_tensors(t, 10, 1024, 1032, SG_DTYPE_F16);
  t[1].row_stride = 2048;
  t[1].data = (void *)(uintptr_t)0x1000000; /* never dereferenced: NOEXEC */
  t[0].data = (void *)(uintptr_t)0x2000000;
  sg_diag d;
  report("launch", sgrt_kernel_launch(k, t, 2, (void *)(uintptr_t)0xabc0, &d), &d);
  sgrt_kernel_destroy(k);
  sgrt_close(rt);
  return 0;
}
// CHECK: load: SG_OK
// CHECK: launch: SG_OK
// LOG: cuLaunchKernel fn=softgen_softmax_f16_n1024 grid=3,1,1 block=128,1,1 smem=0 stream=0xabc0 extra=0x0 args=5 M=10 stride_y=2048 y=0x1000000 x=0x2000000 stride_x=1032
