// On a real CUDA driver: open device 0, report its name and arch, allocate,
// copy both ways, memset, device-to-device copy and time it with events.
// REQUIRES: cuda
// RUN: %cc -std=c11 -I%include -I%S/Inputs %s -L%rtlib -lsoftgen_rt -Wl,-rpath,%rtlib -o %t
// RUN: %t | FileCheck %s
#include "rt_test.h"

int main(void) {
  sgrt_runtime *rt = open_or_die(SGRT_BACKEND_CUDA);
  printf("arch %s\n", sgrt_device_arch(rt));
  enum { BYTES = 64 << 20 };
  sg_diag d;
  void *a = NULL, *b = NULL;
  char *host = malloc(BYTES);
  for (int i = 0; i < BYTES; i++)
    host[i] = (char)(i * 7);
  report("alloc", sgrt_mem_alloc(rt, BYTES, &a, &d), &d);
  report("alloc", sgrt_mem_alloc(rt, BYTES, &b, &d), &d);
  report("htod", sgrt_memcpy_htod(rt, a, host, BYTES, &d), &d);
  sgrt_event *e0, *e1;
  sgrt_event_create(rt, &e0, &d);
  sgrt_event_create(rt, &e1, &d);
  sgrt_event_record(e0, NULL, &d);
  report("dtod", sgrt_memcpy_dtod(rt, b, a, BYTES, NULL, &d), &d);
  sgrt_event_record(e1, NULL, &d);
  float ms = 0;
  report("elapsed", sgrt_event_elapsed(e0, e1, &ms, &d), &d);
  fprintf(stderr, "dtod %.1f GB/s\n", 2.0 * BYTES / (ms * 1e6));
  memset(host, 0, BYTES);
  report("dtoh", sgrt_memcpy_dtoh(rt, host, b, BYTES, &d), &d);
  int bad = 0;
  for (int i = 0; i < BYTES; i++)
    bad += host[i] != (char)(i * 7);
  printf("mismatches %d\n", bad);
  report("memset", sgrt_memset_d8(rt, b, 0x5a, BYTES, &d), &d);
  report("dtoh", sgrt_memcpy_dtoh(rt, host, b, 16, &d), &d);
  printf("byte %#x\n", (unsigned char)host[15]);
  report("sync", sgrt_synchronize(rt, &d), &d);
  sgrt_event_destroy(e0);
  sgrt_event_destroy(e1);
  sgrt_mem_free(rt, a);
  sgrt_mem_free(rt, b);
  sgrt_close(rt);
  free(host);
  return 0;
}
// CHECK: arch sm_{{[0-9]+}}
// CHECK: dtod: SG_OK
// CHECK-NEXT: elapsed: SG_OK
// CHECK-NEXT: dtoh: SG_OK
// CHECK-NEXT: mismatches 0
// CHECK-NEXT: memset: SG_OK
// CHECK-NEXT: dtoh: SG_OK
// CHECK-NEXT: byte 0x5a
// CHECK-NEXT: sync: SG_OK
