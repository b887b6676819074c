// Grid-split variants and streams: each stream's launches of the variant use
// its own workspace slot (runtime.h), claimed at its first launch, the same
// slot again after, never another stream's; the default stream (NULL) is one
// stream like any other. Inputs/softmax_f16_grid.ptx has 16 slots of 1024
// bytes (the fake logs the slice as ws=+OFFSET in softgen_workspace and checks
// it is in it, aligned and zero): the 17th stream, and the per-thread default
// stream (handle 2: another stream in each thread), take the kernel instead.
// A second load of the object has its own workspace and slots. M = 3 (over
// max_rows) takes the kernel on any stream.
// HIP (mode "hip", an amdgpu object built here with its workspace line): the
// variant is kept where the driver has hipModuleLaunchCooperativeKernel (the
// workspace looked up with hipModuleGetGlobal) and launched through it while
// its blocks stay resident (hipModuleOccupancyMaxActiveBlocksPerMultiprocessor
// x hipDeviceGetAttribute(63), compute units: the fake's 2 x 4), each stream
// its slot, a capture (hipStreamGetCaptureInfo) one of its own; one block a
// compute unit (4 resident) leaves M = 2 (8 blocks) to the kernel, and unknown
// residency every M. A driver without the cooperative launch
// (libfake_hip_nocoop.so, derived from %fake_hip) drops it at load.
// RUN: %cc -std=c11 -I%include -I%S/Inputs %s -L%rtlib -lsoftgen_rt -Wl,-rpath,%rtlib -o %t
// RUN: rm -f %t.log %t.hip.log %t.nocoop.log
// RUN: %seal %S/Inputs/softmax_f16_grid.ptx %t.ptx
// RUN: env SOFTGEN_CUDA_LIBRARY=%fake_cuda FAKE_CUDA_LOG=%t.log FAKE_CUDA_NOEXEC=1 %t cuda %t.ptx | FileCheck %s
// RUN: FileCheck --check-prefix=LOG %s < %t.log
// RUN: env SOFTGEN_CUDA_LIBRARY=/nonexistent.so SOFTGEN_HIP_LIBRARY=%fake_hip FAKE_HIP_LOG=%t.hip.log FAKE_HIP_NOEXEC=1 %t hip | FileCheck --check-prefix=HIP %s
// RUN: FileCheck --check-prefix=HIP-LOG %s < %t.hip.log
// RUN: rm -f %t.hip1.log %t.hipunk.log %t.hipcap.log
// RUN: env SOFTGEN_CUDA_LIBRARY=/nonexistent.so SOFTGEN_HIP_LIBRARY=%fake_hip FAKE_HIP_LOG=%t.hip1.log FAKE_HIP_NOEXEC=1 FAKE_HIP_BLOCKS_PER_CU=1 %t hip | FileCheck --check-prefix=HIP %s
// RUN: FileCheck --check-prefix=HIP1-LOG %s < %t.hip1.log
// RUN: env SOFTGEN_CUDA_LIBRARY=/nonexistent.so SOFTGEN_HIP_LIBRARY=%fake_hip FAKE_HIP_LOG=%t.hipunk.log FAKE_HIP_NOEXEC=1 FAKE_HIP_FAIL=hipModuleOccupancyMaxActiveBlocksPerMultiprocessor:1 %t hip | FileCheck --check-prefix=HIP %s
// RUN: FileCheck --check-prefix=HIPUNK-LOG %s < %t.hipunk.log
// RUN: env SOFTGEN_CUDA_LIBRARY=/nonexistent.so SOFTGEN_HIP_LIBRARY=%fake_hip FAKE_HIP_LOG=%t.hipcap.log FAKE_HIP_NOEXEC=1 FAKE_HIP_CAPTURE=9 %t hip | FileCheck --check-prefix=HIP %s
// RUN: FileCheck --check-prefix=HIPCAP-LOG %s < %t.hipcap.log
// RUN: env SOFTGEN_CUDA_LIBRARY=/nonexistent.so FAKE_HIP_LOG=%t.nocoop.log FAKE_HIP_NOEXEC=1 %t hip-nocoop %fake_hip | FileCheck --check-prefix=NOCOOP %s
// RUN: FileCheck --check-prefix=NOCOOP-LOG %s < %t.nocoop.log
// Graph captures (mode "capture"; the fake says a stream captures while
// FAKE_CUDA_CAPTURE holds the capture's id): a launch captured on stream a
// gets a slot of its capture's own, not stream a's (the graph's replays may
// run beside later launches on a), the same one for the rest of that capture,
// another in the next capture; a driver that will not say whether the stream
// captures ("refuse") gets the kernel, not the grid split.
// RUN: rm -f %t.cap.log
// RUN: env SOFTGEN_CUDA_LIBRARY=%fake_cuda FAKE_CUDA_LOG=%t.cap.log FAKE_CUDA_NOEXEC=1 %t capture %t.ptx | FileCheck --check-prefix=CAP %s
// RUN: FileCheck --check-prefix=CAP-LOG %s < %t.cap.log
#include "rt_test.h"

