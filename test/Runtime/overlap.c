// Outputs that share memory with another tensor (runtime.h, sgrt_kernel_launch):
// an output that is the same view as an input (data, dtype, rows, strides) runs
// in place; any other overlap of an output with an input or another output is
// refused, naming both tensors. Rows-layout views of the same row pitch are
// judged row by row (the two halves of a [M, 2N] buffer interleave without
// sharing a byte), others by their byte ranges. Descriptors only: the fake
// driver computes nothing (FAKE_CUDA_NOEXEC) and addresses are made up.
// RUN: %cc -std=c11 -I%include -I%S/Inputs %s -L%rtlib -lsoftgen_rt -Wl,-rpath,%rtlib -o %t
// RUN: rm -f %t.log
// RUN: env SOFTGEN_CUDA_LIBRARY=%fake_cuda FAKE_CUDA_LOG=%t.log FAKE_CUDA_NOEXEC=1 %t | FileCheck %s
// RUN: FileCheck --check-prefix=LOG %s < %t.log
#include "rt_test.h"

#define BASE ((uintptr_t)1 << 32)
#define N 1024

static sgrt_tensor view(uintptr_t at, int64_t rows, int64_t stride, sg_dtype dt) {
  return (sgrt_tensor){(void *)at, rows, N, stride, dt, 0, 0};
}

static void launch(sgrt_kernel *k, const char *what, sgrt_tensor *t, int nt) {
  sg_diag d;
  report(what, sgrt_kernel_launch(k, t, nt, NULL, &d), &d);
}

