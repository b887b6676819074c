/* _launch.c - softgen._launch, the wheel's one C extension (CPython's limited API,
 * 3.9 on: one abi3 build serves every CPython): the dense launch of the hot path
 * (Kernel._launch_dense) without ctypes' per-argument conversions, about a
 * microsecond of a call that costs 10 (test/wheel/RESULTS.md).
 *
 * Needs: nothing linked; the address of libsoftgen_rt's sgrt_kernel_launch_dense,
 * given once by init() (the package loads the runtime with ctypes).
 * Produces: init(address) and dense(handle, rows, stream, t0, t1, t2) -> the
 * sg_status (int) of sgrt_kernel_launch_dense(handle, rows, stream, NULL, t0, t1,
 * t2); pointers are ints (0 for none). Built by python/wheel.cmake only; without
 * it the package calls the same function through ctypes. */
#define Py_LIMITED_API 0x03090000
#include <Python.h>
#include <stdint.h>

typedef int (*launch_fn)(void *k, int64_t rows, void *stream, void *diag, void *t0, void *t1,
                         void *t2);
static launch_fn launch_dense;

static PyObject *init(PyObject *self, PyObject *args) {
  (void)self;
  unsigned long long address;
  if (!PyArg_ParseTuple(args, "K", &address))
    return NULL;
  if (!address) {
    PyErr_SetString(PyExc_ValueError, "softgen._launch.init: null function address");
    return NULL;
  }
  launch_dense = (launch_fn)(uintptr_t)address;
  Py_RETURN_NONE;
}

static PyObject *dense(PyObject *self, PyObject *args) {
  (void)self;
  unsigned long long k, stream, t0, t1, t2;
  long long rows;
  if (!PyArg_ParseTuple(args, "KLKKKK", &k, &rows, &stream, &t0, &t1, &t2))
    return NULL;
  if (!launch_dense) {
    PyErr_SetString(PyExc_RuntimeError, "softgen._launch.dense: init() was not called");
    return NULL;
  }
  int st = launch_dense((void *)(uintptr_t)k, rows, (void *)(uintptr_t)stream, NULL,
                        (void *)(uintptr_t)t0, (void *)(uintptr_t)t1, (void *)(uintptr_t)t2);
  return PyLong_FromLong(st);
}

static PyMethodDef methods[] = {
    {"init", init, METH_VARARGS, "init(address): sgrt_kernel_launch_dense's address"},
    {"dense", dense, METH_VARARGS,
     "dense(handle, rows, stream, t0, t1, t2) -> sg_status: sgrt_kernel_launch_dense"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_launch",
                                    "softgen's dense launch without ctypes", -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__launch(void) { return PyModule_Create(&module); }
