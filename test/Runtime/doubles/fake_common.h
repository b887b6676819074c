/* fake_common.h - shared pieces of the driver test doubles (fake_cuda.c,
 * fake_hip.c): call log, error injection, code-object sizing, the workspace
 * global's size (grid-split variants) and a host "execution" of softmax
 * kernels. Included once per double (static functions).
 *
 * Needs: lib/meta (compiled into the double with SG_API empty, so nothing of it
 * is exported). Environment, with PFX = FAKE_CUDA or FAKE_HIP:
 *   PFX_LOG=file      append the call log to file (default: stderr)
 *   PFX_FAIL=fn:code[,fn:code]  make driver function fn return code
 *   PFX_ARCH=...      device arch (sm_90 / gfx942:sramecc+:xnack-)
 *   PFX_DEVICES=n     number of devices (default 1)
 *   PFX_NOEXEC=1      launches compute nothing
 *   PFX_CORRUPT=1     softmax launches write slightly wrong results */
#ifndef FAKE_COMMON_H
#define FAKE_COMMON_H

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "softgen/meta.h"
#include "../../../tools/common/host_elems.h"

#define FAKE_API __attribute__((visibility("default")))

static void fake_log(const char *pfx, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static const char *fake_env(const char *pfx, const char *what) {
  char name[64];
  snprintf(name, sizeof name, "%s_%s", pfx, what);
  return getenv(name);
}

static void fake_log(const char *pfx, const char *fmt, ...) {
  const char *path = fake_env(pfx, "LOG");
  FILE *f = path && *path ? fopen(path, "a") : stderr;
  if (!f)
    f = stderr;
  va_list ap;
  va_start(ap, fmt);
  vfprintf(f, fmt, ap);
  va_end(ap);
  fputc('\n', f);
  if (f != stderr)
    fclose(f);
  else
    fflush(f);
}

/* The error code injected for fn, or 0. */
static int fake_fail(const char *pfx, const char *fn) {
  const char *spec = fake_env(pfx, "FAIL");
  size_t n = strlen(fn);
  while (spec && *spec) {
    if (strncmp(spec, fn, n) == 0 && spec[n] == ':')
      return atoi(spec + n + 1);
    spec = strchr(spec, ',');
    if (spec)
      spec++;
  }
  return 0;
}

/* Size of a code object the driver gets without a size: ELF64 from its header,
 * fatbin from its header, anything else is NUL-terminated text. */
static size_t fake_image_size(const void *image, const char **kind) {
  const unsigned char *p = image;
  uint64_t end = sg_object_extent(image);
  if (end) {
    *kind = p[0] == 0x7f ? "elf" : "fatbin";
    return (size_t)end;
  }
  *kind = "text";
  return strlen(image);
}

/* What the driver's PTX JIT rejects that the double can see cheaply: bytes
 * that are not printable ASCII or whitespace, and unbalanced braces or
 * parentheses (a truncated or damaged file: a cut may leave the braces
 * balanced inside an entry's parameter list). Returns 1 when the text passes. */
__attribute__((unused)) static int fake_ptx_plausible(const char *text, size_t size) {
  long depth = 0, parens = 0;
  for (size_t i = 0; i < size; i++) {
    unsigned char c = (unsigned char)text[i];
    if (c >= 0x7f || (c < 0x20 && c != '\n' && c != '\t' && c != '\r'))
      return 0;
    depth += c == '{' ? 1 : c == '}' ? -1 : 0;
    parens += c == '(' ? 1 : c == ')' ? -1 : 0;
    if (depth < 0 || parens < 0)
      return 0;
  }
  return depth == 0 && parens == 0;
}

/* Whether the module defines kernel name, as the driver resolves it: a PTX
 * text with entries needs ".entry NAME(", an ELF with code sections needs a
 * ".text.NAME" section (the metadata's "kernel NAME" line does not count).
 * Images without either (the synthetic ones of rt_test.h) define the kernel
 * their metadata names. */
__attribute__((unused)) static int fake_has_entry(const char *image, size_t size, const char *name) {
  static const char *const marks[][2] = {{".entry ", "("}, {".text.", ""}};
  size_t n = strlen(name);
  for (size_t k = 0; k < 2; k++) {
    const char *mark = marks[k][0], *after = marks[k][1];
    size_t ml = strlen(mark), al = after[0] ? strlen(after) : 1; /* "": the NUL */
    int any = 0;
    for (size_t i = 0; i + ml <= size; i++) {
      if (memcmp(image + i, mark, ml) != 0)
        continue;
      any = 1;
      if (i + ml + n + al <= size && memcmp(image + i + ml, name, n) == 0 &&
          memcmp(image + i + ml + n, after, al) == 0)
        return 1;
    }
    if (any)
      return 0;
  }
  return 1;
}

/* BYTES of the PTX line ".global .align A .b8 softgen_workspace[BYTES]" in
 * image (with or without ".visible"), or 0 without one (or BYTES 0 or over
 * 2^32): the size of the module's workspace global (SG_META_WORKSPACE_SYMBOL,
 * the grid-split variants'). The HIP double reads the same line from any
 * image (a test object's text). */
__attribute__((unused)) static size_t fake_workspace_size(const char *image, size_t size) {
  static const char sym[] = " .b8 " SG_META_WORKSPACE_SYMBOL "[";
  size_t n = sizeof sym - 1;
  for (size_t i = 0; i + n < size; i++) {
    if (memcmp(image + i, sym, n) != 0)
      continue;
    size_t line = i;
    while (line > 0 && image[line - 1] != '\n')
      line--;
    int global = 0;
    for (size_t k = line; k + 7 <= i && !global; k++)
      global = memcmp(image + k, ".global", 7) == 0;
    if (!global)
      continue;
    unsigned long long v = 0;
    size_t j = i + n;
    while (j < size && image[j] >= '0' && image[j] <= '9' && v <= (1ull << 32))
      v = v * 10 + (unsigned long long)(image[j++] - '0');
    return j < size && image[j] == ']' && v <= (1ull << 32) ? (size_t)v : 0;
  }
  return 0;
}

/* ---- host execution of softmax ---- */

static float fake_load(const void *base, int64_t i, sg_dtype dt) {
  return (float)sg_host_get(base, (size_t)i, dt);
}

static void fake_store(void *base, int64_t i, sg_dtype dt, float v) {
  sg_host_put(base, (size_t)i, dt, v);
}

/* Logs the parameters in "arg" order and, for template softmax with one input
 * and one output, computes the rows on the host (device memory is host memory):
 * row r at r * stride, or, in the inner layout, row r = o * inner + i at
 * o * stride + i with its elements nstride apart. */
static void fake_run(const char *pfx, const sg_meta *m, void **params, char *line, size_t cap) {
  const void *ptr[SG_META_MAX_TENSORS] = {0};
  int64_t stride[SG_META_MAX_TENSORS] = {0}, rows = 0, inner = 1, cols = m->n;
  int64_t nstride[SG_META_MAX_TENSORS] = {1, 1, 1, 1, 1, 1, 1, 1};
  size_t at = strlen(line);
  at += (size_t)snprintf(line + at, cap - at, " args=%d", m->nargs);
  for (int i = 0; i < m->nargs && at < cap; i++) {
    const sg_meta_arg *a = &m->args[i];
    int64_t v;
    memcpy(&v, params[i], 8);
    if (a->kind == SG_ARG_TENSOR) {
      ptr[a->tensor] = (const void *)(uintptr_t)v;
      at += (size_t)snprintf(line + at, cap - at, " %s=%#llx", m->tensors[a->tensor].name,
                             (unsigned long long)v);
    } else if (a->kind == SG_ARG_STRIDE) {
      stride[a->tensor] = v;
      at += (size_t)snprintf(line + at, cap - at, " stride_%s=%lld", m->tensors[a->tensor].name,
                             (long long)v);
    } else if (a->kind == SG_ARG_NSTRIDE) {
      nstride[a->tensor] = v;
      at += (size_t)snprintf(line + at, cap - at, " nstride_%s=%lld", m->tensors[a->tensor].name,
                             (long long)v);
    } else if (a->kind == SG_ARG_COLS) {
      cols = v;
      at += (size_t)snprintf(line + at, cap - at, " N=%lld", (long long)v);
    } else if (a->kind == SG_ARG_INNER) {
      inner = v > 0 ? v : 1;
      at += (size_t)snprintf(line + at, cap - at, " inner=%lld", (long long)v);
    } else {
      rows = v;
      at += (size_t)snprintf(line + at, cap - at, " M=%lld", (long long)v);
    }
  }
  fake_log(pfx, "%s", line);
  const char *noexec = fake_env(pfx, "NOEXEC");
  if ((noexec && *noexec == '1') || strcmp(m->template_name, "softmax") != 0 || m->ntensors != 2)
    return;
  int in = m->tensors[0].is_output ? 1 : 0, out = 1 - in;
  if (m->tensors[in].is_output || !m->tensors[out].is_output)
    return;
  const char *corrupt = fake_env(pfx, "CORRUPT");
  sg_dtype di = m->tensors[in].dtype, dout = m->tensors[out].dtype;
  for (int64_t r = 0; r < rows; r++) {
    int64_t xo = r / inner * stride[in] + r % inner, yo = r / inner * stride[out] + r % inner;
    const char *x = (const char *)ptr[in] + xo * (int64_t)sg_dtype_size(di);
    char *y = (char *)ptr[out] + yo * (int64_t)sg_dtype_size(dout);
    int64_t xs = nstride[in], ys = nstride[out];
    double mx = -INFINITY, sum = 0;
    for (int64_t c = 0; c < cols; c++)
      mx = fmax(mx, fake_load(x, c * xs, di));
    for (int64_t c = 0; c < cols; c++)
      sum += exp(fake_load(x, c * xs, di) - mx);
    for (int64_t c = 0; c < cols; c++) {
      double v = exp(fake_load(x, c * xs, di) - mx) / sum;
      if (corrupt && *corrupt == '1' && c == 0)
        v *= 1.5;
      fake_store(y, c * ys, dout, (float)v);
    }
  }
}

#endif
