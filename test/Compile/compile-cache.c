// The in-process compile API (softgen/compile.h) and its on-disk cache:
// compile twice -> the second is a hit with the same bytes; a corrupt, truncated
// or foreign entry is rejected and recompiled; template text, N and dtype change
// the key; errors come back with softgen's message; SOFTGEN_CACHE=0 and no_cache
// turn it off; the result loads and runs through the runtime (fake CUDA driver).
// RUN: %cc -std=c11 -I%include %s -L%rtlib -lsoftgen -lsoftgen_rt -Wl,-rpath,%rtlib -o %t
// RUN: rm -rf %t.cache
// RUN: env SOFTGEN_CACHE=1 SOFTGEN_CUDA_LIBRARY=%fake_cuda FAKE_CUDA_LOG=%t.log %t %t.cache | FileCheck %s
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "softgen/compile.h"
#include "softgen/runtime.h"

static const char *dir;

static int entries(char *first, size_t cap) {
  DIR *d = opendir(dir);
  int n = 0;
  for (struct dirent *e; d && (e = readdir(d));) {
    if (e->d_name[0] == '.')
      continue;
    if (n++ == 0 && first)
      snprintf(first, cap, "%s/%s", dir, e->d_name);
  }
  if (d)
    closedir(d);
  return n;
}

static sg_buffer run(const char *label, sg_compile_options *o) {
  sg_buffer b = {0};
  sg_compile_stats st;
  sg_diag d;
  sg_diag_clear(&d);
  sg_status s = sg_compile(o, &b, &st, &d);
  if (s)
    printf("%s: %s: %s\n", label, sg_status_name(s), d.message);
  else
    printf("%s: %zu bytes, hits %u stored %u rejected %u, entries %d, ran codegen %s\n", label,
           b.size, st.cache_hits, st.cache_stores, st.cache_rejected, entries(NULL, 0),
           st.ms_ir >= 0 ? "yes" : "no");
  return b;
}

static int same(const sg_buffer *a, const sg_buffer *b) {
  return a->size == b->size && memcmp(a->data, b->data, a->size) == 0;
}

