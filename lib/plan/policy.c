/* policy.c - every automatic choice of a plan (plan/policy.h).
 *
 * Needs: the plan's target limits (target/target.h) and the facts of the
 * template (sgp_input). Produces: numbers, never rejections; the layouts
 * validate what is given and call these for the rest. Every threshold below
 * sits next to the measurement it came from; the runs are in
 * tools/bench/RESULTS.md (its "experiment N" notes). */
#include "plan/policy.h"
#include "target/target.h"
#include <limits.h>

/* ---- wave and vector ---- */

/* 32 where the target has it (NVIDIA; AMD's wave32 GPUs), else 64 (AMD's
 * CDNA), else 1 (the host: a "wave" is one thread). */
unsigned sgp_policy_wave(const sg_plan *pl) {
  const sgh_target *tg = pl->target;
  return tg->wave_ok(pl->arch, 32) ? 32 : tg->wave_ok(pl->arch, 64) ? 64 : 1;
}

unsigned sgp_vector_limit(const sg_plan *pl) {
  return pl->target->max_vector_bytes ? pl->target->max_vector_bytes(pl->arch) : 16;
}

/* The widest access (16 bytes on the GPUs: one ld.global.v4) that divides N. */
unsigned sgp_policy_vec(unsigned vlimit, unsigned esize, int64_t n) {
  unsigned vec = vlimit / esize;
  while (n % vec)
    vec /= 2;
  return vec;
}

/* Peeled rows: on the GPUs (target peel_rows), an odd N (one element the
 * widest vector dividing it) of at least PEEL_MIN_VECTORS full vectors is read
 * in 16-byte vectors all the same, each row shifted to its own alignment with
 * its partial head and tail vectors element by element (read whole since
 * session 28 where the vector lies within the tensor's rows: codegen/address.c
 * peel_in_span; odd 16-bit N of 269-1001 at large M x 1.11-1.19 of the copy
 * ratio, RESULTS.md "Peeled rows: partial vectors read whole"). Measured on an H100
 * (tools/bench/RESULTS.md "Second change: peeled rows"), kernel alone against the copy,
 * 16-bit: odd N of 71-2337 at large M from 0.32-0.77 to 0.54-1.02, f32 odd N
 * from 0.63-0.84 to 0.99-1.16; but where N allows 2 or 4 elements a vector
 * the narrow plans were faster (f16 3586 at M = 25068: 1.23 narrow, 0.97
 * peeled; 84 at M = 11.7M: 1.07, 0.65), as were rows under 8 vectors (f16
 * 31: 0.67, 0.48) and every latency-bound shape (M x N under the copy's 4 us:
 * 0.6-1.0 narrow, 0.4-0.6 peeled): the element-by-element head and tail cost
 * a row more than the wide body saves there. Only the rows layout asks (the
 * inner layout reads one element a thread). Rows that flat plans take
 * (sgp_policy_flat: up to SGP_FLAT_ROW_BYTES, where the target stages) are not
 * peeled.
 * Rows of at least PEEL_NARROW_MIN_N elements peel also where a narrower
 * vector than the widest divides N (16-bit N = 2, 4, 6 mod 8, f32 N = 2 mod
 * 4). Measured on an H200 (session 28, "Peeled rows: long rows of narrow
 * vectors"), peeled against the narrow plan at 16M and 67M elements: 16-bit
 * N = 32770-200002 x 1.03-1.18 of the copy ratio (f16 1335 x 50258 0.79 ->
 * 0.92, 335 x 200002 0.73 -> 0.87), f32 x 0.99-1.14; N = 22482 16-bit x
 * 0.96-0.97 (f32 x 1.00), N = 394-3586 x 0.81-1.0. */
#define PEEL_MIN_VECTORS 8
#define PEEL_NARROW_MIN_N 32768
static int flat_rows(const sgp_input *in, const sg_plan *pl);
int sgp_policy_peel(const sgp_input *in, const sg_plan *pl, unsigned full, unsigned narrow) {
  return pl->target->peel_rows && (narrow == 1 || in->p->n >= PEEL_NARROW_MIN_N) && narrow < full &&
         in->p->n >= (int64_t)PEEL_MIN_VECTORS * full && !flat_rows(in, pl);
}

/* ---- short rows as contiguous blocks ---- */

/* Flat rows (codegen/rows_flat.c): a row of at most SGP_FLAT_ROW_BYTES (in
 * policy.h) whose widest dividing vector is at most SGP_FLAT_MAX_VECTOR_BYTES
 * (16-bit N not a multiple of 8, f32 N not a multiple of 4) reads 2- to 8-byte
 * pieces a thread in the other plans,
 * a few bytes in flight per thread: measured on an H100 at 0.39-0.82 of copy
 * (f16 N = 7-225 at M of 100K-65M, tools/bench/RESULTS.md "The user sweep").
 * Measured on the H100 with flat plans for every row up to 1 KB whose
 * vector was under 16 bytes ("Fifth change"): f16 N = 7-225 at large M
 * 0.39-0.81 -> 0.75-1.10 of copy, f32 0.74-1.19 -> 1.08-1.25; but 8-byte
 * vectors (f16 N = 4 mod 8, f32 N = 2 mod 4: 1.15 -> 0.58 at f16 N = 4),
 * rows of under FLAT_MIN_VECTORS vectors (f16 N = 2: 0.82 -> 0.32; N = 3),
 * and 16-bit rows over 512 bytes (peeled: N = 269-499 1.04-1.14 -> 0.84-0.90)
 * were faster in the other plans, all at one row a thread; rows of 3-4
 * vectors are flat again at 8 rows a thread (FLAT_SHORT_VECTORS). With
 * several rows a thread (sgp_policy_flat_thread_rows) 8-byte vectors are flat
 * again: measured on an H200 (session 27, tools/bench/RESULTS.md "Flat rows
 * of 8-byte vectors", softgen-bench, 2 rounds, spread median 0.5 %, p90 3 %):
 * f16 / bf16 11745411 x 84 0.71 / 0.64 -> 0.94 / 0.84 of the copy, 1M x 84
 * 0.74 / 0.67 -> 0.94 / 0.86, 607997 x 20 0.84 / 0.76 -> 1.06 / 1.04, 2M x 228
 * and 252 +2-4 %, f32 5627469 x 10 0.79 -> 0.99, 4875253 x 46 0.85 -> 0.92,
 * but f32 128528 x 26 1.12 -> 0.93 (N = 6, 38, 82 within 1 %). Rows up to 1 KB
 * lost again in the same run (odd 16-bit N = 269-499 x 0.82-0.93 of before at
 * 7454-32761 rows, x 0.89-1.05 at 204K-1.2M; f32 N = 137-225 x 0.82-0.92), and
 * again with the flat writes free of branches (session 34, H200, "Short rows:
 * issue-bound, and stores without branches": 16-bit N = 257-499 x 0.92-0.93,
 * f32 N = 137-255 x 0.98 at M = 8K-2M), so SGP_FLAT_ROW_BYTES stays 512. Launches
 * of few blocks were too (copy under 3 us: 0.8-1.0 -> 0.5-0.7; f16 N = 17 at
 * M = 2474, 20 blocks: 0.81 -> 0.58, at M = 189635, 1481 blocks: 0.49 -> 0.76), so a flat plan
 * carries the plain plan as a variant for up to FLAT_FEW_BLOCKS of its row blocks
 * (sgp_policy_few_rows).
 * A flat block copies its rows, one contiguous span, to shared memory in
 * 16-byte pieces, computes from there and writes back the same way. Its
 * threads: a row a thread up to FLAT_ELEMS_PER_THREAD elements (reads from
 * shared memory need no parallelism a row), more threads for longer rows;
 * its block holds at least FLAT_BLOCK_BYTES of the rows (256 threads, up to
 * 1024 for the shortest rows) so that a block's copies keep bytes in flight.
 * No blocks a multiprocessor asked of the register allocator for the usual
 * share (below): under the cap that the shared memory would allow (8 blocks
 * of 256 threads: 32 registers), f16 rows of 17-250 spilled 84-184 bytes
 * (ptxas -v).
 * Not for peeled rows, the host (no shared-memory copies) or where
 * constraints fix the shape or the staging; PipelineConstraint(rows_in_flight=2)
 * keeps the rows flat and copies the next row block ahead (codegen/rows_flat.c),
 * as the policy does for small images of one 16-bit read (sgp_policy_prefetch).
 * A thread's share of a row: at most FLAT_ELEMS_PER_THREAD elements, or
 * FLAT_THREAD_READ_BYTES of reads where that is more (rows of one 16-bit
 * read: 32 elements), in at most FLAT_MAX_CHUNKS vectors. A block's span, and
 * so the bytes a multiprocessor has in flight, doubles: its blocks' copies
 * are the kernel's only loads, and at 16-bit N = 17-225 two threads a row left
 * 17-29 KB in flight a multiprocessor (its registers allow 4-6 blocks of 256
 * threads). Measured on an H100 (softgen-bench, the sweep's 126 shapes of N <=
 * 512, session 19, tools/bench/RESULTS.md "Flat rows: a thread's share"):
 * f16 softmax 20950170 x 17 0.605 -> 0.913 of the copy, 1975349 x 71 0.70 ->
 * 0.84, 1351586 x 179 0.73 -> 0.92, 4875253 x 46 0.84 -> 0.96; where a thread
 * held 26-29 vectors (N = 53, 101, 225) ptxas gave it 120-128 registers
 * against 54-64, and it lost 0.05-0.08: hence FLAT_MAX_CHUNKS. f32 rows (64
 * bytes is 16 elements) and rows of two reads keep 16: at 32 f32 elements
 * they measured mixed (-0.04 to +0.19) and took 120-126 registers.
 * A thread of more than FLAT_UNCAPPED_ELEMS elements asks the register
 * allocator for FLAT_WIDE_THREADS_PER_SM threads a multiprocessor (64
 * registers; sgp_policy_flat_blocks_per_sm). ptxas, at every N of 17-192 that
 * the share changes (single-read 16-bit templates: softmax, log_softmax,
 * causal, scaled, safe): threads of up to 21 elements took at most 64
 * registers uncapped; of 22-24, up to 115 (79-115 at N = 43-47, 85-95,
 * 169-185), and 64 capped, no spills. Threads of 21 or fewer get no cap: one
 * raised f16 N = 17 from 48 registers to 64, a block a multiprocessor fewer.
 * The cap itself is not timed yet (predicted: 2-3 blocks a multiprocessor ->
 * 4 where it applies).
 * A thread of at most FLAT_TINY_ELEMS elements of one 16-bit read (N = 5, 7:
 * 512-thread blocks, 39-40 registers, 3 blocks a multiprocessor) asks for
 * FLAT_TINY_THREADS_PER_SM (32 registers, 4 blocks): measured in the same run,
 * f16 softmax 3470915 x 7 0.727 -> 0.800 of the copy, 64742824 x 7 0.661 ->
 * 0.723 (1856 x 7 +0.01, noise). ptxas: every template with one read at N = 5
 * and 7, f16 and bf16, no spills; softmax_backward (two reads) spilled 8-16
 * bytes, hence one read. */
#define FLAT_MIN_VECTORS 5
#define FLAT_ELEMS_PER_THREAD 16
#define FLAT_THREAD_READ_BYTES 64
#define FLAT_MAX_CHUNKS 24
#define FLAT_UNCAPPED_ELEMS 21
#define FLAT_WIDE_THREADS_PER_SM 1024
#define FLAT_TINY_ELEMS 8
#define FLAT_TINY_THREADS_PER_SM 2048
#define FLAT_BLOCK_BYTES 4096
#define MIN_BLOCK_THREADS_FLAT 256
static int flat_rows(const sgp_input *in, const sg_plan *pl) {
  const sg_constraints *c = in->c;
  int given = c->has_hw || c->nvec || c->nworkgroup || c->nwave || c->staging || c->split;
  return !given && pl->layout == SG_LAYOUT_ROWS && sgh_can_stage(pl->target) &&
         (uint64_t)in->p->n * in->widest_elem <= SGP_FLAT_ROW_BYTES;
}
/* Rows of FLAT_SHORT_VECTORS to FLAT_MIN_VECTORS - 1 vectors (16-bit and f32 N = 3,
 * 16-bit N = 6) are flat only at FLAT_SHORT_THREAD_ROWS rows a thread
 * (sgp_policy_flat_thread_rows): one read, no causal op, not the host. */
#define FLAT_SHORT_VECTORS 3
static int flat_short(const sgp_input *in, const sg_plan *pl) {
  return in->p->n < (int64_t)FLAT_MIN_VECTORS * pl->vec;
}
int sgp_policy_flat(const sgp_input *in, const sg_plan *pl) {
  return flat_rows(in, pl) && !pl->peel && pl->vec * in->widest_elem <= SGP_FLAT_MAX_VECTOR_BYTES &&
         (in->p->n >= (int64_t)FLAT_MIN_VECTORS * pl->vec ||
          (in->p->n >= (int64_t)FLAT_SHORT_VECTORS * pl->vec && !in->causal &&
           in->read_bytes == in->widest_read && pl->wave > 1));
}
/* A flat block's images: for each tensor read or written, its rows
 * (rows_per_block x N elements) and 16 bytes, so that the image starts at
 * the global span's offset within 16 bytes (codegen/rows_flat.c); with
 * prefetch a second set of the read ones (the next row block's). */
