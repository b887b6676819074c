// cluster > 1: cuLaunchKernelEx with one CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
// (id 4) attribute of (cluster,1,1) and the grid rounded up to a multiple of
// the cluster; a device without cluster launch (sm_80) rejects it at load.
// RUN: %cc -std=c11 -I%include -I%S/Inputs %s -L%rtlib -lsoftgen_rt -Wl,-rpath,%rtlib -o %t
// RUN: rm -f %t.log
// RUN: env SOFTGEN_CUDA_LIBRARY=%fake_cuda FAKE_CUDA_LOG=%t.log FAKE_CUDA_NOEXEC=1 %t | FileCheck %s
// RUN: FileCheck --check-prefix=LOG %s < %t.log
// RUN: env SOFTGEN_CUDA_LIBRARY=%fake_cuda FAKE_CUDA_ARCH=sm_80 %t 2>&1 | FileCheck --check-prefix=SM80 %s
#include "rt_test.h"

int main(void) {
  sgrt_runtime *rt = open_or_die(SGRT_BACKEND_CUDA);
  sg_meta m = test_meta();
  strcpy(m.arch, "sm_80");
  m.cluster = 4;
  m.rows_per_block = 1;
  sgrt_kernel *k = load_meta(rt, &m, OBJ_TEXT, "load cluster 4");
  if (!k) {
    sgrt_close(rt);
    return 0;
  }
  sgrt_tensor t[2];
  sg_diag d;
  make_tensors(t, 5, 1024, 1024, SG_DTYPE_F16);
  report("launch M=5", sgrt_kernel_launch(k, t, 2, NULL, &d), &d);
  /* FAKE_CUDA_NOEXEC touches no memory: addresses 2^60 apart, so that the
   * views of up to 2^40 rows do not overlap (the runtime refuses overlaps) */
  t[0].data = (void *)((uintptr_t)1 << 12);
  t[1].data = (void *)((uintptr_t)1 << 60);
  t[0].rows = t[1].rows = 8;
  report("launch M=8", sgrt_kernel_launch(k, t, 2, NULL, &d), &d);
  t[0].rows = t[1].rows = (int64_t)1 << 40;
  report("launch M=2^40", sgrt_kernel_launch(k, t, 2, NULL, &d), &d);
  sgrt_kernel_destroy(k);
  m.cluster = 1;
  k = load_meta(rt, &m, OBJ_TEXT, "load cluster 1");
  t[0].rows = t[1].rows = 5;
  report("launch plain", sgrt_kernel_launch(k, t, 2, NULL, &d), &d);
  sgrt_kernel_destroy(k);
  sgrt_close(rt);
  return 0;
}
// CHECK: load cluster 4: SG_OK
// CHECK: launch M=5: SG_OK
// CHECK: launch M=8: SG_OK
// CHECK: launch M=2^40: SG_OK
// CHECK: launch plain: SG_OK
// LOG: cuLaunchKernelEx fn=softgen_softmax_f16_n1024 grid=20,1,1 block=256,1,1 smem=0 stream=0x0 extra=0x0 nattrs=1 attr0=4:4,1,1 args=5 {{.*}} M=5
// LOG-NEXT: cuLaunchKernelEx {{.*}} grid=32,1,1 {{.*}} M=8
// LOG-NEXT: cuLaunchKernelEx {{.*}} grid=2147483644,1,1 {{.*}} attr0=4:4,1,1 {{.*}} M=1099511627776
// LOG: cuLaunchKernel fn={{.*}} grid=5,1,1
// SM80: load cluster 4: SG_ERR_UNSUPPORTE{{D}}: kernel 'softgen_softmax_f16_n1024' needs clusters of 4 blocks; device 0 (sm_80) cannot launch clusters