int main(int argc, char **argv) {
  (void)argc;
  dir = argv[1];
  sg_compile_options o;
  sg_compile_options_init(&o);
  o.problem.n = 1024;
  o.problem.dtype = SG_DTYPE_F32;
  o.outputs = SG_OUTPUT_BIT(SG_OUTPUT_ASM); /* PTX: no ptxas needed */
  o.cache_dir = dir;

  sg_buffer first = run("first", &o);
  // CHECK: first: {{[0-9]+}} bytes, hits 0 stored 1 rejected 0, entries 1, ran codegen yes
  sg_buffer second = run("second", &o);
  // CHECK-NEXT: second: {{[0-9]+}} bytes, hits 1 stored 0 rejected 0, entries 1, ran codegen no
  printf("same bytes: %d, NUL-terminated: %d\n", same(&first, &second),
         second.data[second.size] == '\0');
  // CHECK-NEXT: same bytes: 1, NUL-terminated: 1

  /* Corrupt the entry in three ways: a flipped payload byte, a truncated file,
   * a header of another size. Each is rejected and replaced. */
  char path[4096];
  entries(path, sizeof path);
  const char *how[] = {"flipped", "truncated", "header-only"};
  for (int i = 0; i < 3; i++) {
    FILE *f = fopen(path, "r+b");
    if (i == 0) {
      fseek(f, 100, SEEK_SET);
      fputc('#', f);
    }
    fclose(f);
    if (i == 1)
      truncate(path, 64 + 10);
    if (i == 2)
      truncate(path, 20);
    sg_buffer again = run(how[i], &o);
    printf("%s: same as first %d\n", how[i], same(&first, &again));
    sg_buffer_free(&again);
  }
  // CHECK-NEXT: flipped: {{[0-9]+}} bytes, hits 0 stored 1 rejected 1, entries 1, ran codegen yes
  // CHECK-NEXT: flipped: same as first 1
  // CHECK-NEXT: truncated: {{[0-9]+}} bytes, hits 0 stored 1 rejected 1, entries 1, ran codegen yes
  // CHECK-NEXT: truncated: same as first 1
  // CHECK-NEXT: header-only: {{[0-9]+}} bytes, hits 0 stored 1 rejected 1, entries 1, ran codegen yes
  // CHECK-NEXT: header-only: same as first 1
  sg_buffer again = run("repaired", &o);
  sg_buffer_free(&again);
  // CHECK-NEXT: repaired: {{[0-9]+}} bytes, hits 1 stored 0

  /* What changes the code changes the key. */
  o.problem.n = 2048;
  sg_buffer b = run("n2048", &o);
  sg_buffer_free(&b);
  // CHECK-NEXT: n2048: {{.*}} hits 0 stored 1 rejected 0, entries 2
  o.problem.dtype = SG_DTYPE_BF16;
  b = run("bf16", &o);
  sg_buffer_free(&b);
  // CHECK-NEXT: bf16: {{.*}} hits 0 stored 1 rejected 0, entries 3
  const char *text = "kernel mine(x: in[M, N] T, y: out[M, N] T)\n"
                     "  a = read(x)\n  e = exp(a)\n  write(e, y)\n";
  o.template_src = (sg_source){"mine.sgt", text, strlen(text)};
  b = run("text", &o);
  sg_buffer_free(&b);
  b = run("text again", &o);
  sg_buffer_free(&b);
  // CHECK-NEXT: text: {{.*}} hits 0 stored 1 rejected 0, entries 4
  // CHECK-NEXT: text again: {{.*}} hits 1 stored 0 rejected 0, entries 4
  const char *constraint = "WaveConstraint(M, 1)";
  sg_source cons = {"<mine>", constraint, strlen(constraint)};
  o.constraints = &cons;
  o.nconstraints = 1;
  b = run("constrained", &o);
  sg_buffer_free(&b);
  // CHECK-NEXT: constrained: {{.*}} hits 0 stored 1 rejected 0, entries 5

  /* Errors carry softgen's message; nothing is stored. */
  const char *bad = "WorkgroupConstraint(N, 3)";
  cons = (sg_source){"<bad>", bad, strlen(bad)};
  b = run("rejected", &o);
  // CHECK-NEXT: rejected: SG_ERR_CONSTRAINT: <bad>:1:1: WorkgroupConstraint(N, 3): the tile does not divide the row (N = 2048)
  o.nconstraints = 0;
  o.template_src = (sg_source){"nosuch", NULL, 0};
  o.templates_dir = dir;
  b = run("missing template", &o);
  // CHECK-NEXT: missing template: SG_ERR_IO: {{.*}}/nosuch.sgt: cannot open: No such file or directory
  o.templates_dir = NULL;
  o.template_src = (sg_source){"softmax", NULL, 0};
  o.outputs = 1u << 7;
  b = run("bad mask", &o);
  // CHECK-NEXT: bad mask: SG_ERR_INVALID_ARGUMENT: sg_compilation_create: unknown output kinds in mask 0x80

  /* Off: no_cache, or SOFTGEN_CACHE=0. */
  o.outputs = SG_OUTPUT_BIT(SG_OUTPUT_ASM);
  o.problem.dtype = SG_DTYPE_F32;
  o.problem.n = 1024;
  o.no_cache = 1;
  b = run("no_cache", &o);
  sg_buffer_free(&b);
  // CHECK-NEXT: no_cache: {{.*}} hits 0 stored 0 rejected 0, entries 5, ran codegen yes
  o.no_cache = 0;
  setenv("SOFTGEN_CACHE", "0", 1);
  b = run("SOFTGEN_CACHE=0", &o);
  sg_buffer_free(&b);
  // CHECK-NEXT: SOFTGEN_CACHE=0: {{.*}} hits 0 stored 0 rejected 0, entries 5, ran codegen yes
  char cd[1024];
  sg_diag d;
  printf("sg_cache_dir off: %s\n", sg_status_name(sg_cache_dir(NULL, 0, cd, sizeof cd, &d)));
  // CHECK-NEXT: sg_cache_dir off: SG_ERR_UNSUPPORTED
  setenv("SOFTGEN_CACHE", "1", 1);
  unsetenv("SOFTGEN_CACHE_DIR");
  setenv("XDG_CACHE_HOME", "/xdg", 1);
  sg_cache_dir(NULL, 0, cd, sizeof cd, &d);
  printf("xdg: %s\n", cd);
  // CHECK-NEXT: xdg: /xdg/softgen
  setenv("SOFTGEN_CACHE_DIR", "/mine", 1);
  sg_cache_dir(NULL, 0, cd, sizeof cd, &d);
  printf("env: %s\n", cd);
  // CHECK-NEXT: env: /mine
  unsetenv("SOFTGEN_CACHE_DIR");
  unsetenv("XDG_CACHE_HOME");
  setenv("HOME", "/home/u", 1);
  sg_cache_dir(NULL, 0, cd, sizeof cd, &d);
  printf("home: %s\n", cd);
  // CHECK-NEXT: home: /home/u/.cache/softgen
  printf("version %s llvm %.3s\n", sg_version(), sg_llvm_version());
  // CHECK-NEXT: version {{[0-9]+\.[0-9]+\.[0-9]+}} llvm 22.

  /* The cached PTX loads and runs through the runtime (the fake driver computes
   * softmax on the host: its device memory is host memory). */
  sgrt_runtime *rt;
  sgrt_kernel *k;
  if (sgrt_open(SGRT_BACKEND_CUDA, 0, &rt, &d) ||
      sgrt_kernel_load_data(rt, second.data, second.size, &k, &d)) {
    printf("runtime: %s\n", d.message);
    return 1;
  }
  const sg_meta *m = sgrt_kernel_meta(k);
  printf("loaded %s n %lld on %s\n", m->kernel, (long long)m->n, sgrt_device_arch(rt));
  // CHECK-NEXT: loaded softgen_softmax_f32_n1024 n 1024 on sm_90
  float *x, *y;
  sgrt_mem_alloc(rt, 2 * 1024 * sizeof(float), (void **)&x, &d);
  sgrt_mem_alloc(rt, 2 * 1024 * sizeof(float), (void **)&y, &d);
  for (int i = 0; i < 2048; i++)
    x[i] = (float)(i % 37) * 0.25f;
  sgrt_tensor t[2] = {{x, 2, 1024, 1024, SG_DTYPE_F32}, {y, 2, 1024, 1024, SG_DTYPE_F32}};
  if (sgrt_kernel_launch(k, t, 2, NULL, &d)) {
    printf("launch: %s\n", d.message);
    return 1;
  }
  double s0 = 0, s1 = 0;
  for (int i = 0; i < 1024; i++) {
    s0 += y[i];
    s1 += y[1024 + i];
  }
  printf("row sums %.4f %.4f\n", s0, s1);
  // CHECK-NEXT: row sums 1.0000 1.0000
  sgrt_mem_free(rt, x);
  sgrt_mem_free(rt, y);
  sgrt_kernel_destroy(k);
  sgrt_close(rt);
  sg_buffer_free(&first);
  sg_buffer_free(&second);
  return 0;
}
