/* host-ref.c - the plain C softmax host-bench compares against: f32, row by
 * row, three passes (max; sum of expf(x - max) written to y; y *= 1 / sum),
 * as a programmer would write it. Compiled with -O3 (and the machine's
 * -march=native when the compiler takes it) by CMakeLists.txt. */
#include <math.h>
#include <stdint.h>

void host_ref_softmax(const float *x, float *y, int64_t rows, int64_t n);

void host_ref_softmax(const float *x, float *y, int64_t rows, int64_t n) {
  for (int64_t r = 0; r < rows; r++, x += n, y += n) {
    float m = -INFINITY, s = 0;
    for (int64_t c = 0; c < n; c++)
      m = x[c] > m ? x[c] : m;
    for (int64_t c = 0; c < n; c++)
      s += y[c] = expf(x[c] - m);
    float inv = 1.0f / s;
    for (int64_t c = 0; c < n; c++)
      y[c] *= inv;
  }
}