uint64_t sgp_flat_image_bytes(const sg_plan *pl, unsigned esize) {
  return ((uint64_t)pl->rows_per_block * (uint64_t)pl->n * esize + 15) / 16 * 16 + 16;
}
/* Bytes of the images of t's tensors that are read (reads_only) or read or written. */
static uint64_t flat_images(const sg_template *t, const sg_plan *pl, int reads_only) {
  uint64_t bytes = 0;
  for (int i = 0; i < t->ntensors; i++) {
    int used = 0;
    for (int k = 0; k < t->nops; k++)
      used |= (t->ops[k].code == SGT_READ || (!reads_only && t->ops[k].code == SGT_WRITE)) &&
              t->ops[k].tensor == i;
    if (used)
      bytes += sgp_flat_image_bytes(
          pl, sg_dtype_size(sgt_tensor_dtype(t, i, pl->dtype, pl->out_dtype)));
  }
  return bytes;
}
uint64_t sgp_flat_bytes(const sg_template *t, const sg_plan *pl) {
  return flat_images(t, pl, 0) + (pl->prefetch ? flat_images(t, pl, 1) : 0);
}
unsigned sgp_policy_flat_threads(const sgp_input *in, const sg_plan *pl) {
  uint64_t n = (uint64_t)in->p->n, t = 1, v = pl->vec;
  uint64_t e = in->read_bytes ? FLAT_THREAD_READ_BYTES / in->read_bytes : 0;
  e = e > FLAT_ELEMS_PER_THREAD ? e : FLAT_ELEMS_PER_THREAD;
  while ((n + t - 1) / t > e || (n + v * t - 1) / (v * t) > FLAT_MAX_CHUNKS)
    t *= 2;
  return (unsigned)t;
}
unsigned sgp_policy_flat_blocks_per_sm(const sgp_input *in, const sg_plan *pl) {
  unsigned threads =
      pl->elems_per_thread > FLAT_UNCAPPED_ELEMS ? FLAT_WIDE_THREADS_PER_SM
      : pl->elems_per_thread <= FLAT_TINY_ELEMS && in->read_bytes == 2 && pl->thread_rows == 1
          ? FLAT_TINY_THREADS_PER_SM
          : 0;
  unsigned per_sm = threads / pl->block_threads;
  return pl->flat && per_sm > 1 ? per_sm : 0;
}
/* Rows a thread of flat rows computes in each row block (plan->thread_rows):
 * a flat kernel at large M is bound by its instructions, not by the memory
 * (ncu on an H200, f16 N = 5 and 7 at 16.7M-20M rows: issue slots 82 % busy,
 * 316 instructions a warp a row block of 32 rows of 7, some 220 of them the
 * row block's own: its spans, copies, barriers and loop), so that a thread's
 * rows share them. Rows of one read: FLAT_THREAD_ROWS rows a thread where it
 * holds at most FLAT_THREAD_ROWS_ELEMS 16-bit elements of each (those plans
 * copy the next row block ahead: sgp_policy_prefetch), FLAT_FEW_THREAD_ROWS
 * for f32 rows (but FLAT_WIDE_F32_VALUES) and for 16-bit threads of more than
 * FLAT_UNCAPPED_ELEMS elements (registers capped: sgp_policy_flat_blocks_per_sm)
 * or, one thread a row, more than FLAT_THREAD_ROWS_ELEMS where one row a thread
 * would not copy ahead (its read image over FLAT_PREFETCH_BYTES); one between.
 * Rows of two reads or more keep one (not measured), and so do templates with
 * a causal op (ptxas: 16-bit threads of more than 21 elements spilled up to 72
 * bytes at two rows under the 64-register cap; not measured). Measured on an H200
 * (softgen-bench, session 24, tools/bench/RESULTS.md "Flat rows: several rows
 * a thread"), against one row a thread: f16 16.7M x 5 0.47 -> 0.82 of the
 * copy, 64.7M x 7 0.58 -> 0.87, 3.5M x 7 0.66 -> 0.92, 16.7M x 13 0.79 ->
 * 0.88, 16.7M x 25 0.71 -> 0.90; two rows: 4.9M x 46 0.75 -> 0.93, 16.7M x
 * 23 0.74 -> 0.86, 208637 x 174 0.76 -> 0.91, but 158676 x 23 0.96 -> 0.85
 * and f16 N = 82 (124895 rows 0.96 -> 0.85, 4M rows bf16 0.84 -> 0.79); f32
 * 16.7M x 5 0.80 -> 0.98, 21.0M x 17 0.83 -> 0.96. Four rows of 17-21
 * elements lost where their blocks' images left 1-2 blocks a multiprocessor
 * or the launch 1-2 waves (f16 2M x 19 0.86 -> 0.71, 189635 x 17 1.03 ->
 * 0.83, 21684 x 159 1.0 -> 0.55-0.67), hence one there then; two rows there
 * measured since (session 35, after session 34's flat writes without
 * branches; H200, 3 rounds, spread median 0.6 %, p90 2.1 %, tools/bench/
 * RESULTS.md "Flat rows of 17-21 elements: two rows a thread"): f16 and bf16
 * N = 17-21 at 1.5M-16M rows x 1.08 (0.98-1.17; f16 4M x 20 0.86 -> 1.01,
 * 4M x 18 0.87 -> 1.00); rows of several threads of 17-21 elements (N =
 * 33-41, 65-83, 129-167) x 0.997, 0.85-1.15: gains at 64M elements, losses at
 * 16M (f16 409200 x 41 0.88, 207126 x 81 0.89), so one there; and at 65K-1M
 * rows, where the plan of one row a thread (a few-rows variant: never copying
 * ahead) takes them, N = 17-20 lost 3-6 % to one row a thread copying ahead
 * (N = 21, whose one-row image is over FLAT_PREFETCH_BYTES, gained 1-6 %), so
 * two only where one row would not copy ahead. Fewer row blocks lose
 * too (f16 22087 x 19 0.77 -> 0.48 at four), so a plan of several rows a
 * thread carries the plan of one as a few-rows variant while its blocks stay
 * resident (sgp_policy_few_rows). */
#define FLAT_THREAD_ROWS 4
#define FLAT_THREAD_ROWS_ELEMS 16
#define FLAT_FEW_THREAD_ROWS 2
/* Rows of under FLAT_MIN_VECTORS vectors (sgp_policy_flat: 16-bit and f32 N =
 * 3, 16-bit N = 6) are flat at FLAT_SHORT_THREAD_ROWS rows a thread, without a
 * variant of one row a thread (which lost to the plan that is not flat: "Fifth
 * change"). Measured on an H200 (session 24, "Flat rows: several rows a
 * thread"), against that plan: f16 16.7M x 3 0.37 -> 0.76 of the copy, 2.4M x
 * 3 0.57 -> 0.99, 16.7M x 6 0.62 -> 0.83, f32 16.7M x 3 0.63 -> 0.97 (at 4 rows
 * a thread 0.67, 0.96, 0.83; f32 at 2: 0.83); 208330 x 3 lost (1.19 -> 1.07-1.13
 * f16, bf16; f32 1.20 -> 1.06). */
#define FLAT_SHORT_THREAD_ROWS 8
/* Those counts are for vectors of at most FLAT_NARROW_VECTOR_BYTES; 16-bit rows
 * of 8-byte vectors holding at most FLAT_THREAD_ROWS_ELEMS elements a thread
 * take one row a thread. Measured on an H200 (session 27, "Flat rows of 8-byte
 * vectors"): f16 / bf16 4M x 12 (3 vectors of 4) 0.85 / 0.81 of the copy at 8
 * rows a thread (141 registers, a 147 KB image: one block a multiprocessor),
 * 0.92 / 0.83 at 2, 0.92 / 0.86 at 1 (0.79 / 0.76 not flat). */
#define FLAT_NARROW_VECTOR_BYTES 4
/* f32 threads of 8-byte vectors (N = 2 mod 4) take FLAT_FEW_THREAD_ROWS rows
 * while they hold at most FLAT_WIDE_F32_VALUES values of a row, one row past
 * it: at 14-16 values two rows took 102-111 registers (two 256-thread blocks a
 * multiprocessor; 80 at 10-12 values, one row 48). Measured on an H200
 * (session 28, "f32 rows of 8-byte vectors: one row a thread past 12
 * values"), one row against two at 8M-134M elements: N = 26, 30, 62, 126
 * (14-16 values) 0.71-0.83 -> 0.91-1.05 of the copy (x 1.23-1.29), N = 14
 * x 1.01-1.05; N = 6, 10, 18, 22, 46, 82 (3-12 values) two rows won by 1-12 %.
 * Odd f32 N (4-byte vectors) keep two (mixed: N = 127 one row x 1.07-1.10, N =
 * 31, 101 two rows by 3-7 %). */
#define FLAT_WIDE_F32_VALUES 12
/* The values a thread holds of a row of n elements over `threads` threads
 * in vectors of vec: whole vectors, the last pass masked. */
static uint64_t thread_values(int64_t n, unsigned threads, unsigned vec) {
  uint64_t per_pass = (uint64_t)threads * vec;
  return ((uint64_t)n + per_pass - 1) / per_pass * vec;
}
static int flat_images_ahead(const sgp_input *in, const sg_plan *pl);
static sg_plan flat_one_row(const sgp_input *in, const sg_plan *pl, unsigned threads_per_row);
unsigned sgp_policy_flat_thread_rows(const sgp_input *in, const sg_plan *pl,
                                     unsigned threads_per_row) {
  uint64_t elems = thread_values(in->p->n, threads_per_row, pl->vec);
  /* two reads; the host's; a causal op's (spilled at two rows, 64 registers) */
  if (in->read_bytes != in->widest_read || pl->wave == 1 || in->causal)
    return 1;
  int narrow = pl->vec * in->read_bytes <= FLAT_NARROW_VECTOR_BYTES;
  if (flat_short(in, pl) && narrow)
    return FLAT_SHORT_THREAD_ROWS;
  if (in->read_bytes != 2) /* f32 */
    return narrow || elems <= FLAT_WIDE_F32_VALUES ? FLAT_FEW_THREAD_ROWS : 1;
  if (elems > FLAT_UNCAPPED_ELEMS)
    return FLAT_FEW_THREAD_ROWS;
  if (elems > FLAT_THREAD_ROWS_ELEMS && threads_per_row == 1) {
    sg_plan one = flat_one_row(in, pl, 1); /* two where one row a thread would not copy ahead */
    return flat_images_ahead(in, &one) ? 1 : FLAT_FEW_THREAD_ROWS;
  }
  return elems <= FLAT_THREAD_ROWS_ELEMS && narrow ? FLAT_THREAD_ROWS : 1;
}
/* Flat rows read their chunks from a shared-memory image where row r starts
 * at r N elements: where N x size is near a multiple of 128 bytes, the rows
 * of a wave start on nearly the same bank and a chunk's read takes several
 * wavefronts (f16 N = 63, four threads a row: 5 a read; 127: 4). The policy
 * spreads them: thread group g of a pass takes row (g x K) mod P (P rows a
 * pass, a power of two, so any odd K is a permutation), K the odd number up to
 * FLAT_ROW_STEP_MAX whose reads take the fewest wavefronts in a model of 32
 * banks of 4 bytes (distinct words a bank; 8- and 16-byte accesses at least 2
 * and 4), the first such K. Measured on an H200 (session 28, tools/bench/
 * RESULTS.md "Flat rows: shared-memory banks"), against K = 1 at 33M-134M
 * elements: f16 N = 3-253 geomean x 1.09 (N = 63 0.54 -> 0.87 of the copy,
 * 127 0.61 -> 0.81, 17 0.80 -> 0.88), f32 x 1.015 (N = 63, 127 0.85 -> 0.96);
 * lost f16 N = 5-9 at 15M-65M rows x 0.97-0.98. Not measured on AMD GPUs
 * (the model's 32 banks; a wave of 64 is taken as two halves). */
#define FLAT_ROW_STEP_MAX 63
#define FLAT_BANKS 32
static unsigned flat_wavefronts(const sg_plan *pl, unsigned es, unsigned K) {
  unsigned T = pl->threads_per_row, P = pl->block_threads / T, vec = pl->vec;
  uint64_t n = (uint64_t)pl->n, chunks = (n + (uint64_t)T * vec - 1) / ((uint64_t)T * vec);
  unsigned floor = vec * es > 8 ? 4 : vec * es > 4 ? 2 : 1, total = 0, count = 0;
  for (unsigned lane0 = 0; lane0 < pl->block_threads; lane0 += FLAT_BANKS)
    for (uint64_t c = 0; c < chunks; c++) {
      uint64_t words[FLAT_BANKS][FLAT_BANKS * 4]; /* distinct words of each bank */
      unsigned nwords[FLAT_BANKS] = {0}, most = floor;
      for (unsigned l = lane0; l < lane0 + FLAT_BANKS && l < pl->block_threads; l++) {
        uint64_t row = (uint64_t)(l / T) * K % P, col = (c * T + l % T) * vec;
        uint64_t b0 = (row * n + (col < n ? col : 0)) * es, b1 = b0 + (uint64_t)vec * es;
        for (uint64_t w = b0 / 4; w < (b1 + 3) / 4; w++) {
          unsigned bank = (unsigned)(w % FLAT_BANKS), k = 0;
          while (k < nwords[bank] && words[bank][k] != w)
            k++;
          if (k == nwords[bank] && nwords[bank] < FLAT_BANKS * 4)
            words[bank][nwords[bank]++] = w;
          most = nwords[bank] > most ? nwords[bank] : most;
        }
      }
      total += most;
      count++;
    }
  return count ? (unsigned)((100ull * total + count / 2) / count) : 100;
}
unsigned sgp_policy_flat_row_step(const sgp_input *in, const sg_plan *pl) {
  unsigned es = in->read_bytes ? in->read_bytes : 2, P = pl->block_threads / pl->threads_per_row;
  if (!sgp_is_pow2(P)) /* a permutation only where P is a power of two */
    return 1;
  unsigned best = 1, fewest = flat_wavefronts(pl, es, 1);
  for (unsigned K = 3; K <= FLAT_ROW_STEP_MAX && K < P; K += 2) {
    unsigned w = flat_wavefronts(pl, es, K);
    if (w < fewest)
      best = K, fewest = w;
  }
  return best;
}
unsigned sgp_policy_flat_block(const sgp_input *in, const sg_plan *pl, unsigned threads_per_row) {
  unsigned b = MIN_BLOCK_THREADS_FLAT, most = pl->target->max_block_threads;
  while (b < most && (uint64_t)b / threads_per_row * pl->thread_rows * in->p->n * in->read_bytes <
                         FLAT_BLOCK_BYTES)
    b *= 2;
  return b < threads_per_row ? threads_per_row : b;
}
/* pl as the flat plan of one row a thread: its thread_rows and rows_per_block. */
static sg_plan flat_one_row(const sgp_input *in, const sg_plan *pl, unsigned threads_per_row) {
  sg_plan one = *pl;
  one.thread_rows = 1;
  one.rows_per_block = sgp_policy_flat_block(in, &one, threads_per_row) / threads_per_row;
  return one;
}

/* Packed rows: a row that is one vector narrower than an access (16-bit N =
 * 1, 2, 4; f32 N = 1, 2 on the GPUs), one thread a row, becomes PACK rows a
 * vector of the widest access (vlimit / the row's bytes; plan/rows.c,
 * resolve_pack), so that a thread has 16 bytes in flight where it had 2 to
 * 8. Floor: the copy. Measured on an H100 before (the sweep at ffeb868): f16
 * N = 2 at 12.8M-402M rows 0.78-0.86 of the copy (4 bytes a thread, two
 * rows in flight), N = 4 0.94-0.98, f32 N = 2 0.94. Packed (session 23,
 * tools/bench/RESULTS.md "Packed rows"), at 12.8M-138M rows: f16 N = 2
 * 1.01-1.07, N = 4 1.01-1.04, f32 N = 1, 2 1.00-1.07, 16-bit N = 1 (with
 * PACK_PREFETCH_ROWS) 0.96-1.05. Not measured on the host, which packs for
 * the same reason (its widest access). Not where a constraint fixes the
 * shape or the staging, nor for templates with a causal op or an input
 * whose rows repeat (resolve_pack). PACK_ROWS 0 turns it off. */
#define PACK_ROWS 1
unsigned sgp_policy_pack(const sgp_input *in, const sg_plan *pl) {
  const sg_constraints *c = in->c;
  int given = c->has_hw || c->nvec || c->nworkgroup || c->nwave || c->staging || c->split ||
              c->online == 2; /* online pairs asked: packed rows reduce without them */
  unsigned vlimit = sgp_vector_limit(pl);
  if (!PACK_ROWS || given || pl->layout != SG_LAYOUT_ROWS || pl->vec != (uint64_t)in->p->n ||
      pl->vec_bytes >= vlimit)
    return 1;
  return vlimit / pl->vec_bytes;
}

/* ---- threads per row and block ---- */

