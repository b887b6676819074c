"""softgen: softmax kernels for PyTorch, CuPy and any __cuda_array_interface__ array
on a GPU, and for numpy arrays and CPU tensors on the CPU (the host target).

The torch-like functions (functional.py; compile on first use, cached in
memory and on disk):

    y = softgen.softmax(x, dim=-1)            # like torch.softmax(x, -1)
    y = softgen.log_softmax(x, dim=-1, dtype=torch.float32)
    dx = softgen.softmax_backward(dy, y)      # dx = y * (dy - sum(dy * y))
    dx = softgen.log_softmax_backward(dy, y)  # dx = dy - exp(y) * sum(dy)
    k = softgen.compile("softmax", N=8192, dtype="bf16", arch="sm_90")   # ahead of time
    softgen.preload("kernels/")               # prebuilt code objects, no compiler needed

Needs: libsoftgen_rt.so and, to compile, libsoftgen.so (see _rt.find_library for
how they are found: $SOFTGEN_LIB_DIR, bundled, the build tree, an install) and a
GPU driver, or the test doubles. Code objects from files or bytes:

    k = softgen.load("softmax.cubin", device=None, backend="auto")
    y = k(x)                      # output allocated like x (torch / CuPy / numpy)
    k(x, out=y, stream=s)         # s: int handle, torch.cuda.Stream, CuPy stream
    k(x, dim=1)                   # an inner-layout kernel (softgen --layout inner): softmax
                                  # over dim 1 of x, whose later dims are contiguous

The host target (no GPU): numpy arrays and CPU tensors run kernels compiled for
target "host" on this machine's CPU through the runtime's host backend (JIT-ed
in process by libsoftgen, or a `softgen --target host --emit so` library given
to load()); set_host_threads(n) or $SOFTGEN_HOST_THREADS sets the CPU threads.

Arrays: torch tensors are read directly (data_ptr, dtype, stride: bf16 works);
anything else through __cuda_array_interface__ (typestr <f2, <f4; bf16 as
"<V2" is accepted when the object says dtype bfloat16). Shape [M, N], or more
dims whose leading dims view as rows; the last dim must have stride 1. Kernels of
the inner layout (k.layout == "inner") take the reduced dim `dim` instead: the
dims after it are contiguous (they are `inner`), those before it view as one
outer index (_inner_view).
Errors from the runtime raise softgen.Error (a RuntimeError); argument
mismatches raise ArgumentError, which is both an Error and a ValueError. Every
integer that crosses into C (N, scalars, device, thread counts, shapes and
strides) is checked first: TypeError for bools, floats and other non-integers,
ValueError out of the C side's range (ctypes would truncate them silently).

Overlap (the runtime's rule, as PyTorch's out=): an output may be the same view
as an input (in place); any other sharing of memory between an output and
another array is refused with ArgumentError naming both.

Alignment: a kernel reads whole vectors, so each array's base and row stride
must be a multiple of its vector (k.vector_bytes scaled to its dtype). An array
that is not (a numpy array, a view at an odd offset such as x[1:] of a flat
buffer) goes through an aligned copy: numpy arrays and CPU tensors on the host
(cache_info()["host_copies"]), torch CUDA tensors and CuPy arrays on the GPU on
the launch's stream (cache_info()["device_copies"]; outputs are copied back).
Other __cuda_array_interface__ arrays raise ArgumentError. GPU kernels whose N the
16-byte vector does not divide take any element-aligned view in place (vector_bytes
is the element size: each row aligns itself).
"""
# The modules, top to bottom: each imports only modules below it (no cycle). The
# middle column lists all a module imports from the package; test/Python/
# module-graph.py checks this table against the import statements.
#
#   module      imports                                       holds
#   __init__    _errors _kernel functional attention _torchops the public API (re-exports)
#   _torchops   functional attention _kernel                  torch.library ops, autograd
#   attention   functional _kernel _arrays _errors            attention_softmax
#   functional  _kernel _host _arrays _errors _files _cc _rt  softmax & co., compile, preload
#   _kernel     _host _arrays _errors _files _cc _rt _launch  Kernel, load, runtime handles
#   _host       _arrays                                       host outputs and copies
#   _arrays     _errors _rt                                   array kinds, dtypes, views
#   _errors     _rt                                           Error & co., _raise, _int_arg
#   _cc         _rt                                           ctypes: libsoftgen (compiler)
#   _files      -                                             bounded reads, atomic writes
#   _launch     -                                             (C, _launch.c) the dense launch
#   _rt         -                                             ctypes: libsoftgen_rt (runtime)
#
# CuPy and numpy are imported inside functions, only when such an array is
# passed; torch, when it is installed, at import: _torchops registers softgen's ops
# with it (torch.ops.softgen.*), which torch.compile needs before it traces a call.
from ._errors import ArgumentError, Error, UnsupportedError
from ._kernel import Kernel, load, set_host_threads
from .functional import (cache_clear, cache_info, compile, log_softmax, log_softmax_backward,
                         preload, softmax, softmax_backward, version)
from .attention import attention_softmax


def _register_torch_ops():
    import importlib.util
    try:
        if importlib.util.find_spec("torch") is None:
            return None
    except (ImportError, ValueError):
        return None
    try:
        import torch  # noqa: F401  (an install that cannot import: numpy & co. still work)
    except Exception:  # noqa: BLE001
        return None
    from . import _torchops
    return _torchops


_register_torch_ops()
del _register_torch_ops

__all__ = ["load", "Kernel", "Error", "ArgumentError", "UnsupportedError", "softmax",
           "attention_softmax",
           "log_softmax", "softmax_backward", "log_softmax_backward", "compile", "preload",
           "cache_info", "cache_clear", "version", "set_host_threads"]
