/* unit.c - C unit tests of softgen's front end through its public API (and the
 * internal structs the parser and resolver fill): sg_template_parse,
 * sg_constraints_parse, sg_plan_resolve, sg_meta_format / sg_meta_parse /
 * sg_meta_find, sg_dtype_parse. Prints "ok - ..." or "not ok - ..." per check
 * and "N passed, N failed" last; exits 1 when any check failed.
 * Run by test/Unit/unit.test. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan.h"
#include "softgen/softgen.h"
#include "template/template.h"

static int passed, failed;

static void check(int cond, const char *what) {
  if (cond)
    passed++;
  else
    failed++;
  printf("%s - %s\n", cond ? "ok" : "not ok", what);
}

/* Checks status and the exact diagnostic text. */
static void check_diag(sg_status got, const sg_diag *d, sg_status want, const char *msg,
                       const char *what) {
  int ok = got == want && d->status == want && strcmp(d->message, msg) == 0;
  if (!ok)
    printf("# got %s \"%s\"\n# want %s \"%s\"\n", sg_status_name(got), d->message,
           sg_status_name(want), msg);
  check(ok, what);
}

static const char softmax_text[] =
    "# softmax\n"
    "kernel softmax(x: in[M, N] T, y: out[M, N] T)\n"
    "  a  = read(x)\n"
    "  m  = max(a, dim=N)\n"
    "  mb = broadcast(m, [M, N])\n"
    "  d  = sub(a, mb)\n"
    "  e  = exp(d)\n"
    "  s  = sum(e, dim=N)\n"
    "  sb = broadcast(s, [M, N])\n"
    "  r  = div(e, sb)\n"
    "  write(r, y)\n";

static sg_template *parse_ok(const char *text) {
  sg_template *t = NULL;
  sg_diag d;
  sg_diag_clear(&d);
  if (sg_template_parse("t.sgt", text, strlen(text), &t, &d) != SG_OK)
    printf("# unexpected parse error: %s\n", d.message);
  return t;
}

static void parse_error(const char *text, const char *msg, const char *what) {
  sg_template *t = (sg_template *)1;
  sg_diag d;
  sg_diag_clear(&d);
  sg_status st = sg_template_parse("t.sgt", text, strlen(text), &t, &d);
  check_diag(st, &d, SG_ERR_PARSE, msg, what);
  if (t != NULL) {
    check(0, "failed parse leaves *out NULL");
    if (t != (sg_template *)1)
      sg_template_destroy(t);
  }
}

static int shape_is(const sgt_shape *s, int n, int d0, int d1) {
  return s->ndims == n && (n < 1 || s->dims[0] == d0) && (n < 2 || s->dims[1] == d1);
}

static void test_template(void) {
  sg_template *t = parse_ok(softmax_text);
  check(t != NULL, "template: softmax parses");
  if (!t)
    return;
  check(strcmp(sg_template_name(t), "softmax") == 0, "template: name is softmax");
  check(t->ndims == 2 && strcmp(t->dims[0], "M") == 0 && strcmp(t->dims[1], "N") == 0,
        "template: dims are M, N in order of appearance");
  check(t->ntensors == 2 && !t->tensors[0].is_output && t->tensors[1].is_output &&
            t->tensors[0].elem.generic && t->tensors[1].elem.generic,
        "template: x in T, y out T");
  check(shape_is(&t->tensors[0].shape, 2, 0, 1), "template: x has shape [M, N]");
  check(t->nops == 9, "template: 9 ops");
  static const sgt_opcode codes[9] = {SGT_READ, SGT_MAX, SGT_BROADCAST, SGT_SUB, SGT_EXP,
                                      SGT_SUM,  SGT_BROADCAST, SGT_DIV, SGT_WRITE};
  int codes_ok = 1;
  for (int i = 0; i < 9 && i < t->nops; i++)
    codes_ok &= t->ops[i].code == codes[i];
  check(codes_ok, "template: opcodes read max broadcast sub exp sum broadcast div write");
  check(t->ops[0].tensor == 0 && t->ops[0].operands[0] == -1 && shape_is(&t->ops[0].shape, 2, 0, 1),
        "template: read(x) names tensor 0, no operands, shape [M, N]");
  check(t->ops[1].dim == 1 && t->ops[1].operands[0] == 0 && shape_is(&t->ops[1].shape, 1, 0, 0),
        "template: max(a, dim=N) reduces dim 1 of op 0 to shape [M]");
  check(t->ops[2].operands[0] == 1 && shape_is(&t->ops[2].shape, 2, 0, 1),
        "template: broadcast(m, [M, N]) has shape [M, N]");
  check(t->ops[3].operands[0] == 0 && t->ops[3].operands[1] == 2 && t->ops[3].dim == -1,
        "template: sub(a, mb) operands are ops 0 and 2");
  check(t->ops[8].tensor == 1 && t->ops[8].operands[0] == 7 && t->ops[8].shape.ndims == 0 &&
            t->ops[8].name[0] == '\0',
        "template: write(r, y) writes op 7 to tensor 1 and has no value");
  check(t->ops[4].line == 7 && t->ops[4].col == 8 && strcmp(t->ops[4].name, "e") == 0,
        "template: exp op records its name and line:col of the op");
  check(strcmp(sgt_opcode_name(SGT_NEG), "neg") == 0 && sgt_opcode_arity(SGT_ADD) == 2 &&
            sgt_opcode_is_reduction(SGT_SUM) && !sgt_opcode_is_reduction(SGT_EXP),
        "template: opcode table (name, arity, reduction)");

  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (f) {
    sg_template_print(t, f);
    fclose(f);
  }
  check(buf && strstr(buf, "  %4 = exp %3 : [M, N] f32   ; e\n") &&
            strstr(buf, "  %1 = max %0, dim=N : [M] f32   ; m\n") &&
            strstr(buf, "  write %7 -> y\n"),
        "template: sg_template_print prints the typed op list");
  free(buf);
  sg_template_destroy(t);

  t = parse_ok("kernel f(x: in[M, N] f32, y: out[M, N] bf16)\n a = read(x)\n write(a, y)\n");
  check(t && !t->tensors[0].elem.generic && t->tensors[0].elem.fixed == SG_DTYPE_F32 &&
            t->tensors[1].elem.fixed == SG_DTYPE_BF16,
        "template: fixed element types f32 and bf16");
  sg_template_destroy(t);

  parse_error("kernel k(x: in[M, N] T, y: out[M, N] T)\n  a = read(x)\n  b = exp(q)\n",
              "t.sgt:3:11: undefined value 'q'", "template error: undefined value");
  parse_error("kernel k(x: in[M, N] T, y: out[M, N] T)\n  a = read(x)\n  m = max(a, dim=N)\n"
              "  d = add(a, m)\n  write(d, y)\n",
              "t.sgt:4:7: add: shape mismatch: [M, N] and [M] (broadcast the smaller first)",
              "template error: shape mismatch");
  parse_error("kernel k(x: in[M, N] T, y: out[M, N] T)\n  a = read(x)\n",
              "t.sgt:1:25: output 'y' is never written", "template error: output never written");
  parse_error("kernel k(x: in[M, N] T, y: out[M, N] T)\n  a = read(x)\n  m = max(a, dim=N)\n"
              "  n = max(m, dim=N)\n  write(a, y)\n",
              "t.sgt:4:7: max over N: value 'm' of shape [M] has no dim N",
              "template error: reduction over a dim the value lacks");
  parse_error("kernel k(x: in[M, N, K, L, P] T)\n",
              "t.sgt:1:28: more than 4 dims", "template error: more than 4 dims");
  parse_error("", "t.sgt:1:1: expected 'kernel', found end of file",
              "template error: empty text");

  sg_diag d;
  t = (sg_template *)1;
  static const char nul[] = "kernel k(x: in[M, N] T)\0 junk";
  check_diag(sg_template_parse("t.sgt", nul, sizeof nul - 1, &t, &d), &d, SG_ERR_PARSE,
             "t.sgt: template contains a NUL byte", "template error: NUL byte (no line)");
  /* only len bytes are read: a cut-off text is truncated at len */
  check_diag(sg_template_parse("t.sgt", softmax_text, 30, &t, &d), &d, SG_ERR_PARSE,
             "t.sgt:2:21: expected '[', found end of file",
             "template error: len bounds the text");
  check(sg_template_parse("t.sgt", NULL, 0, &t, &d) == SG_ERR_INVALID_ARGUMENT,
        "template: NULL text is SG_ERR_INVALID_ARGUMENT");
  check(strcmp(sg_template_name(NULL), "") == 0, "template: sg_template_name(NULL) is \"\"");
  check(sg_template_load("/nonexistent/x.sgt", &t, &d) == SG_ERR_IO &&
            strstr(d.message, "/nonexistent/x.sgt: cannot open") == d.message,
        "template: sg_template_load of a missing file is SG_ERR_IO naming it");
}

