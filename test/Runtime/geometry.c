// Launch geometry: grid = min(ceil(M / rows_per_block), 2^31-1), block from
// the metadata, no dynamic shared memory; M == 0 launches nothing.
// RUN: %cc -std=c11 -I%include -I%S/Inputs %s -L%rtlib -lsoftgen_rt -Wl,-rpath,%rtlib -o %t
// RUN: rm -f %t.log
// RUN: env SOFTGEN_CUDA_LIBRARY=%fake_cuda FAKE_CUDA_LOG=%t.log FAKE_CUDA_NOEXEC=1 %t | FileCheck %s
// RUN: FileCheck --check-prefix=LOG %s < %t.log
#include "rt_test.h"

static void run(sgrt_kernel *k, int64_t rows) {
  sgrt_tensor t[2];
  sg_diag d;
  make_tensors(t, 1, 1024, 1024, SG_DTYPE_F16);
  /* FAKE_CUDA_NOEXEC touches no memory: addresses 2^60 apart, so that the
   * views of up to 2^40 rows do not overlap (the runtime refuses overlaps) */
  t[0].data = (void *)((uintptr_t)1 << 12);
  t[1].data = (void *)((uintptr_t)1 << 60);
  t[0].rows = t[1].rows = rows;
  printf("M=%lld ", (long long)rows);
  report("launch", sgrt_kernel_launch(k, t, 2, NULL, &d), &d);
}

int main(void) {
  sgrt_runtime *rt = open_or_die(SGRT_BACKEND_CUDA);
  sg_meta m = test_meta();
  sgrt_kernel *k4 = load_meta(rt, &m, OBJ_TEXT, "rows_per_block 4");
  m.rows_per_block = 1;
  m.block = 1024;
  sgrt_kernel *k1 = load_meta(rt, &m, OBJ_TEXT, "rows_per_block 1");
  run(k4, 1);
  run(k4, 1000);
  run(k4, 1001);
  run(k4, 0);
  run(k1, 70000);
  run(k1, (int64_t)1 << 40);
  sgrt_kernel_destroy(k4);
  sgrt_kernel_destroy(k1);
  sgrt_close(rt);
  return 0;
}
// CHECK: rows_per_block 4: SG_OK
// CHECK: rows_per_block 1: SG_OK
// CHECK: M=1 launch: SG_OK
// CHECK: M=1000 launch: SG_OK
// CHECK: M=1001 launch: SG_OK
// CHECK: M=0 launch: SG_OK
// CHECK: M=70000 launch: SG_OK
// CHECK: M=1099511627776 launch: SG_OK
// LOG: cuLaunchKernel fn=softgen_softmax_f16_n1024 grid=1,1,1 block=256,1,1 smem=0 {{.*}} M=1 stride_x=1024 stride_y=1024
// LOG-NEXT: cuLaunchKernel {{.*}} grid=250,1,1 block=256,1,1 smem=0 {{.*}} M=1000 stride_x=1024
// LOG-NEXT: cuLaunchKernel {{.*}} grid=251,1,1 {{.*}} M=1001
// LOG-NOT: M=0
// LOG-NEXT: cuLaunchKernel {{.*}} grid=70000,1,1 block=1024,1,1 {{.*}} M=70000
// LOG-NEXT: cuLaunchKernel {{.*}} grid=2147483647,1,1 block=1024,1,1 {{.*}} M=1099511627776
