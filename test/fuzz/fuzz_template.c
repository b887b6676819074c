/* libFuzzer target: the template parser (sg_template_parse) on arbitrary bytes.
 * Built by -DSOFTGEN_FUZZ=ON with clang (test/fuzz/CMakeLists.txt); run by
 * test/fuzz/run.sh. A parse either succeeds (then the op list is printed) or
 * fails with a diagnostic; anything else (crash, sanitizer report) is a bug. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "softgen/template.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static FILE *sink;
  if (!sink)
    sink = fopen("/dev/null", "w");
  sg_template *t = NULL;
  sg_diag d;
  sg_status st = sg_template_parse("fuzz.sgt", (const char *)data, size, &t, &d);
  if (st == SG_OK) {
    (void)sg_template_name(t);
    if (sink)
      sg_template_print(t, sink);
  }
  sg_template_destroy(t);
  return 0;
}
