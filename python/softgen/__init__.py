"""softgen: softmax kernels for PyTorch, CuPy and any __cuda_array_interface__ array.

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
    y = k(x)                      # output allocated like x (torch / CuPy)
    k(x, out=y, stream=s)         # s: int handle, torch.cuda.Stream, CuPy stream
    k(x, dim=1)                   # an inner-layout kernel (softgen --layout inner): softmax
                                  # over dim 1 of x, whose later dims are contiguous

Arrays: torch tensors are read directly (data_ptr, dtype, stride: bf16 works);
anything else through __cuda_array_interface__ (typestr <f2, <f4; bf16 as
"<V2" is accepted when the object says dtype bfloat16). Shape [M, N], or more
dims whose leading dims view as rows; the last dim must have stride 1. Kernels of
the inner layout (k.layout == "inner") take the reduced dim `dim` instead: the
dims after it are contiguous (they are `inner`), those before it view as one
outer index (_inner_view).
Errors from the runtime raise softgen.Error (a RuntimeError); argument
mismatches raise ArgumentError, which is both an Error and a ValueError.
"""
import atexit
import ctypes
import sys

from . import _rt

__all__ = ["load", "Kernel", "Error", "ArgumentError", "UnsupportedError", "softmax",
           "log_softmax", "softmax_backward", "log_softmax_backward", "compile", "preload",
           "cache_info", "cache_clear", "version"]


class Error(RuntimeError):
    """A softgen runtime failure; .status is the sg_status name."""

    def __init__(self, message, status="SG_ERR"):
        super().__init__(message)
        self.status = status


class ArgumentError(Error, ValueError):
    """Tensors that do not match the kernel (dtype, N, rows, strides, alignment)."""


class UnsupportedError(Error, NotImplementedError):
    """A valid request softgen does not do (e.g. dim other than the last on a non-torch array)."""


_shutting_down = False
_runtimes = {}


@atexit.register
def _shutdown():
    global _shutting_down
    _shutting_down = True


def _raise(status, diag):
    name = _rt.STATUS_NAMES[status] if 0 <= status < len(_rt.STATUS_NAMES) else str(status)
    msg = diag.message.decode(errors="replace")
    if status in (_rt.SG_ERR_MISMATCH, _rt.SG_ERR_INVALID_ARGUMENT):
        raise ArgumentError(msg, name)
    raise Error(f"{name}: {msg}", name)


def _runtime(backend, device):
    key = (backend, device)
    if key not in _runtimes:
        rt = ctypes.c_void_p()
        diag = _rt.Diag()
        st = _rt.lib.sgrt_open(_rt.BACKENDS[backend], device, ctypes.byref(rt), ctypes.byref(diag))
        if st:
            _raise(st, diag)
        _runtimes[key] = rt
    return _runtimes[key]


def _is_torch(x):
    return type(x).__module__.startswith("torch") and hasattr(x, "data_ptr")


def _is_cupy(x):
    return type(x).__module__.startswith("cupy")


_TORCH_DTYPES = {"torch.float16": _rt.DTYPE_F16, "torch.bfloat16": _rt.DTYPE_BF16,
                 "torch.float32": _rt.DTYPE_F32}
_TYPESTRS = {"<f2": _rt.DTYPE_F16, "<f4": _rt.DTYPE_F32}


def _rows_view(shape, strides, what):
    """(rows, cols, row_stride) of an array viewed as 2-D; strides in elements."""
    if len(shape) < 2:
        raise ValueError(f"{what}: need a [M, N] array (or more dims), got shape {tuple(shape)}")
    cols = shape[-1]
    if strides[-1] != 1 and cols > 1:
        raise ValueError(f"{what}: rows must be contiguous (last-dim stride {strides[-1]}, need 1)")
    rows = 1
    for s in shape[:-1]:
        rows *= s
    row_stride = strides[-2]
    for i in range(len(shape) - 3, -1, -1):  # leading dims must nest into rows
        if shape[i] > 1 and strides[i] != strides[i + 1] * shape[i + 1]:
            raise ValueError(f"{what}: leading dims of shape {tuple(shape)} cannot be viewed as "
                             f"rows (strides {tuple(strides)})")
    if rows <= 1 and row_stride < cols:
        row_stride = cols
    return rows, cols, row_stride


