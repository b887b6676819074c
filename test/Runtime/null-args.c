// Every entry point survives NULL arguments: SG_ERR_INVALID_ARGUMENT with a
// message, or a no-op for the destroy/close/free functions.
// RUN: %cc -std=c11 -I%include -I%S/Inputs %s -L%rtlib -lsoftgen_rt -Wl,-rpath,%rtlib -o %t
// RUN: env SOFTGEN_CUDA_LIBRARY=%fake_cuda %t 2>/dev/null | FileCheck %s
#include "rt_test.h"

int main(void) {
  sg_diag d;
  sgrt_kernel *k = NULL;
  sgrt_event *e = NULL;
  void *p = NULL;
  float ms;
  report("open null out", sgrt_open(SGRT_BACKEND_CUDA, 0, NULL, &d), &d);
  report("open device -1", sgrt_open(SGRT_BACKEND_CUDA, -1, (sgrt_runtime **)&p, &d), &d);
  report("open backend 7", sgrt_open((sgrt_backend)7, 0, (sgrt_runtime **)&p, &d), &d);
  report("load_file null rt", sgrt_kernel_load_file(NULL, "x.ptx", &k, &d), &d);
  report("load_data null rt", sgrt_kernel_load_data(NULL, "x", 1, &k, &d), &d);
  report("launch null kernel", sgrt_kernel_launch(NULL, NULL, 0, NULL, &d), &d);
  report("mem_alloc null rt", sgrt_mem_alloc(NULL, 16, &p, &d), &d);
  report("sync null rt", sgrt_synchronize(NULL, &d), &d);
  report("event_create null rt", sgrt_event_create(NULL, &e, &d), &d);
  report("event_record null", sgrt_event_record(NULL, NULL, &d), &d);
  report("event_elapsed null", sgrt_event_elapsed(NULL, NULL, &ms, &d), &d);
  sgrt_close(NULL);
  sgrt_kernel_destroy(NULL);
  sgrt_event_destroy(NULL);
  sgrt_mem_free(NULL, NULL);
  printf("meta of NULL: %s\n", sgrt_kernel_meta(NULL) ? "non-null" : "null");
  printf("names of NULL: %s '%s' '%s'\n", sgrt_backend_name(NULL), sgrt_device_name(NULL),
         sgrt_device_arch(NULL));

  sgrt_runtime *rt = open_or_die(SGRT_BACKEND_CUDA);
  report("load_file null path", sgrt_kernel_load_file(rt, NULL, &k, &d), &d);
  report("load_data null data", sgrt_kernel_load_data(rt, NULL, 4, &k, &d), &d);
  report("load_data null out", sgrt_kernel_load_data(rt, "x", 1, NULL, &d), &d);
  report("load_data empty", sgrt_kernel_load_data(rt, "", 0, &k, &d), &d);
  sg_meta m = test_meta();
  k = load_meta(rt, &m, OBJ_TEXT, "load");
  report("launch null tensors", sgrt_kernel_launch(k, NULL, 2, NULL, &d), &d);
  report("launch null diag", sgrt_kernel_launch(k, NULL, 2, NULL, NULL), &d);
  report("htod null", sgrt_memcpy_htod(rt, NULL, &m, 4, &d), &d);
  report("dtoh null", sgrt_memcpy_dtoh(rt, &m, NULL, 4, &d), &d);
  report("htod zero bytes", sgrt_memcpy_htod(rt, NULL, NULL, 0, &d), &d);
  report("memset null", sgrt_memset_d8(rt, NULL, 0, 4, &d), &d);
  report("mem_alloc null out", sgrt_mem_alloc(rt, 4, NULL, &d), &d);
  sgrt_kernel_destroy(k);
  sgrt_close(rt);
  return 0;
}
// CHECK: open null out: SG_ERR_INVALID_ARGUMENT: sgrt_open: null output pointer
// CHECK-NEXT: open device -1: SG_ERR_INVALID_ARGUMENT: sgrt_open: device -1 is negative
// CHECK-NEXT: open backend 7: SG_ERR_INVALID_ARGUMENT: sgrt_open: unknown backend 7
// CHECK-NEXT: load_file null rt: SG_ERR_INVALID_ARGUMENT: sgrt_kernel_load_file: null argument
// CHECK-NEXT: load_data null rt: SG_ERR_INVALID_ARGUMENT: sgrt_kernel_load: null runtime
// CHECK-NEXT: launch null kernel: SG_ERR_INVALID_ARGUMENT: sgrt_kernel_launch: null kernel
// CHECK-NEXT: mem_alloc null rt: SG_ERR_INVALID_ARGUMENT: sgrt_mem_alloc: null runtime
// CHECK-NEXT: sync null rt: SG_ERR_INVALID_ARGUMENT: sgrt_synchronize: null runtime
// CHECK-NEXT: event_create null rt: SG_ERR_INVALID_ARGUMENT: sgrt_event_create: null runtime
// CHECK-NEXT: event_record null: SG_ERR_INVALID_ARGUMENT: sgrt_event_record: null event
// CHECK-NEXT: event_elapsed null: SG_ERR_INVALID_ARGUMENT: sgrt_event_elapsed: null argument
// CHECK-NEXT: meta of NULL: null
// CHECK-NEXT: names of NULL: none '' ''
// CHECK-NEXT: load_file null path: SG_ERR_INVALID_ARGUMENT
// CHECK-NEXT: load_data null data: SG_ERR_INVALID_ARGUMENT: sgrt_kernel_load: null data
// CHECK-NEXT: load_data null out: SG_ERR_INVALID_ARGUMENT: sgrt_kernel_load: null output pointer
// CHECK-NEXT: load_data empty: SG_ERR_PARSE: code object is empty
// CHECK-NEXT: load: SG_OK
// CHECK-NEXT: launch null tensors: SG_ERR_INVALID_ARGUMENT: sgrt_kernel_launch: null tensors
// CHECK-NEXT: launch null diag: SG_ERR_INVALID_ARGUMENT
// CHECK-NEXT: htod null: SG_ERR_INVALID_ARGUMENT: sgrt_memcpy_htod: null pointer
// CHECK-NEXT: dtoh null: SG_ERR_INVALID_ARGUMENT: sgrt_memcpy_dtoh: null pointer
// CHECK-NEXT: htod zero bytes: SG_OK
// CHECK-NEXT: memset null: SG_ERR_INVALID_ARGUMENT: sgrt_memset_d8: null pointer
// CHECK-NEXT: mem_alloc null out: SG_ERR_INVALID_ARGUMENT: sgrt_mem_alloc: null output pointer
