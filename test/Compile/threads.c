// Concurrency in one process: 8 threads, released together, each compile a
// kernel through the in-process API (the Python binding compiles from several
// threads): host kernels through the JIT and nvptx PTX, so that the first use
// of each target (probing the host CPU, initializing LLVM's backends, which
// fill one registry) happens in several threads at once. Each thread's result
// must be a complete object naming its own kernel.
// REQUIRES: host-x86_64
// RUN: %cc -std=c11 -pthread -I%include %s -L%rtlib -lsoftgen -Wl,-rpath,%rtlib -o %t
// RUN: %t | FileCheck %s
// CHECK: 8 threads: 8 compiled, 0 failed
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "softgen/compile.h"

enum { THREADS = 8 };

static pthread_barrier_t start;

static void *compile_one(void *arg) {
  long i = (long)arg;
  sg_compile_options o;
  sg_compile_options_init(&o);
  o.problem.n = 1000 + i;
  o.no_cache = 1;
  sg_diag d;
  pthread_barrier_wait(&start);
  if (i % 2) { /* host: JIT, no file */
    o.problem.target = "host";
    o.problem.arch = "x86-64-v2";
    sg_jit *j = NULL;
    if (sg_compile_jit(&o, &j, NULL, &d) != SG_OK) {
      printf("thread %ld: %s\n", i, d.message);
      return (void *)1;
    }
    size_t len = 0;
    const char *meta = sg_jit_meta(j, &len);
    char want[64];
    snprintf(want, sizeof want, "kernel softgen_softmax_f16_n%ld\n", 1000 + i);
    int ok = sg_jit_kernel(j) != NULL && meta && strstr(meta, want) != NULL;
    sg_jit_destroy(j);
    return (void *)(long)!ok;
  }
  o.outputs = SG_OUTPUT_BIT(SG_OUTPUT_ASM);
  sg_buffer b = {0};
  if (sg_compile(&o, &b, NULL, &d) != SG_OK) {
    printf("thread %ld: %s\n", i, d.message);
    return (void *)1;
  }
  char want[64];
  snprintf(want, sizeof want, ".entry softgen_softmax_f16_n%ld(", 1000 + i);
  int ok = b.data && strstr(b.data, want) != NULL;
  sg_buffer_free(&b);
  return (void *)(long)!ok;
}

int main(void) {
  pthread_t t[THREADS];
  pthread_barrier_init(&start, NULL, THREADS);
  for (long i = 0; i < THREADS; i++)
    if (pthread_create(&t[i], NULL, compile_one, (void *)i))
      return 1;
  int failed = 0;
  for (int i = 0; i < THREADS; i++) {
    void *r;
    pthread_join(t[i], &r);
    failed += r != NULL;
  }
  printf("%d threads: %d compiled, %d failed\n", THREADS, THREADS - failed, failed);
  return failed != 0;
}