def _inner_view(shape, strides, dim, what):
    """(rows, cols, row_stride, inner, n_stride) of an array seen as [outer, N, inner]
    for a reduction over dim (the inner layout; strides in elements): the dims after
    dim must be contiguous (inner = their product), the dims before it must nest into
    one outer index, and dim's stride must be at least inner. Raises ValueError."""
    nd = len(shape)
    if not 0 <= dim < nd:
        raise ValueError(f"{what}: dim {dim} out of range for shape {tuple(shape)}")
    inner = 1
    for j in range(nd - 1, dim, -1):
        if shape[j] > 1 and strides[j] != inner:
            raise ValueError(f"{what}: the dims after dim {dim} of shape {tuple(shape)} are not "
                             f"contiguous (strides {tuple(strides)})")
        inner *= shape[j]
    cols = shape[dim]
    n_stride = strides[dim] if cols > 1 else inner
    if n_stride < inner:
        raise ValueError(f"{what}: dim {dim} has stride {n_stride}, less than the {inner} "
                         "elements of the dims after it")
    outer, outer_stride = 1, None
    for j in range(dim - 1, -1, -1):
        if shape[j] == 1:
            continue
        if outer_stride is not None and strides[j] != outer_stride * outer:
            raise ValueError(f"{what}: the dims before dim {dim} of shape {tuple(shape)} cannot "
                             f"be viewed as one (strides {tuple(strides)})")
        if outer_stride is None:
            outer_stride = strides[j]
        outer *= shape[j]
    if outer_stride is None or outer <= 1:
        outer_stride = (cols - 1) * n_stride + inner
    return outer * inner, cols, outer_stride, inner, n_stride