static void *stream(uintptr_t s) { return (void *)s; }

static void launch(sgrt_kernel *k, sgrt_tensor *t, int64_t rows, void *s, const char *what) {
  sg_diag d;
  t[0].rows = t[1].rows = rows;
  printf("%s (stream %#llx, M=%lld): ", what, (unsigned long long)(uintptr_t)s, (long long)rows);
  report("launch", sgrt_kernel_launch(k, t, 2, s, &d), &d);
}

static void show_variants(sgrt_kernel *k) {
  const sg_meta *m = sgrt_kernel_meta(k);
  printf("variants %d", m->nvariants);
  for (int i = 0; i < m->nvariants; i++)
    printf(" %s split %u workspace %llu", m->variants[i].kernel, m->variants[i].split,
           (unsigned long long)m->variants[i].workspace);
  printf("\n");
}

static int cuda(const char *path) {
  sgrt_runtime *rt = open_or_die(SGRT_BACKEND_CUDA);
  sgrt_kernel *k = NULL, *k2 = NULL;
  sg_diag d;
  report("load", sgrt_kernel_load_file(rt, path, &k, &d), &d);
  if (!k)
    return 1;
  show_variants(k);
  sgrt_geometry g;
  if (sgrt_kernel_geometry(k, 2, &g, &d) == SG_OK)
    printf("geometry M=2: few %d grid %llu cluster %u workspace %llu\n", g.few,
           (unsigned long long)g.grid, g.cluster, (unsigned long long)g.workspace);
  sgrt_tensor t[2];
  make_tensors(t, 3, 1024, 1024, SG_DTYPE_F16);
  launch(k, t, 2, NULL, "default stream");
  launch(k, t, 2, stream(0x10), "stream a");
  launch(k, t, 2, stream(0x20), "stream b");
  launch(k, t, 2, stream(0x10), "stream a again");
  launch(k, t, 1, NULL, "default stream again");
  for (uintptr_t i = 0; i < 13; i++) /* slots 3 to 15 */
    launch(k, t, 2, stream(0x100 + i), "more");
  launch(k, t, 2, stream(0x999), "a 17th stream");
  launch(k, t, 2, stream(2), "the per-thread default stream");
  launch(k, t, 2, stream(0x20), "stream b again");
  launch(k, t, 3, stream(0x10), "over max_rows");
  report("load again", sgrt_kernel_load_file(rt, path, &k2, &d), &d);
  if (k2)
    launch(k2, t, 2, stream(0x999), "the 17th stream, second load");
  sgrt_kernel_destroy(k2);
  sgrt_kernel_destroy(k);
  sgrt_close(rt);
  return 0;
}

static int capture(const char *path) {
  sgrt_runtime *rt = open_or_die(SGRT_BACKEND_CUDA);
  sgrt_kernel *k = NULL;
  sg_diag d;
  report("load", sgrt_kernel_load_file(rt, path, &k, &d), &d);
  if (!k)
    return 1;
  sgrt_tensor t[2];
  make_tensors(t, 3, 1024, 1024, SG_DTYPE_F16);
  launch(k, t, 2, stream(0x10), "stream a");
  setenv("FAKE_CUDA_CAPTURE", "7", 1);
  launch(k, t, 2, stream(0x10), "stream a, capture 7");
  launch(k, t, 1, stream(0x10), "stream a, capture 7 again");
  launch(k, t, 2, stream(0x20), "stream b, capture 7");
  setenv("FAKE_CUDA_CAPTURE", "8", 1);
  launch(k, t, 2, stream(0x10), "stream a, capture 8");
  unsetenv("FAKE_CUDA_CAPTURE");
  launch(k, t, 2, stream(0x10), "stream a again");
  setenv("FAKE_CUDA_CAPTURE", "refuse", 1);
  launch(k, t, 2, stream(0x10), "stream a, capture status refused");
  unsetenv("FAKE_CUDA_CAPTURE");
  sgrt_kernel_destroy(k);
  sgrt_close(rt);
  return 0;
}

