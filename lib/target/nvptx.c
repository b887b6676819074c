/* nvptx.c - NVIDIA GPUs (target/target.h): nvptx64-nvidia-cuda, sm_80 to
 * sm_121. Warps of 32, blocks of up to 1024 threads and 2048 a multiprocessor,
 * clusters from sm_90 (8 portable, 16 opted in), rows staged with cp.async. */
#include <stdlib.h>
#include <string.h>

#include "target/target.h"

/* Every arch LLVM 22's NVPTX backend and CUDA 13 both know from sm_80 on, with
 * the opt-in dynamic shared memory of a block (CUDA's per-arch limits, in KiB). */
static const struct {
  const char *name;
  unsigned smem_kib;
} arch_table[] = {
    {"sm_80", 163},  {"sm_86", 99},    {"sm_87", 163},  {"sm_89", 99},    {"sm_90", 227},
    {"sm_90a", 227}, {"sm_100", 227},  {"sm_100a", 227}, {"sm_103", 227}, {"sm_103a", 227},
    {"sm_120", 99},  {"sm_120a", 99},  {"sm_121", 99},   {"sm_121a", 99},
};
enum { NARCHS = sizeof arch_table / sizeof arch_table[0] };
static const char *const archs[] = {"sm_80",   "sm_86",  "sm_87",   "sm_89",  "sm_90",
                                    "sm_90a",  "sm_100", "sm_100a", "sm_103", "sm_103a",
                                    "sm_120",  "sm_120a", "sm_121", "sm_121a", NULL};

/* The compute capability of "sm_XY[a]" as 10 * X + Y, 0 if arch is not one;
 * *specific: 1 for an arch-specific ("a") name. */
static unsigned capability(const char *arch, int *specific) {
  if (!arch || strncmp(arch, "sm_", 3) != 0)
    return 0;
  char *end;
  long v = strtol(arch + 3, &end, 10);
  if (end == arch + 3 || v <= 0 || v > 10000 || (*end && strcmp(end, "a") != 0))
    return 0;
  if (specific)
    *specific = *end == 'a';
  return (unsigned)v;
}

static int wave_ok(const char *arch, unsigned size) {
  (void)arch;
  return size == 32;
}
static const char *wave_sizes(const char *arch) {
  (void)arch;
  return "NVIDIA warps have 32 threads";
}
static int cluster_ok(const char *arch) { return capability(arch, NULL) >= 90; }
static unsigned stage_smem(const char *arch) {
  for (int i = 0; i < NARCHS; i++)
    if (strcmp(arch_table[i].name, arch) == 0)
      return arch_table[i].smem_kib * 1024;
  return 99 * 1024; /* not listed: the smallest of the list */
}
/* A listed arch as is; another sm_XY: the newest listed arch that is not
 * arch-specific and whose compute capability is at most XY, as PTX (the driver
 * compiles PTX for any later device). */
static const char *arch_for_device(const char *device_arch) {
  int specific = 0;
  unsigned cc = capability(device_arch, &specific), best_cc = 0;
  const char *best = NULL;
  for (int i = 0; i < NARCHS; i++) {
    int a = 0;
    unsigned c = capability(arch_table[i].name, &a);
    if (strcmp(arch_table[i].name, device_arch) == 0)
      return arch_table[i].name;
    if (!a && c <= cc && c > best_cc)
      best = arch_table[i].name, best_cc = c;
  }
  return best;
}

const sgh_target sgh_nvptx = {
    .name = "nvptx",
    .triple = "nvptx64-nvidia-cuda",
    .default_arch = "sm_90",
    .archs = archs,
    .asm_ext = ".ptx",
    .object_ext = ".cubin",
    .max_block_threads = 1024,
    .max_static_smem = 48 * 1024,
    .max_elems_per_thread = 64,
    .peel_rows = 1,
    .grid_split = 1,
    .max_blocks_per_sm = 32,
    .max_threads_per_sm = 2048,
    .wave_ok = wave_ok,
    .wave_sizes = wave_sizes,
    .max_cluster = 8,
    .max_cluster_wide = 16,
    .cluster_ok = cluster_ok,
    .stage_smem = stage_smem,
    .arch_for_device = arch_for_device,
};