static void test_constraints(void) {
  sg_constraints *c = NULL;
  sg_diag d;
  check(sg_constraints_create(&c, &d) == SG_OK && c, "constraints: create");
  if (!c)
    return;
  const char *text = "HardwareConstraint(threads_per_wave=32, waves_per_block=(4, 2),\n"
                     "                   vector_shapes={M: 1, N: 8})\n"
                     "WorkgroupConstraint(M, 2, 0)\nWaveConstraint(N, N)\n";
  sg_status st = sg_constraints_parse(c, "c.cons", text, strlen(text), &d);
  check(st == SG_OK && c->has_hw && c->threads_per_wave == 32 && c->waves_per_block[0] == 4 &&
            c->waves_per_block[1] == 2 && c->waves_per_block[2] == 1,
        "constraints: HardwareConstraint fields (a 2-tuple pads z with 1)");
  check(c->nvec == 2 && strcmp(c->vec[1].dim, "N") == 0 && c->vec[1].tile == 8 &&
            c->vec[1].loc.line == 2 && c->vec[1].loc.col == 41,
        "constraints: vector_shapes entries with their location");
  check(c->nworkgroup == 1 && strcmp(c->workgroup[0].dim, "M") == 0 && c->workgroup[0].tile == 2 &&
            c->workgroup[0].grid_axis == 0 && c->workgroup[0].loc.line == 3,
        "constraints: WorkgroupConstraint(M, 2, 0)");
  check(c->nwave == 1 && c->wave[0].tile == SGP_FULL, "constraints: WaveConstraint(N, N) is the full dim");

  const char *bad = "WaveConstraint(M, 1)\nWorkgroupConstraint(N, N) Oops(1)";
  st = sg_constraints_parse(c, "b.cons", bad, strlen(bad), &d);
  check_diag(st, &d, SG_ERR_PARSE,
             "b.cons:2:27: unknown constraint 'Oops' (expected HardwareConstraint, "
             "WorkgroupConstraint, WaveConstraint or PipelineConstraint)",
             "constraints error: unknown constraint");
  check(c->nwave == 1 && c->nworkgroup == 1, "constraints: a failed parse adds nothing");

  const char *again = "HardwareConstraint(threads_per_wave=32)";
  check_diag(sg_constraints_parse(c, "<-C 1>", again, strlen(again), &d), &d, SG_ERR_PARSE,
             "<-C 1>:1:1: HardwareConstraint given twice (first at c.cons:1:1)",
             "constraints error: HardwareConstraint given twice across calls");
  static const char nul[] = "WaveConstraint(M, 1)\0";
  check_diag(sg_constraints_parse(c, "n.cons", nul, sizeof nul - 1, &d), &d, SG_ERR_PARSE,
             "n.cons: constraints contain a NUL byte", "constraints error: NUL byte");
  check(sg_constraints_parse(NULL, "x", "", 0, &d) == SG_ERR_INVALID_ARGUMENT,
        "constraints: NULL set is SG_ERR_INVALID_ARGUMENT");
  sg_constraints_destroy(c);
}

/* Resolves softmax for the problem and constraints text (may be NULL). */
static sg_status resolve(const char *ctext, int64_t n, sg_dtype dt, const char *target,
                         const char *arch, sg_plan **out, sg_diag *d) {
  sg_template *t = parse_ok(softmax_text);
  sg_constraints *c = NULL;
  sg_constraints_create(&c, d);
  sg_status st = ctext ? sg_constraints_parse(c, "<c>", ctext, strlen(ctext), d) : SG_OK;
  sg_problem p = {.n = n, .dtype = dt, .target = target, .arch = arch, .layout = SG_LAYOUT_ROWS};
  if (!st)
    st = sg_plan_resolve(t, c, &p, out, d);
  sg_constraints_destroy(c);
  sg_template_destroy(t);
  return st;
}