/* An amdgpu object of test_meta with a grid-split variant and a workspace of
 * 4 slots of 1024 bytes (the line the fake HIP driver reads), sealed. */
static sgrt_kernel *load_hip(sgrt_runtime *rt) {
  static char buf[8192];
  sg_meta m = test_meta();
  strcpy(m.target, "amdgpu");
  strcpy(m.arch, "gfx942");
  m.nvariants = 1;
  m.variants[0] = (sg_meta_variant){.kernel = "softgen_softmax_f16_n1024_grid", .block = 256,
                                    .rows_per_block = 1, .cluster = 1, .max_rows = 2,
                                    .split = 4, .workspace = 1024};
  size_t len = 0;
  sg_diag d;
  if (sg_meta_format_unsealed(&m, buf, sizeof buf, &len, &d) != SG_OK)
    return NULL;
  len += (size_t)snprintf(buf + len, sizeof buf - len,
                          ".visible .global .align 128 .b8 softgen_workspace[4096];\n");
  if (sg_meta_seal(buf, len, &d) != SG_OK)
    return NULL;
  sgrt_kernel *k = NULL;
  report("load", sgrt_kernel_load_data(rt, buf, len, &k, &d), &d);
  return k;
}

static int hip(void) {
  sgrt_runtime *rt = open_or_die(SGRT_BACKEND_HIP);
  sgrt_kernel *k = load_hip(rt);
  if (!k)
    return 1;
  show_variants(k);
  sgrt_tensor t[2];
  make_tensors(t, 3, 1024, 1024, SG_DTYPE_F16);
  launch(k, t, 1, NULL, "hip");
  launch(k, t, 2, NULL, "hip");
  launch(k, t, 3, NULL, "hip");
  launch(k, t, 1, stream(0x10), "hip");
  sgrt_kernel_destroy(k);
  sgrt_close(rt);
  return 0;
}

