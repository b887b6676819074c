/* libFuzzer target: the launch-metadata reader of code objects. The input is
 * taken as a whole code object (sg_meta_find: raw text in ELF, or PTX byte-list
 * initializer) and as metadata text (sg_meta_parse); metadata that parses must
 * format (sg_meta_format) and parse back to the same struct. libc only: no LLVM.
 * Built by -DSOFTGEN_FUZZ=ON with clang; run by test/fuzz/run.sh. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "softgen/meta.h"

static void round_trip(const sg_meta *m) {
  static char buf[1 << 14];
  size_t len = 0;
  sg_diag d;
  if (sg_meta_format(m, buf, sizeof buf, &len, &d))
    return; /* too long to format is a reported error, not a bug */
  sg_meta back;
  memset(&back, 0, sizeof back);
  if (sg_meta_parse(buf, len, &back, &d)) {
    fprintf(stderr, "fuzz_meta: formatted metadata does not parse back: %s\n%s\n", d.message, buf);
    abort();
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  sg_meta m;
  sg_diag d;
  memset(&m, 0, sizeof m);
  if (sg_meta_find(data, size, &m, &d) == SG_OK)
    round_trip(&m);
  memset(&m, 0, sizeof m);
  if (sg_meta_parse((const char *)data, size, &m, &d) == SG_OK)
    round_trip(&m);
  return 0;
}
