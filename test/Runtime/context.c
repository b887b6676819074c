// Every operation pushes the primary context and pops it again: the caller's
// context stack (here: one context pushed by "another library") is left as it
// was, and the double fails any call made without a current context.
// RUN: %cc -std=c11 -I%include -I%S/Inputs %s -L%rtlib -lsoftgen_rt -Wl,-rpath,%rtlib -ldl -o %t
// RUN: rm -f %t.log
// RUN: env SOFTGEN_CUDA_LIBRARY=%fake_cuda FAKE_CUDA_LOG=%t.log %t %fake_cuda | FileCheck %s
// RUN: FileCheck --check-prefix=LOG %s < %t.log
#include <dlfcn.h>

#include "rt_test.h"

int main(int argc, char **argv) {
  sgrt_runtime *rt = open_or_die(SGRT_BACKEND_CUDA);
  void *lib = dlopen(argv[argc - 1], RTLD_NOW | RTLD_NOLOAD);
  int (*depth)(void);
  void *sym = lib ? dlsym(lib, "fake_cuda_ctx_depth") : NULL;
  if (!sym)
    return 1;
  memcpy(&depth, &sym, sizeof sym);
  printf("after open: depth %d\n", depth());
  sg_meta m = test_meta();
  sgrt_kernel *k = load_meta(rt, &m, OBJ_TEXT, "load");
  printf("after load: depth %d\n", depth());
  sgrt_tensor t[2];
  sg_diag d;
  make_tensors(t, 4, 1024, 1024, SG_DTYPE_F16);
  report("launch", sgrt_kernel_launch(k, t, 2, NULL, &d), &d);
  report("sync", sgrt_synchronize(rt, &d), &d);
  printf("after launch: depth %d\n", depth());
  void *p = NULL;
  report("alloc", sgrt_mem_alloc(rt, 64, &p, &d), &d);
  sgrt_mem_free(rt, p);
  sgrt_kernel_destroy(k);
  printf("after destroy: depth %d\n", depth());
  sgrt_close(rt);
  dlclose(lib);
  return 0;
}
// CHECK: after open: depth 0
// CHECK-NEXT: load: SG_OK
// CHECK-NEXT: after load: depth 0
// CHECK-NEXT: launch: SG_OK
// CHECK-NEXT: sync: SG_OK
// CHECK-NEXT: after launch: depth 0
// CHECK-NEXT: alloc: SG_OK
// CHECK-NEXT: after destroy: depth 0
// LOG-NOT: no current context
