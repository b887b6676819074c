/* parse.c - constraints text -> sg_constraints (constraints/constraints.h).
 *
 *   file       := { constraint }
 *   constraint := KIND '(' [ arg { ',' arg } ] ')'
 *   KIND       := 'HardwareConstraint' | 'WorkgroupConstraint' | 'WaveConstraint'
 *               | 'PipelineConstraint'
 *   arg        := [ NAME '=' ] value
 *   value      := INT | NAME | '(' INT { ',' INT } ')' | '{' NAME ':' (INT|NAME) { ',' ... } '}'
 * Positional order is Wave's: HardwareConstraint(threads_per_wave,
 * waves_per_block, vector_shapes), WorkgroupConstraint(dim, tile, grid_axis),
 * WaveConstraint(dim, tile), and softgen's own PipelineConstraint(rows_in_flight,
 * online, staging, hold, thread_rows, blocks_per_sm).
 * A tile written as a dim name means the whole dim. */
#include <stdlib.h>
#include <string.h>

#include "plan/plan.h"
#include "base/io.h"
#include "template/lexer.h"

typedef enum { V_INT, V_NAME, V_TUPLE, V_MAP } vkind;

typedef struct value {
  vkind kind;
  int64_t i;
  char name[SGT_NAME_MAX];
  int n;
  int64_t tuple[3];
  sgp_tile map[SGP_MAX_DIMS];
  int line, col;
} value;

typedef struct cparser {
  sgl_lexer lx;
  const char *file;
  sg_diag *diag;
} cparser;

#define ERR_AT(ps, ln, cl, ...) sg_diag_at((ps)->diag, SG_ERR_PARSE, (ps)->file, (ln), (cl), __VA_ARGS__)
#define ERR(ps, ...) ERR_AT(ps, (ps)->lx.tok.line, (ps)->lx.tok.col, __VA_ARGS__)

static sg_status parse_int(cparser *ps, int64_t *out) {
  if (ps->lx.tok.kind != SGL_INT)
    return sgl_unexpected(&ps->lx, "an integer");
  if (ps->lx.tok.overflow || ps->lx.tok.value > (1ll << 31) - 1)
    return ERR(ps, "integer is larger than 2^31-1");
  *out = ps->lx.tok.value;
  sgl_next(&ps->lx);
  return SG_OK;
}

static sg_status parse_name(cparser *ps, char *dst) {
  if (ps->lx.tok.kind != SGL_IDENT)
    return sgl_unexpected(&ps->lx, "a name");
  if (sgl_text(&ps->lx, dst, SGT_NAME_MAX))
    return ERR(ps, "name is longer than %d characters", SGT_NAME_MAX - 1);
  sgl_next(&ps->lx);
  return SG_OK;
}

static sg_status parse_value(cparser *ps, value *v) {
  sg_status st;
  memset(v, 0, sizeof *v);
  v->line = ps->lx.tok.line;
  v->col = ps->lx.tok.col;
  if (ps->lx.tok.kind == SGL_INT) {
    v->kind = V_INT;
    return parse_int(ps, &v->i);
  }
  if (ps->lx.tok.kind == SGL_IDENT) {
    v->kind = V_NAME;
    return parse_name(ps, v->name);
  }
  if (sgl_is_punct(&ps->lx, '(')) {
    v->kind = V_TUPLE;
    sgl_next(&ps->lx);
    for (;;) {
      if (v->n == 3)
        return ERR(ps, "a tuple has at most 3 entries");
      if ((st = parse_int(ps, &v->tuple[v->n++])))
        return st;
      if (sgl_is_punct(&ps->lx, ')'))
        break;
      if ((st = sgl_expect_comma(&ps->lx, ')')))
        return st;
    }
    sgl_next(&ps->lx);
    return SG_OK;
  }
  if (sgl_is_punct(&ps->lx, '{')) {
    v->kind = V_MAP;
    sgl_next(&ps->lx);
    for (;;) {
      if (v->n == SGP_MAX_DIMS)
        return ERR(ps, "a map has at most %d entries", SGP_MAX_DIMS);
      sgp_tile *e = &v->map[v->n++];
      e->loc.line = ps->lx.tok.line;
      e->loc.col = ps->lx.tok.col;
      if ((st = parse_name(ps, e->dim)) || (st = sgl_expect(&ps->lx, ':')))
        return st;
      if (ps->lx.tok.kind == SGL_IDENT) {
        char full[SGT_NAME_MAX];
        if ((st = parse_name(ps, full)))
          return st;
        if (strcmp(full, e->dim) != 0)
          return ERR_AT(ps, e->loc.line, e->loc.col,
                        "vector shape of %s must be an integer or %s itself", e->dim, e->dim);
        e->tile = SGP_FULL;
      } else if ((st = parse_int(ps, &e->tile)))
        return st;
      if (sgl_is_punct(&ps->lx, '}'))
        break;
      if ((st = sgl_expect_comma(&ps->lx, '}')))
        return st;
    }
    sgl_next(&ps->lx);
    return SG_OK;
  }
  return sgl_unexpected(&ps->lx, "a value (integer, name, tuple or {map})");
}