/* The threads per row a row of `vectors` vector accesses of `vec_bytes` gets
 * when no constraint fixes it (measured on an H200, experiments 1 and 4;
 * the causal rule on an H100, experiment 10):
 *  - short rows (at most 512 bytes): one access per thread, so that a wave
 *    holds several rows and every thread has its 16 bytes in flight; two
 *    (SHORT_ROW_CAUSAL_ACCESSES) for templates with a causal mask and 8
 *    elements an access (16-bit): their per-row remainder and limit, spread
 *    over twice the elements, measured on an H100 0.86-0.88 -> 0.96-0.97 of copy
 *    (attention, safe_attention) and 0.94 -> 0.97-0.99 (causal) at N = 64-256,
 *    where the templates without one measured within 1.5 % (to_f32 3 % slower)
 *    and f32 causal rows 0.98-1.00 either way;
 *  - otherwise 4 accesses per thread (enough loads in flight, few registers),
 *    a power of two; a row that would need a 1024-thread block takes 512
 *    threads of 8 accesses instead when that stays within AUTO_ELEMS_PER_THREAD
 *    (one 1024-thread block a multiprocessor overlaps its phases poorly). */
#define AUTO_ELEMS_PER_THREAD 32
/* a workgroup of a row split over a cluster (sgp_policy_cluster) */
#define CLUSTER_BLOCK_THREADS 256
#define SHORT_ROW_BYTES 512
#define SHORT_ROW_CAUSAL_ACCESSES 2
#define ROW_ACCESSES 4
#define PEELED_CAP_CHUNKS 5
#define PEELED_MAX_THREADS 512
static unsigned registers_threads(uint64_t vectors, unsigned vec, unsigned vec_bytes,
                                  unsigned max_threads, int causal, int peeled) {
  unsigned t;
  if (vectors * vec_bytes <= SHORT_ROW_BYTES) {
    unsigned per = causal && vec >= 8 ? SHORT_ROW_CAUSAL_ACCESSES : 1;
    t = sgp_pow2_floor(vectors / per ? vectors / per : 1);
  } else {
    t = sgp_pow2_floor(vectors / ROW_ACCESSES ? vectors / ROW_ACCESSES : 1);
    if (t >= 1024 && vectors / 512 * vec <= AUTO_ELEMS_PER_THREAD)
      t = 512;
  }
  /* peeled rows: at most PEELED_CAP_CHUNKS chunks a thread, which the register
   * request below (sgp_policy_peeled_blocks_per_sm) holds without spilling, in
   * rows of up to PEELED_MAX_THREADS threads. H100, exact kernels against the
   * copy (tools/bench/RESULTS.md "A run-time N"): f16 and bf16 N = 1001 (16 -> 32
   * threads) 0.86 -> 0.96, N = 3001 0.77 -> 0.82, f32 N = 1001-3001 +1-3 %; f32
   * N = 12289 at 1024 threads instead of 512 lost 13 %, hence the bound. */
  unsigned most = max_threads < PEELED_MAX_THREADS ? max_threads : PEELED_MAX_THREADS;
  while (peeled && t * 2 <= most && (vectors + t - 1) / t > PEELED_CAP_CHUNKS)
    t *= 2;
  return t > max_threads ? max_threads : t;
}

/* Threads of a staged row: STAGE_ACCESSES vectors each, at most
 * STAGE_MAX_THREADS while a thread's share stays within SGP_STAGE_MAX_CHUNKS (a
 * 1024-thread block that asks for 2 a multiprocessor leaves 32 registers a
 * thread: f16 in, f32 out spilled 512 bytes there; 512 threads with 16
 * accesses each did not, ptxas -v on the bench kernels; experiment 10). */
#define STAGE_ACCESSES 8
#define STAGE_MAX_THREADS 512
static unsigned staged_threads(uint64_t vectors, unsigned max_threads) {
  unsigned t = sgp_pow2_floor(vectors / STAGE_ACCESSES ? vectors / STAGE_ACCESSES : 1);
  if (max_threads > STAGE_MAX_THREADS &&
      vectors <= (uint64_t)STAGE_MAX_THREADS * SGP_STAGE_MAX_CHUNKS)
    max_threads = STAGE_MAX_THREADS;
  return t > max_threads ? max_threads : t;
}

static unsigned cluster_registers(const sgp_input *in, const sg_plan *pl, uint64_t vectors);
unsigned sgp_policy_threads_per_row(const sgp_input *in, const sg_plan *pl, uint64_t vectors,
                                    unsigned cap) {
  if (pl->stage)
    return staged_threads(vectors, cap);
  if (pl->chosen.cluster && pl->cluster > 1 &&
      cluster_registers(in, pl, sgp_row_vectors(pl)) == pl->cluster)
    return CLUSTER_BLOCK_THREADS < cap ? CLUSTER_BLOCK_THREADS : cap;
  return registers_threads(vectors, pl->vec, pl->vec_bytes, cap, in->causal, pl->peel);
}

/* At least 256 threads (8 waves of 32) so that short rows share a block,
 * otherwise one row per block (experiments 1, 2 and 4). Rows held in
 * registers at more than HELD_MANY_VALUES values a thread (16-bit rows of 56
 * or 64) take blocks of at least HELD_BLOCK_THREADS: ptxas gives those
 * threads 80-93 registers (f16 N = 6336: 93 in blocks of 256, 80 in blocks of
 * 128), which hold 2 blocks of 256 threads a multiprocessor (16 waves) or 5-6
 * of 128 (20-24 waves). Measured on an H200 (session 27, softgen-bench, 2
 * rounds, spread median 0.3-0.5 %, p90 2-3 %; tools/bench/RESULTS.md "Rows held
 * in registers: blocks of 128 threads"), 16-bit N = 400-7032 at M = 3000, 20000
 * and ~1.5 GB: at 56-64 values geomean +5 % (f16 and bf16; N = 2048-4095
 * +10 %, 6168-7032 +7-17 %, e.g. f16 117090 x 6336 0.88 -> 0.98 of the copy,
 * 225085 x 3296 0.90 -> 0.98; none under 0.99 of before); at 48 values mixed
 * (-1 to +5 %), at 32-40 none to -2 %, f32 (at most 32 values) within 1 %:
 * hence 48. */
#define MIN_BLOCK_THREADS 256
#define HELD_MANY_VALUES 48
#define HELD_BLOCK_THREADS 128
unsigned sgp_policy_block_threads(const sg_plan *pl, unsigned threads_per_row) {
  uint64_t values = thread_values(pl->tile_n, threads_per_row, pl->vec);
  unsigned least = !pl->stage && values > HELD_MANY_VALUES ? HELD_BLOCK_THREADS : MIN_BLOCK_THREADS;
  unsigned b = threads_per_row > least ? threads_per_row : least;
  return b < pl->wave ? pl->wave : b;
}

/* The inner layout: blocks of INNER_BLOCK_THREADS rows (one thread a row), a
 * whole number of waves, at least one ("The inner layout" in RESULTS.md). */
#define INNER_BLOCK_THREADS 256
unsigned sgp_policy_inner_block(const sg_plan *pl) {
  unsigned limit = pl->target->max_block_threads;
  unsigned block = INNER_BLOCK_THREADS < limit ? INNER_BLOCK_THREADS : limit;
  return block < pl->wave ? pl->wave : block / pl->wave * pl->wave;
}

/* ---- staging in shared memory and clusters ---- */

/* Staging (PipelineConstraint(staging)): the row block is copied to shared
 * memory with asynchronous copies and each pass re-reads it there, so that no
 * row value lives in registers across a reduction and several row blocks stay
 * resident per multiprocessor, their loads overlapping each other's
 * reductions. Rows longer than AUTO_STAGE_ELEMS are staged (what 512 threads
 * of AUTO_ELEMS_PER_THREAD registers hold: beyond it the registers plan needs
 * 1024-thread blocks, one resident per multiprocessor, measured 0.85-0.87 of
 * copy on an H100 against 0.97-0.99 staged, experiment 7) where the target
 * can, each read's vector is one 4, 8 or 16-byte copy, and a workgroup's share
 * fits its shared memory; a staged workgroup holds at most STAGE_BLOCK_BYTES of its rows
 * (longer rows are split over a cluster). Peeled rows (odd N) are staged as the
 * others: their whole vectors copied, the head and tail element by element
 * (codegen/rows_staged.c). Measured on an H200 against their registers plans
 * (clusters of 8 or 1024-thread blocks), softgen-bench A/B, 2 rounds
 * (tools/bench/RESULTS.md "Eighth change"): f16 7419 x 104459 0.45 -> 0.80 of
 * copy, 17586 x 59907 0.53 -> 0.77, 3203 x 249253 0.46 -> 0.76, f32 179 x 84455
 * 0.49 -> 0.82; f32 N = 50257 and 51865 at M = 64-128 lost 8-12 % (0.79-0.83
 * -> 0.72-0.74). */
#define AUTO_STAGE_ELEMS (512 * AUTO_ELEMS_PER_THREAD)
#define STAGE_BLOCK_BYTES (64 * 1024)
/* shared memory a staged block leaves for its reduction buffers */
#define STAGE_RESERVE 8192
/* A staged share fits a workgroup, in a portable cluster or not: synccheck,
 * which had flagged clusters of 16 with several blocks a multiprocessor (issue
 * 10, no defect found in the code), passed all of test/gpu/cluster16.sh's plans
 * on an H100 in session 17 (test/gpu/RESULTS.md, "staged rows over clusters of
 * 16 with several blocks a multiprocessor"). */
static int stage_share_fits(const sgh_target *tg, const char *arch, uint64_t share) {
  return share + STAGE_RESERVE <= tg->stage_smem(arch);
}

/* A block staging `bytes` is alone on its multiprocessor (over half its shared memory). */
static int stage_alone_bytes(const sgh_target *tg, const char *arch, uint64_t bytes) {
  return 2 * bytes > tg->stage_smem(arch);
}

/* A row of `vectors` vector accesses splits over `cluster` workgroups of
 * ceil(vectors / cluster) each, the last holding the rest (its columns past N
 * masked like a tail), as long as that last one holds at least one vector.
 * Rows not peeled round the share up to a multiple of SPLIT_ALIGN_VECTORS
 * where the last workgroup still holds a vector, which keeps every
 * workgroup's columns at the row start's alignment to 128 bytes (16-byte
 * vectors). Measured on an H200 (tools/bench/RESULTS.md "Split rows: shares on
 * the row's alignment"): ncu found workgroups starting mid-line asking the L2
 * for twice the read requests of the same bytes (f16 767 x 50800, shares of
 * 25400 columns: 2.17M against quack's 1.04M, 1.4x the read sectors) and its
 * partition fabric, busy 90 % of the launch, 9 % more. compare.sh over the
 * sweep's split rows whose kernel changed, rows not peeled: M > 128 (56
 * shapes) f16 x 1.005, bf16 x 1.003, f32 x 1.014, up to x 1.06 (767 x 50800
 * f16 0.86 -> 0.90, bf16 0.88 -> 0.93, f32 1431 x 74976 0.90 -> 0.93); M <=
 * 128 (124) x 1.009, 1.003, 1.011. Peeled rows lost (bf16 x 0.996 and 0.956,
 * 16-bit N = 50257 at M = 1-32 15 %: their partial vectors moved into
 * another chunk), so they keep the even share. */
#define SPLIT_ALIGN_VECTORS 8
static uint64_t even_share(uint64_t vectors, unsigned cluster) {
  return (vectors + cluster - 1) / cluster;
}
int sgp_split_ok(uint64_t vectors, unsigned cluster) {
  return (uint64_t)(cluster - 1) * even_share(vectors, cluster) < vectors;
}
uint64_t sgp_split_share(const sg_plan *pl, uint64_t vectors, unsigned cluster) {
  uint64_t share = even_share(vectors, cluster);
  uint64_t aligned = (share + SPLIT_ALIGN_VECTORS - 1) / SPLIT_ALIGN_VECTORS * SPLIT_ALIGN_VECTORS;
  return cluster > 1 && !pl->peel && (uint64_t)(cluster - 1) * aligned < vectors ? aligned : share;
}
uint64_t sgp_row_vectors(const sg_plan *pl) {
  if (pl->pack > 1) /* packed rows: a row is one vector's share */
    return 1;
  return pl->peel ? ((uint64_t)pl->n + 2 * pl->vec - 2) / pl->vec : (uint64_t)pl->n / pl->vec;
}

/* The largest cluster, a power of two up to `most`, that splits a row of
 * `vectors` vector accesses (sgp_split_ok). */
static unsigned split_cluster(uint64_t vectors, unsigned most) {
  unsigned c = 1;
  while (c * 2 <= most && sgp_split_ok(vectors, c * 2))
    c *= 2;
  return c;
}

/* A workgroup's staged share of `vectors` vectors, split `cluster` ways, fits
 * the shared memory and a pass's unrolled accesses (SGP_STAGE_MAX_CHUNKS). */
static int staged_share_fits(const sgp_input *in, const sg_plan *pl, uint64_t vectors,
                             unsigned cluster) {
  const sgh_target *tg = pl->target;
  uint64_t share = sgp_split_share(pl, vectors, cluster);
  unsigned t = staged_threads(share, tg->max_block_threads);
  return stage_share_fits(tg, pl->arch, share * pl->vec * in->read_bytes) &&
         (share + t - 1) / t <= SGP_STAGE_MAX_CHUNKS;
}

/* Rows past AUTO_STAGE_ELEMS that the registers plan holds in a block of at
 * most 512 threads at most REGISTERS_ROW_VALUES values a thread stay in
 * registers. Measured on an H200 (softgen-bench, 2 rounds, tools/bench/RESULTS.md
 * "Eighth change"): f32 N = 17817 (peeled) and 17820, 512 threads x 36 values,
 * at M = 128 / 879 / 4096: registers 1.00 / 0.97 / 0.95 and 1.05 / 0.99 / 0.95
 * of copy, staged 0.97 / 0.85 / 0.89 and 1.00 / 0.88 / 0.89. 16-bit rows just
 * past AUTO_STAGE_ELEMS hold 40 values there (5 vectors of 8) and measured
 * mixed (f16 17817 and 19259: registers 0.95 against staged 0.72-0.85 at M =
 * 128, staged 0.73-0.82 against 0.66-0.73 at M = 4096), so they stay staged. */
#define REGISTERS_ROW_VALUES 36
/* Peeled 16-bit rows (odd N) from PEELED_STAGE_ELEMS elements are staged, not
 * held in registers: their registers plans (sgp_policy_peeled_blocks_per_sm:
 * 1024 threads a multiprocessor) swung between 0.73 and 1.0 of the copy with
 * N. Measured on an H100 (softgen-bench, compare.sh, 2 rounds; tools/bench/
 * RESULTS.md "Session 22: held exps, a folded division, peeled rows staged"): 28 primes N = 1009-16001 at
 * M x N = 2^25 and 2^27 (M >= 2048), f16 and bf16, registers against staged:
 * N = 1361-16001 staged 0.87-1.00 against 0.73-1.01 (f16 6353 0.79 -> 0.97,
 * 13033 0.80 -> 0.98, bf16 2797 0.75 -> 0.95), a few within 3 % either way
 * (N = 1861-2521, 4673, 8641, 9587); N = 1009-1229 staged lost 5-15 %. With
 * the few-rows variants below, against the registers plans over M = 64-49308
 * of N = 1361-16001 and 18 odd N of the sweep (88 shapes, 2 rounds, spread
 * median 0.6 %, p90 3 %): geomean f16 1.025, bf16 1.032; N >= 2560 1.04-1.05
 * (up to 1.32: bf16 10563 x 6353 0.74 -> 0.98); N < 2560 1.00 (0.88-1.14:
 * staged plans of 8-16 rows a block lose at M = 1500-6000, e.g. bf16 3000 x
 * 1693 0.92 -> 0.81, and win at large M, f16 49308 x 1361 0.85 -> 0.95). */
