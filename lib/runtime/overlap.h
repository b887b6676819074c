/* overlap.h - whether a launch's outputs share memory with its other tensors
 * (overlap.c). Internal to libsoftgen_rt.
 *
 * Needs: softgen/runtime.h. Produces: rt_check_overlap. */
#ifndef SOFTGEN_RUNTIME_OVERLAP_H
#define SOFTGEN_RUNTIME_OVERLAP_H

#include "softgen/runtime.h"

/* The rule of runtime.h (sgrt_kernel_launch): an output is either the same view
 * as an input (in place: same data, dtype, rows and strides), allowed when the
 * kernel has one output, or shares no byte with any other tensor. t: the
 * m->ntensors tensors, already validated (dtype, cols, rows, strides, sizes
 * that do not overflow: check_tensors in runtime.c). SG_ERR_INVALID_ARGUMENT
 * naming both tensors otherwise. */
sg_status rt_check_overlap(const sg_meta *m, const sgrt_tensor *t, sg_diag *diag);

#endif
