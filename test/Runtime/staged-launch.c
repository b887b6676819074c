// Staged kernels (meta "dsmem"): the runtime sets the kernel's dynamic shared
// memory limit (cuFuncSetAttribute attribute 8) at load, also under 48 KB
// (the default 48 KB bounds static + dynamic together: 48 KB of staged rows
// plus the reduction buffers failed to launch on an H100 without it);
// clusters over the portable 8 opt in with attribute 14; every launch passes
// dsmem as its shared memory bytes.
// RUN: %cc -std=c11 -I%include -I%S/Inputs %s -L%rtlib -lsoftgen_rt -Wl,-rpath,%rtlib -o %t
// RUN: rm -f %t.log
// RUN: env SOFTGEN_CUDA_LIBRARY=%fake_cuda FAKE_CUDA_LOG=%t.log FAKE_CUDA_NOEXEC=1 %t | FileCheck %s
// RUN: FileCheck --check-prefix=LOG %s < %t.log
// RUN: env SOFTGEN_CUDA_LIBRARY=%fake_cuda FAKE_CUDA_NOEXEC=1 FAKE_CUDA_FAIL=cuFuncSetAttribute:1 %t 2>&1 | FileCheck --check-prefix=FAIL %s
#include "rt_test.h"

int main(void) {
  sgrt_runtime *rt = open_or_die(SGRT_BACKEND_CUDA);
  sg_meta m = test_meta();
  m.dsmem = 65536;
  m.rows_per_block = 1;
  sgrt_kernel *k = load_meta(rt, &m, OBJ_TEXT, "load dsmem 65536");
  sgrt_tensor t[2];
  sg_diag d;
  make_tensors(t, 3, 1024, 1024, SG_DTYPE_F16);
  if (k) {
    report("launch staged", sgrt_kernel_launch(k, t, 2, NULL, &d), &d);
    sgrt_kernel_destroy(k);
  }
  m.dsmem = 4096;
  k = load_meta(rt, &m, OBJ_TEXT, "load dsmem 4096");
  if (k) {
    report("launch small", sgrt_kernel_launch(k, t, 2, NULL, &d), &d);
    sgrt_kernel_destroy(k);
  }
  m.dsmem = 65536;
  m.cluster = 16;
  k = load_meta(rt, &m, OBJ_TEXT, "load cluster 16");
  if (k) {
    report("launch cluster 16", sgrt_kernel_launch(k, t, 2, NULL, &d), &d);
    sgrt_kernel_destroy(k);
  }
  sgrt_close(rt);
  return 0;
}
// CHECK: load dsmem 65536: SG_OK
// CHECK: launch staged: SG_OK
// CHECK: load dsmem 4096: SG_OK
// CHECK: launch small: SG_OK
// CHECK: load cluster 16: SG_OK
// CHECK: launch cluster 16: SG_OK
// LOG: cuFuncSetAttribute fn=softgen_softmax_f16_n1024 attrib=8 value=65536
// LOG: cuLaunchKernel fn=softgen_softmax_f16_n1024 grid=3,1,1 block=256,1,1 smem=65536
// LOG: cuFuncSetAttribute fn=softgen_softmax_f16_n1024 attrib=8 value=4096
// LOG: cuLaunchKernel fn=softgen_softmax_f16_n1024 grid=3,1,1 block=256,1,1 smem=4096
// LOG: cuFuncSetAttribute fn=softgen_softmax_f16_n1024 attrib=8 value=65536
// LOG-NEXT: cuFuncSetAttribute fn=softgen_softmax_f16_n1024 attrib=14 value=1
// LOG: cuLaunchKernelEx fn=softgen_softmax_f16_n1024 grid=48,1,1 block=256,1,1 smem=65536 {{.*}} attr0=4:16,1,1
// FAIL: load dsmem 65536: SG_ERR_DRIVER: cuFuncSetAttribute failed: {{.*}}