#define PEELED_STAGE_ELEMS 1280
/* A staged peeled plan packs 2-16 rows a block (STAGE_ACCESSES vectors a
 * thread): under PEELED_FILL_BLOCKS of its row blocks (about 4 a multiprocessor
 * of an H100) its few-rows variant is the registers plan, which the
 * same measurement found 10-35 % faster at M = 900-1500 of N = 1361-3533 (f16
 * 3533 x 900: 0.97 staged against 1.15 of the copy; the launch takes it only
 * while its blocks stay resident, sgrt_launch_geometry). */
#define PEELED_FILL_BLOCKS 512
static int registers_hold(const sgp_input *in, const sg_plan *pl, uint64_t vectors) {
  unsigned t = registers_threads(vectors, pl->vec, pl->vec_bytes, pl->target->max_block_threads,
                                 in->causal, 0); /* as before the peeled rows' own rule */
  return t <= 512 && (vectors + t - 1) / t * pl->vec <= REGISTERS_ROW_VALUES;
}

/* Rows in registers over a cluster (quack's geometry): a row of one read an
 * element in an online chain, 16-byte vectors, not peeled, no causal op, of
 * at least CLUSTER_REGISTERS_BYTES, splits over the smallest cluster of 2 up
 * to CLUSTER_REGISTERS_MOST whose workgroups of CLUSTER_BLOCK_THREADS threads
 * hold their share in registers at most CLUSTER_REGISTERS_VALUES values a
 * thread, one row a block, instead of one staged (or 512-thread) block a row;
 * not where that share fills under 7/8 of the vectors its threads' chunks
 * hold (CLUSTER_REGISTERS_FILL_NUM / _DEN). Measured on an
 * H200 (session 31, compare.sh, 2 rounds, spread median 0.9 %, p90 3 %;
 * tools/bench/RESULTS.md "Rows in registers over a cluster"), forced by
 * constraints against the plans before at M = 65-9000: f16 N = 16384-40960 at
 * 32-48 values a thread 1.01-1.23 x (but 512 x 32000 0.98), f32 N =
 * 8192-32768 0.99-1.16 x; at 64 values it lost (f16 32768 over 2: 0.91-0.97
 * at M >= 768, 65024 over 4: 0.97-0.99), at 56 bf16 lost (90 registers, 2
 * blocks a multiprocessor: 50304 at M = 64-767 0.90-0.93) where f16 (80) did
 * not, and so did shares filling 82 % of their chunks (f16 26816 over 4:
 * 0.88-0.91 at M >= 512). Over 8 (the same, forced, f16 N = 65024-98304, bf16
 * 65536-81920, f32 32768-65536 at M = 65-4000, 2 rounds, spread median 0.3 %):
 * f16 1.03-1.21 x, bf16 1.04-1.16 x, f32 65536 1.04-1.23 x, f32 32768-49152
 * (taken over 4 by the rule) 1.00-1.11 x against over 4. Past 8 and at 64
 * values: the two rules below (CLUSTER_REGISTERS_WIDE_BYTES, the capped second
 * tier). Rows of 24-32 KB (16-bit N = 12288-16383, f32 6144-8191), measured
 * on an H200 (session 33, compare.sh, 2 rounds, spread median 0.8 %, p90 4.7
 * %; tools/bench/RESULTS.md "Rows in registers from 24 KB"), over 2 against one
 * block of 256 threads (16-bit: 56-64 values, 101 registers, 2 blocks a
 * multiprocessor) at M = 54-16000: f16 and bf16 N = 15032 and 16072 1.05-1.22
 * x (f16 1441 x 15032 0.88 -> 0.99 of the copy, 363 x 16072 0.94 -> 1.08),
 * 12288 1.02-1.12 x, 14336 1.05-1.11 x at M <= 128 and 0.97-0.99 x at M >= 363;
 * f32 6144 and 7168 1.01-1.06 x. Returns the cluster, 0 where the rule does
 * not apply. */
#define CLUSTER_REGISTERS_BYTES (24 * 1024)
#define CLUSTER_REGISTERS_MOST 16
#define CLUSTER_REGISTERS_VALUES 48
#define CLUSTER_REGISTERS_FILL_NUM 7
#define CLUSTER_REGISTERS_FILL_DEN 8
/* Over the non-portable clusters (past tg->max_cluster: 16 on sm_90) only
 * where a workgroup's share is more than CLUSTER_REGISTERS_WIDE_BYTES, or
 * CLUSTER_REGISTERS_NARROW_BYTES or more at most CLUSTER_REGISTERS_NARROW_VALUES
 * values a thread. Measured on an H200 (session 32, compare.sh, 2 rounds,
 * spread median 0.4 %, p90 2.3 %; tools/bench/RESULTS.md "Rows in registers
 * over 16"), over 16 against the plans before (staged over 4 or 8, few-rows
 * variants staged over 8), N = 100352-163608 at M = 16-4000: f32 (shares of
 * 24.5-40 KB) 1.05-1.27 x at every M >= 32; f16 and bf16 (shares of 14.5-20
 * KB) 1.0-1.17 x at M = 16-64 but 0.86-0.99 x at M >= 256, where 4-5 blocks of
 * 256 threads a multiprocessor (ptxas: 48-64 registers) keep 58-100 KB in
 * flight against the staged plans' 120-190 KB. Measured again on an H100
 * (session 37, compare.sh, 2-4 rounds, spread median 0.5 %; tools/bench/
 * RESULTS.md "16-bit rows over 16 in registers"), forced against the plans
 * of then (the capped split of 8 at N = 131072, the staged split of 8 and its
 * variants at 151936 and 152064), f16 and bf16 at M = 24-4000: shares of
 * 16-19 KB (32-40 values, 48-64 registers) 1.03-1.12 x at every M >= 48
 * (bf16 64 x 152064 0.81 -> 0.91 of the copy, f16 4000 x 151936 0.94 ->
 * 0.99, bf16 1963 x 131072 0.94 -> 1.00), 1.00-1.07 x at M = 32 and
 * 0.95-1.01 x at M = 24 (against the few-rows variants); shares of
 * 24.5-32 KB over 512 threads (201088, 262144) lost (0.85-0.98 x), as did
 * 512-thread blocks at 16-19 KB (0.75-0.85 x). Hence the narrow band: 16-bit
 * N = 131072-163840 (at 48 values, N up to 196608, ptxas spills 4-36 bytes at
 * 64 registers: not measured, not taken). Their few-rows variants but the
 * lone blocks of 16 for M up to 4 (few_rows_clusters) the kernel replaces:
 * the same split in registers (at M = 5-32) or measured above (M = 33-64, the
 * staged split of 8). */
#define CLUSTER_REGISTERS_WIDE_BYTES (24 * 1024)
#define CLUSTER_REGISTERS_NARROW_BYTES (16 * 1024)
#define CLUSTER_REGISTERS_NARROW_VALUES 40
/* Where no cluster holds the share at CLUSTER_REGISTERS_VALUES (16-bit rows of
 * N = 98305-131071, and shorter ones whose share fills under 7/8 of its
 * chunks, e.g. 25848 and 50304), a row takes the
 * smallest portable cluster that holds it at CLUSTER_REGISTERS_CAPPED_VALUES,
 * the blocks asked to fit CLUSTER_REGISTERS_CAPPED_BLOCKS a multiprocessor
 * (.minnctapersm: ptxas 80 registers instead of 98, 16-44 bytes of spills):
 * quack's geometry, which ncu showed at 80 registers and 3 blocks a
 * multiprocessor (f16 1279 x 131072, 164 us) where the same split uncapped ran
 * 98 registers, 2 blocks. Measured on an H200 (session 32, compare.sh, 2
 * rounds; tools/bench/RESULTS.md "Rows in registers over 16"), forced (over 4
 * for N = 50304, over 8 for 100352-131072, 56-64 values) against the plans
 * before (staged over 2, 4 or 8): M = 318-4000 f16 1.01-1.06 x (1279 x 131072
 * 0.92 -> 0.96, 900 x 128256 0.92 -> 0.96), bf16 0.98-1.04 x; M = 128
 * 0.96-1.06 x. First for rows of 96 KB or more; from session 33 for every row
 * the first tier considers (in practice also 16-bit N = 24577-28671 over 2 at
 * 56 values, where the split of 4 fills 75-86 % of its chunks): against one
 * staged block a row (H200, same run as CLUSTER_REGISTERS_BYTES) f16 and bf16
 * N = 25232-28160 at M = 54-4000 1.00-1.19 x (f16 363 x 26824 0.91 -> 1.03,
 * 4000 x 25848 0.90 -> 1.00; bf16 363 x 27096 0.87 -> 1.03), M = 54 0.96-1.03.
 * Past the portable clusters only where a workgroup's share is more than
 * CLUSTER_REGISTERS_CAPPED_WIDE_BYTES: f32 N = 196609-262144 over 16 (shares of
 * 48-64 KB), against staged over 16 (64 KB a block, 3 a multiprocessor;
 * session 33, 2 rounds, spread median 0.4 %) at M = 32-4000 1.01-1.15 x (201088
 * 0.86 -> 0.99 at M = 1441, 262144 0.88 -> 0.95); the 16-bit rows there
 * (shares of 24.5-32 KB) against staged over 8 lost at M >= 128 (f16 4000 x
 * 201088 0.91 -> 0.84, bf16 0.90 -> 0.81). */
#define CLUSTER_REGISTERS_CAPPED_VALUES 64
#define CLUSTER_REGISTERS_CAPPED_BLOCKS 3
#define CLUSTER_REGISTERS_CAPPED_WIDE_BYTES (48 * 1024)
/* The first tier's blocks of more than CLUSTER_REGISTERS_FEW_VALUES values a
 * thread ask for CLUSTER_REGISTERS_BLOCKS a multiprocessor (64 registers):
 * ptxas gave them 61-64 registers for f16 but 73-74 for bf16 and 79-80 for
 * f32 where no column is masked (N = 49152 over 4, 98304 over 8: 48 values), 3
 * blocks a multiprocessor. Measured on an H200 (session 33, compare.sh, 2
 * rounds; tools/bench/RESULTS.md "Rows in registers from 24 KB"), asked for 4
 * against not, M = 64-4000: bf16 N = 49152 and 98304 1.03-1.15 x (128 x 49152
 * 0.76 -> 0.87 of the copy, 4000 x 98304 0.92 -> 0.99; 64 registers, no
 * spills), 24576 1.00-1.03 x; f32 N = 24576-196608 0.99-1.05 x (64 registers,
 * no spills). */
#define CLUSTER_REGISTERS_FEW_VALUES 32
#define CLUSTER_REGISTERS_BLOCKS 4

/* Rows in registers over k workgroups of CLUSTER_BLOCK_THREADS: 1 where a
 * thread holds at most `values` values of its share, and the
 * share fills at least 7/8 of its threads' chunks; 0 where it does not fill
 * them; -1 where the values are too many or the row does not split so. The
 * template and the plan can hold it so (one read an element, an online chain,
 * 16-byte vectors, not peeled, no causal op, rows of CLUSTER_REGISTERS_BYTES or
 * more, clusters on the target, N fixed) or the answer is -1. */
static int registers_split(const sgp_input *in, const sg_plan *pl, uint64_t vectors, unsigned k,
                           unsigned values) {
  if (!sgh_has_clusters(pl->target, pl->arch) || sgp_dynamic_n(pl) || !in->online_chains ||
      in->causal || pl->peel || in->read_bytes != in->widest_read || pl->vec_bytes != 16 ||
      vectors * pl->vec_bytes < CLUSTER_REGISTERS_BYTES || !sgp_split_ok(vectors, k))
    return -1;
  uint64_t share = sgp_split_share(pl, vectors, k);
  uint64_t chunks = (share + CLUSTER_BLOCK_THREADS - 1) / CLUSTER_BLOCK_THREADS;
  uint64_t slots = chunks * CLUSTER_BLOCK_THREADS; /* vectors the workgroup's threads hold */
  if (chunks * pl->vec > values)
    return -1;
  return share * CLUSTER_REGISTERS_FILL_DEN >= slots * CLUSTER_REGISTERS_FILL_NUM;
}

/* The smallest cluster of 2 up to `most` that can hold the share at `values`
 * a thread (registers_split >= 0), if it fills its chunks and is portable or
 * its workgroup's share is over `wide_bytes`, or CLUSTER_REGISTERS_NARROW_BYTES
 * or more held at most `narrow_values` a thread (0: no such band); else 0. */
static unsigned smallest_split(const sgp_input *in, const sg_plan *pl, uint64_t vectors,
                               unsigned most, unsigned values, uint64_t wide_bytes,
                               unsigned narrow_values) {
  for (unsigned k = 2; k <= most; k *= 2) {
    int fits = registers_split(in, pl, vectors, k, values);
    if (fits < 0)
      continue;
    uint64_t bytes = sgp_split_share(pl, vectors, k) * pl->vec_bytes;
    int wide = bytes > wide_bytes || (narrow_values && bytes >= CLUSTER_REGISTERS_NARROW_BYTES &&
                                      registers_split(in, pl, vectors, k, narrow_values) >= 0);
    return fits && (k <= pl->target->max_cluster || wide) ? k : 0;
  }
  return 0;
}

static unsigned cluster_registers(const sgp_input *in, const sg_plan *pl, uint64_t vectors) {
  const sg_constraints *c = in->c;
  /* the block's shape is the policy's: nothing given fixes the threads or rows,
   * nor asks for held exps (staged rows only): else the staged plan, which such
   * constraints were written against */
  if (c->nworkgroup || c->nwave || c->waves_per_block[0] || c->split || c->hold >= 2)
    return 0;
  unsigned most = sgp_min_u(CLUSTER_REGISTERS_MOST, sgh_largest_cluster(pl->target));
  unsigned k = smallest_split(in, pl, vectors, most, CLUSTER_REGISTERS_VALUES,
                              CLUSTER_REGISTERS_WIDE_BYTES, CLUSTER_REGISTERS_NARROW_VALUES);
  /* else the capped tier: at most CLUSTER_REGISTERS_CAPPED_VALUES, in blocks
   * capped to CLUSTER_REGISTERS_CAPPED_BLOCKS a multiprocessor */
  return k ? k
           : smallest_split(in, pl, vectors, most, CLUSTER_REGISTERS_CAPPED_VALUES,
                            CLUSTER_REGISTERS_CAPPED_WIDE_BYTES, 0);
}

unsigned sgp_policy_registers_blocks_per_sm(const sgp_input *in, const sg_plan *pl) {
  if (pl->stage || pl->cluster < 2 || pl->grid_split || !pl->chosen.cluster ||
      pl->elems_per_thread <= CLUSTER_REGISTERS_FEW_VALUES ||
      cluster_registers(in, pl, sgp_row_vectors(pl)) != pl->cluster)
    return sgp_policy_peeled_blocks_per_sm(pl);
  return pl->elems_per_thread <= CLUSTER_REGISTERS_VALUES ? CLUSTER_REGISTERS_BLOCKS
                                                          : CLUSTER_REGISTERS_CAPPED_BLOCKS;
}

