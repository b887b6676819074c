// Concurrency: 8 processes compile the same kernel into one empty cache at
// once (released together through a pipe). Each gets the same bytes; the cache
// ends with exactly one entry, no temporary files, and that entry is a hit.
// RUN: %cc -std=c11 -I%include %s -L%rtlib -lsoftgen -Wl,-rpath,%rtlib -o %t
// RUN: rm -rf %t.cache
// RUN: env SOFTGEN_CACHE=1 %t %t.cache | FileCheck %s
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "softgen/compile.h"

enum { PROCS = 8 };

/* Compiles the race's kernel (softmax f16 N=4096, PTX) with the cache in dir. */
static sg_status compile_once(const char *dir, sg_buffer *b, sg_compile_stats *st) {
  sg_compile_options o;
  sg_compile_options_init(&o);
  o.problem.n = 4096;
  o.outputs = SG_OUTPUT_BIT(SG_OUTPUT_ASM);
  o.cache_dir = dir;
  sg_diag d;
  return sg_compile(&o, b, st, &d);
}

int main(int argc, char **argv) {
  (void)argc;
  const char *dir = argv[1];
  int go[2], done[2];
  if (pipe(go) || pipe(done))
    return 1;
  for (int i = 0; i < PROCS; i++) {
    if (fork() == 0) {
      char c;
      close(go[1]);
      if (read(go[0], &c, 1) != 0) /* blocks until the parent closes its end */
        _exit(2);
      sg_buffer b;
      sg_compile_stats st;
      if (compile_once(dir, &b, &st))
        _exit(3);
      /* report a digest of the bytes so the parent can compare them */
      unsigned long h = 5381;
      for (size_t k = 0; k < b.size; k++)
        h = h * 33 + (unsigned char)b.data[k];
      char line[64];
      int n = snprintf(line, sizeof line, "%016lx %u\n", h, st.cache_hits);
      if (write(done[1], line, (size_t)n) != n)
        _exit(4);
      sg_buffer_free(&b);
      _exit(0);
    }
  }
  close(go[0]);
  close(go[1]); /* release them all */
  close(done[1]);
  int ok = 0;
  for (int i = 0; i < PROCS; i++) {
    int status;
    wait(&status);
    ok += WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  char buf[PROCS * 64 + 1];
  size_t len = 0;
  ssize_t r;
  while ((r = read(done[0], buf + len, sizeof buf - 1 - len)) > 0)
    len += (size_t)r;
  buf[len] = '\0';
  int same = 1;
  for (size_t i = 0; i + 17 <= len; i += 17 + strcspn(buf + i + 17, "\n") + 1)
    same &= memcmp(buf, buf + i, 16) == 0;
  printf("processes ok %d of %d, identical outputs %d\n", ok, PROCS, same);
  // CHECK: processes ok 8 of 8, identical outputs 1
  int entries = 0, temps = 0;
  DIR *d = opendir(dir);
  for (struct dirent *e; d && (e = readdir(d));) {
    if (e->d_name[0] == '.')
      continue;
    size_t n = strlen(e->d_name);
    if (n == 68 && strcmp(e->d_name + 64, ".sgc") == 0)
      entries++;
    else
      temps++;
  }
  if (d)
    closedir(d);
  printf("entries %d, other files %d\n", entries, temps);
  // CHECK-NEXT: entries 1, other files 0
  sg_buffer b;
  sg_compile_stats st;
  if (compile_once(dir, &b, &st))
    return 1;
  printf("after the race: hits %u rejected %u\n", st.cache_hits, st.cache_rejected);
  // CHECK-NEXT: after the race: hits 1 rejected 0
  sg_buffer_free(&b);
  return 0;
}
