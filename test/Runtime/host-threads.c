// Concurrent launches on one host runtime (issue 19, item 1): THREADS caller
// threads launch a host-target softmax (N = 1000, f32) on one runtime whose
// pool has 2 to 4 CPU threads, LAUNCHES times each, every thread on its own
// rows with its own outputs, poisoned (NaN) before each launch, and checks
// every output against a float64 reference. One more thread changes the pool
// size (sgrt_host_set_threads) meanwhile. Before the fix the launches shared
// the pool's launch state: outputs of one thread computed from another's
// inputs, rows left unwritten, or a launch that never returned (the alarm
// below, then SIGALRM: lit fails the test).
// RUN: %softgen softmax -D N=1000 --dtype f32 --target host --emit so -o %t.so
// RUN: %cc -std=c11 -I%include %s -L%rtlib -lsoftgen_rt -Wl,-rpath,%rtlib -lpthread -lm -o %t
// RUN: %t %t.so 4 300 | FileCheck %s
// CHECK: threads=4 launches=300 pool=2..4
// CHECK-NEXT: wrong=0 failed=0
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "softgen/runtime.h"

enum { N = 1000, ROWS = 48, MAX_THREADS = 16 };

static sgrt_runtime *rt;
static sgrt_kernel *k;
static int launches;
static int wrong[MAX_THREADS], failed[MAX_THREADS];
static int done_count;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

typedef struct job {
  int id;
  float *x, *y;
  double *ref;
} job;

static void reference(const float *x, double *ref) {
  for (int r = 0; r < ROWS; r++) {
    const float *row = x + (size_t)r * N;
    double m = -INFINITY, s = 0;
    for (int i = 0; i < N; i++)
      m = row[i] > m ? row[i] : m;
    for (int i = 0; i < N; i++)
      s += exp(row[i] - m);
    for (int i = 0; i < N; i++)
      ref[(size_t)r * N + i] = exp(row[i] - m) / s;
  }
}

static void *caller(void *p) {
  job *j = p;
  sgrt_tensor t[2] = {{j->x, ROWS, N, N, SG_DTYPE_F32, 0, 0},
                      {j->y, ROWS, N, N, SG_DTYPE_F32, 0, 0}};
  for (int l = 0; l < launches; l++) {
    memset(j->y, 0xff, sizeof(float) * ROWS * N); /* NaN: an unwritten element fails */
    sg_diag d;
    if (sgrt_kernel_launch(k, t, 2, NULL, &d) != SG_OK) {
      if (!failed[j->id]++)
        fprintf(stderr, "thread %d: %s\n", j->id, d.message);
      continue;
    }
    for (size_t i = 0; i < (size_t)ROWS * N; i++)
      if (!(fabs(j->y[i] - j->ref[i]) <= 1e-5 * j->ref[i] + 1e-7)) {
        if (!wrong[j->id]++)
          fprintf(stderr, "thread %d launch %d: element %zu is %g, expected %g\n", j->id, l, i,
                  j->y[i], j->ref[i]);
        break;
      }
  }
  pthread_mutex_lock(&mu);
  done_count++;
  pthread_mutex_unlock(&mu);
  return NULL;
}

static void *resizer(void *p) {
  int nthreads = *(int *)p;
  for (unsigned i = 0;; i++) {
    pthread_mutex_lock(&mu);
    int done = done_count == nthreads;
    pthread_mutex_unlock(&mu);
    if (done)
      break;
    sgrt_host_set_threads(rt, 2 + i % 3, NULL);
    nanosleep(&(struct timespec){0, 200000}, NULL);
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 4)
    return fprintf(stderr, "usage: host-threads LIB.so THREADS LAUNCHES\n"), 2;
  int nthreads = atoi(argv[2]);
  launches = atoi(argv[3]);
  if (nthreads < 1 || nthreads > MAX_THREADS)
    return 2;
  alarm(60); /* a deadlocked launch ends the test with SIGALRM */
  sg_diag d;
  if (sgrt_open(SGRT_BACKEND_HOST, 0, &rt, &d) || sgrt_host_set_threads(rt, 3, &d) ||
      sgrt_kernel_load_file(rt, argv[1], &k, &d))
    return fprintf(stderr, "setup: %s\n", d.message), 1;
  job jobs[MAX_THREADS];
  pthread_t th[MAX_THREADS], rs;
  unsigned seed = 12345;
  for (int i = 0; i < nthreads; i++) {
    jobs[i].id = i;
    jobs[i].x = aligned_alloc(64, sizeof(float) * ROWS * N);
    jobs[i].y = aligned_alloc(64, sizeof(float) * ROWS * N);
    jobs[i].ref = malloc(sizeof(double) * ROWS * N);
    for (size_t e = 0; e < (size_t)ROWS * N; e++) { /* each thread its own rows */
      seed = seed * 1103515245u + 12345u;
      jobs[i].x[e] = (float)((seed >> 8) % 20000) / 2000.0f - 5.0f + (float)i;
    }
    reference(jobs[i].x, jobs[i].ref);
  }
  for (int i = 0; i < nthreads; i++)
    pthread_create(&th[i], NULL, caller, &jobs[i]);
  pthread_create(&rs, NULL, resizer, &nthreads);
  int w = 0, f = 0;
  for (int i = 0; i < nthreads; i++) {
    pthread_join(th[i], NULL);
    w += wrong[i];
    f += failed[i];
  }
  pthread_join(rs, NULL);
  printf("threads=%d launches=%d pool=2..4\nwrong=%d failed=%d\n", nthreads, launches, w, f);
  for (int i = 0; i < nthreads; i++) {
    free(jobs[i].x);
    free(jobs[i].y);
    free(jobs[i].ref);
  }
  sgrt_kernel_destroy(k);
  sgrt_close(rt);
  return w || f;
}
