// Loading code objects of every kind through the fake CUDA driver: metadata is
// found in plain text, a PTX byte-list initializer and an ELF cubin, each
// sealed (its checksum verified first); a fatbin is refused (its entries cannot
// be checked against the checksum); PTX reaches the driver NUL-terminated; the
// kernel is looked up by its name.
// RUN: %cc -std=c11 -I%include -I%S/Inputs %s -L%rtlib -lsoftgen_rt -Wl,-rpath,%rtlib -o %t
// RUN: rm -f %t.log
// RUN: %seal %S/Inputs/softmax_f16.ptx %t.ptx
// RUN: env SOFTGEN_CUDA_LIBRARY=%fake_cuda FAKE_CUDA_LOG=%t.log %t %t.ptx | FileCheck %s
// RUN: FileCheck --check-prefix=LOG %s < %t.log
#include "rt_test.h"

int main(int argc, char **argv) {
  sgrt_runtime *rt = open_or_die(SGRT_BACKEND_CUDA);
  printf("backend %s device '%s' arch %s\n", sgrt_backend_name(rt), sgrt_device_name(rt),
         sgrt_device_arch(rt));
  sg_meta m = test_meta();
  const char *kinds[] = {"text", "ptx", "elf", "fatbin"};
  for (int kind = OBJ_TEXT; kind <= OBJ_FATBIN; kind++) {
    sgrt_kernel *k = load_meta(rt, &m, kind, kinds[kind]);
    const sg_meta *km = sgrt_kernel_meta(k);
    printf("%s kernel=%s n=%lld tensors=%d args=%d\n", kinds[kind], km ? km->kernel : "-",
           km ? (long long)km->n : -1, km ? km->ntensors : -1, km ? km->nargs : -1);
    sgrt_kernel_destroy(k);
  }
  sgrt_kernel *k = NULL;
  sg_diag d;
  sg_status st = sgrt_kernel_load_file(rt, argc > 1 ? argv[1] : "", &k, &d);
  report("file", st, &d);
  printf("file block=%u rows_per_block=%u vector_bytes=%u\n", sgrt_kernel_meta(k)->block,
         sgrt_kernel_meta(k)->rows_per_block, sgrt_kernel_meta(k)->vector_bytes);
  sgrt_kernel_destroy(k);
  sgrt_close(rt);
  return 0;
}
// CHECK: backend cuda device 'softgen fake CUDA device 0' arch sm_90
// CHECK-NEXT: text: SG_OK
// CHECK-NEXT: text kernel=softgen_softmax_f16_n1024 n=1024 tensors=2 args=5
// CHECK-NEXT: ptx: SG_OK
// CHECK-NEXT: ptx kernel=softgen_softmax_f16_n1024 n=1024 tensors=2 args=5
// CHECK-NEXT: elf: SG_OK
// CHECK-NEXT: elf kernel=softgen_softmax_f16_n1024
// CHECK-NEXT: fatbin: SG_ERR_UNSUPPORTED{{:}} fatbins are not loaded: the driver runs one of their entries, which softgen cannot check against the metadata's checksum; load the .cubin or .ptx softgen wrote
// CHECK-NEXT: fatbin kernel=- n=-1
// CHECK-NEXT: file: SG_OK
// CHECK-NEXT: file block=256 rows_per_block=4 vector_bytes=16

// LOG: cuInit flags=0
// LOG: cuDevicePrimaryCtxRetain dev=0
// LOG: cuModuleLoadData kind=text bytes=329 kernel=softgen_softmax_f16_n1024
// LOG-NEXT: cuModuleGetFunction name=softgen_softmax_f16_n1024
// LOG-NEXT: cuModuleUnload
// LOG-NEXT: cuModuleLoadData kind=text bytes={{[0-9]+}} kernel=softgen_softmax_f16_n1024
// LOG: cuModuleLoadData kind=elf bytes=394 kernel=softgen_softmax_f16_n1024
// LOG-NOT: kind=fatbin
// LOG: cuModuleLoadData kind=text bytes=329 kernel=softgen_softmax_f16_n1024
// LOG: cuModuleUnload
// LOG-NEXT: cuDevicePrimaryCtxRelease_v2 dev=0 refs=0