int main(void) {
  sgrt_runtime *rt = open_or_die(SGRT_BACKEND_CUDA);
  sg_meta m = test_meta(); /* softmax f16, x in, y out, 16-byte vectors */
  sgrt_kernel *k = load_meta(rt, &m, OBJ_TEXT, "load");
  const sg_dtype H = SG_DTYPE_F16;
  sgrt_tensor t[3];

  t[0] = view(BASE, 8, N, H), t[1] = view(BASE + (1 << 20), 8, N, H);
  launch(k, "apart", t, 2);
  t[1] = t[0];
  launch(k, "in place", t, 2);
  t[1] = view(BASE + 2 * N, 8, N, H);
  launch(k, "shifted one row", t, 2);
  t[1] = view(BASE - 2 * N, 8, N, H);
  launch(k, "shifted one row back", t, 2);
  t[1] = view(BASE + 16, 8, N, H);
  launch(k, "shifted 8 elements", t, 2);
  t[1] = view(BASE + 8 * 2 * N, 8, N, H);
  launch(k, "y just after x", t, 2);
  t[1] = view(BASE - 8 * 2 * N, 8, N, H);
  launch(k, "y just before x", t, 2);
  t[0] = view(BASE, 8, 2 * N, H), t[1] = view(BASE + 2 * N, 8, 2 * N, H);
  launch(k, "halves of [8, 2N]", t, 2);
  t[1] = view(BASE + 2 * N - 16, 8, 2 * N, H);
  launch(k, "halves 8 elements apart", t, 2);
  t[0] = view(BASE, 8, 4 * N, H), t[1] = view(BASE + 2 * N, 8, 4 * N, H);
  launch(k, "quarters 0 and 1 of [8, 4N]", t, 2);
  t[1] = view(BASE + 4 * N, 8, 4 * N, H);
  launch(k, "quarters 0 and 2 of [8, 4N]", t, 2);
  t[0] = view(BASE, 8, N, H), t[1] = view(BASE, 8, 2 * N, H);
  launch(k, "same data, other stride", t, 2);
  t[0] = view(BASE, 1, N, H), t[1] = view(BASE, 1, 2 * N, H);
  launch(k, "one row, other stride (in place)", t, 2);
  t[0] = view(BASE, 8, 2 * N, H), t[1] = view(BASE + 2 * N * 2 * 7, 8, 2 * N, H);
  launch(k, "interleaved, last row meets first", t, 2);
  t[1] = view(BASE + (3 * 2 * N + N) * 2, 8, 2 * N, H);
  launch(k, "interleaved from x's row 3 on", t, 2);
  t[0] = view(BASE, 0, N, H), t[1] = view(BASE + 2 * N, 0, N, H);
  launch(k, "no rows", t, 2);
  sgrt_kernel_destroy(k);

  /* f16 in, f32 out: the same pointer is not the same view */
  m.tensors[1].dtype = SG_DTYPE_F32;
  k = load_meta(rt, &m, OBJ_TEXT, "load f16 -> f32");
  t[0] = view(BASE, 8, 2 * N, H), t[1] = view(BASE, 8, N, SG_DTYPE_F32);
  launch(k, "same data, other dtype", t, 2);
  t[0] = view(BASE, 8, 4 * N, H), t[1] = view(BASE + 2 * N, 8, 2 * N, SG_DTYPE_F32);
  launch(k, "f16 rows, f32 rows in their gaps (same pitch)", t, 2);
  sgrt_kernel_destroy(k);
  m.tensors[1].dtype = H;

  /* x, mask (R rows repeating over M), y */
  sg_meta mm = test_meta();
  strcpy(mm.template_name, "masked");
  strcpy(mm.tensors[1].name, "mask");
  mm.tensors[1].is_output = 0;
  strcpy(mm.tensors[2].name, "y");
  mm.tensors[2].is_output = 1;
  mm.ntensors = 3;
  mm.nargs = 0;
  for (int i = 0; i < 3; i++)
    mm.args[mm.nargs++] = (sg_meta_arg){SG_ARG_TENSOR, i};
  mm.args[mm.nargs++] = (sg_meta_arg){SG_ARG_ROWS, -1};
  for (int i = 0; i < 3; i++)
    mm.args[mm.nargs++] = (sg_meta_arg){SG_ARG_STRIDE, i};
  mm.args[mm.nargs++] = (sg_meta_arg){SG_ARG_ROWS, 1};
  k = load_meta(rt, &mm, OBJ_TEXT, "load masked");
  t[0] = view(BASE, 8, N, H), t[1] = view(BASE + (1 << 20), 2, N, H), t[2] = t[0];
  launch(k, "y in place of x, mask apart", t, 3);
  t[2] = view(BASE + (1 << 20), 8, N, H);
  launch(k, "y over the 2 repeating mask rows", t, 3);
  t[1].rows = 8;
  launch(k, "y in place of an 8-row mask", t, 3);
  t[0] = view(BASE + (1 << 24), 8, N, H), t[1] = view(BASE + 2 * N, 1, N, H);
  t[2] = view(BASE, 8, 2 * N, H);
  launch(k, "one mask row in y's gap", t, 3);
  t[1] = view(BASE + 2 * 2 * N, 1, N, H);
  launch(k, "one mask row on y's row 1", t, 3);
  sgrt_kernel_destroy(k);

  /* two outputs: y1 and y2 */
  sg_meta m2 = mm;
  strcpy(m2.tensors[1].name, "y1");
  m2.tensors[1].is_output = 1;
  strcpy(m2.tensors[2].name, "y2");
  m2.nargs = 7;
  k = load_meta(rt, &m2, OBJ_TEXT, "load two outputs");
  t[0] = view(BASE, 8, 2 * N, H), t[1] = view(BASE + 2 * N, 8, 2 * N, H);
  t[2] = view(BASE + (1 << 20), 8, N, H);
  launch(k, "apart", t, 3);
  t[2] = t[1];
  launch(k, "y2 is y1", t, 3);
  t[1] = t[0], t[2] = view(BASE + (1 << 20), 8, N, H);
  launch(k, "y1 in place of x", t, 3);
  sgrt_kernel_destroy(k);

  /* the inner layout: byte ranges */
  sg_meta mi = test_meta();
  mi.layout = SG_LAYOUT_INNER;
  mi.vector_bytes = 2;
  mi.args[mi.nargs++] = (sg_meta_arg){SG_ARG_INNER, -1};
  mi.args[mi.nargs++] = (sg_meta_arg){SG_ARG_NSTRIDE, 0};
  mi.args[mi.nargs++] = (sg_meta_arg){SG_ARG_NSTRIDE, 1};
  k = load_meta(rt, &mi, OBJ_TEXT, "load inner");
  t[0] = (sgrt_tensor){(void *)BASE, 12, N, 4 * N, H, 4, 0};
  t[1] = t[0];
  launch(k, "inner in place", t, 2);
  t[1].n_stride = 4;
  launch(k, "inner in place, n_stride given", t, 2);
  t[1].data = (void *)(BASE + 2);
  launch(k, "inner shifted one element", t, 2);
  t[1].data = (void *)(BASE + 3 * 4 * N * 2);
  launch(k, "inner just after", t, 2);
  t[0].n_stride = t[1].n_stride = 8, t[0].row_stride = t[1].row_stride = 8 * N;
  t[1].data = (void *)(BASE + 8);
  launch(k, "inner interleaved (judged by bytes)", t, 2);
  sgrt_kernel_destroy(k);
  sgrt_close(rt);
  return 0;
}
// CHECK: load: SG_OK
// CHECK-NEXT: apart: SG_OK
// CHECK-NEXT: in place: SG_OK
// CHECK-NEXT: shifted one row: SG_ERR_INVALID_ARGUMENT: tensor 'y' (#1) overlaps input 'x' (#0): an output must be the same view as an input (in place: same data, dtype, rows and strides) or share no memory with any other tensor
// CHECK-NEXT: shifted one row back: SG_ERR_INVALID_ARGUMENT: tensor 'y' (#1) overlaps input 'x' (#0)
// CHECK-NEXT: shifted 8 elements: SG_ERR_INVALID_ARGUMENT: tensor 'y' (#1) overlaps input 'x' (#0)
// CHECK-NEXT: y just after x: SG_OK
// CHECK-NEXT: y just before x: SG_OK
// CHECK-NEXT: halves of [8, 2N]: SG_OK
// CHECK-NEXT: halves 8 elements apart: SG_ERR_INVALID_ARGUMENT: tensor 'y' (#1) overlaps input 'x' (#0)
// CHECK-NEXT: quarters 0 and 1 of [8, 4N]: SG_OK
// CHECK-NEXT: quarters 0 and 2 of [8, 4N]: SG_OK
// CHECK-NEXT: same data, other stride: SG_ERR_INVALID_ARGUMENT: tensor 'y' (#1) overlaps input 'x' (#0)
// CHECK-NEXT: one row, other stride (in place): SG_OK
// CHECK-NEXT: interleaved, last row meets first: SG_ERR_INVALID_ARGUMENT: tensor 'y' (#1) overlaps input 'x' (#0)
// CHECK-NEXT: interleaved from x's row 3 on: SG_OK
// CHECK-NEXT: no rows: SG_OK
// CHECK-NEXT: load f16 -> f32: SG_OK
// CHECK-NEXT: same data, other dtype: SG_ERR_INVALID_ARGUMENT: tensor 'y' (#1) overlaps input 'x' (#0)
// CHECK-NEXT: f16 rows, f32 rows in their gaps (same pitch): SG_OK
// CHECK-NEXT: load masked: SG_OK
// CHECK-NEXT: y in place of x, mask apart: SG_OK
// CHECK-NEXT: y over the 2 repeating mask rows: SG_ERR_INVALID_ARGUMENT: tensor 'y' (#2) overlaps input 'mask' (#1)
// CHECK-NEXT: y in place of an 8-row mask: SG_OK
// CHECK-NEXT: one mask row in y's gap: SG_OK
// CHECK-NEXT: one mask row on y's row 1: SG_ERR_INVALID_ARGUMENT: tensor 'y' (#2) overlaps input 'mask' (#1)
// CHECK-NEXT: load two outputs: SG_OK
// CHECK-NEXT: apart: SG_OK
// CHECK-NEXT: y2 is y1: SG_ERR_INVALID_ARGUMENT: tensor 'y1' (#1) is the same memory as output 'y2' (#2): two outputs cannot share it
// CHECK-NEXT: y1 in place of x: SG_ERR_INVALID_ARGUMENT: tensor 'y1' (#1) is the same view as input 'x' (#0): in place needs a kernel with one output, kernel 'softgen_softmax_f16_n1024' has 2
// CHECK-NEXT: load inner: SG_OK
// CHECK-NEXT: inner in place: SG_OK
// CHECK-NEXT: inner in place, n_stride given: SG_OK
// CHECK-NEXT: inner shifted one element: SG_ERR_INVALID_ARGUMENT: tensor 'y' (#1) overlaps input 'x' (#0)
// CHECK-NEXT: inner just after: SG_OK
// CHECK-NEXT: inner interleaved (judged by bytes): SG_ERR_INVALID_ARGUMENT: tensor 'y' (#1) overlaps input 'x' (#0)
// LOG-COUNT-17: cuLaunchKernel
// LOG-NOT: cuLaunchKernel
