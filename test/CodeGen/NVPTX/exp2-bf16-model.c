// The arithmetic of SGC_EXP_FLUSH_BF16 (lib/backend/nvptx.c, exp2_fast) in a
// model, on the build machine: NVIDIA's ex2.approx.ftz as exp2f with its
// input and result flushed below 2^-126, a bf16 output as round to nearest
// even. A softmax quotient q = 2^x / s (x <= 0, s >= 1: the row max's 1)
// written to bf16, today's way (ex2.approx.f32 keeps subnormals) against
// 2^-8 ex2.approx.ftz(x + 8): the two differ by at most one bf16 ulp and
// rarely (rounding ties moved by the rounding of x + 8), and no nonzero
// quotient becomes 0. The three forms the kernels use: exp times 1 / s; the
// exp kept 2^8 too large (SGC_EXP_SCALED_BF16: ex2.approx.ftz(x + 8), no
// multiply back) times 2^-8 / s (rows in registers, held exps); and
// exp2(x - log2 s) (the fused division of staged rows, where the 8 joins
// -log2 s). x spans [-200, 0], half of it the edge [-140, -120].
// RUN: %cc -std=c11 -O2 %s -lm -o %t
// RUN: %t | FileCheck %s
// CHECK: recip: 0 differ by more than one ulp, 0 lost, {{[0-9]+}} of 4000000 by one
// CHECK: scaled: 0 differ by more than one ulp, 0 lost, {{[0-9]+}} of 4000000 by one
// CHECK: fused: 0 differ by more than one ulp, 0 lost, {{[0-9]+}} of 4000000 by one
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static float flush(float x) { return fabsf(x) < 0x1p-126f ? copysignf(0.0f, x) : x; }
static float ex2_ftz(float x) { return flush(exp2f(flush(x))); }
static float offset(float x) { return ex2_ftz(x + 8.0f) * 0x1p-8f; }
static uint16_t bf16(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
static uint64_t state = 88172645463325252ull;
static double uniform(void) { /* xorshift64, [0, 1) */
  state ^= state << 13, state ^= state >> 7, state ^= state << 17;
  return (double)(state >> 11) / 9007199254740992.0;
}

int main(void) {
  static const char *const form[3] = {"recip", "scaled", "fused"};
  for (int f = 0; f < 3; f++) {
    long one = 0, more = 0, lost = 0, n = 4000000;
    for (long i = 0; i < n; i++) {
      float x = i & 1 ? -120.0f - (float)uniform() * 20.0f : -(float)uniform() * 200.0f;
      float s = 1.0f + (float)uniform() * (i % 3 ? 1.0f : 1e6f);
      float a, b;
      if (f == 2) { /* exp2(x - log2 s) */
        float nl = -log2f(s);
        a = exp2f(x + nl);
        b = ex2_ftz(x + (nl + 8.0f)) * 0x1p-8f;
      } else if (f == 1) { /* 2^8 exp times 2^-8 / s */
        a = exp2f(x) * (1.0f / s);
        b = ex2_ftz(x + 8.0f) * ((1.0f / s) * 0x1p-8f);
      } else { /* exp times 1 / s */
        a = exp2f(x) * (1.0f / s);
        b = offset(x) * (1.0f / s);
      }
      int d = abs((int)bf16(a) - (int)bf16(b));
      one += d == 1;
      more += d > 1;
      lost += bf16(b) == 0 && bf16(a) != 0;
    }
    printf("%s: %ld differ by more than one ulp, %ld lost, %ld of %ld by one\n", form[f], more,
           lost, one, n);
  }
  return 0;
}