static void test_plan(void) {
  sg_plan *pl = NULL;
  sg_diag d;
  sg_status st = resolve(NULL, 8192, SG_DTYPE_F16, NULL, NULL, &pl, &d);
  check(st == SG_OK && pl, "plan: f16 N=8192 resolves");
  if (pl) {
    check(pl->wave == 32 && pl->waves_per_block == 8 && pl->block_threads == 256 &&
              pl->rows_per_block == 1 && pl->threads_per_row == 256,
          "plan: f16 N=8192: 8 waves of 32, one row of 256 threads per block");
    check(pl->vec == 8 && pl->vec_bytes == 16 && pl->chunks == 4 && pl->elems_per_thread == 32 &&
              !pl->masked,
          "plan: f16 N=8192: 16-byte vectors, 4 chunks, no masked tail");
    check(pl->waves_per_row == 8 && pl->rows_per_wave == 1 && pl->shuffle_steps == 5 &&
              pl->nreductions == 2 && !pl->online && pl->passes == 2 && pl->smem_slots == 2 &&
              pl->smem_parity_floats == 32 && pl->smem_bytes == 256,
          "plan: f16 N=8192: max and sum in 2 passes of 8 partials (2 floats), 2 parities, 256 bytes");
    check(pl->chosen.wave && pl->chosen.waves && pl->chosen.rows && pl->chosen.vec,
          "plan: f16 N=8192: everything chosen automatically");
    check(strcmp(sg_plan_kernel_name(pl), "softgen_softmax_f16_n8192") == 0 &&
              strcmp(pl->arch, "sm_90") == 0,
          "plan: kernel name and default arch");
    sg_plan_destroy(pl);
  }
  pl = NULL;
  st = resolve(NULL, 128, SG_DTYPE_F16, NULL, NULL, &pl, &d);
  check(st == SG_OK && pl && pl->threads_per_row == 16 && pl->rows_per_block == 16 &&
            pl->rows_per_wave == 2 && pl->shuffle_steps == 4 && pl->chunks == 1 &&
            pl->smem_bytes == 0,
        "plan: f16 N=128: 16 threads a row of one access each, 16 rows a block, no shared memory");
  sg_plan_destroy(pl);
  pl = NULL;
  st = resolve(NULL, 1, SG_DTYPE_F16, NULL, NULL, &pl, &d);
  check(st == SG_OK && pl && pl->threads_per_row == 1 && pl->pack == 8 && pl->vec == 8 &&
            pl->vec_bytes == 16 && pl->chunks == 1 && pl->rows_per_block == 2048 &&
            pl->shuffle_steps == 0 && !pl->flat && pl->nfew == 1 && pl->few[0]->pack == 1 &&
            pl->few[0]->vec == 1 && pl->few[0]->rows_per_block == 256,
        "plan: N=1: 8 rows a 16-byte vector (packed), one a 2-byte vector for few rows");
  sg_plan_destroy(pl);
  pl = NULL;
  st = resolve("WaveConstraint(M, 1)", 1000, SG_DTYPE_F32, NULL, NULL, &pl, &d);
  check(st == SG_OK && pl && pl->threads_per_row == 32 && pl->vec == 4 && pl->chunks == 8 &&
            pl->masked && pl->rows_per_block == 8 && pl->chosen.vec,
        "plan: f32 N=1000 WaveConstraint(M, 1): a wave per row, masked tail");
  sg_plan_destroy(pl);
  pl = NULL;
  st = resolve(NULL, 8192, SG_DTYPE_BF16, "amdgpu", NULL, &pl, &d);
  check(st == SG_OK && pl && pl->wave == 64 && strcmp(pl->arch, "gfx942") == 0 &&
            pl->waves_per_row == 4 && pl->shuffle_steps == 6 &&
            strcmp(sg_plan_kernel_name(pl), "softgen_softmax_bf16_n8192") == 0,
        "plan: amdgpu bf16 N=8192: waves of 64 on gfx942");
  sg_plan_destroy(pl);
  pl = NULL;
  st = resolve("HardwareConstraint(threads_per_wave=32, waves_per_block=(4,1,1))\n"
               "WorkgroupConstraint(M, 2)\nWaveConstraint(N, 1024)",
               2048, SG_DTYPE_F16, NULL, NULL, &pl, &d);
  check(st == SG_OK && pl && pl->block_threads == 128 && pl->rows_per_block == 2 &&
            pl->threads_per_row == 64 && pl->waves_per_row == 2 && pl->smem_bytes == 128 &&
            !pl->chosen.wave && !pl->chosen.waves && !pl->chosen.rows,
        "plan: given constraints are honoured and not marked auto");
  sg_plan_destroy(pl);

  pl = (sg_plan *)1;
  check_diag(resolve(NULL, 0, SG_DTYPE_F16, NULL, NULL, &pl, &d), &d, SG_ERR_CONSTRAINT,
             "N = 0 is out of range: N must be 1 to 2^31-1", "plan error: N = 0");
  check(pl == NULL, "plan: a rejected plan leaves *out NULL");
  check_diag(resolve(NULL, 1ll << 31, SG_DTYPE_F16, NULL, NULL, &pl, &d), &d, SG_ERR_CONSTRAINT,
             "N = 2147483648 is out of range: N must be 1 to 2^31-1", "plan error: N = 2^31");
  check_diag(resolve(NULL, 64, SG_DTYPE_COUNT, NULL, NULL, &pl, &d), &d,
             SG_ERR_INVALID_ARGUMENT, "invalid dtype", "plan error: invalid dtype");
  check_diag(resolve(NULL, 64, SG_DTYPE_F16, "spirv", NULL, &pl, &d), &d,
             SG_ERR_INVALID_ARGUMENT, "unknown target 'spirv' (expected nvptx, amdgpu or host)",
             "plan error: unknown target");
  check_diag(resolve("HardwareConstraint(threads_per_wave=64)", 64, SG_DTYPE_F16, NULL, NULL,
                     &pl, &d),
             &d, SG_ERR_CONSTRAINT,
             "<c>:1:1: HardwareConstraint: threads_per_wave=64 is not a wave size of nvptx "
             "sm_90 (NVIDIA warps have 32 threads)",
             "plan error: wave size");
  check_diag(resolve("HardwareConstraint(vector_shapes={N: 16})", 8192, SG_DTYPE_F16, NULL, NULL,
                     &pl, &d),
             &d, SG_ERR_CONSTRAINT,
             "<c>:1:35: vector_shapes: N: 16 elements of 2 bytes is 32 bytes, wider than the "
             "16-byte limit of a vector access",
             "plan error: vector too wide");
  sg_problem p = {.n = 64, .dtype = SG_DTYPE_F16, .layout = SG_LAYOUT_ROWS};
  check(sg_plan_resolve(NULL, NULL, &p, &pl, &d) == SG_ERR_INVALID_ARGUMENT,
        "plan: NULL template is SG_ERR_INVALID_ARGUMENT");
  check(strcmp(sg_plan_kernel_name(NULL), "") == 0, "plan: sg_plan_kernel_name(NULL) is \"\"");
}

static void sample_meta(sg_meta *m) {
  memset(m, 0, sizeof *m);
  m->version = 1;
  strcpy(m->kernel, "softgen_softmax_f16_n8192");
  strcpy(m->template_name, "softmax");
  strcpy(m->target, "nvptx");
  strcpy(m->arch, "sm_90");
  m->n = 8192;
  m->block = 256;
  m->rows_per_block = 1;
  m->smem = 64;
  m->cluster = 1;
  m->vector_bytes = 16;
  m->ntensors = 2;
  strcpy(m->tensors[0].name, "x");
  m->tensors[0].dtype = SG_DTYPE_F16;
  strcpy(m->tensors[1].name, "y");
  m->tensors[1].is_output = 1;
  m->tensors[1].dtype = SG_DTYPE_BF16;
  m->nargs = 5;
  m->args[0] = (sg_meta_arg){SG_ARG_TENSOR, 0};
  m->args[1] = (sg_meta_arg){SG_ARG_TENSOR, 1};
  m->args[2] = (sg_meta_arg){SG_ARG_ROWS, -1};
  m->args[3] = (sg_meta_arg){SG_ARG_STRIDE, 0};
  m->args[4] = (sg_meta_arg){SG_ARG_STRIDE, 1};
}

