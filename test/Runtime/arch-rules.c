// Target and arch checks at load time (SG_ERR_MISMATCH before the driver sees
// the object): target must be nvptx on CUDA; sm_XYa needs exactly X.Y; a cubin
// needs the same major and minor <= the device's; PTX runs on any newer device;
// fatbins are refused whatever their arch (sg_meta_verify).
// RUN: %cc -std=c11 -I%include -I%S/Inputs %s -L%rtlib -lsoftgen_rt -Wl,-rpath,%rtlib -o %t
// RUN: env SOFTGEN_CUDA_LIBRARY=%fake_cuda %t 2>/dev/null | FileCheck %s
#include "rt_test.h"

static void try(const char *device, const char *target, const char *arch, int kind) {
  static const char *kinds[] = {"ptx", "ptx", "cubin", "fatbin"};
  char label[128];
  setenv("FAKE_CUDA_ARCH", device, 1);
  sgrt_runtime *rt = open_or_die(SGRT_BACKEND_CUDA);
  sg_meta m = test_meta();
  strcpy(m.target, target);
  strcpy(m.arch, arch);
  snprintf(label, sizeof label, "%s %s %s on %s", target, arch, kinds[kind], device);
  sgrt_kernel_destroy(load_meta(rt, &m, kind, label));
  sgrt_close(rt);
}

int main(void) {
  try("sm_90", "nvptx", "sm_90", OBJ_PTX);
  try("sm_90", "nvptx", "sm_90", OBJ_ELF);
  try("sm_90", "nvptx", "sm_90a", OBJ_ELF);
  try("sm_90", "nvptx", "sm_80", OBJ_PTX);
  try("sm_90", "nvptx", "sm_80", OBJ_ELF);
  try("sm_90", "nvptx", "sm_80", OBJ_FATBIN);
  try("sm_89", "nvptx", "sm_86", OBJ_ELF);
  try("sm_86", "nvptx", "sm_89", OBJ_ELF);
  try("sm_80", "nvptx", "sm_90", OBJ_PTX);
  try("sm_100", "nvptx", "sm_90a", OBJ_ELF);
  try("sm_100", "nvptx", "sm_100a", OBJ_PTX);
  try("sm_90", "nvptx", "gfx942", OBJ_TEXT);
  try("sm_90", "amdgpu", "gfx942", OBJ_TEXT);
  try("sm_90", "host", "x86_64", OBJ_TEXT);
  return 0;
}
// CHECK: nvptx sm_90 ptx on sm_90: SG_OK
// CHECK-NEXT: nvptx sm_90 cubin on sm_90: SG_OK
// CHECK-NEXT: nvptx sm_90a cubin on sm_90: SG_OK
// CHECK-NEXT: nvptx sm_80 ptx on sm_90: SG_OK
// CHECK-NEXT: nvptx sm_80 cubin on sm_90: SG_ERR_MISMATCH: code object is for sm_80 but device 0 is sm_90 (cubins need the same major and at least the minor compute capability)
// CHECK-NEXT: nvptx sm_80 fatbin on sm_90: SG_ERR_UNSUPPORTED{{:}} fatbins are not loaded
// CHECK-NEXT: nvptx sm_86 cubin on sm_89: SG_OK
// CHECK-NEXT: nvptx sm_89 cubin on sm_86: SG_ERR_MISMATCH: code object is for sm_89 but device 0 is sm_86 (cubins need
// CHECK-NEXT: nvptx sm_90 ptx on sm_80: SG_ERR_MISMATCH: code object is for sm_90 but device 0 is sm_80 (PTX needs at least that compute capability)
// CHECK-NEXT: nvptx sm_90a cubin on sm_100: SG_ERR_MISMATCH: code object is for sm_90a but device 0 is sm_100 (arch-specific objects need exactly that compute capability)
// CHECK-NEXT: nvptx sm_100a ptx on sm_100: SG_OK
// CHECK-NEXT: nvptx gfx942 ptx on sm_90: SG_ERR_MISMATCH: code object arch 'gfx942' is not an sm_XY name
// CHECK-NEXT: amdgpu gfx942 ptx on sm_90: SG_ERR_MISMATCH: code object targets 'amdgpu' but the cuda backend runs 'nvptx' code objects
// CHECK-NEXT: host x86_64 ptx on sm_90: SG_ERR_MISMATCH: code object targets 'host' but the cuda backend runs 'nvptx' code objects