typedef enum { K_HW, K_WORKGROUP, K_WAVE, K_PIPELINE, K_COUNT } ckind;
static const char *const kind_names[K_COUNT] = {"HardwareConstraint", "WorkgroupConstraint",
                                                "WaveConstraint", "PipelineConstraint"};
#define MAX_SLOTS 6
static const char *const params[K_COUNT][MAX_SLOTS] = {
    {"threads_per_wave", "waves_per_block", "vector_shapes", NULL, NULL, NULL},
    {"dim", "tile", "grid_axis", NULL, NULL, NULL},
    {"dim", "tile", NULL, NULL, NULL, NULL},
    {"rows_in_flight", "online", "staging", "hold", "thread_rows", "blocks_per_sm"}};

static void set_loc(sgp_loc *loc, const char *file, int line, int col) {
  snprintf(loc->file, sizeof loc->file, "%s", file);
  loc->line = line;
  loc->col = col;
}

/* Applies argument `slot` of a constraint of kind k. */
static sg_status apply(cparser *ps, ckind k, int slot, const value *v, sg_constraints *c,
                       sgp_tile *tile) {
  const char *pname = params[k][slot];
#define WANT(kd, what)                                                                   \
  if (v->kind != kd)                                                                     \
    return ERR_AT(ps, v->line, v->col, "%s: %s must be %s", kind_names[k], pname, what);
  if (k == K_PIPELINE && slot == 5) { /* the target's limits: plan/resolve.c */
    WANT(V_INT, "an integer");
    if (v->i < 1 || v->i > 1024)
      return ERR_AT(ps, v->line, v->col,
                    "PipelineConstraint: blocks_per_sm must be 1 to 1024 (blocks a "
                    "multiprocessor the register allocator is asked to fit)");
    c->blocks_per_sm = (unsigned)v->i;
    return SG_OK;
  }
  if (k == K_PIPELINE && slot == 4) {
    WANT(V_INT, "an integer");
    if (v->i < 1 || v->i > SGP_MAX_THREAD_ROWS)
      return ERR_AT(ps, v->line, v->col,
                    "PipelineConstraint: thread_rows must be 1 to %d (rows "
                    "a thread computes in each row block of flat rows)",
                    SGP_MAX_THREAD_ROWS);
    c->thread_rows = (unsigned)v->i;
    return SG_OK;
  }
  if (k == K_PIPELINE && slot >= 1) { /* the switches: 0 or 1, stored as 1 or 2 */
    static const char *const meaning[4][2] = {
        {NULL, NULL},
        {"max and sum reduced apart", "as one pass of online softmax pairs"},
        {"rows held in registers", "rows copied to shared memory and re-read each pass"},
        {"staged rows re-read and recompute in each pass", "their exps held in registers"}};
    int *field[4] = {NULL, &c->online, &c->staging, &c->hold};
    WANT(V_INT, "0 or 1");
    if (v->i > 1)
      return ERR_AT(ps, v->line, v->col, "PipelineConstraint: %s must be 0 (%s) or 1 (%s)",
                    pname, meaning[slot][0], meaning[slot][1]);
    *field[slot] = (int)v->i + 1;
    return SG_OK;
  }
  if (k == K_PIPELINE) {
    WANT(V_INT, "1 or 2");
    if (v->i < 1 || v->i > 2)
      return ERR_AT(ps, v->line, v->col, "PipelineConstraint: rows_in_flight must be 1 (no "
                    "prefetch) or 2 (prefetch the next row block)");
    c->rows_in_flight = (unsigned)v->i;
    return SG_OK;
  }
  if (k == K_HW) {
    if (slot == 0) {
      WANT(V_INT, "an integer");
      if (v->i < 1)
        return ERR_AT(ps, v->line, v->col, "HardwareConstraint: threads_per_wave must be >= 1");
      c->threads_per_wave = (unsigned)v->i;
    } else if (slot == 1) {
      if (v->kind == V_INT) {
        c->waves_per_block[0] = (unsigned)v->i;
        c->waves_per_block[1] = c->waves_per_block[2] = 1;
      } else {
        WANT(V_TUPLE, "an integer or a tuple (x, y, z)");
        for (int i = 0; i < 3; i++)
          c->waves_per_block[i] = i < v->n ? (unsigned)v->tuple[i] : 1;
      }
      for (int i = 0; i < 3; i++)
        if (c->waves_per_block[i] < 1 || c->waves_per_block[i] > 1024)
          return ERR_AT(ps, v->line, v->col,
                        "HardwareConstraint: waves_per_block entries must be 1 to 1024");
    } else {
      WANT(V_MAP, "a map {DIM: elements, ...}");
      for (int i = 0; i < v->n; i++) {
        for (int j = 0; j < i; j++)
          if (strcmp(v->map[i].dim, v->map[j].dim) == 0)
            return ERR_AT(ps, v->map[i].loc.line, v->map[i].loc.col,
                          "vector_shapes gives %s twice", v->map[i].dim);
        c->vec[i] = v->map[i];
        set_loc(&c->vec[i].loc, ps->file, v->map[i].loc.line, v->map[i].loc.col);
      }
      c->nvec = v->n;
    }
    return SG_OK;
  }
  if (slot == 0) {
    WANT(V_NAME, "a dim name");
    strcpy(tile->dim, v->name);
  } else if (slot == 1) {
    if (v->kind == V_NAME) {
      if (tile->dim[0] && strcmp(v->name, tile->dim) != 0)
        return ERR_AT(ps, v->line, v->col, "%s: tile of %s must be an integer or %s itself",
                      kind_names[k], tile->dim, tile->dim);
      tile->tile = SGP_FULL;
    } else {
      WANT(V_INT, "an integer or the dim's name");
      if (v->i < 1)
        return ERR_AT(ps, v->line, v->col, "%s: tile must be >= 1", kind_names[k]);
      tile->tile = v->i;
    }
  } else {
    WANT(V_INT, "0, 1 or 2");
    if (v->i > 2)
      return ERR_AT(ps, v->line, v->col, "WorkgroupConstraint: grid_axis must be 0, 1 or 2");
    tile->grid_axis = (int)v->i;
  }
  return SG_OK;
#undef WANT
}