static void meta_error(const char *text, const char *msg, const char *what) {
  sg_meta m;
  sg_diag d;
  check_diag(sg_meta_parse(text, strlen(text), &m, &d), &d, SG_ERR_PARSE, msg, what);
}

#define META_HEAD "softgen-meta 1\nkernel k\ntarget nvptx\narch sm_90\nn 64\nblock 64\nrows_per_block 1\n"

static void test_meta(void) {
  sg_meta m, back;
  sg_diag d;
  char text[2048];
  size_t len = 0;
  sample_meta(&m);
  sg_status st = sg_meta_format(&m, text, sizeof text, &len, &d);
  check(st == SG_OK && len == strlen(text) && strncmp(text, SG_META_MAGIC, strlen(SG_META_MAGIC)) == 0 &&
            strcmp(text + len - 4, "end\n") == 0,
        "meta: format writes magic ... end and its length");
  memset(&back, 0x5a, sizeof back);
  st = sg_meta_parse(text, len, &back, &d);
  int same = st == SG_OK && back.version == 1 && strcmp(back.kernel, m.kernel) == 0 &&
             strcmp(back.template_name, m.template_name) == 0 &&
             strcmp(back.target, m.target) == 0 && strcmp(back.arch, m.arch) == 0 &&
             back.n == m.n && back.block == m.block && back.rows_per_block == m.rows_per_block &&
             back.smem == m.smem && back.cluster == m.cluster &&
             back.vector_bytes == m.vector_bytes && back.ntensors == 2 && back.nargs == 5;
  for (int i = 0; same && i < 2; i++)
    same = strcmp(back.tensors[i].name, m.tensors[i].name) == 0 &&
           back.tensors[i].is_output == m.tensors[i].is_output &&
           back.tensors[i].dtype == m.tensors[i].dtype;
  for (int i = 0; same && i < 5; i++)
    same = back.args[i].kind == m.args[i].kind && back.args[i].tensor == m.args[i].tensor;
  check(same, "meta: parse(format(m)) == m");
  char again[2048];
  check(sg_meta_format(&back, again, sizeof again, NULL, &d) == SG_OK && strcmp(again, text) == 0,
        "meta: format(parse(text)) == text");
  check(sg_meta_format(&m, again, 40, NULL, &d) == SG_ERR_INVALID_ARGUMENT &&
            strcmp(d.message, "metadata does not fit in 40 bytes") == 0,
        "meta: format into a small buffer is SG_ERR_INVALID_ARGUMENT");
  check(sg_meta_parse(text, len, &back, &d) == SG_OK && sg_meta_tensor_index(&back, "y") == 1 &&
            sg_meta_tensor_index(&back, "z") == -1,
        "meta: sg_meta_tensor_index");

  meta_error("softgen-meta 2\nend\n", "metadata does not start with 'softgen-meta 1'",
             "meta error: wrong magic");
  meta_error(META_HEAD "tensor x in f16\narg tensor x\n", "metadata has no 'end' line (truncated?)",
             "meta error: no end line");
  meta_error(META_HEAD "tensor x in f16\narg tens", "metadata is truncated at line 9",
             "meta error: cut mid-line");
  meta_error(META_HEAD "colour blue\nend\n",
             "metadata line 8: unknown or malformed entry 'colour'", "meta error: unknown key");
  meta_error("softgen-meta 1\nkernel k\nn 0\nend\n", "metadata line 3: n must be 1 to 2^31-1",
             "meta error: n = 0");
  meta_error("softgen-meta 1\nblock 2000\nend\n", "metadata line 2: block must be 1 to 1024",
             "meta error: block too large");
  meta_error("softgen-meta 1\nvector_bytes 12\nend\n",
             "metadata line 2: vector_bytes must be a power of two",
             "meta error: vector_bytes not a power of two");
  meta_error(META_HEAD "tensor x in f64\nend\n", "metadata line 8: unknown dtype 'f64'",
             "meta error: unknown dtype");
  meta_error(META_HEAD "tensor x in f16\narg tensor q\nend\n",
             "metadata line 9: arg names undeclared tensor 'q'", "meta error: undeclared tensor");
  meta_error(META_HEAD "tensor x in f16\ntensor y out f16\narg tensor x\nend\n",
             "metadata tensor 'y' is never passed as an arg", "meta error: tensor never passed");
  meta_error("softgen-meta 1\nkernel k\ntensor x in f16\narg tensor x\nend\n",
             "metadata lacks one of kernel, target, arch, n, block, rows_per_block",
             "meta error: required field missing");
  meta_error(META_HEAD "a b c d e f\nend\n", "metadata line 8 has too many words",
             "meta error: too many words");
  meta_error("", "metadata does not start with 'softgen-meta 1'", "meta error: empty text");

  /* scalars and inputs whose rows repeat */
  sample_meta(&m);
  m.nscalars = 2;
  strcpy(m.scalars[0].name, "scale");
  strcpy(m.scalars[1].name, "L");
  m.scalars[1].is_i64 = 1;
  m.args[m.nargs++] = (sg_meta_arg){SG_ARG_ROWS, 0};
  m.args[m.nargs++] = (sg_meta_arg){SG_ARG_SCALAR, 0};
  m.args[m.nargs++] = (sg_meta_arg){SG_ARG_SCALAR, 1};
  st = sg_meta_format(&m, text, sizeof text, &len, &d);
  check(st == SG_OK && strstr(text, "scalar scale f32\nscalar L i64\n") &&
            strstr(text, "arg rows x\narg scalar scale\narg scalar L\nend\n"),
        "meta: scalars and repeated rows are formatted");
  st = sg_meta_parse(text, len, &back, &d);
  check(st == SG_OK && back.nscalars == 2 && back.scalars[1].is_i64 && !back.scalars[0].is_i64 &&
            back.nargs == 8 && back.args[5].kind == SG_ARG_ROWS && back.args[5].tensor == 0 &&
            back.args[7].kind == SG_ARG_SCALAR && back.args[7].tensor == 1 &&
            sg_meta_scalar_index(&back, "L") == 1 && sg_meta_tensor_align(&back, 0) == 16,
        "meta: scalars and repeated rows parse back");
  meta_error(META_HEAD "tensor x in f16\narg tensor x\nscalar s f64\nend\n",
             "metadata line 10: scalar type must be 'f32' or 'i64'", "meta error: scalar type");
  meta_error(META_HEAD "tensor x in f16\narg tensor x\narg scalar s\nend\n",
             "metadata line 10: arg names undeclared scalar 's'", "meta error: undeclared scalar");
  meta_error(META_HEAD "tensor x in f16\narg tensor x\nscalar s f32\nend\n",
             "metadata scalar 's' is passed 0 times (once expected)", "meta error: scalar not passed");
  meta_error(META_HEAD "tensor y out f16\narg tensor y\narg rows y\nend\n",
             "metadata line 10: 'arg rows y': only an input's rows may repeat",
             "meta error: an output's rows repeat");
  meta_error(META_HEAD "tensor x in f16\nscalar s f32\nscalar s i64\nend\n",
             "metadata line 10: scalar 's' declared twice", "meta error: scalar twice");

  /* sg_meta_find: raw text inside other bytes, and PTX's byte-list initializer */
  char blob[4096];
  memset(blob, 0x7f, sizeof blob);
  memcpy(blob + 1000, text, len + 1);
  check(sg_meta_find(blob, sizeof blob, &back, &d) == SG_OK && back.n == 8192,
        "meta: sg_meta_find in binary bytes");
  char ptx[8192];
  int n = snprintf(ptx, sizeof ptx, ".global .align 1 .b8 softgen_meta[%zu] = {", len + 1);
  for (size_t i = 0; i <= len; i++)
    n += snprintf(ptx + n, sizeof ptx - (size_t)n, "%s%d", i ? ", " : "", (unsigned char)text[i]);
  n += snprintf(ptx + n, sizeof ptx - (size_t)n, "};\n");
  check(sg_meta_find(ptx, (size_t)n, &back, &d) == SG_OK && strcmp(back.kernel, m.kernel) == 0,
        "meta: sg_meta_find in a PTX byte list");
  check(sg_meta_find("no meta here", 12, &back, &d) == SG_ERR_PARSE &&
            strcmp(d.message, "no softgen metadata ('softgen_meta') in this code object") == 0,
        "meta: sg_meta_find without metadata");
}

