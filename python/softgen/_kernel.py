"""Kernels: code objects loaded through the runtime and launched on arrays.

Needs: _rt (libsoftgen_rt), _cc (libsoftgen, for host kernels JIT-ed in this
process), _files (bounded reads, atomic writes), _errors, _arrays (array views)
and _host (host arrays); torch and CuPy, imported only when such an array is
passed. Produces: Kernel, load and set_host_threads (public, re-exported by the
package); the runtime handles (_runtime: one per backend and device, under
_lock); _meta_of (a code object's metadata); _stats (the counters cache_info()
returns: functional.py's, and the alignment copies counted here).
"""
import atexit
import contextlib
import ctypes
import struct
import sys
import threading

from . import _cc, _files, _host, _rt
from ._arrays import _describe, _is_cupy, _is_host_array, _is_torch, _long_name, _shape
from ._errors import Error, UnsupportedError, _int_arg, _raise

_shutting_down = False
_runtimes = {}
# Guards _runtimes and every Kernel's _loaded: threads that call at once get one
# runtime per (backend, device) and one load per kernel and device (the runtime
# itself serializes the host backend's launches).
_lock = threading.RLock()
# The counters of cache_info() (functional.py's, and Kernel's copies); host_copies:
# arrays copied to align them; device_copies: torch / CuPy GPU arrays copied to align them
_stats = {"calls": 0, "memory_hits": 0, "prebuilt_hits": 0, "compiles": 0, "disk_hits": 0,
          "host_copies": 0, "device_copies": 0}


@atexit.register
def _shutdown():
    global _shutting_down
    _shutting_down = True


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


def _dense_launcher():
    """sgrt_kernel_launch_dense as the hot path calls it, (handle, rows, stream, t0,
    t1, t2) -> sg_status, ints for pointers: softgen._launch (the wheel's C extension,
    no ctypes conversions) where it imports, else through ctypes (the source tree)."""
    address = ctypes.cast(_rt.lib.sgrt_kernel_launch_dense, ctypes.c_void_p).value
    try:
        from . import _launch
    except ImportError:
        fn = _rt.lib.sgrt_kernel_launch_dense
        return lambda k, rows, stream, t0, t1, t2: fn(k, rows, stream, None, t0, t1, t2)
    _launch.init(address)
    return _launch.dense


_launch_dense_fn = _dense_launcher()
# What the dense launch takes from torch (_torchops sets it when torch is there):
# torch.empty_like, the current stream's handle of a device index,
# torch.compiler.is_compiling, torch.is_grad_enabled, {torch dtype: softgen dtype
# name}, torch.Tensor
_torch_fns = None


def _dense_cuda(inputs, out):
    """The CUDA device index when inputs (and out, when given) are dense torch CUDA
    tensors of one shape, device and dtype softgen computes, not empty; else None."""
    fns = _torch_fns
    x = inputs[0]
    if fns is None or not isinstance(x, fns[5]) or not x.is_cuda or x.dtype not in fns[4] or \
            not x.is_contiguous() or x.numel() == 0:
        return None
    device = x.get_device()
    if len(inputs) > 1 and not _dense_like(inputs[1], x, device, fns[5]):
        return None
    if out is not None and not _dense_like(out, x, device, fns[5]):
        return None
    return device


def _dense_like(t, x, device, tensor_type):
    return isinstance(t, tensor_type) and t.dtype == x.dtype and t.shape == x.shape and \
        t.is_contiguous() and t.get_device() == device


