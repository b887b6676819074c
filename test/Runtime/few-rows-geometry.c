// sgrt_launch_geometry and the few-rows variants (meta "variant few" lines, in
// increasing max_rows): the first variant i (out.few = i + 1, its block,
// cluster, dsmem and rows per block) with M from 1 to its max_rows whose
// blocks, ceil(M / rows_per_block) x cluster, are at most few_resident[i]
// (few_resident NULL or an entry 0: unknown, max_rows alone decides); the
// kernel otherwise, persistent cap included (a variant is never capped). No
// driver.
// RUN: %cc -std=c11 -I%include -I%S/Inputs %s -L%rtlib -lsoftgen_rt -Wl,-rpath,%rtlib -o %t
// RUN: %t | FileCheck %s
#include "rt_test.h"

static void show(const char *what, const sg_meta *m, int64_t rows, uint64_t resident,
                 const uint64_t *few_resident) {
  sgrt_geometry g = {99, 99, 99, 99, 99};
  sg_diag d;
  sg_status st = sgrt_launch_geometry(m, rows, resident, few_resident, &g, &d);
  if (st)
    printf("%s: %s: %s\n", what, sg_status_name(st), d.message);
  else if (g.few)
    printf("%s: few %s grid=%llu block=%u cluster=%u dsmem=%u\n", what,
           m->variants[g.few - 1].kernel, (unsigned long long)g.grid, g.block, g.cluster,
           g.dsmem);
  else
    printf("%s: kernel grid=%llu block=%u cluster=%u dsmem=%u\n", what,
           (unsigned long long)g.grid, g.block, g.cluster, g.dsmem);
}

int main(void) {
  sg_meta m = test_meta(); /* block 256, 4 rows per block, cluster 1 */
  m.rows_per_block = 1;
  m.cluster = 4;
  m.dsmem = 65536;
  show("no variant, M=1", &m, 1, 0, NULL);
  m.nvariants = 1;
  m.variants[0] = (sg_meta_variant){"k_few", 128, 1, 0, 16, 117248, 8};
  show("M=0", &m, 0, 0, NULL);
  show("M=1", &m, 1, 0, NULL);
  show("M=8", &m, 8, 0, NULL);
  show("M=9", &m, 9, 0, NULL);
  uint64_t r64[] = {64}, r8[] = {8}, r0[] = {0}, rbig[] = {(uint64_t)1 << 40}, r32[] = {32};
  show("M=1, 64 resident", &m, 1, 0, r64);
  show("M=4, 64 resident", &m, 4, 0, r64);
  show("M=5, 64 resident", &m, 5, 0, r64);
  show("M=1, 8 resident", &m, 1, 0, r8);
  show("M=8, resident unknown", &m, 8, 0, r0);
  show("M=8, 2^40 resident", &m, 8, 0, rbig);
  m.variants[0].rows_per_block = 2; /* ceil(M / 2) clusters */
  show("2 rows a block, M=3", &m, 3, 0, r32);
  show("2 rows a block, M=5", &m, 5, 0, r32);
  m.variants[0].rows_per_block = 1;
  /* two variants: the split of 16 for M up to 4, of 8 up to 64 */
  m.nvariants = 2;
  m.variants[0] = (sg_meta_variant){"k_few4", 256, 1, 384, 16, 117248, 4};
  m.variants[1] = (sg_meta_variant){"k_few", 256, 1, 1024, 8, 0, 64};
  uint64_t both[] = {112, 1024}, none16[] = {15, 1024}, few8[] = {112, 16};
  show("two, M=1", &m, 1, 0, NULL);
  show("two, M=4", &m, 4, 0, NULL);
  show("two, M=5", &m, 5, 0, NULL);
  show("two, M=64", &m, 64, 0, NULL);
  show("two, M=65", &m, 65, 0, NULL);
  show("two, M=4, resident 112 and 1024", &m, 4, 0, both);
  show("two, M=4, resident 15 and 1024", &m, 4, 0, none16);
  show("two, M=3, resident 112 and 16", &m, 3, 0, few8);
  show("two, M=8, resident 112 and 16", &m, 8, 0, few8);
  m.persistent = 1; /* the kernel's cap, never a variant's */
  show("persistent, M=2", &m, 2, 8, NULL);
  show("persistent, M=100", &m, 100, 8, NULL);
  show("M=-1", &m, -1, 0, NULL);
  return 0;
}
// CHECK: no variant, M=1: kernel grid=4 block=256 cluster=4 dsmem=65536
// CHECK-NEXT: M=0: kernel grid=0 block=256 cluster=4 dsmem=65536
// CHECK-NEXT: M=1: few k_few grid=16 block=128 cluster=16 dsmem=117248
// CHECK-NEXT: M=8: few k_few grid=128 block=128 cluster=16 dsmem=117248
// CHECK-NEXT: M=9: kernel grid=36 block=256 cluster=4 dsmem=65536
// CHECK-NEXT: M=1, 64 resident: few k_few grid=16 block=128 cluster=16
// CHECK-NEXT: M=4, 64 resident: few k_few grid=64 block=128 cluster=16
// CHECK-NEXT: M=5, 64 resident: kernel grid=20 block=256 cluster=4
// CHECK-NEXT: M=1, 8 resident: kernel grid=4 block=256 cluster=4
// CHECK-NEXT: M=8, resident unknown: few k_few grid=128
// CHECK-NEXT: M=8, 2^40 resident: few k_few grid=128
// CHECK-NEXT: 2 rows a block, M=3: few k_few grid=32 block=128 cluster=16
// CHECK-NEXT: 2 rows a block, M=5: kernel grid=20
// CHECK-NEXT: two, M=1: few k_few4 grid=16 block=256 cluster=16 dsmem=117248
// CHECK-NEXT: two, M=4: few k_few4 grid=64 block=256 cluster=16 dsmem=117248
// CHECK-NEXT: two, M=5: few k_few grid=40 block=256 cluster=8 dsmem=0
// CHECK-NEXT: two, M=64: few k_few grid=512 block=256 cluster=8 dsmem=0
// CHECK-NEXT: two, M=65: kernel grid=260 block=256 cluster=4 dsmem=65536
// CHECK-NEXT: two, M=4, resident 112 and 1024: few k_few4 grid=64
// CHECK-NEXT: two, M=4, resident 15 and 1024: few k_few grid=32 block=256 cluster=8
// CHECK-NEXT: two, M=3, resident 112 and 16: few k_few4 grid=48
// CHECK-NEXT: two, M=8, resident 112 and 16: kernel grid=32
// CHECK-NEXT: persistent, M=2: few k_few4 grid=32 block=256 cluster=16
// CHECK-NEXT: persistent, M=100: kernel grid=8 block=256 cluster=4
// CHECK-NEXT: M=-1: SG_ERR_INVALID_ARGUMENT: sgrt_launch_geometry: -1 rows (M must be >= 0)
