// sgrt_launch_geometry, the one grid rule (the runtime's launches and the MLIR
// front end's): ceil(M / rows_per_block) x cluster blocks, a persistent
// kernel's cap at the resident blocks (whole clusters; 0: none), 2^31-1 at
// most (whole clusters), M == 0 -> grid 0. No driver: the function is pure.
// RUN: %cc -std=c11 -I%include -I%S/Inputs %s -L%rtlib -lsoftgen_rt -Wl,-rpath,%rtlib -o %t
// RUN: %t | FileCheck %s
#include "rt_test.h"

static void show(const char *what, const sg_meta *m, int64_t rows, uint64_t resident) {
  sgrt_geometry g = {99, 99, 99, 99};
  sg_diag d;
  sg_status st = sgrt_launch_geometry(m, rows, resident, NULL, &g, &d);
  if (st)
    printf("%s: %s: %s\n", what, sg_status_name(st), d.message);
  else
    printf("%s: grid=%llu block=%u cluster=%u dsmem=%u\n", what, (unsigned long long)g.grid,
           g.block, g.cluster, g.dsmem);
}

int main(void) {
  sg_meta m = test_meta(); /* block 256, 4 rows per block, cluster 1 */
  show("M=0", &m, 0, 0);
  show("M=1", &m, 1, 0);
  show("M=1000", &m, 1000, 0);
  show("M=1001", &m, 1001, 0);
  show("M=2^40", &m, (int64_t)1 << 40, 0);
  show("M=2^33-4", &m, ((int64_t)1 << 33) - 4, 0); /* 2^31 - 1 row blocks exactly */
  show("M=2^33-3", &m, ((int64_t)1 << 33) - 3, 0); /* one more: capped */
  show("not persistent, resident 8", &m, 1000, 8);
  m.rows_per_block = 0; /* 0 means 1 */
  m.cluster = 0;        /* 0 means 1 */
  show("rows_per_block 0, cluster 0", &m, 7, 0);

  m.rows_per_block = 1;
  m.cluster = 4;
  m.dsmem = 4096;
  show("cluster 4, M=5", &m, 5, 0);
  show("cluster 4, M=2^40", &m, (int64_t)1 << 40, 0);
  show("cluster 4, M=0", &m, 0, 0);

  m.persistent = 1;
  m.cluster = 1;
  show("persistent, resident 528, M=100", &m, 100, 528);
  show("persistent, resident 528, M=1000", &m, 1000, 528);
  show("persistent, resident 0 (unknown)", &m, 1000, 0);
  show("persistent, resident 2^40", &m, (int64_t)1 << 40, (uint64_t)1 << 40);
  m.cluster = 4;
  show("persistent cluster 4, resident 530", &m, 1000, 530);
  show("persistent cluster 4, resident 3", &m, 1000, 3);
  show("persistent cluster 4, M=0", &m, 0, 530);

  show("M=-1", &m, -1, 0);
  show("null meta", NULL, 1, 0);
  sg_diag d;
  printf("null out: %s\n", sg_status_name(sgrt_launch_geometry(&m, 1, 0, NULL, NULL, &d)));
  return 0;
}
// CHECK: M=0: grid=0 block=256 cluster=1 dsmem=0
// CHECK-NEXT: M=1: grid=1 block=256 cluster=1 dsmem=0
// CHECK-NEXT: M=1000: grid=250 block=256
// CHECK-NEXT: M=1001: grid=251 block=256
// CHECK-NEXT: M=2^40: grid=2147483647 block=256 cluster=1
// CHECK-NEXT: M=2^33-4: grid=2147483647 block=256
// CHECK-NEXT: M=2^33-3: grid=2147483647 block=256
// CHECK-NEXT: not persistent, resident 8: grid=250 block=256
// CHECK-NEXT: rows_per_block 0, cluster 0: grid=7 block=256 cluster=1
// CHECK-NEXT: cluster 4, M=5: grid=20 block=256 cluster=4 dsmem=4096
// CHECK-NEXT: cluster 4, M=2^40: grid=2147483644 block=256 cluster=4
// CHECK-NEXT: cluster 4, M=0: grid=0 block=256 cluster=4
// CHECK-NEXT: persistent, resident 528, M=100: grid=100 block=256 cluster=1
// CHECK-NEXT: persistent, resident 528, M=1000: grid=528 block=256 cluster=1
// CHECK-NEXT: persistent, resident 0 (unknown): grid=1000 block=256
// CHECK-NEXT: persistent, resident 2^40: grid=2147483647 block=256
// CHECK-NEXT: persistent cluster 4, resident 530: grid=528 block=256 cluster=4
// CHECK-NEXT: persistent cluster 4, resident 3: grid=4000 block=256 cluster=4
// CHECK-NEXT: persistent cluster 4, M=0: grid=0 block=256 cluster=4
// CHECK-NEXT: M=-1: SG_ERR_INVALID_ARGUMENT: sgrt_launch_geometry: -1 rows (M must be >= 0)
// CHECK-NEXT: null meta: SG_ERR_INVALID_ARGUMENT: sgrt_launch_geometry: null argument
// CHECK-NEXT: null out: SG_ERR_INVALID_ARGUMENT
