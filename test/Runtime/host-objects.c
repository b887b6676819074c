// Host shared libraries loaded from memory (sgrt_kernel_load_data on the host
// backend): two different kernels alive at once in one runtime, loaded again
// after one is destroyed, each launched and checked against a float64
// softmax; TMPDIR (an empty directory) holds no file afterwards: the bytes go
// to an anonymous memory file, not a temporary file (issue 19, item 3). The
// memory file stays open while its library is loaded: dlopen knows a library
// by its path, and a closed descriptor's /proc/self/fd/N, reused by the next
// load, would give back the first library.
// RUN: rm -rf %t.dir && mkdir -p %t.dir/tmp
// RUN: %softgen softmax -D N=1000 --dtype f32 --target host --emit so -o %t.dir/a.so
// RUN: %softgen softmax -D N=2000 --dtype f32 --target host --emit so -o %t.dir/b.so
// RUN: %cc -std=c11 -I%include %s -L%rtlib -lsoftgen_rt -Wl,-rpath,%rtlib -lm -o %t
// RUN: env TMPDIR=%t.dir/tmp %t %t.dir/a.so %t.dir/b.so %t.dir/tmp | FileCheck %s
// CHECK: a: softgen_softmax_f32_n1000 ok
// CHECK-NEXT: b: softgen_softmax_f32_n2000 ok
// CHECK-NEXT: a again: softgen_softmax_f32_n1000 ok
// CHECK-NEXT: b again: softgen_softmax_f32_n2000 ok
// CHECK-NEXT: a after b's destroy: softgen_softmax_f32_n1000 ok
// CHECK-NEXT: files left in TMPDIR: 0
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "softgen/runtime.h"

static sgrt_runtime *rt;

static sgrt_kernel *load(const char *path) {
  FILE *f = fopen(path, "rb");
  static char buf[1 << 24];
  size_t n = f ? fread(buf, 1, sizeof buf, f) : 0;
  if (f)
    fclose(f);
  sgrt_kernel *k = NULL;
  sg_diag d;
  if (sgrt_kernel_load_data(rt, buf, n, &k, &d))
    printf("load %s: %s\n", path, d.message);
  return k;
}

/* Launches k on 5 rows and checks them; prints "LABEL: KERNEL ok" or why not. */
static void check(const char *label, sgrt_kernel *k) {
  if (!k)
    return;
  const sg_meta *m = sgrt_kernel_meta(k);
  int64_t n = m->n, rows = 5;
  size_t bytes = (sizeof(float) * rows * n + 63) / 64 * 64; /* aligned_alloc: a multiple */
  float *x = aligned_alloc(64, bytes), *y = aligned_alloc(64, bytes);
  for (int64_t i = 0; i < rows * n; i++)
    x[i] = (float)((i * 7919) % 1000) / 100.0f;
  sgrt_tensor t[2] = {{x, rows, n, n, SG_DTYPE_F32, 0, 0}, {y, rows, n, n, SG_DTYPE_F32, 0, 0}};
  sg_diag d;
  int bad = 0;
  if (sgrt_kernel_launch(k, t, 2, NULL, &d)) {
    printf("%s: launch: %s\n", label, d.message);
    bad = 1;
  }
  for (int64_t r = 0; r < rows && !bad; r++) {
    double mx = -INFINITY, s = 0;
    for (int64_t i = 0; i < n; i++)
      mx = fmax(mx, x[r * n + i]);
    for (int64_t i = 0; i < n; i++)
      s += exp(x[r * n + i] - mx);
    for (int64_t i = 0; i < n && !bad; i++)
      bad = fabs(y[r * n + i] - exp(x[r * n + i] - mx) / s) > 1e-6;
  }
  if (!bad)
    printf("%s: %s ok\n", label, m->kernel);
  else
    printf("%s: %s wrong\n", label, m->kernel);
  free(x);
  free(y);
}

int main(int argc, char **argv) {
  if (argc != 4)
    return 2;
  sg_diag d;
  if (sgrt_open(SGRT_BACKEND_HOST, 0, &rt, &d))
    return printf("open: %s\n", d.message), 1;
  sgrt_kernel *a = load(argv[1]), *b = load(argv[2]);
  check("a", a);
  check("b", b);
  check("a again", a);
  check("b again", b);
  sgrt_kernel_destroy(b);
  sgrt_kernel *a2 = load(argv[1]);
  check("a after b's destroy", a2);
  int files = 0;
  DIR *dir = opendir(argv[3]);
  for (struct dirent *e; dir && (e = readdir(dir));)
    files += e->d_name[0] != '.';
  if (dir)
    closedir(dir);
  printf("files left in TMPDIR: %d\n", files);
  sgrt_kernel_destroy(a2);
  sgrt_kernel_destroy(a);
  sgrt_close(rt);
  return 0;
}
