// Issue 10 faults through the C API over the fake CUDA driver: no driver,
// another arch, a kernel the module lacks, out-of-memory at every step that
// allocates, launch arguments that disagree with the metadata. Each call
// returns a named status; nothing crashes. One process per driver setting.
// RUN: %cc -std=c11 -I%include -I%S/Inputs %s -L%rtlib -lsoftgen_rt -Wl,-rpath,%rtlib -o %t
// RUN: env SOFTGEN_CUDA_LIBRARY=%t.no-such-lib.so %t nodriver 2>/dev/null | FileCheck --check-prefix=NODRV %s
// RUN: env SOFTGEN_CUDA_LIBRARY=%fake_cuda FAKE_CUDA_ARCH=sm_80 %t arch 2>/dev/null | FileCheck --check-prefix=ARCH %s
// RUN: env SOFTGEN_CUDA_LIBRARY=%fake_cuda %t name 2>/dev/null | FileCheck --check-prefix=NAME %s
// RUN: env SOFTGEN_CUDA_LIBRARY=%fake_cuda FAKE_CUDA_FAIL=cuMemAlloc_v2:2,cuModuleLoadData:2,cuLaunchKernel:2 %t oom 2>/dev/null | FileCheck --check-prefix=OOM %s
// RUN: env SOFTGEN_CUDA_LIBRARY=%fake_cuda FAKE_CUDA_FAIL=cuDevicePrimaryCtxRetain:2 %t nodriver 2>/dev/null | FileCheck --check-prefix=CTX %s
// RUN: env SOFTGEN_CUDA_LIBRARY=%fake_cuda %t args 2>/dev/null | FileCheck --check-prefix=ARGS %s
#include "rt_test.h"