/* The inner layout's metadata: "layout inner", "arg inner", "arg nstride T". */
static void test_meta_layout(void) {
  sg_meta m, back;
  sg_diag d;
  char text[2048], again[2048];
  size_t len = 0;
  sample_meta(&m);
  m.layout = SG_LAYOUT_INNER;
  m.args[m.nargs++] = (sg_meta_arg){SG_ARG_INNER, -1};
  m.args[m.nargs++] = (sg_meta_arg){SG_ARG_NSTRIDE, 1};
  m.args[m.nargs++] = (sg_meta_arg){SG_ARG_NSTRIDE, 0};
  sg_status st = sg_meta_format(&m, text, sizeof text, &len, &d);
  check(st == SG_OK && strstr(text, "layout inner\n") &&
            strstr(text, "arg inner\narg nstride y\narg nstride x\nend\n"),
        "meta layout: format writes the layout and the inner args");
  st = sg_meta_parse(text, len, &back, &d);
  check(st == SG_OK && back.layout == SG_LAYOUT_INNER && back.nargs == 8 &&
            back.args[5].kind == SG_ARG_INNER && back.args[5].tensor == -1 &&
            back.args[6].kind == SG_ARG_NSTRIDE && back.args[6].tensor == 1 &&
            back.args[7].kind == SG_ARG_NSTRIDE && back.args[7].tensor == 0,
        "meta layout: parse(format(m)) keeps layout and args");
  check(sg_meta_format(&back, again, sizeof again, NULL, &d) == SG_OK && strcmp(again, text) == 0,
        "meta layout: format(parse(text)) == text");
  sample_meta(&m);
  check(sg_meta_format(&m, text, sizeof text, &len, &d) == SG_OK && !strstr(text, "layout") &&
            sg_meta_parse(text, len, &back, &d) == SG_OK && back.layout == SG_LAYOUT_ROWS,
        "meta layout: rows is the default, not written");
  m.args[0].kind = (sg_arg_kind)9;
  check(sg_meta_format(&m, text, sizeof text, &len, &d) == SG_ERR_INVALID_ARGUMENT,
        "meta layout: format refuses an invalid arg kind");
  sg_layout l = SG_LAYOUT_ROWS;
  check(sg_layout_parse("inner", &l) == 0 && l == SG_LAYOUT_INNER &&
            sg_layout_parse("columns", &l) == -1 && l == SG_LAYOUT_INNER &&
            strcmp(sg_layout_name(SG_LAYOUT_ROWS), "rows") == 0 &&
            strcmp(sg_layout_name(SG_LAYOUT_COUNT), "?") == 0,
        "meta layout: names");
#define INNER_HEAD META_HEAD "tensor x in f16\narg tensor x\n"
  meta_error(META_HEAD "layout columns\nend\n", "metadata line 8: layout must be 'rows' or 'inner'",
             "meta layout error: unknown layout");
  meta_error(INNER_HEAD "arg inner\nend\n", "metadata 'arg inner' needs 'layout inner'",
             "meta layout error: arg inner in the rows layout");
  meta_error(INNER_HEAD "arg nstride x\nend\n", "metadata 'arg nstride' needs 'layout inner'",
             "meta layout error: arg nstride in the rows layout");
  meta_error(INNER_HEAD "layout inner\narg nstride x\nend\n",
             "metadata of layout inner needs one 'arg inner', got 0",
             "meta layout error: no arg inner");
  meta_error(INNER_HEAD "layout inner\narg inner\narg inner\narg nstride x\nend\n",
             "metadata of layout inner needs one 'arg inner', got 2",
             "meta layout error: arg inner twice");
  meta_error(INNER_HEAD "layout inner\narg inner\nend\n",
             "metadata of layout inner needs one 'arg nstride x', got 0",
             "meta layout error: no arg nstride");
  meta_error(INNER_HEAD "layout inner\narg inner\narg nstride q\nend\n",
             "metadata line 12: arg names undeclared tensor 'q'",
             "meta layout error: arg nstride of an undeclared tensor");
  meta_error(INNER_HEAD "arg inner x\nend\n",
             "metadata line 10: arg must be 'rows', 'rows NAME', 'inner', 'cols', "
             "'tensor NAME', 'stride NAME', 'nstride NAME' or 'scalar NAME'",
             "meta layout error: arg inner with a tensor");
#undef INNER_HEAD
}

