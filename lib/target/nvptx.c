/* nvptx.c - NVIDIA GPUs (target/target.h): nvptx64-nvidia-cuda, sm_80 to
 * sm_100. Warps of 32, blocks of up to 1024 threads and 2048 a multiprocessor,
 * clusters from sm_90 (8 portable, 16 opted in), rows staged with cp.async. */
#include <string.h>

#include "target/target.h"

static const char *const archs[] = {"sm_80", "sm_89", "sm_90", "sm_90a", "sm_100", NULL};

static int wave_ok(const char *arch, unsigned size) {
  (void)arch;
  return size == 32;
}
static const char *wave_sizes(const char *arch) {
  (void)arch;
  return "NVIDIA warps have 32 threads";
}
static int cluster_ok(const char *arch) {
  return strcmp(arch, "sm_90") >= 0 && strlen(arch) >= 5; /* sm_90, sm_90a, sm_100 */
}
/* The opt-in dynamic shared memory of a block (CUDA's per-arch limits). */
static unsigned stage_smem(const char *arch) {
  if (strcmp(arch, "sm_80") == 0)
    return 163 * 1024;
  if (strcmp(arch, "sm_89") == 0)
    return 99 * 1024;
  return 227 * 1024; /* sm_90, sm_90a, sm_100 */
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
    .max_threads_per_sm = 2048,
    .wave_ok = wave_ok,
    .wave_sizes = wave_sizes,
    .max_cluster = 8,
    .max_cluster_staged = 16,
    .cluster_ok = cluster_ok,
    .stage_smem = stage_smem,
};