static void launch(sgrt_kernel *k, const char *label, sgrt_tensor *t, int nt) {
  sg_diag d;
  report(label, sgrt_kernel_launch(k, t, nt, NULL, &d), &d);
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  sg_diag d;
  sgrt_runtime *rt = NULL;
  if (strcmp(mode, "nodriver") == 0) {
    sg_status st = sgrt_open(SGRT_BACKEND_CUDA, 0, &rt, &d);
    report("open", st, &d);
    printf("runtime %s\n", rt ? "set" : "NULL");
    return 0;
  }
  rt = open_or_die(SGRT_BACKEND_CUDA);
  sg_meta m = test_meta();
  if (strcmp(mode, "arch") == 0) {
    sgrt_kernel_destroy(load_meta(rt, &m, OBJ_PTX, "sm_90 ptx on sm_80"));
    sgrt_kernel_destroy(load_meta(rt, &m, OBJ_ELF, "sm_90 cubin on sm_80"));
    strcpy(m.arch, "sm_80");
    sgrt_kernel_destroy(load_meta(rt, &m, OBJ_PTX, "sm_80 ptx on sm_80"));
  } else if (strcmp(mode, "name") == 0) {
    /* PTX whose .entry is not the kernel its metadata names */
    static unsigned char buf[1 << 16];
    size_t n = make_unsealed_object(&m, OBJ_PTX, buf, sizeof buf - 1);
    buf[n] = '\0';
    char *entry = strstr((char *)buf, ".entry softgen_softmax_f16_n1024(");
    entry[strlen(".entry softgen_")] = 'S';
    sg_meta_seal(buf, n, NULL); /* made so, not damaged: past the checksum to the driver */
    sgrt_kernel *k = NULL;
    sg_status st = sgrt_kernel_load_data(rt, buf, n, &k, &d);
    report("entry renamed", st, &d);
    printf("kernel %s\n", k ? "set" : "NULL");
  } else if (strcmp(mode, "oom") == 0) {
    void *p = (void *)1;
    sg_status st = sgrt_mem_alloc(rt, 1 << 20, &p, &d);
    report("sgrt_mem_alloc", st, &d);
    printf("dptr %s\n", p ? "set" : "NULL");
    sgrt_kernel_destroy(load_meta(rt, &m, OBJ_PTX, "load"));
    unsetenv("FAKE_CUDA_FAIL");
    sgrt_kernel *k = load_meta(rt, &m, OBJ_PTX, "load without faults");
    setenv("FAKE_CUDA_FAIL", "cuLaunchKernel:2", 1);
    sgrt_tensor t[2];
    make_tensors(t, 4, 1024, 1024, SG_DTYPE_F16);
    launch(k, "launch", t, 2);
    sgrt_kernel_destroy(k);
  } else if (strcmp(mode, "args") == 0) {
    sgrt_kernel *k = load_meta(rt, &m, OBJ_PTX, "load");
    sgrt_tensor t[2], u[2];
    make_tensors(t, 4, 1024, 1024, SG_DTYPE_F16);
    memcpy(u, t, sizeof u);
    u[0].dtype = SG_DTYPE_F32;
    launch(k, "dtype", u, 2);
    memcpy(u, t, sizeof u);
    u[0].cols = u[1].cols = 512;
    launch(k, "n", u, 2);
    memcpy(u, t, sizeof u);
    u[1].rows = 3;
    launch(k, "rows differ", u, 2);
    memcpy(u, t, sizeof u);
    u[0].row_stride = 1100;
    launch(k, "row stride", u, 2);
    launch(k, "one tensor", t, 1);
    launch(k, "no tensors", NULL, 0);
    launch(k, "agrees", t, 2);
    sgrt_kernel_destroy(k);
  }
  sgrt_close(rt);
  return 0;
}
// NODRV: open: SG_ERR_NO_DRIVER: cannot open SOFTGEN_CUDA_LIBRARY='{{.*}}no-such-lib.so'
// NODRV-NEXT: runtime NULL
// CTX: open: SG_ERR_DRIVER: cuDevicePrimaryCtxRetain failed: CUDA_ERROR_OUT_OF_MEMORY (2)
// CTX-NEXT: runtime NULL
// ARCH: sm_90 ptx on sm_80: SG_ERR_MISMATCH: code object is for sm_90 but device 0 is sm_80 (PTX needs at least that compute capability)
// ARCH-NEXT: sm_90 cubin on sm_80: SG_ERR_MISMATCH: code object is for sm_90 but device 0 is sm_80 (cubins need
// ARCH-NEXT: sm_80 ptx on sm_80: SG_OK
// NAME: entry renamed: SG_ERR_DRIVER: cuModuleGetFunction failed: CUDA_ERROR_NOT_FOUND (500) (kernel 'softgen_softmax_f16_n1024')
// NAME-NEXT: kernel NULL
// OOM: sgrt_mem_alloc: SG_ERR_DRIVER: cuMemAlloc_v2 failed: CUDA_ERROR_OUT_OF_MEMORY (2)
// OOM-NEXT: dptr NULL
// OOM-NEXT: load: SG_ERR_DRIVER: cuModuleLoadData failed: CUDA_ERROR_OUT_OF_MEMORY (2)
// OOM-NEXT: load without faults: SG_OK
// OOM-NEXT: launch: SG_ERR_DRIVER: cuLaunchKernel failed: CUDA_ERROR_OUT_OF_MEMORY (2)
// ARGS: load: SG_OK
// ARGS-NEXT: dtype: SG_ERR_MISMATCH: tensor 'x' (#0): dtype f32 but the kernel takes f16
// ARGS-NEXT: n: SG_ERR_MISMATCH: tensor 'x' (#0): cols 512 but the kernel was generated for n = 1024
// ARGS-NEXT: rows differ: SG_ERR_INVALID_ARGUMENT: tensor 'y' (#1): rows 3 but tensor 'x' has 4
// ARGS-NEXT: row stride: SG_ERR_MISMATCH: tensor 'x' (#0): row_stride 1100 (2200 bytes) is not a multiple of the kernel's vector_bytes 16
// ARGS-NEXT: one tensor: SG_ERR_MISMATCH: kernel 'softgen_softmax_f16_n1024' takes 2 tensors (x, y), got 1
// ARGS-NEXT: no tensors: SG_ERR_MISMATCH: kernel 'softgen_softmax_f16_n1024' takes 2 tensors (x, y), got 0
// ARGS-NEXT: agrees: SG_OK