/* A range of N: "n_min K" and "arg cols", both or neither. */
static void test_meta_range(void) {
  sg_meta m, back;
  sg_diag d;
  char text[2048], again[2048];
  size_t len = 0;
  sample_meta(&m);
  m.n_min = 33;
  m.args[m.nargs++] = (sg_meta_arg){SG_ARG_COLS, -1};
  sg_status st = sg_meta_format(&m, text, sizeof text, &len, &d);
  check(st == SG_OK && strstr(text, "\nn 8192\nn_min 33\n") && strstr(text, "arg cols\nend\n"),
        "meta range: format writes n_min and arg cols");
  st = sg_meta_parse(text, len, &back, &d);
  check(st == SG_OK && back.n == 8192 && back.n_min == 33 && back.nargs == 6 &&
            back.args[5].kind == SG_ARG_COLS && back.args[5].tensor == -1,
        "meta range: parse(format(m)) keeps the range and arg cols");
  check(sg_meta_format(&back, again, sizeof again, NULL, &d) == SG_OK && strcmp(again, text) == 0,
        "meta range: format(parse(text)) == text");
  sample_meta(&m);
  check(sg_meta_format(&m, text, sizeof text, &len, &d) == SG_OK && !strstr(text, "n_min") &&
            sg_meta_parse(text, len, &back, &d) == SG_OK && back.n_min == back.n,
        "meta range: without the line n_min is n");
#define RANGE_HEAD META_HEAD "tensor x in f16\narg tensor x\n"
  meta_error(RANGE_HEAD "n_min 65\narg cols\nend\n", "metadata n_min 65 is over n 64",
             "meta range error: n_min over n");
  meta_error(RANGE_HEAD "n_min 0\nend\n", "metadata line 10: n_min must be 1 to 2^31-1",
             "meta range error: n_min 0");
  meta_error(RANGE_HEAD "n_min 8\nend\n",
             "metadata passes 'arg cols' 0 times: once with an n_min under n (a range of N), "
             "else never", "meta range error: a range without arg cols");
  meta_error(RANGE_HEAD "arg cols\nend\n",
             "metadata passes 'arg cols' 1 times: once with an n_min under n (a range of N), "
             "else never", "meta range error: arg cols without a range");
  meta_error(RANGE_HEAD "n_min 8\narg cols\narg cols\nend\n",
             "metadata passes 'arg cols' 2 times: once with an n_min under n (a range of N), "
             "else never", "meta range error: arg cols twice");
#undef RANGE_HEAD
}

/* The few-rows entry points: lines "variant few kernel NAME block B rows_per_block
 * R smem S cluster C dsmem D max_rows K" in increasing K, optional; objects
 * without them parse as before. */
static void test_meta_variant(void) {
  sg_meta m, back;
  sg_diag d;
  char text[2048], again[2048];
  size_t len = 0;
  sample_meta(&m);
  check(sg_meta_format(&m, text, sizeof text, &len, &d) == SG_OK && !strstr(text, "variant") &&
            sg_meta_parse(text, len, &back, &d) == SG_OK && back.nvariants == 0,
        "meta variant: none unless declared (an object without one parses as before)");
  m.nvariants = 2;
  m.variants[0] =
      (sg_meta_variant){"softgen_softmax_f16_n8192_few4", 256, 1, 384, 16, 117248, 4, 0, 0};
  m.variants[1] = (sg_meta_variant){"softgen_softmax_f16_n8192_few", 32, 1, 160, 8, 0, 64, 0, 0};
  sg_status st = sg_meta_format(&m, text, sizeof text, &len, &d);
  check(st == SG_OK &&
            strstr(text, "\nvariant few kernel softgen_softmax_f16_n8192_few4 block 256 "
                         "rows_per_block 1 smem 384 cluster 16 dsmem 117248 max_rows 4\n"
                         "variant few kernel softgen_softmax_f16_n8192_few block 32 "
                         "rows_per_block 1 smem 160 cluster 8 dsmem 0 max_rows 64\n"),
        "meta variant: format writes one line a variant, in order");
  memset(&back, 0x5a, sizeof back);
  st = sg_meta_parse(text, len, &back, &d);
  check(st == SG_OK && back.nvariants == 2 &&
            strcmp(back.variants[0].kernel, m.variants[0].kernel) == 0 &&
            back.variants[0].block == 256 && back.variants[0].smem == 384 &&
            back.variants[0].cluster == 16 && back.variants[0].dsmem == 117248 &&
            back.variants[0].max_rows == 4 &&
            strcmp(back.variants[1].kernel, m.variants[1].kernel) == 0 &&
            back.variants[1].block == 32 && back.variants[1].rows_per_block == 1 &&
            back.variants[1].smem == 160 && back.variants[1].cluster == 8 &&
            back.variants[1].dsmem == 0 && back.variants[1].max_rows == 64 &&
            strcmp(back.kernel, m.kernel) == 0 && back.cluster == 1,
        "meta variant: parse(format(m)) keeps the variants, in order, and the first kernel");
  check(sg_meta_format(&back, again, sizeof again, NULL, &d) == SG_OK && strcmp(again, text) == 0,
        "meta variant: format(parse(text)) == text");
#define VHEAD META_HEAD "tensor x in f16\narg tensor x\n"
#define VLINE(rest) "variant few kernel k_few block 32 rows_per_block 1 smem 0 cluster 16 " rest
#define VLINE2(rest) "variant few kernel k_few2 block 32 rows_per_block 1 smem 0 cluster 8 " rest
  st = sg_meta_parse(VHEAD VLINE("dsmem 0 max_rows 2147483647\n") "end\n",
                     strlen(VHEAD VLINE("dsmem 0 max_rows 2147483647\n") "end\n"), &back, &d);
  check(st == SG_OK && back.nvariants == 1 && back.variants[0].max_rows == 2147483647 &&
            back.variants[0].dsmem == 0,
        "meta variant: max_rows up to 2^31-1, dsmem 0");
  meta_error(VHEAD "variant few kernel k_few block 32\nend\n",
             "metadata line 10: a variant must read 'variant few kernel NAME block B "
             "rows_per_block R smem S cluster C dsmem D max_rows K'",
             "meta variant error: too few words");
  meta_error(VHEAD VLINE("dsmem 0 max_rows 8 extra\n") "end\n",
             "metadata line 10 has too many words", "meta variant error: a word too many");
  meta_error(VHEAD "variant few kernel k_few block 32 rows_per_block 1 smem 0 cluster 16 dsmem 0 "
                   "max_rows\nend\n",
             "metadata line 10: a variant must read 'variant few kernel NAME block B "
             "rows_per_block R smem S cluster C dsmem D max_rows K'",
             "meta variant error: a word too few");
  meta_error(VHEAD "variant many kernel k_few block 32 rows_per_block 1 smem 0 cluster 16 dsmem "
                   "0 max_rows 8\nend\n",
             "metadata line 10: unknown variant 'many' (the kinds of variant are 'few' and "
             "'grid')",
             "meta variant error: unknown variant name");
  meta_error(VHEAD VLINE("max_rows 8 dsmem 0\n") "end\n",
             "metadata line 10: variant few: 'dsmem' expected where 'max_rows' is",
             "meta variant error: keys out of order");
  meta_error(VHEAD VLINE("dsmem 0 max_rows 0\n") "end\n",
             "metadata line 10: variant few: max_rows must be 1 to 2147483647",
             "meta variant error: max_rows 0");
  meta_error(VHEAD VLINE("dsmem 0 max_rows 2147483648\n") "end\n",
             "metadata line 10: variant few: max_rows must be 1 to 2147483647",
             "meta variant error: max_rows over 2^31-1");
  meta_error(VHEAD VLINE("dsmem -1 max_rows 8\n") "end\n",
             "metadata line 10: variant few: dsmem must be 0 to 16777216",
             "meta variant error: negative dsmem");
  meta_error(VHEAD "variant few kernel k_few block 0 rows_per_block 1 smem 0 cluster 16 dsmem 0 "
                   "max_rows 8\nend\n",
             "metadata line 10: variant few: block must be 1 to 1024",
             "meta variant error: block 0");
  meta_error(VHEAD "variant few kernel k_few block 32 rows_per_block 1 smem 0 cluster 2000 dsmem "
                   "0 max_rows 8\nend\n",
             "metadata line 10: variant few: cluster must be 1 to 1024",
             "meta variant error: cluster too large");
  meta_error(VHEAD VLINE("dsmem 0 max_rows 4\n") VLINE2("dsmem 0 max_rows 4\n") "end\n",
             "metadata line 11: variant few: max_rows 4 after 4 (the lines of a kind come in "
             "increasing max_rows)",
             "meta variant error: max_rows not increasing");
  meta_error(VHEAD VLINE("dsmem 0 max_rows 4\n") VLINE("dsmem 0 max_rows 8\n") "end\n",
             "metadata variant few 'k_few' declared twice", "meta variant error: twice");
  meta_error(VHEAD VLINE("dsmem 0 max_rows 1\n") VLINE2("dsmem 0 max_rows 2\n")
                 VLINE2("dsmem 0 max_rows 3\n") VLINE2("dsmem 0 max_rows 4\n")
                     VLINE2("dsmem 0 max_rows 5\n") "end\n",
             "metadata line 14: more than 4 variants", "meta variant error: too many");
  meta_error(VHEAD "variant few kernel k block 32 rows_per_block 1 smem 0 cluster 16 dsmem 0 "
                   "max_rows 8\nend\n",
             "metadata variant few names the kernel 'k' itself",
             "meta variant error: the variant is the kernel itself");
#undef VLINE2
#undef VLINE
#undef VHEAD
}