int sgp_policy_stage(const sgp_input *in, const sg_plan *pl) {
  const sgh_target *tg = pl->target;
  int64_t n = in->p->n;
  uint64_t vectors = sgp_row_vectors(pl);
  if (cluster_registers(in, pl, vectors))
    return 0;
  int can = sgh_can_stage(tg), narrow = pl->vec * in->narrowest_read < 4;
  /* the most a workgroup would hold: the row over the largest portable
   * cluster, else over the largest staged one */
  int clusters = sgh_has_clusters(tg, pl->arch);
  unsigned portable = clusters ? split_cluster(vectors, tg->max_cluster) : 1;
  unsigned staged = clusters ? split_cluster(vectors, tg->max_cluster_wide) : 1;
  int fits = can && staged_share_fits(in, pl, vectors, portable);
  /* over non-portable clusters, measured on an H100 at f32 N = 262144 against
   * the registers plan (1024 threads): the backward passes 0.54 -> 0.92 of
   * their floor, causal 0.81 -> 1.37, attention 0.95 -> 1.25, but masked (an
   * online chain, nothing skipped: an exp per element in both passes of a
   * block alone on its multiprocessor) 0.91 -> 0.84, so not for those
   * (experiment 12) */
  if (can && !fits && staged > tg->max_cluster && (!in->online_chains || in->causal))
    fits = staged_share_fits(in, pl, vectors, staged);
  int peeled = pl->peel && in->read_bytes == 2 && n >= PEELED_STAGE_ELEMS;
  return can && !narrow && fits &&
         (peeled || (n > AUTO_STAGE_ELEMS && !registers_hold(in, pl, vectors)));
}

/* Workgroups per row (`vectors` rounded up by the caller so that every power
 * of two up to the largest cluster divides it: a split need not be even,
 * sgp_split_ok): the fewest that keep a thread's share of the row within
 * AUTO_ELEMS_PER_THREAD (rows longer than one block's registers), splitting
 * until a block of 256 threads (or the most the largest cluster allows) holds
 * its share, as measured fastest (experiments 2 and 4); smaller blocks keep
 * several resident per multiprocessor. Staged: a workgroup's share of the rows within
 * STAGE_BLOCK_BYTES over portable clusters. Past them (up to max_cluster_wide)
 * while the share does not fit (stage_share_fits), and while it is over
 * STAGE_BLOCK_BYTES for rows of one read an element with an online chain, over
 * half the shared memory (a block alone on its multiprocessor) for the others.
 * Measured on an H100 against the split of 8 (tools/bench/RESULTS.md "Eleventh
 * change", softgen-bench and variants.py, two rounds): softmax f32 N = 151936
 * (76 KB a block over 8) M = 32-1024 0.66-0.85 -> 0.83-0.96 of copy, 201088
 * 0.70-0.90 -> 0.83-0.96, 256000 (128 KB, alone) M = 16-1024 0.67-0.92 ->
 * 0.77-0.96 (M = 8 0.76 -> 0.68), log_softmax and scaled f32 151936 0.73-0.87 ->
 * 0.87-0.96; two reads an element lost at 76-100 KB (masked f16 151936 0.91 ->
 * 0.80, softmax_backward f16 151936 0.97 -> 0.83, f32 100352 1.00 -> 0.91) and
 * gained where a block had been alone (masked f16 262144 0.94 -> 0.99,
 * softmax_backward f32 151936 0.80 -> 0.88, attention f16 262144 1.67 -> 1.99). */
unsigned sgp_policy_cluster(const sgp_input *in, const sg_plan *pl, uint64_t vectors,
                            uint64_t rows, uint64_t threads) {
  const sgh_target *tg = pl->target;
  unsigned cluster = 1;
  uint64_t fit = (threads < CLUSTER_BLOCK_THREADS ? threads : CLUSTER_BLOCK_THREADS) *
                 AUTO_ELEMS_PER_THREAD;
  /* rows in registers over a cluster, where the block may have its 256 threads */
  unsigned registers = !pl->stage && threads >= CLUSTER_BLOCK_THREADS && rows == 1
                           ? cluster_registers(in, pl, sgp_row_vectors(pl))
                           : 0;
  if (pl->stage) {
    unsigned most = sgh_largest_cluster(tg);
    int one_read = in->online_chains && in->read_bytes == in->widest_read;
    for (uint64_t share; cluster < most && (vectors / cluster) % 2 == 0; cluster *= 2) {
      share = vectors / cluster * pl->vec * rows * in->read_bytes;
      int over = cluster < tg->max_cluster || one_read ? share > STAGE_BLOCK_BYTES
                                                       : stage_alone_bytes(tg, pl->arch, share);
      if (!over && stage_share_fits(tg, pl->arch, share))
        break;
    }
  } else if (registers)
    cluster = registers;
  else if (vectors * pl->vec > threads * AUTO_ELEMS_PER_THREAD)
    while (cluster < tg->max_cluster && vectors / cluster * pl->vec > fit &&
           (vectors / cluster) % 2 == 0)
      cluster *= 2;
  return cluster;
}

/* ---- rows no plan above holds ---- */

/* Tiles: targets that stream long rows (the host) read every row longer than
 * the register budget in tiles; the GPUs only rows that neither a block's
 * registers, an even cluster split nor staging holds (odd or prime N past
 * 64K elements a block, staged shares over the shared memory): one pass over
 * memory per reduction beats refusing the row (torch.softmax measured 0.13-0.52
 * of copy at those N on an H100, tools/bench/RESULTS.md "sweep"). Not where
 * constraints fixed the shape: they are honoured or rejected. */
int sgp_policy_tiles(const sg_plan *pl, int shape_given) {
  return pl->target->stream_long_rows || !shape_given;
}

/* Chunks a tile: the register budget's (max_elems_per_thread / vec), at most
 * PEELED_TILE_ELEMS values a thread for peeled rows, whose every chunk of a
 * tile is checked (the tile starts at a run-time column): at 1024 threads (64
 * registers) 8 chunks of 8 f16 spilled 1152 bytes, 4 chunks 264; "A run-time N". */
#define PEELED_TILE_ELEMS 16
unsigned sgp_policy_tile_chunks(const sg_plan *pl) {
  unsigned budget = pl->target->max_elems_per_thread / pl->vec;
  if (pl->peel && budget * pl->vec > PEELED_TILE_ELEMS)
    budget = PEELED_TILE_ELEMS / pl->vec;
  return budget ? budget : 1;
}

/* ---- pipelining: rows in flight, online pairs, copies ahead ---- */

/* Prefetch the next row block (a persistent grid) when AUTO_PREFETCH is on,
 * the loaded copy fits beside the row's f32 values in PREFETCH_REGISTERS per
 * thread and blocks stay at most 512 threads (1024-thread blocks are capped
 * at 64 registers). Off: on an H200 the persistent, prefetching kernels
 * measured 3 to 20% slower than one block per row block at every shape
 * tried (experiment 3). */
#define AUTO_PREFETCH 0
#define PREFETCH_REGISTERS 64
/* One exception: rows of at most TINY_ROW_BYTES read, one thread a row in one
 * access (16-bit N <= 2, f32 N = 1), not flat. A thread then has 4 bytes in
 * flight, and a multiprocessor too few to cover the memory's latency: the
 * next row block's load while this one computes doubles it. Measured on an
 * H100 (softgen-bench, session 18, tools/bench/RESULTS.md "Short rows: the
 * next row block in flight"): f16 N = 2 at M = 12.8M-402M 0.665-0.745 ->
 * 0.779-0.848 of the copy; the same prefetch lost 5-60 % at N = 7-225, whose
 * rows are flat or several threads wide. */
#define TINY_ROW_BYTES 4
/* And flat rows of one 16-bit read whose block's read image is at most
 * FLAT_PREFETCH_BYTES (codegen/rows_flat.c: the next row block copied into a
 * second image while this one computes). A flat kernel's only loads are its
 * blocks' copies, so a multiprocessor has its resident blocks' read images in
 * flight. Measured on an H100 (softgen-bench, session 20, tools/bench/RESULTS.md
 * "Flat rows: the next row block in flight"), against the same plan without,
 * at shapes whose copy takes 20 us or more: f16 N = 225 (a read image of 7.2
 * KB) 1.23 x faster, 101 (6.5 KB) 1.22 x, 31 (8.0 KB) 1.16 x, 137 (8.8 KB)
 * 1.11 x, 7 (7.2 KB) 1.05-1.07 x, 82 (10.5 KB) 1.05 x, 11 and 13 (5.6-6.7 KB)
 * 1.03-1.04 x, 71 (9.1 KB) 1.02 x; N = 17 (8.7 KB) 0.96 x and 10 (5.1 KB) 0.99
 * x. Those blocks' images in flight without the copy ahead (ptxas registers:
 * 4-6 blocks a multiprocessor) were 26-42 KB; at 11.2-11.8 KB an image (f16 N
 * = 46, 174, 179: 44-47 KB a multiprocessor) it lost 7-10 %, and every f32
 * flat plan lost 8-13 % (at 1.00-1.04 of the copy without). */
#define FLAT_PREFETCH_BYTES (10 * 1024 + 512)
static int flat_images_ahead(const sgp_input *in, const sg_plan *pl) {
  return in->read_bytes == 2 && in->widest_read == 2 &&
         flat_images(in->t, pl, 1) <= FLAT_PREFETCH_BYTES;
}
/* Packed rows (sgp_policy_pack) of at least PACK_PREFETCH_ROWS rows a vector
 * (16-bit N = 1) prefetch, the others not (nor the host's). Measured on an
 * H100 (softgen-bench, session 23, tools/bench/RESULTS.md "Packed rows"), both
 * against the copy at 12.8M-138M rows: f16 N = 2 (4 rows a vector) 1.07 /
 * 1.01 of the copy without the prefetch, 0.98-1.02 / 0.92 with it; N = 4 and
 * f32 N = 1, 2 the same way (1.00-1.07 without, 0.93-1.01 with); but f16 and
 * bf16 N = 1 (8 rows a vector) 0.87-1.00 without, 0.96-1.05 with. */
#define PACK_PREFETCH_ROWS 8
int sgp_policy_prefetch(const sgp_input *in, const sg_plan *pl) {
  if (pl->pack > 1) /* not the host's: a CPU thread's loads need no overlap */
    return pl->pack >= PACK_PREFETCH_ROWS && pl->wave > 1;
  if (pl->threads_per_row == 1 && pl->chunks == 1 && !pl->flat &&
      (uint64_t)pl->n * in->read_bytes <= TINY_ROW_BYTES)
    return 1;
  /* flat rows of 4 rows a thread or more were measured with it ("Flat rows:
   * several rows a thread"), the others by the size of their images */
  if (pl->flat && pl->thread_rows >= FLAT_THREAD_ROWS)
    return in->read_bytes == 2 && in->widest_read == 2;
  if (pl->flat)
    return flat_images_ahead(in, pl);
  unsigned regs = pl->elems_per_thread * in->read_bytes / 4 + pl->elems_per_thread;
  return AUTO_PREFETCH && pl->block_threads <= 512 && regs <= PREFETCH_REGISTERS;
}

uint64_t sgp_staged_bytes(const sgp_input *in, const sg_plan *pl) {
  return (uint64_t)pl->chunks * pl->threads_per_row * pl->vec * pl->rows_per_block *
         in->read_bytes;
}

/* A staged block alone on its multiprocessor (its rows over half the shared memory). */
static int staged_alone(const sgp_input *in, const sg_plan *pl) {
  return stage_alone_bytes(pl->target, pl->arch, sgp_staged_bytes(in, pl));
}

/* Online (max, sum) pairs (measured on an H100 and an H200, experiments 5,
 * 7, 10 and 11): they save a pass, worth it where that pass is a cluster barrier,
 * and for staged rows (a pass over shared memory). Staged f32 rows of blocks
 * sharing a multiprocessor had measured faster apart (the pairs' registers
 * spilled under the cap of 3 blocks a multiprocessor, experiment 7); since the
 * gather stage (RESULTS.md "Ninth change") they do not spill (ptxas, every
 * template at f32 N = 20000-262144) and measured faster as pairs on an H100
 * ("Eleventh change": softmax f32 M = 128-256 x 49152-128256 0.81-0.92 ->
 * 0.87-0.96 of copy, 4096 x 131072 0.97 -> 0.99). Without clusters or staging,
 * apart (more registers and an exp per shuffle step). */
int sgp_policy_online(const sg_plan *pl) {
  if (pl->stage)
    return 1;
  if (pl->layout == SG_LAYOUT_INNER) /* tiled rows: a pass over memory fewer */
    return pl->row_tiles > 1;
  /* not in 1024-thread blocks (64 registers a thread): f32 N = 262144 with a
   * mask spilled 200 bytes as pairs, 40 apart; on an H100 attention measured
   * 0.67 of copy as pairs, safe_attention 0.94 apart */
  return pl->cluster > 1 && pl->block_threads < 1024;
}

/* Staged rows copied ahead (measured on an H100, A/B in one run, experiment
 * 12): only where a block is alone on its multiprocessor (nothing else
 * overlaps its loads with its passes), the row's max and sum are online pairs
 * (an exp per element in both passes) and an element moves at most
 * STAGE_AHEAD_BYTES of reads and writes, so that the exps are many for the
 * bytes: masked 16-bit 1024 x 262144 0.89-0.92 -> 0.94. Elsewhere the
 * persistent grid cost 3-10 % (f32 masked 4096 x 131072, alone and online
 * with 12 bytes an element: 1.00 -> 0.95; scaled f32 1024 x 262144, 8 bytes:
 * 1.13 -> 1.09; the backward passes, no exp in a pass: 1.00 -> 0.97; 3 blocks
 * a multiprocessor: 0.95-1.00 -> 0.87-0.97). Never with a causal op: its rows
 * copy only the chunks they keep, which a row copied ahead cannot; and only
 * when the template ends in a write (the copies start as it frees slots).
 * Since staged rows over half a multiprocessor split over clusters of 16
 * (sgp_policy_cluster; masked f16 1024 x 262144 0.94 -> 0.99 of copy so), no
 * automatic plan has a staged block alone with online pairs: copies ahead are
 * what PipelineConstraint(rows_in_flight=2) asks for. */
#define STAGE_AHEAD_BYTES 6
/* And rows of one read staged STAGE_BLOCK_BYTES a block (3 blocks a
 * multiprocessor) over clusters of AHEAD_CLUSTER or more, not peeled: measured
 * on an H200 (softgen-bench, session 25, tools/bench/RESULTS.md "Staged rows
 * copied ahead over clusters"), against the same plans without (146 shapes of
 * 16-bit N = 250880-262144, f32 N = 128256-131072 and 250880-262144 at M =
 * 1-2048): f32 250880-262144 at M = 32-2048 1.02-1.12 x (128 x 250880 0.82 ->
 * 0.89 of the copy), 16-bit 250880-256000 at M = 96-2048 1.03-1.10 x, f32
 * 128256-131072 at M = 48-128 1.04-1.09 x; lost: f32 131072 at M >= 768
 * 0.97-0.99 x. Where the launch is under two waves of blocks (16-bit M = 59-64
 * over clusters of 8: 0.95-1.07 x in the first A/B) the plan without copies
 * ahead is a few-rows variant (AHEAD_PLAIN_BLOCKS). Not chosen (measured with
 * rows_in_flight=2 over the sweep's 131 shapes of copies of 20 us or more):
 * blocks of 40-50 KB (5 a multiprocessor) lost 2-5 % at large M (f16 6261 x
 * 155768, 1431 x 74976) though they gained at M = 59-128 (f32 128 x 151936 0.80
 * -> 0.88); clusters of 4 (f16 128 x 128256 0.97 x); peeled rows (their plan
 * with rows_in_flight=2 is another one, in registers: down to 0.44 x). */
