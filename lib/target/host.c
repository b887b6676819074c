/* host.c - the CPU softgen runs on (target/target.h), x86-64 or AArch64: LLVM's
 * default triple (SOFTGEN_HOST_TRIPLE names another machine to generate for:
 * a generic CPU, no JIT). What the GPU words mean here (backend/host.c builds
 * the code): a thread is a CPU thread and a block one thread (waves of 1, no
 * shared memory, no clusters); the plan's vector is the SIMD register (64 bytes
 * with AVX-512F, 32 with AVX, else 16: SSE2, NEON); a row longer than the
 * register budget is read in tiles (stream_long_rows).
 *
 * --arch: "native" (the CPU softgen runs on) or a CPU name from the list for
 * the triple's architecture; the code object runs on CPUs with at least those
 * features. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/target.h"

/* LLVM's default target triple, from the LLVM softgen was configured with. */
#ifndef SOFTGEN_HOST_TRIPLE_DEFAULT
#define SOFTGEN_HOST_TRIPLE_DEFAULT "unknown-unknown-unknown"
#endif

/* Filled once by probe(). */
static char host_triple[128] = SOFTGEN_HOST_TRIPLE_DEFAULT;
static const char *archs[8] = {"native", NULL};
static unsigned native_vector_bytes = 16;

static void probe(void) { /* once per process: target.c */
  const char *env = getenv("SOFTGEN_HOST_TRIPLE");
  int cross = env && *env; /* e.g. aarch64-unknown-linux-gnu on an x86-64 build machine */
  if (cross)
    snprintf(host_triple, sizeof host_triple, "%s", env);
  int x86 = strncmp(host_triple, "x86_64", 6) == 0;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (!cross) { /* the SIMD width this CPU (and its OS) runs */
    __builtin_cpu_init();
    native_vector_bytes = __builtin_cpu_supports("avx512f") ? 64
                          : __builtin_cpu_supports("avx") ? 32 : 16;
  }
#endif
  static const char *const x86_list[] = {"native", "x86-64", "x86-64-v2", "x86-64-v3",
                                         "x86-64-v4", NULL};
  static const char *const arm_list[] = {"native", "generic", "neoverse-n1", "neoverse-v1",
                                         "apple-m1", NULL};
  const char *const *list = x86 ? x86_list : strncmp(host_triple, "aarch64", 7) == 0 ? arm_list
                                                                                    : NULL;
  for (int i = 0; list && list[i]; i++)
    archs[i] = list[i];
}

static int wave_ok(const char *arch, unsigned size) {
  (void)arch;
  return size == 1;
}
static const char *wave_sizes(const char *arch) {
  (void)arch;
  return "a host thread is a wave of 1 (its SIMD lanes are the vector)";
}
static unsigned max_vector_bytes(const char *arch) {
  if (strcmp(arch, "native") == 0)
    return native_vector_bytes;
  return strcmp(arch, "x86-64-v4") == 0 ? 64 : strcmp(arch, "x86-64-v3") == 0 ? 32 : 16;
}

const sgh_target sgh_host = {
    .name = "host",
    .triple = host_triple,
    .default_arch = "native",
    .archs = archs,
    .asm_ext = ".s",
    .object_ext = ".o",
    .shared_ext = ".so",
    .max_block_threads = 1,
    .max_static_smem = 0,
    .max_elems_per_thread = 64,
    .max_threads_per_sm = 1,
    .max_vector_bytes = max_vector_bytes,
    .stream_long_rows = 1,
    .probe = probe,
    .wave_ok = wave_ok,
    .wave_sizes = wave_sizes,
};
