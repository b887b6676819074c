/* types.c - the vocabulary every stage shares (include/softgen/types.h):
 * element types, layouts, byte buffers. libc only. */
#include "softgen/types.h"

#include <stdlib.h>
#include <string.h>

static const char *const dtype_names[SG_DTYPE_COUNT] = {"f16", "bf16", "f32"};

const char *sg_dtype_name(sg_dtype dtype) {
  return (unsigned)dtype < SG_DTYPE_COUNT ? dtype_names[dtype] : "?";
}

unsigned sg_dtype_size(sg_dtype dtype) { return dtype == SG_DTYPE_F32 ? 4u : 2u; }

int sg_dtype_parse(const char *name, sg_dtype *out) {
  static const struct {
    const char *name;
    sg_dtype dtype;
  } names[] = {{"f16", SG_DTYPE_F16},   {"float16", SG_DTYPE_F16},   {"half", SG_DTYPE_F16},
               {"bf16", SG_DTYPE_BF16}, {"bfloat16", SG_DTYPE_BF16}, {"f32", SG_DTYPE_F32},
               {"float32", SG_DTYPE_F32}, {"float", SG_DTYPE_F32}};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strcmp(name, names[i].name) == 0) {
      *out = names[i].dtype;
      return 0;
    }
  return -1;
}

static const char *const layout_names[SG_LAYOUT_COUNT] = {"rows", "inner"};

const char *sg_layout_name(sg_layout layout) {
  return (unsigned)layout < SG_LAYOUT_COUNT ? layout_names[layout] : "?";
}

int sg_layout_parse(const char *name, sg_layout *out) {
  for (int i = 0; i < SG_LAYOUT_COUNT; i++)
    if (strcmp(name, layout_names[i]) == 0) {
      *out = (sg_layout)i;
      return 0;
    }
  return -1;
}

void sg_buffer_free(sg_buffer *b) {
  if (b) {
    free(b->data);
    b->data = NULL;
    b->size = 0;
  }
}