#define AHEAD_CLUSTER 8
int sgp_policy_stage_ahead(const sgp_input *in, const sg_plan *pl) {
  if (!in->ends_in_write || in->causal || pl->peel || !pl->online)
    return 0;
  if (in->moved_bytes <= STAGE_AHEAD_BYTES && staged_alone(in, pl))
    return 1;
  return in->read_bytes == in->widest_read && pl->cluster >= AHEAD_CLUSTER &&
         sgp_staged_bytes(in, pl) >= STAGE_BLOCK_BYTES;
}

/* How the blocks of a cluster exchange their partials (codegen/reduce.c):
 * through transaction barriers (each block waits only for the bytes sent to
 * it), or through the cluster barrier in persistent grids that load the next
 * row block while computing this one and in staged few-rows variants whose
 * blocks share their multiprocessors (a variant is decided once its launch,
 * alone or not, is: plan/resolve.c). Measured on an H200 (compare.sh, the
 * sweep's 560 launches x dtypes that run a cluster, one round;
 * tools/bench/RESULTS.md, "The cluster exchange through transaction
 * barriers"): rows in registers 1.06 x, staged kernels 1.00-1.03 x (1-row
 * launches 1.19 x at most, clusters of 4-8 at M > 128 1.03 x), staged variants
 * alone on their multiprocessor 1.065 x; but staged rows copied ahead
 * (sgp_policy_stage_ahead) 0.93-0.97 x, and staged variants over clusters of 8
 * 1.033 x at M = 5-16, 0.955 x at M = 17-64 (in CUDA graphs f16 64 x 128256
 * 12.75 -> 13.49 us, 32 x 250880 13.95 -> 15.51). */
int sgp_policy_exchange_bars(const sg_plan *pl) {
  return !pl->prefetch && !(pl->max_rows && pl->stage && !pl->alone_smem);
}

/* Blocks a multiprocessor: as many as its shared memory holds (a
 * multiprocessor has about a block's limit + 1 KB; each block reserves 1 KB)
 * and its threads allow, asked of the register allocator so that they stay
 * resident (staged rows overlap one block's loads with another's passes;
 * .minnctapersm 3 took the staged f16 rows from 93 to 40 registers, experiment 7). */
unsigned sgp_smem_blocks_per_sm(const sg_plan *pl) {
  unsigned per_sm =
      (pl->target->stage_smem(pl->arch) + 1024) / (pl->stage_bytes + pl->smem_bytes + 1024);
  return per_sm ? per_sm : 1;
}
unsigned sgp_policy_blocks_per_sm(const sg_plan *pl) {
  unsigned per_sm = sgp_smem_blocks_per_sm(pl);
  unsigned by_threads = pl->target->max_threads_per_sm / pl->block_threads;
  per_sm = per_sm < by_threads ? per_sm : by_threads;
  return per_sm > 1 ? per_sm : 0;
}

/* Staged rows that hold their exps (PipelineConstraint(hold=1), not chosen
 * automatically: it lost on an H100, tools/bench/RESULTS.md "Session 22")
 * keep elems_per_thread floats across the
 * reduction: no more blocks a multiprocessor than HOLD_REGISTERS registers
 * (65536 a multiprocessor on NVIDIA) give each thread those and
 * HOLD_SPARE_REGISTERS more, so that the held values do not spill under the
 * staged rows' request (quack's kernel, which holds its row, runs 80
 * registers and 3 blocks of 256 threads: tools/bench/RESULTS.md, session 21).
 * A thread holds at most what one block's registers give it less those
 * (sgp_policy_hold_values): f16 N = 1048580 held 132 values in 512-thread
 * blocks (128 registers) and spilled 296 bytes. */
#define HOLD_REGISTERS 65536
#define HOLD_MAX_REGISTERS 255 /* a thread's */
#define HOLD_SPARE_REGISTERS 24
unsigned sgp_policy_hold_values(const sg_plan *pl) {
  unsigned regs = HOLD_REGISTERS / pl->block_threads;
  regs = regs < HOLD_MAX_REGISTERS ? regs : HOLD_MAX_REGISTERS;
  return regs > HOLD_SPARE_REGISTERS ? regs - HOLD_SPARE_REGISTERS : 0;
}
int sgp_policy_hold_fits(const sg_plan *pl) {
  return pl->elems_per_thread <= sgp_policy_hold_values(pl);
}
unsigned sgp_policy_hold_blocks_per_sm(const sg_plan *pl) {
  unsigned by_regs = HOLD_REGISTERS / (pl->block_threads * (pl->elems_per_thread +
                                                             HOLD_SPARE_REGISTERS));
  unsigned per_sm = pl->blocks_per_sm && pl->blocks_per_sm < by_regs ? pl->blocks_per_sm : by_regs;
  return per_sm > 1 ? per_sm : 0;
}

/* Held exps chosen unasked: peeled 16-bit rows (odd N) staged one a block,
 * not split over a cluster, whose threads hold at most HOLD_AUTO_VALUES exps
 * (f16 and bf16 N = 16385-22527 at 256 threads), in templates whose writes use
 * the exps (softmax's division; log_softmax's writes do not, and would only
 * lose registers). A peeled row's second pass re-reads its staged row shifted
 * to its alignment, head and tail element by element; held, it does not.
 * Measured on an H200 (softgen-bench, session 25, tools/bench/RESULTS.md
 * "Held exps for odd 16-bit rows of 16K-22K"), held against re-read, N =
 * 17817, 19259, 22481 at M = 128-28166: f16 1.04-1.17 x (28166 x 17817 0.79
 * -> 0.92 of the copy), bf16 0.94-1.12 x (1.02-1.05 from M = 879; 0.94-0.99
 * at M = 324-481). Rows of full vectors gained less and lost some: 0.96-1.05
 * x at N = 16400-22528 (f16 481 x 22528 0.92 -> 0.82), and 4-byte vectors
 * lost at every M (16-bit N = 21378: 0.92 -> 0.54); threads of 96-112
 * values lost at M >= 1124 (f16 3986 x 27235 0.96 -> 0.74: 2 blocks a
 * multiprocessor), staged rows over clusters at every M (f16 6261 x 155768
 * 0.87 -> 0.72), f32 rows too (19259: 0.93 -> 0.89). */
#define HOLD_AUTO_VALUES 88
int sgp_policy_hold(const sgp_input *in, const sg_plan *pl) {
  return in->exps_reused && in->widest_elem == 2 && pl->peel && pl->cluster == 1 &&
         pl->rows_per_block == 1 && pl->elems_per_thread <= HOLD_AUTO_VALUES;
}

/* Peeled rows in registers: blocks a multiprocessor asked of the register
 * allocator so that PEELED_THREADS_PER_SM threads stay resident (64 registers
 * a thread). Their per-chunk lane masks and the element-by-element head and
 * tail took f16 rows from 61 registers (aligned N = 2048, no peel) to 127
 * (N = 1025 to 2048 peeled): half the blocks resident, 0.72 of the copy
 * against 0.99 on an H100 (tools/bench/RESULTS.md "A run-time N"). */
#define PEELED_THREADS_PER_SM 1024
/* Only up to PEELED_CAP_CHUNKS chunks a thread: more spill under the cap (f16
 * N = 1001, 8 chunks: 124 -> 64 registers and 188 bytes of spills, 0.86 -> 0.60;
 * N = 12289, 7 chunks: 0.81 -> 0.75; N = 2333, 4097, 9001: 0.80-0.88 ->
 * 0.89-0.97; f32 unchanged, under 64 registers; "A run-time N"). */
unsigned sgp_policy_peeled_blocks_per_sm(const sg_plan *pl) {
  unsigned per_sm = PEELED_THREADS_PER_SM / pl->block_threads;
  return pl->peel && !pl->stage && pl->row_tiles == 1 && pl->chunks <= PEELED_CAP_CHUNKS &&
                 per_sm > 1
             ? per_sm
             : 0;
}

/* ---- few rows: more entry points that split each row further ---- */

/* Rows of FEW_ROWS_BYTES or more (the bytes a row reads) get a few-rows variant:
 * the same kernel with each row split over more blocks, another entry point
 * of the code object that the launch takes for small M (sgrt_launch_geometry).
 * Why: M arrives at launch, and with few rows one row is one block or a cluster
 * of up to 8, so 1-8 of an H100's 132 multiprocessors work: M = 1-128 rows of N
 * = 16K-256K ran at 0.44 of the copy (kernel alone; 1 x 50257 f16 8.7 us
 * against the copy's 1.6 us, 64 x 128K f16 14.5 us against 7.9 us;
 * tools/bench/RESULTS.md, "The user sweep").
 *
 * The split: the largest portable cluster the row splits into (sgp_split_ok:
 * the last block holds the rest), one row a block of FEW_ROWS_THREADS. The
 * row's share in registers while a thread holds at most AUTO_ELEMS_PER_THREAD
 * values; else staged where the target stages the row (peeled rows are not);
 * else in registers with the threads doubled (up to the target's block) until
 * a thread holds at most 2 x that. Launched for M up to FEW_ROWS_BLOCKS / split
 * (the launch narrows it to the blocks the device keeps resident). Measured on
 * an H100 (softgen-bench, tools/bench/RESULTS.md "Seventh change: one split
 * up to M = 64"; first forced cluster x threads x staging over N = 32768-250880
 * f16 and 32768-128256 f32 at M = 1-128): clusters of 8 in registers at 256
 * threads were the fastest or within 3 % at M = 1-64 where the share holds 32
 * values a thread (f16 8 x 32768 6.94 -> 4.66 us; f32 16 x 65024 9.35 ->
 * 8.17), ahead of clusters of 16 staged alone too (f16 1 x 50304 5.14 ->
 * 4.72 us); 512 threads 3-8 % slower, staging those shares 5-12 %; longer
 * shares staged at 256 threads within 4 % of the best at M = 1-16 and the best
 * at 32-64 (f16 64 x 128256 20.55 -> 19.05 us); at M = 128 (1024 blocks, more
 * than stay resident) the plan's own split won (f16 128 x 32768 11.06 against
 * 12.46 us). Over the sweep's 172 shapes of N >= 8192 and M <= 128, against
 * the variant before (clusters of 16 alone for M <= 4): M = 5-16 1.11-1.17 x
 * faster (geomean), M = 17-64 1.06-1.08 x, M = 1-4 1.03-1.06 x.
 *
 * Where the split of 8 cannot hold its share in FEW_ROWS_THREADS threads'
 * registers (staged, or over AUTO_ELEMS_PER_THREAD values a thread: the
 * longest rows, peeled ones), a second variant comes first, for M up to
 * FEW_ROWS_BIG_BLOCKS / 16: FEW_ROWS_BIG_CLUSTER blocks a row, each alone on
 * its multiprocessor (sgp_policy_alone_smem: with several blocks a
 * multiprocessor the launch packs a few rows' clusters of 16 onto few
 * multiprocessors; not alone and up to M = 128 it measured no faster on an
 * H100, "Eleventh change"), in registers where a thread then holds at
 * most AUTO_ELEMS_PER_THREAD values in at most STAGE_MAX_THREADS threads, else
 * staged (the split of 16 staged: f32 N = 128256-256000 1.02-1.13 x faster
 * than the split of 8 at M = 1-4, "Seventh change"). A block's time grows with
 * its bytes (about 0.8 us for each further 8 KB read and written on an H100,
 * "Ninth change"), so the split of 16 halves it where the split of 8 had
 * staged: measured on an H100 against that split at M = 1 (softgen-bench,
 * "Ninth change"), f16 100352 5.48 -> 4.90 us, 128256 5.81 -> 5.09, f32 100352
 * 6.59 -> 5.38, 128256 6.33 -> 5.66, 256000 8.03 -> 7.87. At M = 8 (128 blocks)
 * the split of 8 stays (tools/bench/RESULTS.md "Third change": clusters of 16
 * need 16 multiprocessors of one GPC, which fewer than 8 at a time get).
 *
 * Not where constraints fixed the cluster or the rows (honoured as given), nor
 * for tiled rows or the inner layout, nor on targets without clusters (sm_80,
 * AMD: a grid-wide split is a later step). */
#define FEW_ROWS_BYTES (32 * 1024)
#define FEW_ROWS_THREADS 256
#define FEW_ROWS_BLOCKS 512
#define FEW_ROWS_BIG_CLUSTER 16
#define FEW_ROWS_BIG_BYTES (56 * 1024)
#define FEW_ROWS_BIG_ACCESSES 2
#define FEW_ROWS_BIG_BLOCKS 64
#define FLAT_FEW_BLOCKS 128
/* A flat plan of several rows a thread takes its plan of one row a thread for
 * M up to FLAT_ONE_ROW_BLOCKS of that plan's row blocks, while they all stay
 * resident (the launch's check binds first on the H100 and H200). */
#define FLAT_ONE_ROW_BLOCKS 4096
/* Packed rows (sgp_policy_pack) take the plan one row a vector for M up to
 * PACK_FEW_BLOCKS of their row blocks (the spread before it, where it
 * applies). Measured on an H100 (session 23, "Packed rows"): packed rows
 * alone at 4K-32K rows 0.78-0.92 of the copy against 0.92-0.97 for the plan
 * one row a vector; at 256-512 row blocks (262144 rows) 0.82-0.94 against
 * 0.84-0.97 (H200: bf16 N = 4 0.90 against 0.95, f32 N = 2 0.93 against
 * 0.95); from 1M rows (1024 row blocks or more) packed 0.89-0.97 against
 * 0.75-0.87. */
#define PACK_FEW_BLOCKS 512

/* The split of FEW_ROWS_BIG_CLUSTER blocks alone: in registers where a
 * thread holds at most AUTO_ELEMS_PER_THREAD values of its share in at most
 * STAGE_MAX_THREADS threads (the fewest, from FEW_ROWS_THREADS); else staged
 * where the target stages the row (peeled rows in registers), with a wave for
 * each FEW_ROWS_BIG_ACCESSES x wave vectors of its share. 0 where the row does
 * not split so or the target has no such cluster. */
static int few_rows_wide(const sgp_input *in, const sg_plan *pl, uint64_t vectors, int stage,
                         sgp_few *out) {
  const sgh_target *tg = pl->target;
  unsigned big = sgp_min_u(FEW_ROWS_BIG_CLUSTER, tg->max_cluster_wide);
  if (big <= tg->max_cluster || !sgp_split_ok(vectors, big) || in->c->waves_per_block[0])
    return 0;
  uint64_t share = sgp_split_share(pl, vectors, big);
  unsigned most = sgp_min_u(STAGE_MAX_THREADS, tg->max_block_threads);
  unsigned t = sgp_min_u(FEW_ROWS_THREADS, most);
  while ((share + t - 1) / t * pl->vec > AUTO_ELEMS_PER_THREAD && t * 2 <= most)
    t *= 2;
  *out = (sgp_few){.cluster = big, .alone = 1, .threads = t,
                   .max_rows = FEW_ROWS_BIG_BLOCKS / big};
  if ((share + t - 1) / t * pl->vec <= AUTO_ELEMS_PER_THREAD)
    return 1;
  if (!(stage || pl->peel))
    return 0;
  uint64_t per_thread = (uint64_t)FEW_ROWS_BIG_ACCESSES * pl->wave;
  unsigned waves = sgp_pow2_floor(share / per_thread ? share / per_thread : 1);
  out->staged = stage;
  out->threads = sgp_min_u(waves * pl->wave, most);
  return 1;
}