def _describe(x, what, dim=None):
    """(sgrt Tensor, device ordinal or None) for a torch tensor or CAI array; dim:
    an inner-layout kernel's reduced dim (None: rows)."""
    if _is_torch(x):
        name = str(x.dtype)
        if name not in _TORCH_DTYPES:
            raise TypeError(f"{what}: dtype {name} not supported (float16, bfloat16, float32)")
        dtype = _TORCH_DTYPES[name]
        if x.device.type != "cuda":
            raise ValueError(f"{what}: tensor is on {x.device}, not a GPU")
        if dim is not None:
            view = _inner_view(list(x.shape), list(x.stride()), dim % max(x.dim(), 1), what)
            return _rt.Tensor(x.data_ptr(), view[0], view[1], view[2], dtype, view[3],
                              view[4]), x.device.index
        rows, cols, rs = _rows_view(list(x.shape), list(x.stride()), what)
        return _rt.Tensor(x.data_ptr(), rows, cols, rs, dtype), x.device.index
    cai = getattr(x, "__cuda_array_interface__", None)
    if cai is None:
        raise TypeError(f"{what}: {type(x).__name__} is neither a torch tensor nor has "
                        "__cuda_array_interface__")
    typestr = cai["typestr"]
    if typestr in _TYPESTRS:
        dtype = _TYPESTRS[typestr]
    elif typestr == "<V2" and "bfloat16" in str(getattr(x, "dtype", "")):
        dtype = _rt.DTYPE_BF16
    else:
        raise TypeError(f"{what}: typestr {typestr!r} not supported ('<f2', '<f4', bfloat16)")
    size = _rt.DTYPE_SIZES[dtype]
    shape = list(cai["shape"])
    if cai.get("strides") is None:
        strides, acc = [], 1
        for s in reversed(shape):
            strides.insert(0, acc)
            acc *= s
    else:
        if any(s % size for s in cai["strides"]):
            raise ValueError(f"{what}: strides {cai['strides']} are not whole elements")
        strides = [s // size for s in cai["strides"]]
    device = None
    if _is_cupy(x):
        device = x.device.id
    elif hasattr(x, "device") and isinstance(getattr(x, "device"), int):
        device = x.device
    if dim is not None:
        view = _inner_view(shape, strides, dim % max(len(shape), 1), what)
        return _rt.Tensor(cai["data"][0] or None, view[0], view[1], view[2], dtype, view[3],
                          view[4]), device
    rows, cols, rs = _rows_view(shape, strides, what)
    return _rt.Tensor(cai["data"][0] or None, rows, cols, rs, dtype), device


def _stream_handle(stream, first, device):
    if stream is None:
        if _is_torch(first):
            import torch
            return torch.cuda.current_stream(device).cuda_stream
        if _is_cupy(first):
            import cupy
            return cupy.cuda.get_current_stream().ptr
        # __cuda_array_interface__ v3: "stream" is the producer's stream handle;
        # 1 and 2 are the legacy and per-thread default streams, which are also
        # the driver's CU_STREAM_LEGACY / CU_STREAM_PER_THREAD handles.
        cai = getattr(first, "__cuda_array_interface__", None)
        if isinstance(cai, dict) and isinstance(cai.get("stream"), int):
            return cai["stream"]
        return 0
    if isinstance(stream, int):
        return stream
    for attr in ("cuda_stream", "ptr", "handle"):
        if hasattr(stream, attr):
            return int(getattr(stream, attr))
    raise TypeError(f"stream: cannot get a handle from {type(stream).__name__}")


class Kernel:
    """One code object, loaded lazily on each device it is called for."""

    def __init__(self, image, path, device, backend, eager=True):
        """eager: load on device now (errors now); else on the first call."""
        self._image, self._path, self._backend = image, path, backend
        self._loaded = {}
        if eager:
            self._get(0 if device is None else device)
        else:
            self._meta = _meta_of(image)
        m = self._meta
        self.kernel = m.kernel.decode()
        self.template = m.template_name.decode()
        self.target, self.arch = m.target.decode(), m.arch.decode()
        self.n, self.block, self.rows_per_block = m.n, m.block, m.rows_per_block
        self.cluster, self.vector_bytes = m.cluster, m.vector_bytes
        self.layout = _rt.LAYOUT_NAMES[m.layout] if 0 <= m.layout < 2 else str(m.layout)
        self.tensors = [(m.tensors[i].name.decode(), bool(m.tensors[i].is_output),
                         _rt.DTYPE_NAMES[m.tensors[i].dtype]) for i in range(m.ntensors)]

    def _get(self, device):
        if device not in self._loaded:
            rt = _runtime(self._backend, device)
            k = ctypes.c_void_p()
            diag = _rt.Diag()
            if self._image is None:
                st = _rt.lib.sgrt_kernel_load_file(rt, self._path.encode(), ctypes.byref(k),
                                                   ctypes.byref(diag))
            else:
                st = _rt.lib.sgrt_kernel_load_data(rt, self._image, len(self._image),
                                                   ctypes.byref(k), ctypes.byref(diag))
            if st:
                _raise(st, diag)
            self._loaded[device] = k
            self._meta = _rt.lib.sgrt_kernel_meta(k).contents
        return self._loaded[device]

    def __repr__(self):
        return (f"<softgen.Kernel {self.kernel} {self.template} n={self.n} {self.arch} "
                f"layout={self.layout} tensors={self.tensors}>")

    @property
    def image(self):
        """The code object's bytes (read from its file when loaded from a path)."""
        if self._image is None:
            with open(self._path, "rb") as f:
                return f.read()
        return self._image

    def save(self, path):
        """Writes the code object to path (e.g. for softgen-run or preload)."""
        with open(path, "wb") as f:
            f.write(self.image)

    def __call__(self, *inputs, out=None, stream=None, dim=None):
        """Launches on inputs (in template order) into out (allocated like the first
        input when None). dim: for an inner-layout kernel, the reduced dim (default 1
        for 3-D arrays [outer, N, inner]); rows-layout kernels take none."""
        ins = [t for t in self.tensors if not t[1]]
        outs = [t for t in self.tensors if t[1]]
        if len(inputs) != len(ins):
            raise TypeError(f"{self.kernel} takes {len(ins)} input(s) "
                            f"({', '.join(t[0] for t in ins)}), got {len(inputs)}")
        if out is None:
            x = inputs[0]
            if _is_torch(x):
                import torch
                out = [torch.empty_like(x, dtype=getattr(torch, _torch_name(t[2])))
                       for t in outs]
            elif _is_cupy(x):
                import cupy
                out = [cupy.empty_like(x) for t in outs]
            else:
                raise TypeError("out= is required unless the input is a torch or CuPy array")
        if self.layout == "inner" and dim is None:
            x0 = inputs[0]
            nd = len(x0.shape if _is_torch(x0) else x0.__cuda_array_interface__["shape"])
            if nd != 3:
                raise TypeError(f"{self.kernel} has the inner layout: give dim= (the reduced dim "
                                f"of the {nd}-d input)")
            dim = 1
        if self.layout != "inner" and dim is not None:
            raise TypeError(f"{self.kernel} has the rows layout (it reduces the last dim): no dim=")
        single = not isinstance(out, (list, tuple))
        outs_given = [out] if single else list(out)
        if len(outs_given) != len(outs):
            raise TypeError(f"{self.kernel} has {len(outs)} output(s), got {len(outs_given)}")
        arrays, it_in, it_out = [], iter(inputs), iter(outs_given)
        for name, is_out, _ in self.tensors:
            arrays.append((name, next(it_out) if is_out else next(it_in)))
        tensors = (_rt.Tensor * len(arrays))()
        device = None
        for i, (name, a) in enumerate(arrays):
            t, dev = _describe(a, f"tensor '{name}'", dim)
            if dev is not None:
                if device is not None and dev != device:
                    raise ValueError(f"tensor '{name}' is on device {dev}, others on {device}")
                device = dev
            tensors[i] = t
        device = 0 if device is None else device
        k = self._get(device)
        handle = _stream_handle(stream, inputs[0], device)
        diag = _rt.Diag()
        st = _rt.lib.sgrt_kernel_launch(k, tensors, len(arrays), ctypes.c_void_p(handle or None),
                                        ctypes.byref(diag))
        if st:
            _raise(st, diag)
        return out if single or len(outs_given) > 1 else outs_given[0]

    def __del__(self):
        if _shutting_down or sys is None:
            return
        for k in getattr(self, "_loaded", {}).values():
            _rt.lib.sgrt_kernel_destroy(k)


def _meta_of(image):
    """The launch metadata of a code object in memory (no device needed)."""
    meta, diag = _rt.Meta(), _rt.Diag()
    st = _rt.lib.sg_meta_find(image, len(image), ctypes.byref(meta), ctypes.byref(diag))
    if st:
        _raise(st, diag)
    return meta


def _torch_name(dtype):
    return {"f16": "float16", "bf16": "bfloat16", "f32": "float32"}[dtype]


def load(path_or_bytes, device=None, backend="auto"):
    """Loads a code object from a path or bytes; checks it on device (default 0)."""
    if backend not in _rt.BACKENDS:
        raise ValueError(f"backend must be one of {sorted(_rt.BACKENDS)}")
    if isinstance(path_or_bytes, (bytes, bytearray)):
        return Kernel(bytes(path_or_bytes), None, device, backend)
    return Kernel(None, str(path_or_bytes), device, backend)


from .functional import (softmax, log_softmax, softmax_backward, log_softmax_backward,  # noqa: E402
                         compile, preload, cache_info, cache_clear, version)
