// sgrt_launch_geometry and the few-rows variants (meta "variant few" lines, in
// increasing max_rows): the first variant i (out.few = i + 1, its block,
// cluster, dsmem and rows per block) with M from 1 to its max_rows whose
// blocks, ceil(M / rows_per_block) x cluster, are at most few_resident[i]
// (few_resident NULL or an entry 0: unknown, max_rows alone decides); the
// kernel otherwise, persistent cap included (a variant is never capped).
// Grid-split variants ("variant grid", split > 0): ceil(M / rows_per_block) x
// split blocks, cluster 1, the variant's workspace; taken only where
// few_resident[i] is known (> 0) and holds them (NULL or 0: skipped, the next
// variant or the kernel taken), and never past SGRT_MAX_GRID. No driver.
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
    printf("%s: few %s grid=%llu block=%u cluster=%u dsmem=%u workspace=%llu\n", what,
           m->variants[g.few - 1].kernel, (unsigned long long)g.grid, g.block, g.cluster,
           g.dsmem, (unsigned long long)g.workspace);
  else
    printf("%s: kernel grid=%llu block=%u cluster=%u dsmem=%u workspace=%llu\n", what,
           (unsigned long long)g.grid, g.block, g.cluster, g.dsmem,
           (unsigned long long)g.workspace);
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
  /* a grid-split variant (split 4: 4 blocks a row, 512 bytes of workspace) for
   * M up to 8, then the clusters of 8 up to 64 */
  m.persistent = 0;
  m.variants[0] = (sg_meta_variant){.kernel = "k_grid", .block = 512, .rows_per_block = 1,
                                    .smem = 128, .cluster = 1, .dsmem = 0, .max_rows = 8,
                                    .split = 4, .workspace = 512};
  uint64_t g64[] = {64, 1024}, g16[] = {16, 1024}, g8[] = {8}, g0[] = {0, 1024};
  uint64_t ghuge[] = {~0ull, ~0ull};
  show("grid, M=1, 64 resident", &m, 1, 0, g64);
  show("grid, M=8, 64 resident", &m, 8, 0, g64);
  show("grid, M=9, 64 resident", &m, 9, 0, g64);
  show("grid, M=4, 16 resident", &m, 4, 0, g16);
  show("grid, M=5, 16 resident (20 blocks)", &m, 5, 0, g16);
  show("grid, M=1, resident unknown", &m, 1, 0, g0);
  show("grid, M=1, no counts", &m, 1, 0, NULL);
  m.variants[0].max_rows = 1 << 30; /* M = 2^29: 2^31 blocks, past the largest grid */
  m.variants[1].max_rows = (1 << 30) + 1;
  show("grid, M=2^29, every block resident", &m, 1 << 29, 0, ghuge);
  show("grid, M=2^29-1, every block resident", &m, (1 << 29) - 1, 0, ghuge);
  m.variants[1].max_rows = 64;
  m.variants[0].max_rows = 8;
  m.nvariants = 1; /* the grid-split variant alone: the kernel next */
  show("grid alone, M=1, resident unknown", &m, 1, 0, g0);
  show("grid alone, M=2, 8 resident", &m, 2, 0, g8);
  show("grid alone, M=3, 8 resident", &m, 3, 0, g8);
  m.variants[0].rows_per_block = 2; /* not from parsed metadata (rows_per_block 1), but ruled */
  show("grid, 2 rows a block, M=3", &m, 3, 0, g16);
  /* the kinds interleaved, as softgen writes them (in increasing max_rows): a
   * cluster split of 16 for M up to 4, a grid split of 16 up to 16, the
   * clusters of 8 up to 64; the first that fits is taken */
  m.nvariants = 3;
  m.variants[0] = (sg_meta_variant){.kernel = "k_few4",
                                    .block = 256,
                                    .rows_per_block = 1,
                                    .cluster = 16,
                                    .dsmem = 117248,
                                    .max_rows = 4};
  m.variants[1] = (sg_meta_variant){.kernel = "k_grid16",
                                    .block = 256,
                                    .rows_per_block = 1,
                                    .smem = 128,
                                    .cluster = 1,
                                    .max_rows = 16,
                                    .split = 16,
                                    .workspace = 4096};
  m.variants[2] = (sg_meta_variant){
      .kernel = "k_few8", .block = 256, .rows_per_block = 1, .cluster = 8, .max_rows = 64};
  uint64_t mixed[] = {256, 1024, 1024};
  show("mixed, M=3", &m, 3, 0, mixed);
  show("mixed, M=8", &m, 8, 0, mixed);
  show("mixed, M=8, no counts", &m, 8, 0, NULL);
  show("mixed, M=17", &m, 17, 0, mixed);
  /* M past what any memory holds: the row blocks times the cluster would wrap
   * 64 bits (2^62 x 4 = 0: an empty grid); capped at the largest grid of
   * whole clusters, over which the kernel strides */
  m.nvariants = 0;
  show("M=2^62, cluster 4", &m, (int64_t)1 << 62, 0, NULL);
  show("M=2^63-1, cluster 4", &m, INT64_MAX, 0, NULL);
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
// CHECK-NEXT: grid, M=1, 64 resident: few k_grid grid=4 block=512 cluster=1 dsmem=0 workspace=512
// CHECK-NEXT: grid, M=8, 64 resident: few k_grid grid=32 block=512 cluster=1 dsmem=0 workspace=512
// CHECK-NEXT: grid, M=9, 64 resident: few k_few grid=72 block=256 cluster=8 dsmem=0 workspace=0
// CHECK-NEXT: grid, M=4, 16 resident: few k_grid grid=16 block=512 cluster=1 dsmem=0 workspace=512
// clang-format off
// CHECK-NEXT: grid, M=5, 16 resident (20 blocks): few k_few grid=40 block=256 cluster=8 dsmem=0 workspace=0
// CHECK-NEXT: grid, M=1, resident unknown: few k_few grid=8 block=256 cluster=8 dsmem=0 workspace=0
// CHECK-NEXT: grid, M=1, no counts: few k_few grid=8 block=256 cluster=8 dsmem=0 workspace=0
// CHECK-NEXT: grid, M=2^29, every block resident: few k_few grid=2147483640 block=256 cluster=8
// CHECK-NEXT: grid, M=2^29-1, every block resident: few k_grid grid=2147483644 block=512 cluster=1
// CHECK-NEXT: grid alone, M=1, resident unknown: kernel grid=4 block=256 cluster=4 dsmem=65536 workspace=0
// CHECK-NEXT: grid alone, M=2, 8 resident: few k_grid grid=8 block=512 cluster=1 dsmem=0 workspace=512
// CHECK-NEXT: grid alone, M=3, 8 resident: kernel grid=12 block=256 cluster=4 dsmem=65536 workspace=0
// CHECK-NEXT: grid, 2 rows a block, M=3: few k_grid grid=8 block=512 cluster=1
// CHECK-NEXT: mixed, M=3: few k_few4 grid=48 block=256 cluster=16 dsmem=117248 workspace=0
// CHECK-NEXT: mixed, M=8: few k_grid16 grid=128 block=256 cluster=1 dsmem=0 workspace=4096
// CHECK-NEXT: mixed, M=8, no counts: few k_few8 grid=64 block=256 cluster=8 dsmem=0 workspace=0
// CHECK-NEXT: mixed, M=17: few k_few8 grid=136 block=256 cluster=8 dsmem=0 workspace=0
// CHECK-NEXT: M=2^62, cluster 4: kernel grid=2147483644 block=256 cluster=4
// CHECK-NEXT: M=2^63-1, cluster 4: kernel grid=2147483644 block=256 cluster=4
// clang-format on
