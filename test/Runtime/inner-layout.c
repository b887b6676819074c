// The inner layout (metadata "layout inner"): sgrt_tensor's inner and n_stride
// are checked against the metadata (named errors) and passed as the kernel's
// "arg inner" / "arg nstride T" in arg order, with their defaults (inner 0 ->
// 1, n_stride 0 -> inner); the driver double computes the softmax in that
// layout, so the marshalled arguments address the right elements.
// RUN: %cc -std=c11 -I%include -I%S/Inputs %s -L%rtlib -lsoftgen_rt -Wl,-rpath,%rtlib -lm -o %t
// RUN: rm -f %t.log
// RUN: env SOFTGEN_CUDA_LIBRARY=%fake_cuda FAKE_CUDA_LOG=%t.log %t | FileCheck %s
// RUN: FileCheck --check-prefix=LOG %s < %t.log
#include <math.h>

#include "rt_test.h"
#include "../../tools/common/host_elems.h"

/* softmax f32, n 8, layout inner; args in an unusual order: inner first. */
static sg_meta inner_meta(void) {
  sg_meta m = test_meta();
  strcpy(m.kernel, "softgen_softmax_f32_n8_inner");
  m.n = 8;
  m.rows_per_block = 256;
  m.smem = 0;
  m.vector_bytes = 4;
  m.tensors[0].dtype = m.tensors[1].dtype = SG_DTYPE_F32;
  m.layout = SG_LAYOUT_INNER;
  m.args[0] = (sg_meta_arg){SG_ARG_INNER, -1};
  m.args[1] = (sg_meta_arg){SG_ARG_TENSOR, 0};
  m.args[2] = (sg_meta_arg){SG_ARG_TENSOR, 1};
  m.args[3] = (sg_meta_arg){SG_ARG_ROWS, -1};
  m.args[4] = (sg_meta_arg){SG_ARG_STRIDE, 0};
  m.args[5] = (sg_meta_arg){SG_ARG_STRIDE, 1};
  m.args[6] = (sg_meta_arg){SG_ARG_NSTRIDE, 1};
  m.args[7] = (sg_meta_arg){SG_ARG_NSTRIDE, 0};
  m.nargs = 8;
  return m;
}

static float xs[4096], ys[4096];

/* Launches softmax over N of x [outer, 8, inner] (n_stride ns, outer stride os;
 * ns 0: the default) and reports the largest error against a float64 softmax
 * and whether anything outside the view was written. */
static void run(sgrt_kernel *k, const char *what, int64_t outer, int64_t inner, int64_t ns,
                int64_t os) {
  int64_t nsr = ns ? ns : inner, span = (outer - 1) * os + 7 * nsr + inner;
  for (int64_t e = 0; e < span; e++) {
    xs[e] = (float)((e * 37) % 11) * 0.5f - 2;
    ys[e] = -7;
  }
  sgrt_tensor t[2] = {{xs, outer * inner, 8, os, SG_DTYPE_F32, inner, ns},
                      {ys, outer * inner, 8, os, SG_DTYPE_F32, inner, ns}};
  sg_diag d;
  sg_status st = sgrt_kernel_launch(k, t, 2, NULL, &d);
  double worst = 0;
  int64_t written = 0;
  for (int64_t o = 0; o < outer && !st; o++)
    for (int64_t i = 0; i < inner; i++) {
      double mx = -INFINITY, s = 0;
      for (int n = 0; n < 8; n++)
        mx = fmax(mx, xs[o * os + n * nsr + i]);
      for (int n = 0; n < 8; n++)
        s += exp(xs[o * os + n * nsr + i] - mx);
      for (int n = 0; n < 8; n++) {
        int64_t e = o * os + n * nsr + i;
        worst = fmax(worst, fabs(ys[e] - exp(xs[e] - mx) / s));
        written++;
      }
    }
  int64_t outside = 0;
  for (int64_t e = 0; e < span && !st; e++)
    outside += ys[e] != -7;
  printf("%s: %s%s%s", what, sg_status_name(st), st ? ": " : "", st ? d.message : "");
  if (!st)
    printf(" err<1e-6 %d, written outside the view %lld", worst < 1e-6,
           (long long)(outside - written));
  printf("\n");
}