/* "variant grid" lines (grid-split variants): split and workspace, the
 * trailing fields; rows_per_block 1, split a power of two from 2 to 1024,
 * workspace 1 to 2^31; each kind's lines in increasing max_rows, the kinds in
 * any order. */
static void test_meta_variant_grid(void) {
  sg_meta m, back;
  sg_diag d;
  char text[2048], again[2048];
  size_t len = 0;
  sample_meta(&m);
  m.nvariants = 2;
  /* a few line, then a grid line for more rows */
  m.variants[0] = (sg_meta_variant){"softgen_softmax_f16_n8192_few", 256, 1, 384, 8, 0, 4, 0, 0};
  m.variants[1] = (sg_meta_variant){.kernel = "softgen_softmax_f16_n8192_grid",
                                    .block = 512,
                                    .rows_per_block = 1,
                                    .smem = 160,
                                    .cluster = 1,
                                    .dsmem = 0,
                                    .max_rows = 64,
                                    .split = 4,
                                    .workspace = 2048};
  sg_status st = sg_meta_format(&m, text, sizeof text, &len, &d);
  check(st == SG_OK &&
            strstr(text, "\nvariant few kernel softgen_softmax_f16_n8192_few block 256 "
                         "rows_per_block 1 smem 384 cluster 8 dsmem 0 max_rows 4\n"
                         "variant grid kernel softgen_softmax_f16_n8192_grid block 512 "
                         "rows_per_block 1 smem 160 split 4 dsmem 0 max_rows 64 workspace "
                         "2048\n"),
        "meta variant grid: format writes 'variant grid ... split G ... workspace W'");
  memset(&back, 0x5a, sizeof back);
  st = sg_meta_parse(text, len, &back, &d);
  check(st == SG_OK && back.nvariants == 2 && back.variants[0].split == 0 &&
            back.variants[0].workspace == 0 && back.variants[0].cluster == 8 &&
            strcmp(back.variants[1].kernel, "softgen_softmax_f16_n8192_grid") == 0 &&
            back.variants[1].block == 512 && back.variants[1].rows_per_block == 1 &&
            back.variants[1].smem == 160 && back.variants[1].cluster == 1 &&
            back.variants[1].split == 4 && back.variants[1].dsmem == 0 &&
            back.variants[1].max_rows == 64 && back.variants[1].workspace == 2048,
        "meta variant grid: parse(format(m)) keeps split and workspace, cluster 1, and the few "
        "variant's 0s (a grid line after a few line of fewer rows)");
  check(sg_meta_format(&back, again, sizeof again, NULL, &d) == SG_OK && strcmp(again, text) == 0,
        "meta variant grid: format(parse(text)) == text");
  /* a 127-byte name with every number at its most: the longest line, 256 bytes */
  char name[128], line[512], full[1024];
  memset(name, 'k', 127);
  name[127] = '\0';
  snprintf(line, sizeof line, "variant grid kernel %s block 1024 rows_per_block 1 smem 16777216 "
           "split 1024 dsmem 16777216 max_rows 2147483647 workspace 2147483648\n", name);
  snprintf(full, sizeof full, "%s%s%s%s",
           META_HEAD, "tensor x in f16\narg tensor x\n", line, "end\n");
  st = sg_meta_parse(full, strlen(full), &back, &d);
  check(strlen(line) == 257 && st == SG_OK && back.nvariants == 1 &&
            back.variants[0].split == 1024 && back.variants[0].workspace == 2147483648u &&
            back.variants[0].max_rows == 2147483647 && strcmp(back.variants[0].kernel, name) == 0,
        "meta variant grid: the longest line parses (split 1024, workspace 2^31)");
  check(sg_meta_format(&back, again, sizeof again, &len, &d) == SG_OK && strstr(again, line),
        "meta variant grid: the longest line formats back");
#define VHEAD META_HEAD "tensor x in f16\narg tensor x\n"
#define GLINE(rpb, split, rest)                                                                  \
  "variant grid kernel k_grid block 256 rows_per_block " rpb " smem 0 split " split " dsmem 0 " rest
  meta_error(VHEAD "variant grid kernel k_grid block 256 rows_per_block 1 smem 0 cluster 4 dsmem 0 "
                   "max_rows 8\nend\n",
             "metadata line 10: a variant must read 'variant grid kernel NAME block B "
             "rows_per_block 1 smem S split G dsmem D max_rows K workspace W'",
             "meta variant grid error: a few line's words (cluster, no workspace)");
  meta_error(VHEAD GLINE("1", "4", "max_rows 8 workspace 64 extra\n") "end\n",
             "metadata line 10 has too many words", "meta variant grid error: a word too many");
  meta_error(VHEAD GLINE("1", "4", "workspace 64 max_rows 8\n") "end\n",
             "metadata line 10: variant grid: 'max_rows' expected where 'workspace' is",
             "meta variant grid error: keys out of order");
  meta_error(VHEAD GLINE("2", "4", "max_rows 8 workspace 64\n") "end\n",
             "metadata line 10: variant grid: rows_per_block must be 1, got 2",
             "meta variant grid error: rows_per_block 2");
  meta_error(VHEAD GLINE("1", "1", "max_rows 8 workspace 64\n") "end\n",
             "metadata line 10: variant grid: split must be a power of two from 2 to 1024, got 1",
             "meta variant grid error: split 1");
  meta_error(VHEAD GLINE("1", "6", "max_rows 8 workspace 64\n") "end\n",
             "metadata line 10: variant grid: split must be a power of two from 2 to 1024, got 6",
             "meta variant grid error: split not a power of two");
  meta_error(VHEAD GLINE("1", "2048", "max_rows 8 workspace 64\n") "end\n",
             "metadata line 10: variant grid: split must be 1 to 1024",
             "meta variant grid error: split over 1024");
  meta_error(VHEAD GLINE("1", "4", "max_rows 8 workspace 0\n") "end\n",
             "metadata line 10: variant grid: workspace must be 1 to 2147483648",
             "meta variant grid error: workspace 0");
  meta_error(VHEAD GLINE("1", "4", "max_rows 8 workspace 2147483649\n") "end\n",
             "metadata line 10: variant grid: workspace must be 1 to 2147483648",
             "meta variant grid error: workspace over 2^31");
  meta_error(VHEAD GLINE("1", "4", "max_rows 0 workspace 64\n") "end\n",
             "metadata line 10: variant grid: max_rows must be 1 to 2147483647",
             "meta variant grid error: max_rows 0");
#define FLINE(name, rows)                                                                          \
  "variant few kernel " name " block 32 rows_per_block 1 smem 0 cluster 8 dsmem 0 max_rows " rows  \
  "\n"
  meta_error(
      VHEAD GLINE("1", "4", "max_rows 8 workspace 64\n") FLINE(
          "k_few",
          "16") "variant grid kernel k_grid2 block 32 rows_per_block 1 smem 0 split 2 dsmem 0 "
                "max_rows 4 workspace 64\nend\n",
      "metadata line 12: variant grid: max_rows 4 after 8 (the lines of a kind come in "
      "increasing max_rows)",
      "meta variant grid error: max_rows not increasing among grid lines, a few line "
      "between");
  meta_error(VHEAD GLINE("1", "4", "max_rows 8 workspace 64\n") FLINE("k_grid", "8") "end\n",
             "metadata variant few 'k_grid' declared twice",
             "meta variant grid error: the name of a few variant");
  meta_error(VHEAD "variant grid kernel k block 256 rows_per_block 1 smem 0 split 4 dsmem 0 "
                   "max_rows 8 workspace 64\nend\n",
             "metadata variant grid names the kernel 'k' itself",
             "meta variant grid error: the variant is the kernel itself");
  meta_error(VHEAD GLINE("1", "4", "max_rows 1 workspace 64\n")
                 "variant few kernel k2 block 32 rows_per_block 1 smem 0 cluster 8 dsmem 0 "
                 "max_rows 2\n"
                 "variant few kernel k3 block 32 rows_per_block 1 smem 0 cluster 8 dsmem 0 "
                 "max_rows 3\n"
                 "variant few kernel k4 block 32 rows_per_block 1 smem 0 cluster 8 dsmem 0 "
                 "max_rows 4\n" GLINE("1", "8", "max_rows 5 workspace 64\n") "end\n",
             "metadata line 14: more than 4 variants",
             "meta variant grid error: more than 4 variants of both kinds");
  meta_error(VHEAD "variant grid\nend\n",
             "metadata line 10: a variant must read 'variant grid kernel NAME block B "
             "rows_per_block 1 smem S split G dsmem D max_rows K workspace W'",
             "meta variant grid error: the kind alone");
  { /* the kinds in any order: a grid line for more rows before a few line (the
       order of softgen's objects before session 35), or after it */
    const char *texts[] = {
        VHEAD GLINE("1", "4", "max_rows 16 workspace 64\n") FLINE("k_few", "4") "end\n",
        VHEAD FLINE("k_few", "4") GLINE("1", "4", "max_rows 16 workspace 64\n") "end\n"};
    for (int i = 0; i < 2; i++) {
      st = sg_meta_parse(texts[i], strlen(texts[i]), &back, &d);
      check(st == SG_OK && back.nvariants == 2 && back.variants[i].split == 4 &&
                back.variants[i].max_rows == 16 && back.variants[1 - i].cluster == 8 &&
                back.variants[1 - i].max_rows == 4,
            i ? "meta variant grid: a few line, then a grid line for more rows"
              : "meta variant grid: a grid line, then a few line for fewer rows");
    }
  }
#undef FLINE
#undef GLINE
#undef VHEAD
}