def _refuse_in_capture(what):
    """Raises Error when torch is capturing a CUDA graph on the current stream:
    compiling or loading a kernel there would be work outside the graph (and
    the driver refuses a module load during a global-mode capture)."""
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_available() and \
            torch.cuda.is_current_stream_capturing():
        raise Error(f"SG_ERR_UNSUPPORTED: {what} during CUDA graph capture: run the call once "
                    "before capturing (a warm-up), so that its kernel is compiled and loaded",
                    "SG_ERR_UNSUPPORTED")


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
    if _is_host_array(like) or (_is_torch(like) and like.device.type == "cpu"):
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
    if _is_host_array(dst) or (_is_torch(dst) and dst.device.type == "cpu"):
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
        self._handles = {}  # device -> the loaded kernel's handle as an int (_launch_dense)
        self.device_arch = None  # set when compiled for an older arch than the device's
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
        # a kernel for a range of N takes any N from n_min to n (n_min == n: exactly n)
        self.n_min = m.n_min if m.n_min else m.n
        self.cluster, self.vector_bytes = m.cluster, m.vector_bytes
        self.layout = _rt.LAYOUT_NAMES[m.layout] if 0 <= m.layout < 2 else str(m.layout)
        self.tensors = [(m.tensors[i].name.decode(), bool(m.tensors[i].is_output),
                         _rt.DTYPE_NAMES[m.tensors[i].dtype]) for i in range(m.ntensors)]
        self.scalars = [(m.scalars[i].name.decode(), "i64" if m.scalars[i].is_i64 else "f32")
                        for i in range(m.nscalars)]
        # the dense launch (_launch_dense): a GPU kernel of the rows layout, no
        # scalars, 2 or 3 tensors of one dtype, one output (the last): that dtype
        self._vb = max(1, self.vector_bytes)
        dts = {t[2] for t in self.tensors}
        self._dense = dts.pop() if (self.target != "host" and self.layout == "rows" and
                                     not self.scalars and len(self.tensors) in (2, 3) and
                                     len(dts) == 1 and self.tensors[-1][1] and
                                     not any(t[1] for t in self.tensors[:-1])) else None
        # rows of N elements keep every row aligned to the vector (else: one row only)
        self._rows_aligned = self._dense is not None and \
            self.n * _rt.DTYPE_SIZES[_rt.DTYPE_NAMES.index(self._dense)] % self._vb == 0

    def _get(self, device):
        with _lock:
            if device not in self._loaded:
                if self._backend != "host" and self._jit is None:
                    _refuse_in_capture(f"loading a kernel on device {device}")
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
        arch = self.arch
        if self.device_arch and self.device_arch != self.arch:
            arch = f"{self.arch} (PTX, JIT-compiled by the driver for {self.device_arch})"
        return (f"<softgen.Kernel {self.kernel} {self.template} n={self.n} {arch} "
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

    def _launch_dense(self, inputs, out, device, rows=None):
        """Launches on dense torch CUDA tensors (_dense_cuda said so) of this kernel's
        dtype (self._dense) on the current stream: sgrt_kernel_launch_dense, no
        descriptions in Python. rows: given by a caller that chose this kernel for
        the tensors' dtype, count and N (else checked here). Returns out (allocated
        when None), or None when they do not match or an array is not aligned to the
        kernel's vector (the general path then says why, or copies)."""
        fns = _torch_fns
        x = inputs[0]
        vb = self._vb
        if rows is None:
            if fns[4][x.dtype] != self._dense or x.shape[-1] != self.n or \
                    len(inputs) + 1 != len(self.tensors):
                return None
            rows = x.numel() // self.n
        handle = self._handles.get(device)
        if handle is None:
            handle = self._handles[device] = self._get(device).value
        if rows > 1 and not self._rows_aligned:
            return None
        y = fns[0](x) if out is None else out
        p0, p1, p2 = x.data_ptr(), y.data_ptr(), 0
        if len(inputs) == 2:
            p1, p2 = inputs[1].data_ptr(), p1
        if (p0 % vb) or (p1 % vb) or (p2 % vb):
            return None
        stream = fns[1](device)
        if _launch_dense_fn(handle, rows, stream, p0, p1, p2):
            diag = _rt.Diag()  # the launch again, for its message (it fails the same way)
            st = _rt.lib.sgrt_kernel_launch_dense(handle, rows, stream, ctypes.byref(diag), p0,
                                                  p1, p2)
            if st:
                _raise(st, diag)
        return y

    def __call__(self, *inputs, out=None, stream=None, dim=None, **scalars):
        """Launches on inputs (in template order) into out (allocated like the first
        input when None). dim: for an inner-layout kernel, the reduced dim (default 1
        for 3-D arrays [outer, N, inner]); rows-layout kernels take none. Scalars by
        name (e.g. scale=0.125, L=128, offset=0) when the kernel has scalar
        parameters (self.scalars)."""
        if self._dense is not None and inputs and stream is None and dim is None and \
                not scalars and not isinstance(out, (list, tuple)):
            device = _dense_cuda(inputs, out)
            if device is not None:
                y = self._launch_dense(inputs, out, device)
                if y is not None:
                    return y
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
                out = [torch.empty_like(x, dtype=getattr(torch, _long_name(t[2])))
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
        # copies: host arrays, and torch / CuPy GPU arrays (peeled-row kernels ask
        # an element's alignment, so none); others reach the runtime, which says
        # why it refuses them
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


# Defined here, named where they are used: reprs and help() say softgen.Kernel.
for _obj in (Kernel, load, set_host_threads):
    _obj.__module__ = "softgen"
del _obj