static sg_status parse_constraint(cparser *ps, sg_constraints *c) {
  char kname[SGT_NAME_MAX];
  int line = ps->lx.tok.line, col = ps->lx.tok.col;
  sg_status st = parse_name(ps, kname);
  if (st)
    return st;
  int k = -1;
  for (int i = 0; i < K_COUNT; i++)
    if (strcmp(kname, kind_names[i]) == 0)
      k = i;
  if (k < 0)
    return ERR_AT(ps, line, col,
                  "unknown constraint '%s' (expected HardwareConstraint, WorkgroupConstraint, "
                  "WaveConstraint or PipelineConstraint)",
                  kname);
  if ((st = sgl_expect(&ps->lx, '(')))
    return st;
  sgp_tile tile;
  memset(&tile, 0, sizeof tile);
  tile.tile = 0;
  int nslots = k == K_WAVE ? 2 : k == K_PIPELINE ? 6 : 3, seen[MAX_SLOTS] = {0}, pos = 0;
  value tile_name; /* a tile written as a name, e.g. tile=N before dim=N */
  tile_name.kind = V_INT;
  if (k == K_HW && c->has_hw)
    return ERR_AT(ps, line, col, "HardwareConstraint given twice (first at %s:%d:%d)",
                  c->hw_loc.file, c->hw_loc.line, c->hw_loc.col);
  if (k == K_PIPELINE && (c->rows_in_flight || c->online || c->staging || c->hold ||
                          c->thread_rows || c->blocks_per_sm))
    return ERR_AT(ps, line, col, "PipelineConstraint given twice (first at %s:%d:%d)",
                  c->pipeline_loc.file, c->pipeline_loc.line, c->pipeline_loc.col);
  while (!sgl_is_punct(&ps->lx, ')')) {
    int slot = pos;
    int al = ps->lx.tok.line, ac = ps->lx.tok.col;
    if (ps->lx.tok.kind == SGL_IDENT) {
      /* NAME '=' value, or a NAME value */
      sgl_lexer save = ps->lx;
      char key[SGT_NAME_MAX];
      if ((st = parse_name(ps, key)))
        return st;
      if (sgl_is_punct(&ps->lx, '=')) {
        sgl_next(&ps->lx);
        slot = -1;
        for (int i = 0; i < nslots; i++)
          if (strcmp(params[k][i], key) == 0)
            slot = i;
        if (slot < 0)
          return ERR_AT(ps, al, ac, "%s has no parameter '%s'", kind_names[k], key);
      } else
        ps->lx = save;
    }
    if (slot >= nslots)
      return ERR_AT(ps, al, ac, "%s takes at most %d arguments", kind_names[k], nslots);
    if (seen[slot])
      return ERR_AT(ps, al, ac, "%s: %s given twice", kind_names[k], params[k][slot]);
    seen[slot] = 1;
    value v;
    if ((st = parse_value(ps, &v)) || (st = apply(ps, (ckind)k, slot, &v, c, &tile)))
      return st;
    if (k != K_HW && slot == 1 && v.kind == V_NAME)
      tile_name = v; /* checked against the dim once both are known */
    pos++;
    if (sgl_is_punct(&ps->lx, ')'))
      break;
    if ((st = sgl_expect_comma(&ps->lx, ')')))
      return st;
  }
  sgl_next(&ps->lx);
  if (k == K_HW) {
    c->has_hw = 1;
    set_loc(&c->hw_loc, ps->file, line, col);
    return SG_OK;
  }
  if (k == K_PIPELINE) {
    if (!seen[0] && !seen[1] && !seen[2] && !seen[3] && !seen[4] && !seen[5])
      return ERR_AT(ps, line, col,
                    "PipelineConstraint needs rows_in_flight, online, staging, "
                    "hold, thread_rows or blocks_per_sm");
    set_loc(&c->pipeline_loc, ps->file, line, col);
    return SG_OK;
  }
  if (!seen[0] || !seen[1])
    return ERR_AT(ps, line, col, "%s needs a dim and a tile", kind_names[k]);
  if (tile_name.kind == V_NAME && strcmp(tile_name.name, tile.dim) != 0)
    return ERR_AT(ps, tile_name.line, tile_name.col,
                  "%s: tile of %s must be an integer or %s itself", kind_names[k], tile.dim,
                  tile.dim);
  set_loc(&tile.loc, ps->file, line, col);
  int *count = k == K_WORKGROUP ? &c->nworkgroup : &c->nwave;
  sgp_tile *list = k == K_WORKGROUP ? c->workgroup : c->wave;
  for (int i = 0; i < *count; i++)
    if (strcmp(list[i].dim, tile.dim) == 0)
      return ERR_AT(ps, line, col, "%s for %s given twice (first at %s:%d:%d)", kind_names[k],
                    tile.dim, list[i].loc.file, list[i].loc.line, list[i].loc.col);
  if (*count == SGP_MAX_DIMS)
    return ERR_AT(ps, line, col, "more than %d %ss", SGP_MAX_DIMS, kind_names[k]);
  list[(*count)++] = tile;
  return SG_OK;
}