int main(int argc, char **argv) {
  if (argc >= 3 && strcmp(argv[1], "cuda") == 0)
    return cuda(argv[2]);
  if (argc >= 3 && strcmp(argv[1], "capture") == 0)
    return capture(argv[2]);
  if (argc >= 2 && strcmp(argv[1], "hip") == 0)
    return hip();
  if (argc >= 3 && strcmp(argv[1], "hip-nocoop") == 0) {
    char path[4096];
    snprintf(path, sizeof path, "%s", argv[2]);
    char *slash = strrchr(path, '/');
    if (!slash)
      return 2;
    snprintf(slash + 1, sizeof path - (size_t)(slash + 1 - path), "libfake_hip_nocoop.so");
    setenv("SOFTGEN_HIP_LIBRARY", path, 1);
    return hip();
  }
  return 2;
}
// CHECK: load: SG_OK
// CHECK-NEXT: variants 1 softgen_softmax_f16_n1024_grid split 4 workspace 1024
// CHECK-NEXT: geometry M=2: few 1 grid 8 cluster 1 workspace 1024
// CHECK-NEXT: default stream (stream 0, M=2): launch: SG_OK
// CHECK-NEXT: stream a (stream 0x10, M=2): launch: SG_OK
// CHECK-NEXT: stream b (stream 0x20, M=2): launch: SG_OK
// CHECK-NEXT: stream a again (stream 0x10, M=2): launch: SG_OK
// CHECK-NEXT: default stream again (stream 0, M=1): launch: SG_OK
// CHECK-COUNT-13: more (stream 0x{{1[0-9a-f][0-9a-f]}}, M=2): launch: SG_OK
// CHECK-NEXT: a 17th stream (stream 0x999, M=2): launch: SG_OK
// CHECK-NEXT: the per-thread default stream (stream 0x2, M=2): launch: SG_OK
// CHECK-NEXT: stream b again (stream 0x20, M=2): launch: SG_OK
// CHECK-NEXT: over max_rows (stream 0x10, M=3): launch: SG_OK
// CHECK-NEXT: load again: SG_OK
// CHECK-NEXT: the 17th stream, second load (stream 0x999, M=2): launch: SG_OK
//
// LOG: cuModuleGetGlobal_v2 name=softgen_workspace -> bytes=16384
// LOG: fn=softgen_softmax_f16_n1024_grid grid=8,1,1 {{.*}} stream=0x0 {{.*}} attr0=2:1 ws=+0 {{.*}} M=2
// LOG-NEXT: fn=softgen_softmax_f16_n1024_grid grid=8,1,1 {{.*}} stream=0x10 {{.*}} attr0=2:1 ws=+1024 {{.*}} M=2
// LOG-NEXT: fn=softgen_softmax_f16_n1024_grid grid=8,1,1 {{.*}} stream=0x20 {{.*}} attr0=2:1 ws=+2048 {{.*}} M=2
// LOG-NEXT: fn=softgen_softmax_f16_n1024_grid grid=8,1,1 {{.*}} stream=0x10 {{.*}} attr0=2:1 ws=+1024 {{.*}} M=2
// LOG-NEXT: fn=softgen_softmax_f16_n1024_grid grid=4,1,1 {{.*}} stream=0x0 {{.*}} attr0=2:1 ws=+0 {{.*}} M=1
// LOG-NEXT: fn=softgen_softmax_f16_n1024_grid {{.*}} stream=0x100 {{.*}} ws=+3072 {{.*}} M=2
// LOG-NEXT: fn=softgen_softmax_f16_n1024_grid {{.*}} stream=0x101 {{.*}} ws=+4096 {{.*}} M=2
// LOG-NEXT: fn=softgen_softmax_f16_n1024_grid {{.*}} stream=0x102 {{.*}} ws=+5120 {{.*}} M=2
// LOG-NEXT: fn=softgen_softmax_f16_n1024_grid {{.*}} stream=0x103 {{.*}} ws=+6144 {{.*}} M=2
// LOG-NEXT: fn=softgen_softmax_f16_n1024_grid {{.*}} stream=0x104 {{.*}} ws=+7168 {{.*}} M=2
// LOG-NEXT: fn=softgen_softmax_f16_n1024_grid {{.*}} stream=0x105 {{.*}} ws=+8192 {{.*}} M=2
// LOG-NEXT: fn=softgen_softmax_f16_n1024_grid {{.*}} stream=0x106 {{.*}} ws=+9216 {{.*}} M=2
// LOG-NEXT: fn=softgen_softmax_f16_n1024_grid {{.*}} stream=0x107 {{.*}} ws=+10240 {{.*}} M=2
// LOG-NEXT: fn=softgen_softmax_f16_n1024_grid {{.*}} stream=0x108 {{.*}} ws=+11264 {{.*}} M=2
// LOG-NEXT: fn=softgen_softmax_f16_n1024_grid {{.*}} stream=0x109 {{.*}} ws=+12288 {{.*}} M=2
// LOG-NEXT: fn=softgen_softmax_f16_n1024_grid {{.*}} stream=0x10a {{.*}} ws=+13312 {{.*}} M=2
// LOG-NEXT: fn=softgen_softmax_f16_n1024_grid {{.*}} stream=0x10b {{.*}} ws=+14336 {{.*}} M=2
// LOG-NEXT: fn=softgen_softmax_f16_n1024_grid {{.*}} stream=0x10c {{.*}} ws=+15360 {{.*}} M=2
// LOG-NEXT: cuLaunchKernel fn=softgen_softmax_f16_n1024 grid=1,1,1 {{.*}} stream=0x999 {{.*}} M=2
// LOG-NEXT: cuLaunchKernel fn=softgen_softmax_f16_n1024 grid=1,1,1 {{.*}} stream=0x2 {{.*}} M=2
// LOG-NEXT: fn=softgen_softmax_f16_n1024_grid grid=8,1,1 {{.*}} stream=0x20 {{.*}} attr0=2:1 ws=+2048 {{.*}} M=2
// LOG-NEXT: cuLaunchKernel fn=softgen_softmax_f16_n1024 grid=1,1,1 {{.*}} stream=0x10 {{.*}} M=3
// LOG: cuModuleGetGlobal_v2 name=softgen_workspace -> bytes=16384
// LOG: fn=softgen_softmax_f16_n1024_grid grid=8,1,1 {{.*}} stream=0x999 {{.*}} attr0=2:1 ws=+0 {{.*}} M=2
//
// HIP: load: SG_OK
// HIP-NEXT: variants 1 softgen_softmax_f16_n1024_grid split 4 workspace 1024
// HIP-NEXT: hip (stream 0, M=1): launch: SG_OK
// HIP-NEXT: hip (stream 0, M=2): launch: SG_OK
// HIP-NEXT: hip (stream 0, M=3): launch: SG_OK
// HIP-NEXT: hip (stream 0x10, M=1): launch: SG_OK
// HIP-LOG: hipModuleGetGlobal name=softgen_workspace -> bytes=4096
// HIP-LOG-NEXT: hipModuleGetFunction name=softgen_softmax_f16_n1024_grid
// HIP-LOG-NEXT: hipModuleOccupancyMaxActiveBlocksPerMultiprocessor block=256 fn=softgen_softmax_f16_n1024_grid -> 2
// HIP-LOG-NEXT: hipDeviceGetAttribute attr=63 device=0 -> 4
// HIP-LOG: hipModuleLaunchCooperativeKernel device=0 fn=softgen_softmax_f16_n1024_grid grid=4,1,1 {{.*}} stream=0x0 {{.*}} ws=+0 {{.*}} M=1
// HIP-LOG: hipModuleLaunchCooperativeKernel device=0 fn=softgen_softmax_f16_n1024_grid grid=8,1,1 {{.*}} stream=0x0 {{.*}} ws=+0 {{.*}} M=2
// HIP-LOG: hipModuleLaunchKernel device=0 fn=softgen_softmax_f16_n1024 grid=1,1,1 {{.*}} M=3
// HIP-LOG: hipModuleLaunchCooperativeKernel device=0 fn=softgen_softmax_f16_n1024_grid grid=4,1,1 {{.*}} stream=0x10 {{.*}} ws=+1024 {{.*}} M=1
// HIP1-LOG: hipModuleOccupancyMaxActiveBlocksPerMultiprocessor block=256 fn=softgen_softmax_f16_n1024_grid -> 1
// HIP1-LOG: hipModuleLaunchCooperativeKernel device=0 fn=softgen_softmax_f16_n1024_grid grid=4,1,1 {{.*}} M=1
// HIP1-LOG: hipModuleLaunchKernel device=0 fn=softgen_softmax_f16_n1024 grid=1,1,1 {{.*}} M=2
// HIPUNK-LOG-NOT: hipModuleLaunchCooperativeKernel
// HIPUNK-LOG: hipModuleLaunchKernel device=0 fn=softgen_softmax_f16_n1024 grid=1,1,1 {{.*}} M=1
// HIPUNK-LOG-NOT: hipModuleLaunchCooperativeKernel
// HIPCAP-LOG: hipStreamGetCaptureInfo stream=(nil) -> capturing, id 9
// HIPCAP-LOG: hipModuleLaunchCooperativeKernel device=0 fn=softgen_softmax_f16_n1024_grid grid=4,1,1 {{.*}} stream=0x0 {{.*}} ws=+0 {{.*}} M=1
//
// NOCOOP: load: SG_OK
// NOCOOP-NEXT: variants 0
// NOCOOP-NEXT: hip (stream 0, M=1): launch: SG_OK
// NOCOOP-LOG-NOT: hipModuleGetGlobal
// NOCOOP-LOG-NOT: softgen_softmax_f16_n1024_grid
// NOCOOP-LOG: hipModuleLaunchKernel device=0 fn=softgen_softmax_f16_n1024 grid=1,1,1 {{.*}} M=1
//
// CAP: load: SG_OK
// CAP-COUNT-7: launch: SG_OK
// CAP-LOG: fn=softgen_softmax_f16_n1024_grid {{.*}} stream=0x10 {{.*}} ws=+0 {{.*}} M=2
// CAP-LOG-NEXT: cuStreamGetCaptureInfo_v2 stream=0x10 -> capturing, id 7
// CAP-LOG-NEXT: fn=softgen_softmax_f16_n1024_grid {{.*}} stream=0x10 {{.*}} ws=+1024 {{.*}} M=2
// CAP-LOG-NEXT: cuStreamGetCaptureInfo_v2 stream=0x10 -> capturing, id 7
// CAP-LOG-NEXT: fn=softgen_softmax_f16_n1024_grid {{.*}} stream=0x10 {{.*}} ws=+1024 {{.*}} M=1
// CAP-LOG-NEXT: cuStreamGetCaptureInfo_v2 stream=0x20 -> capturing, id 7
// CAP-LOG-NEXT: fn=softgen_softmax_f16_n1024_grid {{.*}} stream=0x20 {{.*}} ws=+2048 {{.*}} M=2
// CAP-LOG-NEXT: cuStreamGetCaptureInfo_v2 stream=0x10 -> capturing, id 8
// CAP-LOG-NEXT: fn=softgen_softmax_f16_n1024_grid {{.*}} stream=0x10 {{.*}} ws=+3072 {{.*}} M=2
// CAP-LOG-NEXT: fn=softgen_softmax_f16_n1024_grid {{.*}} stream=0x10 {{.*}} ws=+0 {{.*}} M=2
// CAP-LOG-NEXT: cuStreamGetCaptureInfo_v2 stream=0x10 -> refused
// CAP-LOG-NEXT: cuLaunchKernel fn=softgen_softmax_f16_n1024 grid=1,1,1 {{.*}} stream=0x10 {{.*}} M=2