/* ---- few rows over the grid: a row split over blocks that are not a cluster ---- */

/* Grid-split variants (plan->grid_split): each row over `split` blocks of the
 * grid, no hardware cluster; the blocks of a row meet in global memory
 * (codegen/reduce.c, the grid stage), so every block of the launch must be
 * resident: the runtime launches them cooperatively, only where the device
 * keeps them all (sgrt_launch_geometry). Why: a cluster holds at most 16
 * blocks and the launch packs a few rows' clusters onto a few GPCs, and
 * targets without clusters (sm_80, AMD) had no few-rows path at all: a row
 * was one block.
 *
 * A ladder of variants, fewest rows first: GRID_LEVELS[i] serves M up to
 * max_rows with a split of at most `most` blocks, the largest power of two
 * that leaves each block GRID_SHARE_BYTES or more to read (a level whose split
 * is the previous one's widens that one instead), in registers, at most
 * FEW_ROWS_THREADS threads (fewer where the share has fewer vectors, more
 * where a thread would hold over AUTO_ELEMS_PER_THREAD values). On targets
 * with clusters only the first two levels, for rows of GRID_CLUSTER_ROW_BYTES
 * or more, and under a level's `cluster_bytes` the level is left out where
 * the cluster variants or the kernel serve its M instead: the first where a
 * split of 16 does (`big_rows`: the rows it serves), the second always (its
 * M past 4 then take the cluster variants; the variants are listed in
 * increasing max_rows, softgen/meta.h); a later level is left out with one
 * the kernel itself serves (it would take the kernel's M). On the others
 * every level for rows of FEW_ROWS_BYTES or more.
 *
 * Measured on an H100 (softgen-bench, kernel times in us, tools/bench/RESULTS.md
 * "Twelfth change: the grid split"; forced splits, then this ladder against the
 * cluster variants): at M = 1 splits of 32 blocks were the fastest or within
 * 3 % (f16 N = 256000: 64 blocks 5.41, 32 5.59, 16 5.89, clusters 6.50; f32
 * N = 151936: 128 blocks 6.09, 64 5.74, 32 5.43, clusters 6.05), and 128
 * blocks lost at M = 1-4; shares of 8 KB or more beat 4 KB ones at M >= 2.
 * The ladder: M = 1-4 of f16 N = 151936-256000 5.50-7.34 -> 5.19-6.91, f32 N =
 * 128256-256000 5.69-8.90 -> 5.47-8.35; M = 8-16 of f16 N = 151936-256000
 * 7.47-12.22 -> 7.10-11.14, f32 N = 128256-256000 8.15-18.38 -> 8.10-16.29
 * (the split of 16 in a cluster waits for whole GPCs). Rows under 288 KB
 * (f16 N <= 128256, f32 N <= 65536) gained nothing over the clusters at any
 * M there. The sm_80 code of the same rows (PTX on the H100), a row one block
 * before: M = 1-32 of f16 N = 32768-256000 6.3-61 -> 3.9-22.6, f32 6.9-83 ->
 * 4.5-35; M = 64 of the longest rows unchanged (their blocks of 1024 threads
 * are not all resident: the kernel runs).
 * Since the cluster exchange went through transaction barriers (session 30),
 * the clusters won back most of those rows: measured on an H200 (session 35,
 * softgen-bench, 2 rounds, the sweep's 54 shapes of rows of 288 KB or more at
 * M <= 16 (and N = 262144), the grid variants against none, tools/bench/
 * RESULTS.md "Few long rows: clusters against the grid split"): at M = 1-4
 * the clusters of 16 were 1.03-1.11 x faster for every 16-bit row (to 512
 * KB) and f32 rows to 608 KB, about even at f32 N = 201088 (804 KB;
 * 0.97-1.06), and 0.86-0.99 x from 1 MB (f32 N = 250880-262144); at M = 5-16
 * the clusters won at 304-326 KB (f16 N = 151936-152064 1.04-1.11 x, f32 8 x
 * 81504 1.12 x) and lost from about 400 KB (16-bit N = 201088-262144 at M =
 * 16 0.85-0.90 x, f32 N = 100277 0.95-0.96 x), but not where the kernel is
 * itself the split of 16 in registers (f32 N = 100352-152064 0.97-1.06 x).
 * Hence GRID_LEVELS' cluster_bytes and the rules with them above. */
#define GRID_SHARE_BYTES (8 * 1024)
#define GRID_CLUSTER_ROW_BYTES (288 * 1024)
static const struct {
  unsigned max_rows, most;
  uint64_t cluster_bytes; /* on cluster targets: under this, see above; 0: never there */
} GRID_LEVELS[] = {{4, 32, 768 * 1024}, {16, 16, 384 * 1024}, {64, 4, 0}};

static unsigned few_rows_grid(const sgp_input *in, const sg_plan *pl, uint64_t vectors,
                              unsigned big_rows, sgp_few *out) {
  const sgh_target *tg = pl->target;
  uint64_t bytes = (uint64_t)in->p->n * in->read_bytes;
  int clusters = sgh_has_clusters(tg, pl->arch);
  if (!tg->grid_split || bytes < (clusters ? GRID_CLUSTER_ROW_BYTES : FEW_ROWS_BYTES) ||
      in->c->waves_per_block[0] ||
      sgp_find_tile(in->c->workgroup, in->c->nworkgroup, in->t->dims[in->col_dim]))
    return 0;
  unsigned n = 0, levels = (unsigned)(sizeof GRID_LEVELS / sizeof GRID_LEVELS[0]);
  for (unsigned i = 0; i < levels && n < SGP_MAX_FEW; i++) {
    if (clusters && !GRID_LEVELS[i].cluster_bytes)
      break;
    if (clusters && bytes < GRID_LEVELS[i].cluster_bytes &&
        (i > 0 || big_rows >= GRID_LEVELS[i].max_rows)) {
      if (big_rows == UINT_MAX) /* the kernel serves these M: no later level takes them */
        break;
      continue;
    }
    unsigned split = 1;
    while (split * 2 <= GRID_LEVELS[i].most && bytes / (split * 2) >= GRID_SHARE_BYTES &&
           sgp_split_ok(vectors, split * 2))
      split *= 2;
    if (split < 2)
      break;
    if (n && out[n - 1].cluster == split) { /* the same split: it serves more rows */
      out[n - 1].max_rows = GRID_LEVELS[i].max_rows;
      continue;
    }
    uint64_t share = sgp_split_share(pl, vectors, split);
    unsigned t = sgp_min_u(FEW_ROWS_THREADS, tg->max_block_threads);
    while (t > pl->wave && t / 2 >= share)
      t /= 2; /* no thread without a vector */
    while ((share + t - 1) / t * pl->vec > AUTO_ELEMS_PER_THREAD && t * 2 <= tg->max_block_threads)
      t *= 2;
    out[n++] = (sgp_few){.cluster = split, .grid = 1, .threads = t,
                         .max_rows = GRID_LEVELS[i].max_rows};
  }
  return n;
}

/* ---- few row blocks: rows spread over more blocks ---- */

/* A plan packs rows into blocks and gives a thread several vectors of a row,
 * as measured fastest at large M; a launch of a few hundred rows or fewer
 * then runs on a few blocks (f16 68 x 960: 16 rows a block, 5 blocks, 8
 * vectors a thread), each multiprocessor working through its rows' loads and
 * values in turn. A variant for M up to SPREAD_BLOCKS of its blocks gives a
 * row SPREAD_ACCESSES vectors a thread (the plan's: 16 bytes, peeled where the
 * plan is; for a flat plan its plain variant's, 16 bytes where N allows
 * peeling, else the widest dividing N) in blocks of one row, or one wave of
 * rows where a row takes less, up to SPREAD_MAX_THREADS threads a row: as many
 * blocks as rows. Where the plan already has that shape, none. A flat plan
 * carries it before its plain variant, for at most half the plain variant's
 * rows.
 * Measured on an H100 (softgen-bench, the sweep's 172 shapes of N < 16384 at M
 * <= 8192 or N <= 512, f16 and f32, session 20, tools/bench/RESULTS.md "Few row
 * blocks: rows spread"), kernel times against the plan alone, spread between
 * two rounds of the plan alone median 1.5 %, p90 3.7 %: two vectors a thread,
 * up to 1024 blocks: f16 68 x 960 1.32 x faster, 14 x 3296 1.26 x, 3 x 2776
 * 1.23 x, 6 x 2048 1.21 x, 26 x 288 1.20 x, 47 x 2463 1.20 x, 2 x 7032 1.18 x,
 * f32 50 x 151 1.17 x, 68 x 960 1.17 x; one vector a thread was 1-5 % slower
 * than two at most shapes, and up to 128 blocks only lost the gains at M of
 * 129-1024 (f16 755 x 1936 1.08 x with 1024); rows that took blocks of 1024
 * threads lost 5-12 % (f16 N = 8784-10528 at M = 3-78, f32 N = 4982-6136),
 * hence SPREAD_MAX_THREADS.
 * Peeled rows (odd N) spread read elements instead, one a piece (no peeled head
 * and tail: a third of the instructions a thread at N = 151), SPREAD_ELEMS a
 * thread in a block of a power of two threads, at least a wave and at most
 * SPREAD_ELEMS_THREADS; where that gives a thread more than SPREAD_MAX_ELEMS
 * elements, the vectors as above. For M x N up to SPREAD_ELEMS_ROWS elements, the
 * vectors after it. Measured on an H200 (session 36, latency.cu: CUDA graphs, two
 * or three rounds, spread under 2 %; tools/bench/RESULTS.md "Few row blocks:
 * elements for odd rows"), one row a block against the spread of peeled vectors:
 * f16 and f32 N = 75-1035 at M = 1-300 x 0.73-0.94 of the time (f16 50 x 151 1.99
 * -> 1.48 us, the copy 1.07), N = 2179 and 4983 at M = 1-300 x 0.67-0.92 (128
 * threads; 256 at N = 4983 x 0.73-1.00); at M = 1000 N = 593-1035 x 0.73-0.89,
 * 2179 x 0.97-0.98 and 4983 x 0.98-1.18. Staged rows under FEW_ROWS_BYTES (peeled
 * ones, sgp_policy_stage: many rows a block) get it in registers. Not for clusters
 * or tiled rows, rows of FEW_ROWS_BYTES or more (their own few-rows variants),
 * prefetching plans that are not flat, or where constraints fix the shape. Returns
 * the variants (up to 2), in increasing max_rows. */
/* Constraints that fix a row's shape (a HardwareConstraint, rows or columns a
 * workgroup or wave, a split): the few-rows variants that reshape rows honour them
 * by leaving themselves out. */
static int few_shape_given(const sgp_input *in) {
  return in->c->has_hw || in->c->nworkgroup || in->c->nwave || in->c->split;
}

#define SPREAD_ACCESSES 2
#define SPREAD_BLOCKS 1024
#define SPREAD_MAX_THREADS 512
#define SPREAD_ELEMS_THREADS 128
#define SPREAD_ELEMS 32
#define SPREAD_MAX_ELEMS 40
#define SPREAD_ELEMS_ROWS (2u << 20)
static unsigned few_rows_spread(const sgp_input *in, const sg_plan *pl, sgp_few out[2]) {
  if (pl->layout != SG_LAYOUT_ROWS || pl->cluster != 1 ||
      (pl->prefetch && !pl->flat && pl->pack == 1) || pl->row_tiles > 1 || few_shape_given(in) ||
      (uint64_t)in->p->n * in->read_bytes >= FEW_ROWS_BYTES)
    return 0;
  /* a flat plan's vectors are those of its plain variant: 16 bytes, peeled, where
   * the row holds PEEL_MIN_VECTORS of them, else the widest dividing N */
  unsigned full = 16 / in->widest_elem, n = (unsigned)in->p->n, k = 0;
  int flat_peel = pl->target->peel_rows && n >= PEEL_MIN_VECTORS * full;
  uint64_t vectors = !pl->flat   ? sgp_row_vectors(pl)
                     : flat_peel ? (n + full - 1) / full + 1
                                 : n / sgp_policy_vec(16, in->widest_elem, n);
  unsigned most = sgp_min_u(SPREAD_MAX_THREADS, pl->target->max_block_threads);
  if (pl->flat ? flat_peel && sgp_policy_vec(16, in->widest_elem, n) == 1 : pl->peel) {
    unsigned t = pl->wave, few = sgp_min_u(SPREAD_ELEMS_THREADS, most);
    while (t * SPREAD_ELEMS < n && t * 2 <= few)
      t *= 2;
    if ((n + t - 1) / t <= SPREAD_MAX_ELEMS) {
      unsigned rows = SPREAD_ELEMS_ROWS / n;
      out[k++] = (sgp_few){.cluster = 1,
                           .threads = t,
                           .rows = 1,
                           .elements = 1,
                           .max_rows = rows < SPREAD_BLOCKS ? rows : SPREAD_BLOCKS};
      if (out[k - 1].max_rows == SPREAD_BLOCKS) /* no rows left to the vectors */
        return k;
    }
  }
  uint64_t want = (vectors + SPREAD_ACCESSES - 1) / SPREAD_ACCESSES;
  unsigned t = 1;
  while (t < want)
    t *= 2;
  if (t > most)
    return k;
  unsigned block = t > pl->wave ? t : pl->wave, rows = block / t;
  unsigned chunks = (unsigned)((vectors + t - 1) / t);
  if (!pl->flat && !pl->stage && rows >= pl->rows_per_block && chunks >= pl->chunks)
    return k;
  out[k++] =
      (sgp_few){.cluster = 1, .threads = block, .rows = rows, .max_rows = SPREAD_BLOCKS * rows};
  return k;
}

/* ---- rows of 8-32 KB at few rows: clusters of small blocks ---- */

/* A row of SMALL_CLUSTER_BYTES to FEW_ROWS_BYTES (the bytes it reads) that its
 * plan (or the spread) gives one block: for M up to FEW_ROWS_BLOCKS of its
 * blocks, a variant splits it over the largest portable cluster it splits into
 * (8), each block of one wave, or two where a thread would hold more than
 * SMALL_CLUSTER_VECTORS vectors of its share (at most SMALL_CLUSTER_THREADS):
 * a block's reduction is a wave's shuffles, its partials cross the cluster
 * (the transaction-barrier exchange). Measured on an H200 (session 36,
 * latency.cu: CUDA graphs, 2 rounds, spread under 2 %; tools/bench/RESULTS.md
 * "Rows of 8-32 KB at few rows: clusters of small blocks"), forced by
 * constraints against the default (the spread of 512 threads, or the plan) at
 * M = 1, 4, 16, 64: clusters of 8 blocks of 32 or 64 threads, f16 N = 8192 x
 * 0.82-0.91 of the time, 12288 x 0.90-0.99, 16000 x 0.79-0.99, 4096 x
 * 0.89-0.99, f32 N = 3296 x 0.87-0.93, 4096 x 0.84-0.92; clusters of 2 x
 * 0.90-1.14 (f16 N = 4096 over 2 of one wave 1.07-1.12), of 4 between; at 256 threads a block
 * (session 35, "Clusters for rows of 5-30 KB") the split lost. Rows of under 8
 * KB (f16 N = 2048) lost over 2 (1.07-1.10). Not for peeled rows (their spread
 * of elements), prefetching or tiled plans, plans split as far already, or where
 * constraints fix the shape. */