int main(void) {
  sgrt_runtime *rt = open_or_die(SGRT_BACKEND_CUDA);
  sg_meta m = inner_meta();
  sgrt_kernel *k = load_meta(rt, &m, OBJ_TEXT, "load");
  run(k, "contiguous [3, 8, 5]", 3, 5, 0, 40);
  run(k, "padded [2, 8, 3]", 2, 3, 7, 60);
  run(k, "inner 1 (rows)", 4, 1, 0, 8);
  run(k, "inner 0 (means 1)", 4, 0, 0, 8);
  run(k, "one outer, small stride", 1, 16, 0, 0);
  sgrt_tensor t[2];
  sg_diag d;
  make_tensors(t, 15, 8, 40, SG_DTYPE_F32);
  t[0].inner = t[1].inner = 4; /* 15 rows */
  report("wrong inner", sgrt_kernel_launch(k, t, 2, NULL, &d), &d);
  t[0].inner = 5;
  t[1].inner = 3;
  report("inner differs", sgrt_kernel_launch(k, t, 2, NULL, &d), &d);
  t[1].inner = 5;
  t[0].inner = -5;
  report("negative inner", sgrt_kernel_launch(k, t, 2, NULL, &d), &d);
  t[0].inner = 5;
  t[1].n_stride = 4;
  report("n_stride too small", sgrt_kernel_launch(k, t, 2, NULL, &d), &d);
  t[1].n_stride = 0;
  t[1].row_stride = 39;
  report("row_stride too small", sgrt_kernel_launch(k, t, 2, NULL, &d), &d);
  t[1].row_stride = 40;
  t[0].n_stride = (int64_t)1 << 60;
  report("overflow", sgrt_kernel_launch(k, t, 2, NULL, &d), &d);
  t[0].n_stride = 0;
  t[0].data = (char *)t[0].data + 2;
  report("misaligned data", sgrt_kernel_launch(k, t, 2, NULL, &d), &d);
  t[0].data = (char *)t[0].data - 2;
  report("good", sgrt_kernel_launch(k, t, 2, NULL, &d), &d);
  sgrt_kernel_destroy(k);

  /* 16-bit elements under 4-byte vectors: odd strides are misaligned */
  m.tensors[0].dtype = m.tensors[1].dtype = SG_DTYPE_F16;
  k = load_meta(rt, &m, OBJ_TEXT, "load f16");
  make_tensors(t, 15, 8, 40, SG_DTYPE_F16);
  t[0].inner = t[1].inner = 5;
  report("misaligned inner", sgrt_kernel_launch(k, t, 2, NULL, &d), &d);
  t[0].inner = t[1].inner = 1;
  t[0].n_stride = 3;
  report("misaligned n_stride", sgrt_kernel_launch(k, t, 2, NULL, &d), &d);
  sgrt_kernel_destroy(k);

  /* f16 in, f32 out under the f32 output's 4-byte vectors: the input's own
   * vector is 2 bytes (sg_meta_tensor_align), so an odd inner is aligned */
  m.tensors[1].dtype = SG_DTYPE_F32;
  k = load_meta(rt, &m, OBJ_TEXT, "load f16 -> f32");
  make_tensors(t, 15, 8, 40, SG_DTYPE_F32);
  t[0].dtype = SG_DTYPE_F16;
  t[0].inner = t[1].inner = 5;
  for (int e = 0; e < 120; e++)
    sg_host_put(t[0].data, (size_t)e, SG_DTYPE_F16, (double)((e * 37) % 11) * 0.5 - 2);
  sg_status st = sgrt_kernel_launch(k, t, 2, NULL, &d);
  double worst = 0;
  for (int o = 0; o < 3 && !st; o++)
    for (int i = 0; i < 5; i++) {
      double mx = -INFINITY, s = 0;
      for (int n = 0; n < 8; n++)
        mx = fmax(mx, sg_host_get(t[0].data, (size_t)(o * 40 + n * 5 + i), SG_DTYPE_F16));
      for (int n = 0; n < 8; n++)
        s += exp(sg_host_get(t[0].data, (size_t)(o * 40 + n * 5 + i), SG_DTYPE_F16) - mx);
      for (int n = 0; n < 8; n++) {
        size_t e = (size_t)(o * 40 + n * 5 + i);
        worst = fmax(worst, fabs(((float *)t[1].data)[e] -
                                 exp(sg_host_get(t[0].data, e, SG_DTYPE_F16) - mx) / s));
      }
    }
  report("f16 -> f32, odd inner 5", st, &d);
  printf("f16 -> f32 err<1e-6 %d\n", !st && worst < 1e-6);
  sgrt_kernel_destroy(k);
  m.tensors[1].dtype = SG_DTYPE_F16;

  /* a rows-layout kernel takes no inner layout */
  sg_meta rows = test_meta();
  k = load_meta(rt, &rows, OBJ_TEXT, "load rows");
  make_tensors(t, 8, 1024, 1024, SG_DTYPE_F16);
  t[0].inner = 4;
  report("rows kernel, inner 4", sgrt_kernel_launch(k, t, 2, NULL, &d), &d);
  t[0].inner = 1;
  t[1].n_stride = 1;
  report("rows kernel, inner 1", sgrt_kernel_launch(k, t, 2, NULL, &d), &d);
  sgrt_kernel_destroy(k);
  sgrt_close(rt);
  return 0;
}
// CHECK: load: SG_OK
// CHECK-NEXT: contiguous [3, 8, 5]: SG_OK err<1e-6 1, written outside the view 0
// CHECK-NEXT: padded [2, 8, 3]: SG_OK err<1e-6 1, written outside the view 0
// CHECK-NEXT: inner 1 (rows): SG_OK err<1e-6 1, written outside the view 0
// CHECK-NEXT: inner 0 (means 1): SG_OK err<1e-6 1, written outside the view 0
// CHECK-NEXT: one outer, small stride: SG_OK err<1e-6 1, written outside the view 0
// CHECK-NEXT: wrong inner: SG_ERR_INVALID_ARGUMENT: tensor 'x' (#0): wrong inner: rows 15 (outer x inner) is not a multiple of inner 4
// CHECK-NEXT: inner differs: SG_ERR_INVALID_ARGUMENT: tensor 'y' (#1): wrong inner: 3 but tensor 'x' has 5
// CHECK-NEXT: negative inner: SG_ERR_INVALID_ARGUMENT: tensor 'x' (#0): wrong inner: inner -5 and n_stride 0 must not be negative
// CHECK-NEXT: n_stride too small: SG_ERR_INVALID_ARGUMENT: tensor 'y' (#1): n_stride 4 is too small: less than inner 5
// CHECK-NEXT: row_stride too small: SG_ERR_INVALID_ARGUMENT: tensor 'y' (#1): row_stride 39 is too small: an outer index spans (cols - 1) x n_stride + inner = 40 elements
// CHECK-NEXT: overflow: SG_ERR_INVALID_ARGUMENT: tensor 'x' (#0): outer 3 x row_stride 40, cols 8 x n_stride 1152921504606846976 overflow
// CHECK-NEXT: misaligned data: SG_ERR_MISMATCH: tensor 'x' (#0): data {{.*}} is not aligned to the kernel's vector_bytes 4
// CHECK-NEXT: good: SG_OK
// CHECK-NEXT: load f16: SG_OK
// CHECK-NEXT: misaligned inner: SG_ERR_MISMATCH: tensor 'x' (#0): misaligned: row_stride 40, n_stride 5 and inner 5 must be multiples of 4 bytes (a vector of its elements: the kernel's vector_bytes 4 scaled to its dtype)
// CHECK-NEXT: misaligned n_stride: SG_ERR_MISMATCH: tensor 'x' (#0): misaligned: row_stride 40, n_stride 3 and inner 1 must be multiples of 4 bytes (a vector of its elements: the kernel's vector_bytes 4 scaled to its dtype)
// CHECK-NEXT: load f16 -> f32: SG_OK
// CHECK-NEXT: f16 -> f32, odd inner 5: SG_OK
// CHECK-NEXT: f16 -> f32 err<1e-6 1
// CHECK-NEXT: load rows: SG_OK
// CHECK-NEXT: rows kernel, inner 4: SG_ERR_MISMATCH: tensor 'x' (#0): inner 4, n_stride 0: kernel 'softgen_softmax_f16_n1024' has the rows layout (generate one with --layout inner)
// CHECK-NEXT: rows kernel, inner 1: SG_OK
// LOG: cuLaunchKernel fn=softgen_softmax_f32_n8_inner grid=1,1,1 block=256,1,1 {{.*}} args=8 inner=5 x={{.*}} y={{.*}} M=15 stride_x=40 stride_y=40 nstride_y=5 nstride_x=5
// LOG: cuLaunchKernel fn=softgen_softmax_f32_n8_inner {{.*}} inner=3 x={{.*}} M=6 stride_x=60 stride_y=60 nstride_y=7 nstride_x=7
// LOG: cuLaunchKernel fn=softgen_softmax_f32_n8_inner {{.*}} inner=1 x={{.*}} M=4 stride_x=8 stride_y=8 nstride_y=1 nstride_x=1
