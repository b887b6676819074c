// sgrt_launch_geometry and the few-rows variant (meta "variant few"): the
// variant (out.few = 1, its block, cluster, dsmem and rows per block) for M
// from 1 to its max_rows when its blocks, ceil(M / rows_per_block) x cluster,
// are at most few_resident (0: unknown, max_rows alone decides); the kernel
// otherwise, persistent cap included (the variant is never capped). No driver.
// RUN: %cc -std=c11 -I%include -I%S/Inputs %s -L%rtlib -lsoftgen_rt -Wl,-rpath,%rtlib -o %t
// RUN: %t | FileCheck %s
#include "rt_test.h"

static void show(const char *what, const sg_meta *m, int64_t rows, uint64_t resident,
                 uint64_t few_resident) {
  sgrt_geometry g = {99, 99, 99, 99, 99};
  sg_diag d;
  sg_status st = sgrt_launch_geometry(m, rows, resident, few_resident, &g, &d);
  if (st)
    printf("%s: %s: %s\n", what, sg_status_name(st), d.message);
  else
    printf("%s: %s grid=%llu block=%u cluster=%u dsmem=%u\n", what, g.few ? "few" : "kernel",
           (unsigned long long)g.grid, g.block, g.cluster, g.dsmem);
}

int main(void) {
  sg_meta m = test_meta(); /* block 256, 4 rows per block, cluster 1 */
  m.rows_per_block = 1;
  m.cluster = 4;
  m.dsmem = 65536;
  show("no variant, M=1", &m, 1, 0, 0);
  m.has_few = 1;
  strcpy(m.few.kernel, "softgen_softmax_f16_n1024_few");
  m.few.block = 128;
  m.few.rows_per_block = 1;
  m.few.cluster = 16;
  m.few.dsmem = 117248;
  m.few.max_rows = 8;
  show("M=0", &m, 0, 0, 0);
  show("M=1", &m, 1, 0, 0);
  show("M=8", &m, 8, 0, 0);
  show("M=9", &m, 9, 0, 0);
  show("M=1, 64 resident", &m, 1, 0, 64);
  show("M=4, 64 resident", &m, 4, 0, 64);
  show("M=5, 64 resident", &m, 5, 0, 64);
  show("M=1, 8 resident", &m, 1, 0, 8);
  show("M=8, 2^40 resident", &m, 8, 0, (uint64_t)1 << 40);
  m.few.rows_per_block = 2; /* ceil(M / 2) clusters */
  show("2 rows a block, M=3", &m, 3, 0, 32);
  show("2 rows a block, M=5", &m, 5, 0, 32);
  m.few.rows_per_block = 1;
  m.persistent = 1; /* the kernel's cap, never the variant's */
  show("persistent, M=2", &m, 2, 8, 0);
  show("persistent, M=100", &m, 100, 8, 0);
  show("M=-1", &m, -1, 0, 0);
  return 0;
}
// CHECK: no variant, M=1: kernel grid=4 block=256 cluster=4 dsmem=65536
// CHECK-NEXT: M=0: kernel grid=0 block=256 cluster=4 dsmem=65536
// CHECK-NEXT: M=1: few grid=16 block=128 cluster=16 dsmem=117248
// CHECK-NEXT: M=8: few grid=128 block=128 cluster=16 dsmem=117248
// CHECK-NEXT: M=9: kernel grid=36 block=256 cluster=4 dsmem=65536
// CHECK-NEXT: M=1, 64 resident: few grid=16 block=128 cluster=16
// CHECK-NEXT: M=4, 64 resident: few grid=64 block=128 cluster=16
// CHECK-NEXT: M=5, 64 resident: kernel grid=20 block=256 cluster=4
// CHECK-NEXT: M=1, 8 resident: kernel grid=4 block=256 cluster=4
// CHECK-NEXT: M=8, 2^40 resident: few grid=128
// CHECK-NEXT: 2 rows a block, M=3: few grid=32 block=128 cluster=16
// CHECK-NEXT: 2 rows a block, M=5: kernel grid=20
// CHECK-NEXT: persistent, M=2: few grid=32 block=128 cluster=16
// CHECK-NEXT: persistent, M=100: kernel grid=8 block=256 cluster=4
// CHECK-NEXT: M=-1: SG_ERR_INVALID_ARGUMENT: sgrt_launch_geometry: -1 rows (M must be >= 0)
