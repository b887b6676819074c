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
Other __cuda_array_interface__ arrays raise ArgumentError. The GPU copy is an
interim: kernels that take any alignment at full speed are planned.
"""
import atexit
import contextlib
import ctypes
import operator
import struct
import sys
import threading

from . import _cc, _files, _host, _rt

__all__ = ["load", "Kernel", "Error", "ArgumentError", "UnsupportedError", "softmax",
           "attention_softmax",
           "log_softmax", "softmax_backward", "log_softmax_backward", "compile", "preload",
           "cache_info", "cache_clear", "version", "set_host_threads"]


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
# Guards _runtimes and every Kernel's _loaded: threads that call at once get one
# runtime per (backend, device) and one load per kernel and device (the runtime
# itself serializes the host backend's launches).
_lock = threading.RLock()
# functional.py's counters (cache_info); host_copies: arrays copied to align them
# device_copies: torch / CuPy GPU arrays copied to align them
_stats = {"calls": 0, "memory_hits": 0, "prebuilt_hits": 0, "compiles": 0, "disk_hits": 0,
          "host_copies": 0, "device_copies": 0}


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


def _int_arg(what, v, lo, hi, range_text=None):
    """v as a Python int within [lo, hi], for a value that crosses into C: a
    TypeError for bools, floats and other non-integers, a ValueError out of
    range (ctypes would silently truncate either: N=2**64+5 would build N=5)."""
    if type(v).__name__ in ("bool", "bool_") or not hasattr(type(v), "__index__"):
        raise TypeError(f"{what} must be an integer, got {type(v).__name__} {v!r}")
    v = operator.index(v)
    if not lo <= v <= hi:
        raise ValueError(f"{what} must be {range_text or f'{lo} to {hi}'}, got {v}")
    return v


def _scalar_value(name, kind, v):
    """A kernel scalar as the double the runtime takes: an i64 scalar an integer
    within +-2^53 (the runtime's rule; larger ints would round on the way), an
    f32 scalar a real number whose float rounding does not overflow."""
    if kind == "i64":
        return float(_int_arg(f"scalar '{name}' (i64)", v, -2 ** 53, 2 ** 53, "within +-2^53"))
    if type(v).__name__ in ("bool", "bool_") or isinstance(v, complex) or \
            not hasattr(type(v), "__float__"):
        raise TypeError(f"scalar '{name}' (f32) must be a real number, got {type(v).__name__}")
    f = float(v)
    try:
        struct.pack("<f", f)
    except OverflowError:
        raise ValueError(f"scalar '{name}' (f32): {f!r} is out of f32's range") from None
    return f


_I64 = 2 ** 63 - 1


def _tensor(data, rows, cols, row_stride, dtype, inner=0, n_stride=0, what="tensor"):
    """An sgrt_tensor whose fields are checked to fit (ctypes truncates silently)."""
    if data is not None:
        _int_arg(f"{what}: data pointer", data, 0, 2 ** 64 - 1)
    vals = [_int_arg(f"{what}: {n}", v, -_I64 - 1, _I64, "within int64")
            for n, v in (("rows", rows), ("cols", cols), ("row stride", row_stride),
                         ("inner", inner), ("n_stride", n_stride))]
    return _rt.Tensor(data, vals[0], vals[1], vals[2], dtype, vals[3], vals[4])


def _runtime(backend, device):
    device = _int_arg("device", device, 0, 2 ** 31 - 1)
    key = (backend, device)
    with _lock:
        if key not in _runtimes:
            rt = ctypes.c_void_p()
            diag = _rt.Diag()
            st = _rt.lib.sgrt_open(_rt.BACKENDS[backend], device, ctypes.byref(rt),
                                   ctypes.byref(diag))
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


class _LastDimStride(ValueError):
    """A last dim with a stride other than 1 (functional.py: UnsupportedError)."""


def _rows_view(shape, strides, what):
    """(rows, cols, row_stride) of an array viewed as 2-D; strides in elements."""
    if len(shape) < 2:
        raise ValueError(f"{what}: need a [M, N] array (or more dims), got shape {tuple(shape)}")
    cols = shape[-1]
    if strides[-1] != 1 and cols > 1:
        raise _LastDimStride(f"{what}: rows must be contiguous (last-dim stride {strides[-1]}, "
                             "need 1)")
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


def _interface(x):
    """(__cuda_array_interface__ or __array_interface__ dict, "host" for the latter)."""
    cai = getattr(x, "__cuda_array_interface__", None)
    if cai is not None:
        return cai, None
    if _host.is_array(x):
        return x.__array_interface__, "host"
    raise TypeError(f"{type(x).__name__} is neither a torch tensor nor has "
                    "__cuda_array_interface__ or __array_interface__")


def _shape(x):
    return tuple(x.shape) if _is_torch(x) else tuple(_interface(x)[0]["shape"])


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


def _describe(x, what, output=False, dim=None):
    """(sgrt Tensor, place) for a torch tensor, a CAI array or a host
    (__array_interface__) array; place: "host" for host memory, else the GPU's
    ordinal or None. output: the array is written (a read-only one is refused).
    dim: an inner-layout kernel's reduced dim (None: rows)."""
    if _is_torch(x):
        name = str(x.dtype)
        if name not in _TORCH_DTYPES:
            raise TypeError(f"{what}: dtype {name} not supported (float16, bfloat16, float32)")
        dtype = _TORCH_DTYPES[name]
        if x.device.type not in ("cuda", "cpu"):
            raise ValueError(f"{what}: tensor is on {x.device}, not a GPU or the CPU")
        if dim is not None:
            view = _inner_view(list(x.shape), list(x.stride()), dim % max(x.dim(), 1), what)
            return _tensor(x.data_ptr(), view[0], view[1], view[2], dtype, view[3],
                           view[4], what=what), "host" if x.device.type == "cpu" else x.device.index
        rows, cols, rs = _rows_view(list(x.shape), list(x.stride()), what)
        place = "host" if x.device.type == "cpu" else x.device.index
        return _tensor(x.data_ptr(), rows, cols, rs, dtype, what=what), place
    try:
        cai, place = _interface(x)
    except TypeError as e:
        raise TypeError(f"{what}: {e}") from None
    if place == "host" and output and cai["data"][1]:
        raise ValueError(f"{what}: the array is read-only")
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
    if place is None and _is_cupy(x):
        place = x.device.id
    elif place is None and hasattr(x, "device") and isinstance(getattr(x, "device"), int):
        place = x.device
    if dim is not None:
        view = _inner_view(shape, strides, dim % max(len(shape), 1), what)
        return _tensor(cai["data"][0] or None, view[0], view[1], view[2], dtype, view[3],
                       view[4], what=what), place
    rows, cols, rs = _rows_view(shape, strides, what)
    return _tensor(cai["data"][0] or None, rows, cols, rs, dtype, what=what), place


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


def _target_of(image, path):
    """The target a code object's metadata names, or None (the runtime then says why)."""
    try:
        if image is None:
            image = _files.read_object(path, Error)
        return _meta_of(image).target.decode()
    except (OSError, Error):
        return None


def _copy_empty(like, dtype):
    """A C-contiguous, aligned array of like's kind (numpy / CPU tensor, torch CUDA
    tensor, CuPy array), shape, device and softgen dtype, uninitialised."""
    if _host.is_array(like) or (_is_torch(like) and like.device.type == "cpu"):
        return _host.empty(like, _shape(like), dtype)
    if _is_torch(like):  # the caching allocator aligns to 512 bytes
        import torch
        return torch.empty(tuple(like.shape), dtype=like.dtype, device=like.device)
    import cupy  # the memory pool aligns to 256 bytes
    with like.device:
        return cupy.empty(like.shape, dtype=like.dtype)


def _copy_of(a, dtype):
    """An aligned copy of a (_copy_empty, filled)."""
    t = _copy_empty(a, dtype)
    _copy_into(t, a)
    return t


def _copy_into(dst, src):
    """dst[...] = src for two arrays of one kind and shape."""
    if _host.is_array(dst) or (_is_torch(dst) and dst.device.type == "cpu"):
        _host.copy(dst, src)
    elif _is_torch(dst):
        dst.copy_(src)
    else:
        dst[...] = src


def _device_stream(first, handle, device):
    """A context making the stream `handle` current for torch or CuPy, so that a
    launch's copies are ordered with it (and their memory freed on it)."""
    if _is_torch(first):
        import torch
        if torch.cuda.current_stream(device).cuda_stream == (handle or 0):
            return contextlib.nullcontext()
        s = torch.cuda.default_stream(device) if not handle else \
            torch.cuda.ExternalStream(handle, device=torch.device("cuda", device))
        return torch.cuda.stream(s)
    import cupy
    if cupy.cuda.get_current_stream().ptr == (handle or 0):
        return contextlib.nullcontext()
    return cupy.cuda.Stream.null if not handle else cupy.cuda.ExternalStream(handle)


class Kernel:
    """One code object, loaded lazily on each device it is called for; or a
    host kernel JIT-compiled in this process (jit: its sg_jit, owned)."""

    def __init__(self, image, path, device, backend, eager=True, jit=None):
        """eager: load on device now (errors now); else on the first call.
        backend "auto" takes a host-target object to the host backend."""
        self._image, self._path, self._jit = image, path, jit
        self._loaded = {}
        if jit is not None or (backend == "auto" and _target_of(image, path) == "host"):
            backend = "host"
        self._backend = backend
        if eager or jit is not None:
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
        self.scalars = [(m.scalars[i].name.decode(), "i64" if m.scalars[i].is_i64 else "f32")
                        for i in range(m.nscalars)]

    def _get(self, device):
        with _lock:
            if device not in self._loaded:
                rt = _runtime(self._backend, device)
                k = ctypes.c_void_p()
                diag = _rt.Diag()
                if self._jit is not None:
                    cc, size = _cc.load(), ctypes.c_size_t()
                    text = cc.sg_jit_meta(self._jit, ctypes.byref(size))
                    st = _rt.lib.sgrt_kernel_load_host(rt, cc.sg_jit_kernel(self._jit), text,
                                                       size.value, ctypes.byref(k),
                                                       ctypes.byref(diag))
                elif self._image is None:
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
        if self._jit is not None:
            raise UnsupportedError(f"{self.kernel} was JIT-compiled in this process and has no "
                                   "code object; compile(..., target='host', emit='shared') "
                                   "makes a shared library", "SG_ERR_UNSUPPORTED")
        if self._image is None:
            return _files.read_object(self._path, Error)
        return self._image

    def save(self, path):
        """Writes the code object to path (e.g. for softgen-run or preload) as the
        CLI writes its outputs: complete or not at all (_files.write_atomic)."""
        _files.write_atomic(path, self.image)

    def __call__(self, *inputs, out=None, stream=None, dim=None, **scalars):
        """Launches on inputs (in template order) into out (allocated like the first
        input when None). dim: for an inner-layout kernel, the reduced dim (default 1
        for 3-D arrays [outer, N, inner]); rows-layout kernels take none. Scalars by
        name (e.g. scale=0.125, L=128, offset=0) when the kernel has scalar
        parameters (self.scalars)."""
        names = [s[0] for s in self.scalars]
        if set(scalars) != set(names):
            raise TypeError(f"{self.kernel} takes scalars ({', '.join(names) or 'none'}), got "
                            f"({', '.join(sorted(scalars)) or 'none'})")
        values = (ctypes.c_double * max(1, len(names)))(
            *[_scalar_value(n, kind, scalars[n]) for n, kind in self.scalars])
        ins = [t for t in self.tensors if not t[1]]
        outs = [t for t in self.tensors if t[1]]
        if len(inputs) != len(ins):
            raise TypeError(f"{self.kernel} takes {len(ins)} input(s) "
                            f"({', '.join(t[0] for t in ins)}), got {len(inputs)}")
        host = self.target == "host"
        if out is None:
            x = inputs[0]
            if host:
                out = [_host.empty(x, _shape(x), t[2]) for t in outs]
            elif _is_torch(x):
                import torch
                out = [torch.empty_like(x, dtype=getattr(torch, _torch_name(t[2])))
                       for t in outs]
            elif _is_cupy(x):
                import cupy
                out = [cupy.empty_like(x) for t in outs]
            else:
                raise TypeError("out= is required unless the input is a torch, CuPy or numpy array")
        if self.layout == "inner" and dim is None:
            x0 = inputs[0]
            nd = len(_shape(x0))
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
        described, device = [], None
        for i, (name, a) in enumerate(arrays):
            what, is_out = f"tensor '{name}'", self.tensors[i][1]
            t, dev = _describe(a, what, output=is_out, dim=dim)
            if dev == "host" and not host:
                raise ValueError(f"{what} is in host memory but {self.kernel} runs on a GPU "
                                 f"(target {self.target})")
            if host and dev != "host":
                raise ValueError(f"{what} is not in host memory but {self.kernel} runs on the "
                                 "CPU (target host): pass a numpy array or a CPU tensor")
            if dev is not None and dev != "host":
                if device is not None and dev != device:
                    raise ValueError(f"tensor '{name}' is on device {dev}, others on {device}")
                device = dev
            described.append(t)
        device = 0 if device is None else device
        k = self._get(device)
        handle = None if host else _stream_handle(stream, inputs[0], device)
        n = len(arrays)
        # arrays the kernel cannot take in place (alignment) go through aligned
        # copies: host arrays, and torch / CuPy GPU arrays (an interim: kernels
        # that take any alignment are planned); others reach the runtime, which
        # says why it refuses them
        copy = [i for i, (_, a) in enumerate(arrays) if described[i].rows and
                not self._aligned(described[i], i) and (host or _is_torch(a) or _is_cupy(a))]
        keep, back, diag = [], [], _rt.Diag()  # keep: the copies the launch reads
        if copy:  # the copies would hide how the caller's arrays overlap: check them first
            st = _rt.lib.sgrt_kernel_check_views(k, (_rt.Tensor * n)(*described), n,
                                                 ctypes.byref(diag))
            if st:
                _raise(st, diag)
        tensors = (_rt.Tensor * n)()
        with contextlib.ExitStack() as on_stream:
            if copy and not host:
                on_stream.enter_context(_device_stream(inputs[0], handle, device))
            for i, (name, a) in enumerate(arrays):
                t, is_out = described[i], self.tensors[i][1]
                if i in copy:
                    dt, what = _rt.DTYPE_NAMES[t.dtype], f"tensor '{name}'"
                    tmp = _copy_empty(a, dt) if is_out else _copy_of(a, dt)
                    _stats["host_copies" if host else "device_copies"] += 1
                    keep.append(tmp)
                    if is_out:
                        back.append((a, tmp))
                    t, _ = _describe(tmp, what, output=is_out, dim=dim)
                tensors[i] = t
            st = _rt.lib.sgrt_kernel_launch_ex(k, tensors, n, values, len(names),
                                               ctypes.c_void_p(handle or None), ctypes.byref(diag))
            if st:
                _raise(st, diag)
            for a, tmp in back:  # on the launch's stream, after the kernel
                _copy_into(a, tmp)
        return out if single or len(outs_given) > 1 else outs_given[0]

    def _aligned(self, t, i):
        """Whether the kernel can take tensor i, t, in place (the runtime's rule:
        data and strides a multiple of tensor i's own vector, sg_meta_tensor_align)."""
        widest = max(_rt.DTYPE_SIZES[_rt.DTYPE_NAMES.index(d)] for _, _, d in self.tensors)
        es = _rt.DTYPE_SIZES[t.dtype]
        vb = max(1, (self.vector_bytes or 1) * es // widest)
        if (t.data or 0) % vb:
            return False
        if self.layout == "inner":
            inner = t.inner or 1
            return (t.n_stride or inner) * es % vb == 0 and \
                (t.rows <= inner or t.row_stride * es % vb == 0)
        return t.rows <= 1 or t.row_stride * es % vb == 0

    def __del__(self):
        if _shutting_down or sys is None:
            return
        for k in getattr(self, "_loaded", {}).values():
            _rt.lib.sgrt_kernel_destroy(k)
        if getattr(self, "_jit", None) is not None:
            _cc.load().sg_jit_destroy(self._jit)  # after its kernels: it owns their code


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
    """Loads a code object from a path or bytes; checks it on device (default 0).
    backend "auto": a host-target shared library (softgen --target host --emit
    so) runs on the CPU (the host backend), any other object on CUDA, else HIP."""
    if backend not in _rt.BACKENDS:
        raise ValueError(f"backend must be one of {sorted(_rt.BACKENDS)}")
    if isinstance(path_or_bytes, (bytes, bytearray)):
        return Kernel(bytes(path_or_bytes), None, device, backend)
    return Kernel(None, str(path_or_bytes), device, backend)


def set_host_threads(threads):
    """The CPU threads a host-target launch spreads its rows over (1 to 256;
    default $SOFTGEN_HOST_THREADS, else the online CPUs): sgrt_host_set_threads
    on this process's host runtime."""
    if not hasattr(type(threads), "__index__") or type(threads).__name__ in ("bool", "bool_"):
        raise TypeError(f"threads must be an int, got {type(threads).__name__}")
    threads = _int_arg("threads", threads, 1, 256)
    diag = _rt.Diag()
    st = _rt.lib.sgrt_host_set_threads(_runtime("host", 0), threads, ctypes.byref(diag))
    if st:
        _raise(st, diag)


from .functional import (softmax, log_softmax, softmax_backward, log_softmax_backward,  # noqa: E402
                         compile, preload, cache_info, cache_clear, version)
from .attention import attention_softmax  # noqa: E402
