// The HIP back end through the C API: AUTO picks HIP when no CUDA driver
// opens; cluster kernels are refused; memory, events, and the caller's
// current device survive every call.
// RUN: %cc -std=c11 -I%include -I%S/Inputs %s -L%rtlib -lsoftgen_rt -Wl,-rpath,%rtlib -o %t
// RUN: rm -f %t.log
// RUN: env SOFTGEN_CUDA_LIBRARY=/nonexistent.so SOFTGEN_HIP_LIBRARY=%fake_hip FAKE_HIP_LOG=%t.log %t | FileCheck %s
// RUN: FileCheck --check-prefix=LOG %s < %t.log
#include "rt_test.h"

int main(void) {
  sgrt_runtime *rt = open_or_die(SGRT_BACKEND_AUTO);
  printf("backend %s arch %s\n", sgrt_backend_name(rt), sgrt_device_arch(rt));
  sg_meta m = test_meta();
  strcpy(m.target, "amdgpu");
  strcpy(m.arch, "gfx942");
  m.cluster = 2;
  sgrt_kernel_destroy(load_meta(rt, &m, OBJ_TEXT, "cluster"));
  m.cluster = 1;
  m.vector_bytes = 8;
  sgrt_kernel *k = load_meta(rt, &m, OBJ_ELF, "elf");
  sgrt_tensor t[2];
  sg_diag d;
  make_tensors(t, 6, 1024, 1028, SG_DTYPE_F16);
  report("launch", sgrt_kernel_launch(k, t, 2, (void *)(uintptr_t)0x77, &d), &d);
  void *p = NULL;
  char back[4] = "";
  report("alloc", sgrt_mem_alloc(rt, 4, &p, &d), &d);
  report("memset", sgrt_memset_d8(rt, p, 'q', 3, &d), &d);
  report("dtoh", sgrt_memcpy_dtoh(rt, back, p, 4, &d), &d);
  printf("back '%.3s'\n", back);
  sgrt_event *e0, *e1;
  float ms = 0;
  sgrt_event_create(rt, &e0, &d);
  sgrt_event_create(rt, &e1, &d);
  sgrt_event_record(e0, NULL, &d);
  sgrt_event_record(e1, NULL, &d);
  report("elapsed", sgrt_event_elapsed(e0, e1, &ms, &d), &d);
  printf("ms %.2f\n", ms);
  sgrt_event_destroy(e0);
  sgrt_event_destroy(e1);
  sgrt_mem_free(rt, p);
  report("sync", sgrt_synchronize(rt, &d), &d);
  sgrt_kernel_destroy(k);
  sgrt_close(rt);
  return 0;
}
// CHECK: backend hip arch gfx942:sramecc+:xnack-
// CHECK-NEXT: cluster: SG_ERR_UNSUPPORTE{{D}}: kernel 'softgen_softmax_f16_n1024' needs clusters of 2 blocks; device 0 (gfx942:sramecc+:xnack-) cannot launch clusters
// CHECK-NEXT: elf: SG_OK
// CHECK-NEXT: launch: SG_OK
// CHECK-NEXT: alloc: SG_OK
// CHECK-NEXT: memset: SG_OK
// CHECK-NEXT: dtoh: SG_OK
// CHECK-NEXT: back 'qqq'
// CHECK-NEXT: elapsed: SG_OK
// CHECK-NEXT: ms 0.25
// CHECK-NEXT: sync: SG_OK
// LOG: hipModuleLoadData device=0 kind=elf
// LOG: hipModuleLaunchKernel device=0 {{.*}} grid=2,1,1 block=256,1,1 smem=0 stream=0x77 {{.*}} M=6 stride_x=1028 stride_y=1028
// LOG: hipMemsetD8 value=113 bytes=3
// LOG: hipDeviceSynchronize device=0
// LOG-NOT: hipSetDevice
