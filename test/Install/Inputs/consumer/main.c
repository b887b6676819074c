/* consumer - an outside program linked against an installed softgen: parses
 * the installed softmax template, resolves a plan, emits PTX in memory through
 * the public C API and prints the kernel's name (test/Install/install.test).
 *   consumer [TEMPLATE.sgt]   (default: the package's templates directory) */
#include <stdio.h>
#include <string.h>

#include <softgen/runtime.h>
#include <softgen/softgen.h>

#ifndef CONSUMER_TEMPLATES_DIR
#define CONSUMER_TEMPLATES_DIR "kernels-templates"
#endif

static int fail(const char *stage, const sg_diag *d) {
  fprintf(stderr, "consumer: %s: %s: %s\n", stage, sg_status_name(d->status), d->message);
  return 1;
}

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : CONSUMER_TEMPLATES_DIR "/softmax.sgt";
  sg_diag d;
  sg_diag_clear(&d);
  sg_template *t = NULL;
  if (sg_template_load(path, &t, &d))
    return fail("template", &d);
  printf("template %s\n", sg_template_name(t));

  sg_constraints *c = NULL;
  sg_plan *plan = NULL;
  sg_problem p = {.n = 1024, .dtype = SG_DTYPE_F16, .target = "nvptx", .arch = "sm_90"};
  if (sg_constraints_create(&c, &d) || sg_plan_resolve(t, c, &p, &plan, &d))
    return fail("plan", &d);
  printf("kernel %s\n", sg_plan_kernel_name(plan));

  sg_module *m = NULL;
  sg_buffer ptx = {0};
  if (sg_codegen(t, plan, &m, &d) || sg_module_optimize(m, &d) ||
      sg_module_emit(m, SG_EMIT_ASM, NULL, &ptx, &d))
    return fail("codegen", &d);
  sg_meta meta;
  if (sg_meta_find(ptx.data, ptx.size, &meta, &d))
    return fail("metadata", &d);
  char entry[256];
  snprintf(entry, sizeof entry, ".entry %s(", sg_plan_kernel_name(plan));
  printf("ptx %s bytes, %s, metadata kernel %s n %lld\n", ptx.size > 0 ? "some" : "no",
         strstr(ptx.data, entry) ? "has its .entry" : "NO .entry", meta.kernel,
         (long long)meta.n);

  sgrt_close(NULL); /* a no-op that needs libsoftgen_rt.so: the runtime links too */
  sg_buffer_free(&ptx);
  sg_module_destroy(m);
  sg_plan_destroy(plan);
  sg_constraints_destroy(c);
  sg_template_destroy(t);
  puts("ok");
  return 0;
}
