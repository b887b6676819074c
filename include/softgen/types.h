/* softgen/types.h - the vocabulary every part of softgen shares: element
 * types, tensor layouts and byte buffers (lib/base). Included by meta.h and
 * codegen.h; needs only libc. */
#ifndef SOFTGEN_TYPES_H
#define SOFTGEN_TYPES_H

#include <stddef.h>

#include "softgen/api.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sg_dtype { SG_DTYPE_F16, SG_DTYPE_BF16, SG_DTYPE_F32, SG_DTYPE_COUNT } sg_dtype;

/* "f16", "bf16", "f32". */
SG_API const char *sg_dtype_name(sg_dtype dtype);
/* Bytes per element: 2, 2, 4. */
SG_API unsigned sg_dtype_size(sg_dtype dtype);
/* Parses a dtype name (also "float16", "half", "bfloat16", "float32", "float").
 * Returns 0 on success, -1 for an unknown name. */
SG_API int sg_dtype_parse(const char *name, sg_dtype *out);

/* How a kernel addresses its tensors: rows (contiguous rows, the last dim
 * reduced) or inner ([outer, N, inner], dim N reduced; softgen/meta.h). */
typedef enum sg_layout { SG_LAYOUT_ROWS, SG_LAYOUT_INNER, SG_LAYOUT_COUNT } sg_layout;

/* "rows", "inner". */
SG_API const char *sg_layout_name(sg_layout layout);
/* Parses a layout name. Returns 0 on success, -1 for an unknown name. */
SG_API int sg_layout_parse(const char *name, sg_layout *out);

/* Bytes owned by the caller; release with sg_buffer_free. Text is NUL-terminated
 * (the NUL is not counted in size). */
typedef struct sg_buffer {
  char *data;
  size_t size;
} sg_buffer;

SG_API void sg_buffer_free(sg_buffer *b);

#ifdef __cplusplus
}
#endif
#endif
