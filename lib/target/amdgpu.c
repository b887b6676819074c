/* amdgpu.c - AMD GPUs (target/target.h): amdgcn-amd-amdhsa, CDNA (gfx90a,
 * gfx942, gfx950: waves of 64) and RDNA (gfx1100, gfx1201: waves of 32 or 64).
 * Blocks of up to 1024 threads, 64 KB of LDS; no clusters, no staged rows. */
#include <string.h>

#include "target/target.h"

static const char *const archs[] = {"gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1201", NULL};

static int is_rdna(const char *arch) { return strncmp(arch, "gfx1", 4) == 0 && strlen(arch) >= 7; }

static int wave_ok(const char *arch, unsigned size) {
  return size == 64 || (size == 32 && is_rdna(arch));
}
static const char *wave_sizes(const char *arch) {
  return is_rdna(arch) ? "RDNA runs waves of 32 or 64" : "CDNA runs waves of 64 only";
}

const sgh_target sgh_amdgpu = {
    .name = "amdgpu",
    .triple = "amdgcn-amd-amdhsa",
    .default_arch = "gfx942",
    .archs = archs,
    .asm_ext = ".s",
    .object_ext = ".hsaco",
    .max_block_threads = 1024,
    .max_static_smem = 64 * 1024,
    .max_elems_per_thread = 64,
    .peel_rows = 1,
    .grid_split = 1,
    .max_threads_per_sm = 2048,
    .wave_ok = wave_ok,
    .wave_sizes = wave_sizes,
};