sg_status sg_constraints_create(sg_constraints **out, sg_diag *diag) {
  if (!out)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "sg_constraints_create: null argument");
  *out = calloc(1, sizeof **out);
  return *out ? SG_OK : sg_diag_set(diag, SG_ERR_NO_MEMORY, "out of memory");
}

void sg_constraints_destroy(sg_constraints *c) { free(c); }

sg_status sg_constraints_parse(sg_constraints *c, const char *file, const char *text, size_t len,
                               sg_diag *diag) {
  if (!c || !text)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "sg_constraints_parse: null argument");
  cparser ps;
  ps.file = file ? file : "<constraints>";
  ps.diag = diag;
  if (memchr(text, '\0', len))
    return ERR_AT(&ps, 0, 0, "constraints contain a NUL byte");
  sg_constraints work = *c; /* all or nothing */
  sgl_init(&ps.lx, text, len, ps.file, diag);
  while (ps.lx.tok.kind != SGL_EOF) {
    if (ps.lx.tok.kind == SGL_ERROR)
      return ERR(&ps, "unexpected character '%.*s'", (int)ps.lx.tok.len, ps.lx.tok.start);
    sg_status st = parse_constraint(&ps, &work);
    if (st)
      return st;
  }
  *c = work;
  return SG_OK;
}

sg_status sg_constraints_load(sg_constraints *c, const char *path, sg_diag *diag) {
  char *text;
  size_t len;
  sg_status st = sgb_read_input(path, "a constraints file", SGB_LIMIT_TEXT, &text, &len, diag);
  if (st)
    return st;
  st = sg_constraints_parse(c, path, text, len, diag);
  free(text);
  return st;
}
