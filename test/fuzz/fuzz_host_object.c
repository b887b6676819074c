/* libFuzzer target: host code objects as the runtime loads them (issue 19,
 * item 3: byte-mutated host .so files crashed the loading process). The input
 * goes to sgrt_kernel_load_data on the host backend: the checksum, then the
 * metadata and ELF checks; dlopen only for an object whose checksum matches,
 * which a mutation does not give (the checksum is SHA-256, so the seeds are
 * the only inputs dlopen'ed). The same bytes also go through sg_meta_seal on a
 * copy: a sealed copy must verify (sg_meta_verify). Links libsoftgen_rt (no
 * LLVM). Built by -DSOFTGEN_FUZZ=ON with clang; run by test/fuzz/run.sh, seeded
 * with host shared libraries softgen generates. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "softgen/runtime.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static sgrt_runtime *rt;
  sg_diag d;
  if (!rt && sgrt_open(SGRT_BACKEND_HOST, 0, &rt, &d)) {
    fprintf(stderr, "fuzz_host_object: %s\n", d.message);
    abort();
  }
  sgrt_kernel *k = NULL;
  if (sgrt_kernel_load_data(rt, data, size, &k, &d) == SG_OK)
    sgrt_kernel_destroy(k);
  unsigned char *copy = malloc(size ? size : 1);
  if (!copy)
    return 0;
  memcpy(copy, data, size);
  if (sg_meta_seal(copy, size, &d) == SG_OK && sg_meta_verify(copy, size, &d) != SG_OK) {
    fprintf(stderr, "fuzz_host_object: a sealed object does not verify: %s\n", d.message);
    abort();
  }
  free(copy);
  return 0;
}
