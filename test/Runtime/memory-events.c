// Memory helpers and events: allocation, copies both ways, device-to-device
// copy on a stream, memset, synchronize and event timing.
// RUN: %cc -std=c11 -I%include -I%S/Inputs %s -L%rtlib -lsoftgen_rt -Wl,-rpath,%rtlib -o %t
// RUN: rm -f %t.log
// RUN: env SOFTGEN_CUDA_LIBRARY=%fake_cuda FAKE_CUDA_LOG=%t.log %t | FileCheck %s
// RUN: FileCheck --check-prefix=LOG %s < %t.log
#include "rt_test.h"

int main(void) {
  sgrt_runtime *rt = open_or_die(SGRT_BACKEND_CUDA);
  sg_diag d;
  void *a = NULL, *b = NULL;
  char host[8] = "abcdefg", back[8] = "";
  report("alloc a", sgrt_mem_alloc(rt, 8, &a, &d), &d);
  report("alloc b", sgrt_mem_alloc(rt, 8, &b, &d), &d);
  report("htod", sgrt_memcpy_htod(rt, a, host, 8, &d), &d);
  sgrt_event *e0, *e1;
  report("event", sgrt_event_create(rt, &e0, &d), &d);
  report("event", sgrt_event_create(rt, &e1, &d), &d);
  report("record", sgrt_event_record(e0, (void *)(uintptr_t)0x5000, &d), &d);
  report("dtod", sgrt_memcpy_dtod(rt, b, a, 8, (void *)(uintptr_t)0x5000, &d), &d);
  report("record", sgrt_event_record(e1, (void *)(uintptr_t)0x5000, &d), &d);
  float ms = -1;
  report("elapsed", sgrt_event_elapsed(e0, e1, &ms, &d), &d);
  printf("ms %.2f\n", ms);
  report("sync", sgrt_synchronize(rt, &d), &d);
  report("dtoh", sgrt_memcpy_dtoh(rt, back, b, 8, &d), &d);
  printf("back '%s'\n", back);
  report("memset", sgrt_memset_d8(rt, b, 'z', 7, &d), &d);
  report("dtoh", sgrt_memcpy_dtoh(rt, back, b, 8, &d), &d);
  printf("back '%s'\n", back);
  sgrt_event_destroy(e0);
  sgrt_event_destroy(e1);
  sgrt_mem_free(rt, a);
  sgrt_mem_free(rt, b);
  sgrt_close(rt);
  return 0;
}
// CHECK: alloc a: SG_OK
// CHECK: elapsed: SG_OK
// CHECK-NEXT: ms 0.25
// CHECK: back 'abcdefg'
// CHECK: memset: SG_OK
// CHECK-NEXT: dtoh: SG_OK
// CHECK-NEXT: back 'zzzzzzz'
// LOG: cuMemAlloc_v2 bytes=8
// LOG: cuMemcpyHtoD_v2 bytes=8
// LOG: cuEventRecord stream=0x5000
// LOG-NEXT: cuMemcpyDtoDAsync_v2 bytes=8 stream=0x5000
// LOG-NEXT: cuEventRecord stream=0x5000
// LOG-NEXT: cuCtxSynchronize
// LOG: cuMemsetD8_v2 value=122 bytes=7
// LOG: cuMemFree_v2
