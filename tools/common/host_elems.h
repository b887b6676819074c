/* tools/common/host_elems.h - host-side element conversions (f16, bf16, f32)
 * and a deterministic normal generator, for the tools (softgen-run,
 * softgen-bench) and the test doubles of the drivers. Header only; C11 + libm.
 * Conversions round to nearest even; f16 keeps subnormals, NaN stays NaN. */
#ifndef SOFTGEN_TOOLS_HOST_ELEMS_H
#define SOFTGEN_TOOLS_HOST_ELEMS_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "softgen/meta.h"

static inline float sg_half_to_float(uint16_t h) {
  unsigned s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
  float v;
  if (e == 0)
    v = ldexpf((float)m, -24);
  else if (e == 31)
    v = m ? NAN : INFINITY;
  else
    v = ldexpf((float)(m | 1024), (int)e - 25);
  return s ? -v : v;
}

static inline uint16_t sg_float_to_half(float f) {
  uint16_t sign = signbit(f) ? 0x8000 : 0;
  float a = fabsf(f);
  if (isnan(a))
    return (uint16_t)(sign | 0x7e00);
  if (a >= 65520.0f)
    return (uint16_t)(sign | 0x7c00);
  if (a < ldexpf(1.0f, -14))
    return (uint16_t)(sign | (uint16_t)lrintf(ldexpf(a, 24)));
  int e;
  float m = frexpf(a, &e);
  unsigned mant = (unsigned)lrintf(ldexpf(m, 11));
  if (mant == 2048) {
    mant = 1024;
    e++;
  }
  return (uint16_t)(sign | ((unsigned)(e + 14) << 10) | (mant - 1024));
}

static inline float sg_bf16_to_float(uint16_t h) {
  uint32_t x = (uint32_t)h << 16;
  float f;
  memcpy(&f, &x, 4);
  return f;
}

static inline uint16_t sg_float_to_bf16(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  if (isnan(f))
    return (uint16_t)((x >> 16) | 0x40);
  x += 0x7fff + ((x >> 16) & 1);
  return (uint16_t)(x >> 16);
}

/* Element i of an array of dtype dt, as a double. */
static inline double sg_host_get(const void *base, size_t i, sg_dtype dt) {
  if (dt == SG_DTYPE_F32)
    return ((const float *)base)[i];
  uint16_t h = ((const uint16_t *)base)[i];
  return dt == SG_DTYPE_F16 ? sg_half_to_float(h) : sg_bf16_to_float(h);
}

/* Stores v, rounded to dtype dt, as element i. */
static inline void sg_host_put(void *base, size_t i, sg_dtype dt, float v) {
  if (dt == SG_DTYPE_F32)
    ((float *)base)[i] = v;
  else
    ((uint16_t *)base)[i] = dt == SG_DTYPE_F16 ? sg_float_to_half(v) : sg_float_to_bf16(v);
}

/* Deterministic standard normal values (xorshift64* + Box-Muller). */
typedef struct sg_rng {
  uint64_t state; /* never 0 */
} sg_rng;

static inline double sg_rng_uniform(sg_rng *r) {
  r->state ^= r->state >> 12;
  r->state ^= r->state << 25;
  r->state ^= r->state >> 27;
  return ((r->state * 2685821657736338717ull) >> 11) * (1.0 / 9007199254740992.0);
}

static inline double sg_rng_normal(sg_rng *r) {
  double u = sg_rng_uniform(r), v = sg_rng_uniform(r);
  return sqrt(-2.0 * log(u > 0 ? u : 1e-300)) * cos(6.283185307179586 * v);
}

#endif