static void test_dtype(void) {
  sg_dtype dt = SG_DTYPE_COUNT;
  check(sg_dtype_parse("f16", &dt) == 0 && dt == SG_DTYPE_F16, "dtype: f16");
  check(sg_dtype_parse("half", &dt) == 0 && dt == SG_DTYPE_F16, "dtype: half is f16");
  check(sg_dtype_parse("bfloat16", &dt) == 0 && dt == SG_DTYPE_BF16, "dtype: bfloat16 is bf16");
  check(sg_dtype_parse("float", &dt) == 0 && dt == SG_DTYPE_F32, "dtype: float is f32");
  dt = SG_DTYPE_BF16;
  check(sg_dtype_parse("f64", &dt) == -1 && dt == SG_DTYPE_BF16 &&
            sg_dtype_parse("F16", &dt) == -1 && sg_dtype_parse("", &dt) == -1,
        "dtype: f64, F16 and \"\" are unknown and leave *out alone");
  check(sg_dtype_size(SG_DTYPE_F16) == 2 && sg_dtype_size(SG_DTYPE_BF16) == 2 &&
            sg_dtype_size(SG_DTYPE_F32) == 4,
        "dtype: sizes 2, 2, 4");
  check(strcmp(sg_dtype_name(SG_DTYPE_BF16), "bf16") == 0 &&
            strcmp(sg_dtype_name(SG_DTYPE_COUNT), "?") == 0,
        "dtype: names");
  check(strcmp(sg_status_name(SG_ERR_CONSTRAINT), "SG_ERR_CONSTRAINT") == 0 &&
            strcmp(sg_status_name((sg_status)99), "SG_ERR_UNKNOWN") == 0,
        "diag: sg_status_name");
}

int main(void) {
  test_template();
  test_constraints();
  test_plan();
  test_meta();
  test_meta_layout();
  test_meta_range();
  test_meta_variant();
  test_meta_variant_grid();
  test_dtype();
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
