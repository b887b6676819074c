/* libFuzzer target: the constraints parser (sg_constraints_parse) on arbitrary
 * bytes, then sg_plan_resolve of what parsed against kernels-templates/softmax.sgt
 * for a fixed problem (N = 8192, f16, nvptx, default arch), in both layouts. Built by
 * -DSOFTGEN_FUZZ=ON with clang; run by test/fuzz/run.sh. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "softgen/constraints.h"
#include "softgen/template.h"

#ifndef SOFTGEN_TEMPLATES_DIR
#define SOFTGEN_TEMPLATES_DIR "kernels-templates"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static sg_template *softmax;
  static FILE *sink;
  sg_diag d;
  if (!softmax) {
    if (sg_template_load(SOFTGEN_TEMPLATES_DIR "/softmax.sgt", &softmax, &d)) {
      fprintf(stderr, "fuzz_constraints: %s\n", d.message);
      abort();
    }
    sink = fopen("/dev/null", "w");
  }
  sg_constraints *c = NULL;
  if (sg_constraints_create(&c, &d))
    abort();
  if (sg_constraints_parse(c, "fuzz.cons", (const char *)data, size, &d) == SG_OK) {
    for (int layout = 0; layout < SG_LAYOUT_COUNT; layout++) {
      sg_problem p = {.n = 8192, .dtype = SG_DTYPE_F16, .target = "nvptx", .arch = NULL,
                      .layout = (sg_layout)layout};
      sg_plan *plan = NULL;
      if (sg_plan_resolve(softmax, c, &p, &plan, &d) == SG_OK) {
        (void)sg_plan_kernel_name(plan);
        if (sink)
          sg_plan_print(plan, sink);
      }
      sg_plan_destroy(plan);
    }
  }
  sg_constraints_destroy(c);
  return 0;
}
