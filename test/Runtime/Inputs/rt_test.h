/* rt_test.h - helpers for the runtime's C lit tests (the .c files of test/Runtime).
 * Needs: libsoftgen_rt and a driver double named by SOFTGEN_CUDA_LIBRARY /
 * SOFTGEN_HIP_LIBRARY. Produces: a default softmax metadata, code objects built
 * from metadata (text, PTX byte list, ELF, fatbin), sealed as softgen seals
 * what it emits (softgen/meta.h: the checksum), and one-line reports. */
#ifndef RT_TEST_H
#define RT_TEST_H
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "softgen/runtime.h"

enum { OBJ_TEXT, OBJ_PTX, OBJ_ELF, OBJ_FATBIN };

/* softmax f16, n 1024, block 256, 4 rows per block, 16-byte vectors; x in, y out;
 * args: x, y, rows, stride x, stride y. */
static sg_meta test_meta(void) {
  sg_meta m;
  memset(&m, 0, sizeof m);
  m.version = 1;
  strcpy(m.kernel, "softgen_softmax_f16_n1024");
  strcpy(m.template_name, "softmax");
  strcpy(m.target, "nvptx");
  strcpy(m.arch, "sm_90");
  m.n = 1024;
  m.block = 256;
  m.rows_per_block = 4;
  m.smem = 64;
  m.cluster = 1;
  m.vector_bytes = 16;
  m.ntensors = 2;
  strcpy(m.tensors[0].name, "x");
  strcpy(m.tensors[1].name, "y");
  m.tensors[1].is_output = 1;
  m.nargs = 5;
  m.args[0] = (sg_meta_arg){SG_ARG_TENSOR, 0};
  m.args[1] = (sg_meta_arg){SG_ARG_TENSOR, 1};
  m.args[2] = (sg_meta_arg){SG_ARG_ROWS, -1};
  m.args[3] = (sg_meta_arg){SG_ARG_STRIDE, 0};
  m.args[4] = (sg_meta_arg){SG_ARG_STRIDE, 1};
  return m;
}

/* Builds a code object of the given kind carrying m into buf, its checksum the
 * placeholder (unsealed); returns its size. */
static size_t make_unsealed_object(const sg_meta *m, int kind, unsigned char *buf, size_t cap) {
  char text[4096];
  size_t len = 0, at = 0;
  if (sg_meta_format_unsealed(m, text, sizeof text, &len, NULL) != SG_OK)
    return 0;
  if (kind == OBJ_TEXT) {
    memcpy(buf, text, len);
    return len;
  }
  if (kind == OBJ_PTX) {
    at = (size_t)snprintf((char *)buf, cap,
                          "//\n.version 8.0\n.target %s\n.address_size 64\n\n"
                          ".global .align 1 .b8 softgen_meta[%zu] = {",
                          m->arch, len + 1);
    for (size_t i = 0; i <= len && at < cap; i++)
      at += (size_t)snprintf((char *)buf + at, cap - at, "%s%u", i ? ", " : "",
                             (unsigned)(unsigned char)text[i]);
    at += (size_t)snprintf((char *)buf + at, cap - at, "};\n\n.visible .entry %s()\n{\n\tret;\n}\n",
                           m->kernel);
    return at;
  }
  if (kind == OBJ_ELF) { /* ELF64 header; section header table offset = end of data */
    memset(buf, 0, 64);
    memcpy(buf, "\177ELF\2\1\1", 7);
    uint64_t end = 64 + len + 1;
    memcpy(buf + 40, &end, 8);
    memcpy(buf + 64, text, len + 1);
    return (size_t)end;
  }
  /* fatbin: magic, version, header size 16, payload size */
  uint32_t magic = 0xba55ed50u;
  uint16_t version = 1, header = 16;
  uint64_t size = len + 1;
  memcpy(buf, &magic, 4);
  memcpy(buf + 4, &version, 2);
  memcpy(buf + 6, &header, 2);
  memcpy(buf + 8, &size, 8);
  memcpy(buf + 16, text, len + 1);
  return 16 + len + 1;
}

/* make_unsealed_object, sealed (sg_meta_seal; a fatbin cannot be: unsealed). */
static size_t make_object(const sg_meta *m, int kind, unsigned char *buf, size_t cap) {
  size_t n = make_unsealed_object(m, kind, buf, cap);
  if (n && kind != OBJ_FATBIN && sg_meta_seal(buf, n, NULL) != SG_OK)
    return 0;
  return n;
}

static void report(const char *what, sg_status st, const sg_diag *d) {
  printf("%s: %s%s%s\n", what, sg_status_name(st), st ? ": " : "", st ? d->message : "");
}

static sgrt_runtime *open_or_die(sgrt_backend b) {
  sgrt_runtime *rt = NULL;
  sg_diag d;
  sg_status st = sgrt_open(b, 0, &rt, &d);
  if (st) {
    report("open", st, &d);
    exit(1);
  }
  return rt;
}

/* Loads m as an object of kind; prints the status under label. NULL on failure. */
static sgrt_kernel *load_meta(sgrt_runtime *rt, const sg_meta *m, int kind, const char *label) {
  static unsigned char buf[1 << 16];
  sgrt_kernel *k = NULL;
  sg_diag d;
  size_t n = make_object(m, kind, buf, sizeof buf);
  sg_status st = sgrt_kernel_load_data(rt, buf, n, &k, &d);
  report(label, st, &d);
  return k;
}

/* Two tensors x, y of rows x cols, row stride stride, in 256-aligned host memory.
 * Tests exit without freeing them; a static list keeps them reachable so that
 * LeakSanitizer (build-asan) reports only what the runtime itself leaks. */
static void *rt_test_buffers[16];
static void make_tensors(sgrt_tensor t[2], int64_t rows, int64_t cols, int64_t stride,
                         sg_dtype dt) {
  static int nbuffers;
  size_t bytes = (size_t)(rows * stride) * sg_dtype_size(dt);
  for (int i = 0; i < 2; i++) {
    t[i] = (sgrt_tensor){aligned_alloc(256, (bytes + 255) / 256 * 256 + 256), rows, cols, stride,
                         dt};
    if (nbuffers < 16)
      rt_test_buffers[nbuffers++] = t[i].data;
  }
}
#endif