#define SMALL_CLUSTER_BYTES (8 * 1024)
#define SMALL_CLUSTER_VECTORS 4
#define SMALL_CLUSTER_THREADS 64
static unsigned few_rows_small_clusters(const sgp_input *in, const sg_plan *pl, uint64_t vectors,
                                        sgp_few *out) {
  const sgh_target *tg = pl->target;
  uint64_t bytes = (uint64_t)in->p->n * in->read_bytes;
  if (!sgh_has_clusters(tg, pl->arch) || pl->layout != SG_LAYOUT_ROWS || pl->peel || pl->prefetch ||
      pl->row_tiles > 1 || few_shape_given(in) || bytes < SMALL_CLUSTER_BYTES ||
      bytes >= FEW_ROWS_BYTES)
    return 0;
  unsigned split = split_cluster(vectors, tg->max_cluster);
  if (split <= pl->cluster)
    return 0;
  uint64_t share = sgp_split_share(pl, vectors, split);
  unsigned t = pl->wave;
  while (t * SMALL_CLUSTER_VECTORS < share && t * 2 <= SMALL_CLUSTER_THREADS)
    t *= 2;
  *out = (sgp_few){.cluster = split, .threads = t, .max_rows = FEW_ROWS_BLOCKS / split};
  return 1;
}

/* Caps spread variants (few_rows_spread) to half the rows of the plain variant
 * after them where they reach its most, dropping one left without rows of its own. */
static unsigned spread_cap(sgp_few *out, unsigned n, unsigned most) {
  unsigned k = 0;
  for (unsigned i = 0; i < n; i++) {
    if (out[i].max_rows >= most)
      out[i].max_rows = most / 2;
    if (!k || out[i].max_rows > out[k - 1].max_rows)
      out[k++] = out[i];
  }
  return k;
}

/* Staged rows copied ahead (sgp_policy_stage_ahead) run their plan without
 * the copies, one row a cluster, while the launch is under two waves of their
 * blocks: up to AHEAD_PLAIN_BLOCKS (3 blocks a multiprocessor x 128, about two
 * waves on an H100's or H200's 132). */
#define AHEAD_PLAIN_BLOCKS 768
static unsigned few_rows_list(const sgp_input *in, const sg_plan *pl, sgp_few out[SGP_MAX_FEW]);
static unsigned few_rows_clusters(const sgp_input *in, const sg_plan *pl, uint64_t vectors,
                                  sgp_few out[SGP_MAX_FEW]);
unsigned sgp_policy_few_rows(const sgp_input *in, const sg_plan *pl, sgp_few out[SGP_MAX_FEW]) {
  unsigned n = few_rows_list(in, pl, out);
  /* in increasing max_rows, a grid line before a cluster line of the same
   * (softgen/meta.h; the launcher takes the first that fits); the list gives
   * each kind in that order: a stable insertion merges them */
  for (unsigned i = 1; i < n; i++)
    for (unsigned j = i;
         j > 0 && (out[j].max_rows < out[j - 1].max_rows ||
                   (out[j].max_rows == out[j - 1].max_rows && out[j].grid && !out[j - 1].grid));
         j--) {
      sgp_few t = out[j];
      out[j] = out[j - 1], out[j - 1] = t;
    }
  unsigned most = AHEAD_PLAIN_BLOCKS / pl->cluster;
  if (pl->stage && pl->prefetch && pl->chosen.prefetch && pl->rows_per_block == 1 &&
      n < SGP_MAX_FEW && (!n || out[n - 1].max_rows < most))
    out[n++] = (sgp_few){
        .cluster = pl->cluster, .threads = pl->block_threads, .staged = 1, .max_rows = most};
  return n;
}

static unsigned few_rows_list(const sgp_input *in, const sg_plan *pl, sgp_few out[SGP_MAX_FEW]) {
  uint64_t vectors = sgp_row_vectors(pl); /* peeled rows: enough for any shift */
  if (pl->flat) { /* the plain plan for few row blocks (sgp_policy_flat) */
    unsigned n = few_rows_spread(in, pl, out);
    /* its blocks one row a thread, as before thread_rows */
    unsigned one = flat_one_row(in, pl, pl->threads_per_row).rows_per_block;
    unsigned most = FLAT_FEW_BLOCKS * one;
    n = spread_cap(out, n, most); /* the spread for the fewer rows, the plain plan after */
    out[n++] = (sgp_few){.plain = 1, .cluster = 1, .max_rows = most};
    if (pl->thread_rows > 1 && pl->chosen.thread_rows && !flat_short(in, pl))
      /* then a row a thread, one wave */
      out[n++] = (sgp_few){.one_row = 1, .cluster = 1, .max_rows = FLAT_ONE_ROW_BLOCKS * one};
    return n;
  }
  if (pl->pack > 1) { /* packed rows: the spread, then the plan one row a vector */
    if (pl->wave == 1 || !pl->chosen.pack) /* the host's, or a pack given: none */
      return 0;
    /* the spread where the plan one row a vector takes it (not prefetching) */
    unsigned n =
        (uint64_t)in->p->n * in->read_bytes > TINY_ROW_BYTES ? few_rows_spread(in, pl, out) : 0;
    unsigned most = PACK_FEW_BLOCKS * pl->rows_per_block;
    n = spread_cap(out, n, most);
    out[n++] = (sgp_few){.plain = 1, .cluster = 1, .max_rows = most};
    return n;
  }
  if (pl->layout != SG_LAYOUT_ROWS || !pl->chosen.rows)
    return 0;
  unsigned n = few_rows_small_clusters(in, pl, vectors, out);
  n += few_rows_spread(in, pl, out + n);
  if (pl->stage && pl->peel && (uint64_t)in->p->n * in->read_bytes < FEW_ROWS_BYTES) {
    /* peeled rows staged (sgp_policy_stage): the registers plan until the
     * staged one's row blocks fill the GPU */
    unsigned most = PEELED_FILL_BLOCKS * pl->rows_per_block;
    if (!n || out[n - 1].max_rows < most)
      out[n++] = (sgp_few){.plain = 1, .cluster = 1, .max_rows = most};
    return n;
  }
  if (n)
    return n;
  /* the cluster variants first: which M a split of 16 serves decides the grid
   * levels (few_rows_grid); the grid lines go first where SGP_MAX_FEW cuts the
   * list, and sgp_policy_few_rows then orders all by max_rows */
  sgp_few cl[SGP_MAX_FEW];
  unsigned ncl = few_rows_clusters(in, pl, vectors, cl);
  unsigned big_rows = pl->cluster >= FEW_ROWS_BIG_CLUSTER ? UINT_MAX : 0;
  for (unsigned i = 0; i < ncl; i++)
    if (cl[i].cluster >= FEW_ROWS_BIG_CLUSTER && cl[i].max_rows > big_rows)
      big_rows = cl[i].max_rows;
  n = few_rows_grid(in, pl, vectors, big_rows, out);
  for (unsigned i = 0; i < ncl && n < SGP_MAX_FEW; i++)
    out[n++] = cl[i];
  return n;
}

/* The cluster variants (increasing max_rows): launches that cannot take the
 * grid split (no workspace: the MLIR path; blocks not all resident) take
 * them, and so do the M of a grid level left out (GRID_LEVELS). */
static unsigned few_rows_clusters(const sgp_input *in, const sg_plan *pl, uint64_t vectors,
                                  sgp_few out[SGP_MAX_FEW]) {
  const sgh_target *tg = pl->target;
  unsigned n = 0;
  if (!sgh_has_clusters(tg, pl->arch) || !pl->chosen.cluster || pl->row_tiles > 1 ||
      (uint64_t)in->p->n * in->read_bytes < FEW_ROWS_BYTES)
    return 0;
  /* peeled rows' variants stay in registers: staged over the split of 8 they
   * measured 0.67-0.70 of copy at f16 8-16 x 100277 and 0.37 at 1-4 x 100277,
   * against 0.49 for clusters of 16 alone in registers (H200, "Eighth change") */
  int can_stage = sgh_can_stage(tg) && in->c->staging != 1 && !pl->peel &&
                  pl->vec * in->narrowest_read >= 4;
  sgp_few base = {.cluster = split_cluster(vectors, tg->max_cluster)};
  uint64_t share = sgp_split_share(pl, vectors, base.cluster);
  const unsigned *given = in->c->waves_per_block; /* honoured as in pl */
  unsigned threads = given[0] ? given[0] * given[1] * given[2] * pl->wave
                              : sgp_min_u(FEW_ROWS_THREADS, tg->max_block_threads);
  uint64_t values; /* f32 registers a thread holds of the share */
  while ((values = (share + threads - 1) / threads * pl->vec) > 2 * AUTO_ELEMS_PER_THREAD &&
         !(can_stage || given[0]) && threads * 2 <= tg->max_block_threads)
    threads *= 2; /* in registers: more threads */
  base.staged = values > AUTO_ELEMS_PER_THREAD && can_stage;
  base.threads = threads;
  base.max_rows = FEW_ROWS_BLOCKS / base.cluster;
  if (base.cluster < pl->cluster) {
    /* clusters of 16 already (staged, sgp_policy_stage, or in registers,
     * cluster_registers): none, but where the split of 16 in registers holds
     * shares of CLUSTER_REGISTERS_WIDE_BYTES or less (the narrow band:
     * 16-bit rows, session 37), the lone blocks of 16 that served their M up
     * to 4 before it */
    if (!pl->stage &&
        sgp_split_share(pl, vectors, pl->cluster) * pl->vec_bytes <= CLUSTER_REGISTERS_WIDE_BYTES &&
        few_rows_wide(in, pl, vectors, can_stage, &out[n]))
      n++;
    return n;
  }
  /* where the split of 8 cannot hold its share in 256 threads' registers,
   * the split of 16 for the fewest rows first */
  if (values > AUTO_ELEMS_PER_THREAD && few_rows_wide(in, pl, vectors, can_stage, &out[n]))
    n++;
  /* where the split of 8 stages its share, the split of 16 in registers
   * (registers_split) for up to FEW_ROWS_BLOCKS / 16 rows before it: measured
   * on an H200 against the staged split of 8 (session 32, the sweep's 40
   * kernels it changes at their M and M = 4-2000, 2 rounds, spread median
   * 0.9 %, p90 4 %; tools/bench/RESULTS.md "Rows in registers over 16"): f16
   * and bf16 N = 92696-163608 at M = 5-32 1.04-1.06 x (0.96-1.20), at M =
   * 33-64 (the staged split of 8 as before) 1.00 x; f32 N = 74976-94664, whose
   * four variants leave the staged split of 8 out (SGP_MAX_FEW: the kernel in
   * registers over 8 takes M = 33-64), 1.03-1.17 x at M = 24-32, 0.99-1.13 x
   * at M = 33-64 */
  unsigned wide = sgp_min_u(FEW_ROWS_BIG_CLUSTER, tg->max_cluster_wide);
  if (base.staged && !given[0] && !in->c->staging && wide > base.cluster && n < SGP_MAX_FEW &&
      registers_split(in, pl, vectors, wide, CLUSTER_REGISTERS_VALUES) == 1)
    out[n++] = (sgp_few){
        .cluster = wide, .threads = CLUSTER_BLOCK_THREADS, .max_rows = FEW_ROWS_BLOCKS / wide};
  if ((base.cluster > pl->cluster || pl->rows_per_block > 1 || base.staged != pl->stage) &&
      n < SGP_MAX_FEW)
    out[n++] = base;
  return n;
}

/* Dynamic shared memory that keeps a block alone on its multiprocessor: over
 * half of what a block may use (a multiprocessor holds about that limit + 1
 * KB: no second block fits beside it); 0 when its staged rows take that much
 * already (staged_alone). */
unsigned sgp_policy_alone_smem(const sg_plan *pl) {
  unsigned limit = pl->target->stage_smem ? pl->target->stage_smem(pl->arch) : 0;
  if (!limit || 2 * (uint64_t)pl->stage_bytes > limit)
    return 0;
  return limit / 2 + 1024;
}

/* ---- what codegen asks of the plan ---- */

/* A staged thread's copies land in up to STAGE_GROUPS groups in chunk order,
 * so that the first pass starts on chunk 0 while the rest are in flight (with
 * one block a multiprocessor nothing else overlaps the copies): +3-5 % over
 * one wait for all of them where a block is alone on its multiprocessor,
 * +0-3 % at three blocks (experiment 10, "wait for staged rows chunk by chunk"). */
#define STAGE_GROUPS 8
unsigned sgp_policy_stage_groups(const sg_plan *pl) { return pl->stage ? STAGE_GROUPS : 0; }

/* Head-by-head row order for repeated-row inputs over HEAD_ORDER_BYTES.
 * Measured on an H100 (50 MB of L2), f16, N = 1024 (experiment 9): 32 MB
 * masks 0.72 of copy plain, 0.97 head by head; 8 MB 0.87 plain, 0.94 head by
 * head; 2 MB 0.98 plain, 0.89 head by head (small masks stay in L2, and the
 * division costs short rows). */
#define HEAD_ORDER_BYTES (4u << 20)
uint64_t sgp_policy_head_order_bytes(const sg_plan *pl) {
  (void)pl;
  return HEAD_ORDER_BYTES;
}

/* ---- a run-time N ---- */

/* The ranges of N a run-time N is served by (the MLIR front end's dynamic
 * reduced dim: one kernel per range, sg_problem.n_min .. n, chosen by N at
 * launch): [1, 16], then (2^(k-1), 2^k] up to N_RANGES_REGISTERS = 2^18, rows
 * in registers (split over a cluster where the range's largest N is) planned
 * for the range's largest N; then one range of the longer rows to 2^31-1,
 * tiled with the tile count from N. A factor of 2 a range keeps a row's
 * threads at least half busy (the plan for 2N at N). Measured against the
 * exact-N kernels in tools/bench/RESULTS.md "A run-time N". */
#define N_RANGES_FIRST 16
#define N_RANGES_REGISTERS 262144
/* A range's kernel splits its rows over a cluster where the rows stay in
 * registers (its largest N up to N_RANGES_REGISTERS): a tiled row's cluster
 * would split the range's largest N, leaving the blocks past a shorter N idle
 * (N = 300007 of the range to 2^31-1 over 8 blocks: 0.04 of the copy). */
int sgp_policy_range_cluster(const sg_plan *pl) { return pl->n <= N_RANGES_REGISTERS; }
int sg_plan_n_ranges(int64_t max_n, int64_t ranges[][2], int cap) {
  int64_t top = max_n > 0 && max_n < 2147483647 ? max_n : 2147483647;
  int n = 0;
  for (int64_t lo = 1, hi = N_RANGES_FIRST; n < cap && lo <= top; lo = hi + 1, hi *= 2) {
    int last = hi > N_RANGES_REGISTERS;
    ranges[n][0] = lo;
    ranges[n][1] = last ? (int64_t)2147483647 : hi;
    if (ranges[n][1] > top) /* a bound: the last range ends there */
      ranges[n][1] = top;
    n++;
    if (last)
      break;
  }
  return n;
}
