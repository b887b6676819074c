"""softgen's torch-like functions: softmax, log_softmax and their backward passes
on torch tensors, CuPy arrays or any __cuda_array_interface__ array on a GPU, and
on numpy arrays (any __array_interface__ array) or CPU tensors on the CPU.

Needs: _kernel (Kernel, the runtime handles, the counters), _arrays (array
views, dtype names), _errors, _host (host outputs), _files (bounded reads),
_rt and, to compile, libsoftgen.so (_cc.py). Produces: softmax, log_softmax,
softmax_backward, log_softmax_backward, compile, preload, cache_info,
cache_clear, version.

How a call runs: the kernel for (template, N = size of `dim`, dtype, the device's
target and arch) is taken from memory, else from the code objects given to
preload() (or found in $SOFTGEN_KERNEL_PATH), else compiled through libsoftgen
(sg_compile: the on-disk cache of include/softgen/compile.h, so a later process
reuses it) and loaded; then launched on the current stream (torch's current
stream for torch tensors, CuPy's for CuPy arrays, the interface's "stream" field
otherwise). Code objects: a .cubin when ptxas is found (CUDA_HOME, PATH), else
PTX, which the driver compiles at load.

Host arrays (numpy, CPU tensors): the kernel is compiled for target "host"
(arch "native") and JIT-ed in process (sg_compile_jit: kept in memory only; the
on-disk cache holds no host code), or taken from a preloaded `--emit so`
library, and launched synchronously through the runtime's host backend on
set_host_threads() / $SOFTGEN_HOST_THREADS CPU threads. numpy in, numpy out.

Shapes: along the last dim, the kernels compute rows (contiguous, any row stride).
Along another dim d, when the dims after d are contiguous (their product is
`inner`) and those before it view as one outer index, an inner-layout kernel
(softgen --layout inner: one compiled per (template, N = size of d, dtype)) reads
x in place as [outer, N, inner], with no copy; this holds for any contiguous
tensor. Otherwise torch tensors are moved and copied (x.movedim(d, -1)
.contiguous(): one extra read and write of x and of the result), as is a last
dim whose stride is not 1; other arrays raise UnsupportedError. dtype=... on
softmax and log_softmax of a torch input that widens (f16 / bf16 in, f32 out)
picks the kernel that reads x's dtype and writes dtype (the template's U, no
cast copy: torch casts x first, and that cast is exact, so the values are
torch's); a dtype that narrows (f32 -> f16 / bf16, or between f16 and bf16)
casts x first, as torch does (an element above f16's 65504 becomes inf and its
row NaN, as in torch); on the backward passes it casts the inputs first
(x.to(dtype)); other arrays must already have it. Outputs:
torch.empty_like / cupy.empty_like, a 64-byte aligned numpy array for numpy
inputs; other arrays need out=.
"""
import ctypes
import os

from . import _cc, _files, _host, _rt
from ._arrays import (_TORCH_TO_SG, _describe, _dtype_name, _inner_view, _is_cupy, _is_torch,
                      _long_name, _shape, _strides_of)
from ._errors import Error, UnsupportedError, _LastDimStride, _int_arg, _raise
from . import _kernel as _kernel_module
from ._kernel import Kernel, _dense_like, _refuse_in_capture, _runtime, _stats

# The route of a torch tensor (_torchops.route, installed by it when torch is
# present): through the torch.library op (autograd, torch.compile), to torch's own
# operator (dtypes softgen does not compute), or None: the kernel, directly.
_torch_route = None
_tensor_type = None  # torch.Tensor, set with _torch_route
_kernels = {}   # (template, n, dtype, target, arch, constraints, backend, layout) -> Kernel
_targets = {}   # (backend, device) -> (target, arch to compile for, device's arch)
_prebuilt = {}  # (template, n, dtype, target, arch, layout) -> Kernel (preload)
_kernel_path_done = False


def version():
    """(softgen version, LLVM version) of the compiler library, or None without it."""
    lib = _cc.load()
    if lib is None:
        return None
    return lib.sg_version().decode(), lib.sg_llvm_version().decode()


def _templates_dir():
    """The templates next to the package: bundled softgen/templates, else
    <pkg>/../../kernels-templates (the repository, and an installed prefix's
    share/softgen); None: libsoftgen's own search ($SOFTGEN_TEMPLATES first)."""
    if os.environ.get("SOFTGEN_TEMPLATES"):
        return None
    here = os.path.dirname(os.path.abspath(__file__))
    for d in (os.path.join(here, "templates"), os.path.join(here, "..", "..", "kernels-templates")):
        if os.path.isdir(d):
            return os.path.normpath(d)
    return None


def _device_arch(rt, target):
    """(the arch to compile for, the device's own arch) on runtime rt: the
    device's when softgen lists it, else the newest listed arch it runs
    (sg_arch_for_device; NVPTX: PTX, compiled by the driver at load)."""
    dev = _rt.lib.sgrt_device_arch(rt).decode().split(":")[0]
    lib = _cc.load()
    chosen = lib.sg_arch_for_device(target.encode(), dev.encode()) if lib is not None else None
    return (chosen.decode() if chosen else dev), dev


def compile(template="softmax", N=None, dtype="f16", arch=None, target=None, constraints=None,
            emit="auto", device=None, backend="auto", cache=True, out_dtype=None,
            layout="rows"):
    """Compiles a kernel ahead of time and returns it as a Kernel (loaded on the
    device of its first call; .image has the code object's bytes, .save(path)
    writes it). template: a name in the templates directory, a .sgt path, or
    template text (when it holds a newline). constraints: text in Wave's
    vocabulary (see docs/constraints.md), or a list of such texts. arch=None
    asks the runtime for the device's arch (needs a driver). emit: "object"
    (.cubin / .hsaco), "asm" (.ptx / .s), or "auto": object, else PTX when
    ptxas is missing. cache=False bypasses the on-disk cache. out_dtype: the
    template's U (its outputs' dtype), default dtype.
    target="host" (or backend="host"): a kernel for this CPU (arch "native",
    or a CPU name such as "x86-64-v3"); emit "auto" JIT-compiles it in process
    (no code object, no disk cache), emit "shared" links a shared library
    (.image, .save; ld.lld or cc, not cached). layout: "rows" (reduce the last
    dim) or "inner" (reduce dim N of [outer, N, inner]; call with dim=)."""
    if N is None:
        raise TypeError("compile() needs N, the row length")
    N = _int_arg("N", N, 1, 2 ** 31 - 1, "1 to 2^31-1")  # as sg_compile; ctypes would truncate
    lib = _cc.load()
    if lib is None:
        raise Error(f"SG_ERR_UNSUPPORTED: no compiler: {_cc.load_error} (set SOFTGEN_LIB_DIR, "
                    "or use prebuilt code objects with softgen.preload)", "SG_ERR_UNSUPPORTED")
    dt = _dtype_name(dtype)
    if layout not in _rt.LAYOUT_NAMES:
        raise ValueError(f"layout must be one of {_rt.LAYOUT_NAMES}, not {layout!r}")
    if target is None and backend == "host":
        target = "host"
    if target == "host":
        arch = arch or "native"
        if emit not in ("auto", "shared"):
            raise ValueError("emit must be 'auto' (JIT) or 'shared' for target host")
    device_arch = None
    if target != "host" and (target is None or arch is None):
        rt = _runtime(backend, 0 if device is None else device)
        be = _rt.lib.sgrt_backend_name(rt).decode()
        target = target or ("amdgpu" if be == "hip" else "nvptx")
        if arch is None:
            arch, device_arch = _device_arch(rt, target)
            if arch != device_arch and emit == "auto":
                emit = "asm"  # an older arch's PTX: the driver compiles it for the device
    if target != "host" and emit not in ("auto", "object", "asm"):
        raise ValueError("emit must be 'auto', 'object' or 'asm'")
    keep = []  # the bytes the C structs point into

    def c(s):
        b = s.encode() if isinstance(s, str) else s
        keep.append(b)
        return b
    o = _cc.CompileOptions()
    lib.sg_compile_options_init(ctypes.byref(o))
    if "\n" in template:
        o.template_src = _cc.Source(c("<python template>"), c(template), len(template.encode()))
    else:
        o.template_src = _cc.Source(c(template), None, 0)
    tdir = _templates_dir()
    o.templates_dir = c(tdir) if tdir else None
    texts = [constraints] if isinstance(constraints, str) else list(constraints or [])
    if texts:
        arr = (_cc.Source * len(texts))()
        for i, t in enumerate(texts):
            arr[i] = _cc.Source(c(f"<constraints {i + 1}>"), c(t), len(t.encode()))
        keep.append(arr)
        o.constraints = arr
        o.nconstraints = len(texts)
    o.problem = _cc.Problem(N, _rt.DTYPE_NAMES.index(dt), c(target), c(arch))
    o.problem.layout = _rt.LAYOUT_NAMES.index(layout)
    if out_dtype is not None:
        o.problem.out_dtype_set = 1
        o.problem.out_dtype = _rt.DTYPE_NAMES.index(_dtype_name(out_dtype))
    o.no_cache = 0 if cache else 1
    if target == "host" and emit == "auto":
        jit, stats, diag = ctypes.c_void_p(), _cc.CompileStats(), _rt.Diag()
        st = lib.sg_compile_jit(ctypes.byref(o), ctypes.byref(jit), ctypes.byref(stats),
                                ctypes.byref(diag))
        if st:
            _raise(st, diag)
        _stats["compiles"] += 1
        _stats["last"] = {"cache_hits": 0, "cache_stores": 0, "cache_rejected": 0,
                          "cache_dir": "", "target": target, "arch": arch, "kind": "jit"}
        return Kernel(None, None, device, "host", jit=jit)
    kinds = {"object": [_cc.OUTPUT_OBJECT], "asm": [_cc.OUTPUT_ASM], "shared": [_cc.OUTPUT_SHARED],
             "auto": [_cc.OUTPUT_OBJECT, _cc.OUTPUT_ASM]}[emit]
    for i, kind in enumerate(kinds):
        o.outputs = 1 << kind
        buf, stats, diag = _cc.Buffer(), _cc.CompileStats(), _rt.Diag()
        st = lib.sg_compile(ctypes.byref(o), ctypes.byref(buf), ctypes.byref(stats),
                            ctypes.byref(diag))
        if st == _cc.SG_ERR_TOOL and i + 1 < len(kinds):
            continue  # no ptxas / ld.lld: the assembly instead
        if st:
            _raise(st, diag)
        image = ctypes.string_at(buf.data, buf.size)
        lib.sg_buffer_free(ctypes.byref(buf))
        _stats["compiles"] += 1
        _stats["disk_hits"] += stats.cache_hits
        _stats["last"] = {"cache_hits": stats.cache_hits, "cache_stores": stats.cache_stores,
                          "cache_rejected": stats.cache_rejected,
                          "cache_dir": stats.cache_dir.decode(), "target": target, "arch": arch,
                          "kind": {_cc.OUTPUT_OBJECT: "object", _cc.OUTPUT_ASM: "asm"}.get(
                              kind, "shared")}
        k = Kernel(image, None, device, backend, eager=False)
        k.device_arch = device_arch
        return k


def preload(*paths, backend="auto"):
    """Registers prebuilt code objects (files, or directories of .cubin, .ptx,
    .hsaco, and host-target .so) so that softmax() & co. use them instead of
    compiling: on a machine without libsoftgen/LLVM, or to pin a kernel built
    with chosen constraints. Each is indexed by its metadata (template, N,
    dtype, target, arch; a host library is used for host arrays when built
    for the default arch, native); the first one given wins. Returns the
    number registered. Each file must be a regular file of at most 256 MiB (as
    softgen --inspect reads code objects); a FIFO or a device is refused with an
    Error naming it, without waiting on it."""
    count = 0
    for p in paths:
        files = [p]
        if os.path.isdir(p):
            files = [os.path.join(p, f) for f in sorted(os.listdir(p))
                     if f.endswith((".cubin", ".ptx", ".hsaco", ".so"))]
        for f in files:
            image = _files.read_object(f, Error)
            k = Kernel(image, None, None, backend, eager=False)
            dt, out_dt = k.tensors[0][2], [t[2] for t in k.tensors if t[1]][0]
            key = (k.template, k.n, dt if out_dt == dt else (dt, out_dt), k.target, k.arch,
                   k.layout)
            if key not in _prebuilt:
                _prebuilt[key] = k
                count += 1
    return count


def cache_info():
    """Counters of this process: calls, memory_hits, prebuilt_hits, compiles,
    disk_hits (compiles served by the on-disk cache), kernels (in memory), and
    last: the last compile's cache figures, target and arch."""
    return dict(_stats, kernels=len(_kernels), prebuilt=len(_prebuilt))


def cache_clear():
    """Forgets the kernels held in memory (not the on-disk cache, not preloads)."""
    _kernels.clear()
    _fast.clear()


def _kernel(template, n, dt, place, backend, out_dt=None, layout="rows"):
    """The kernel for place: "host" (the CPU) or a GPU ordinal."""
    global _kernel_path_done
    if not _kernel_path_done:
        _kernel_path_done = True
        for d in filter(None, os.environ.get("SOFTGEN_KERNEL_PATH", "").split(os.pathsep)):
            preload(d, backend=backend)
    if place == "host":
        if backend not in ("auto", "host"):
            raise ValueError(f"{template}: the arrays are in host memory; backend={backend!r} "
                             "runs on a GPU (host arrays take backend 'auto' or 'host')")
        device, backend, target, arch, device_arch = 0, "host", "host", "native", "native"
    else:
        device = place
        found = _targets.get((backend, device))
        if found is None:
            rt = _runtime(backend, device)
            target = "amdgpu" if _rt.lib.sgrt_backend_name(rt).decode() == "hip" else "nvptx"
            found = _targets[(backend, device)] = (target,) + _device_arch(rt, target)
        target, arch, device_arch = found
    key = (template, n, dt, target, arch, None, backend, layout)
    if out_dt is not None and out_dt != dt:
        key = (template, n, (dt, out_dt), target, arch, None, backend, layout)
    k = _kernels.get(key)
    if k is not None:
        _stats["memory_hits"] += 1
        return k
    k = _prebuilt.get(key[:5] + (layout,))
    if k is not None:
        _stats["prebuilt_hits"] += 1
    else:
        if place != "host":
            _refuse_in_capture(f"compiling {template} for N={n} {dt}")
        k = compile(template, N=n, dtype=dt, arch=arch, target=target, device=device,
                    backend=backend, out_dtype=out_dt, layout=layout,
                    emit="asm" if arch != device_arch else "auto")
        if place != "host":
            k.device_arch = device_arch
    _kernels[key] = k
    return k


def _inner_ok(arrays, d, min_inner=2):
    """Whether every array views as [outer, N, inner] for a reduction over d, with
    the same inner >= min_inner (the inner layout reads them in place)."""
    inner = None
    for a in arrays:
        ss = _strides_of(a)
        if ss is None:
            return False
        try:
            view = _inner_view(ss[0], ss[1], d, "")
        except ValueError:
            return False
        if view[3] < min_inner or (inner is not None and view[3] != inner):
            return False
        inner = view[3]
    return True


def _rowwise(template, inputs, dim, dtype, out, stream, backend):
    """Runs a row-wise template over `dim` of inputs (same shape), returns out."""
    _stats["calls"] += 1
    x = inputs[0]
    torch_in = _is_torch(x)
    shape = _shape(x)
    for other in inputs[1:]:
        oshape = _shape(other)
        if oshape != shape:
            raise ValueError(f"{template}: shapes differ: {shape} and {oshape}")
    ndim = len(shape)
    if ndim == 0:
        raise ValueError(f"{template}: needs at least one dim, got a scalar")
    if not -ndim <= dim < ndim:
        raise IndexError(f"dim {dim} out of range for {ndim} dims")
    d = dim % ndim
    dt = _dtype_name(dtype)
    if torch_in:
        import torch
        ins = list(inputs)
        out_dt = None  # a widening dtype=: written directly (the template's U), no cast of x
        if dt == "f32" and template in ("softmax", "log_softmax") and \
                _TORCH_TO_SG.get(str(x.dtype)) in ("f16", "bf16"):
            out_dt = dt
        elif dt is not None:  # narrowing (or none): cast first, as torch, which rounds x

            ins = [t.to(getattr(torch, _long_name(dt))) for t in ins]
        ydt = getattr(torch, _long_name(out_dt)) if out_dt else None
        moved = d != ndim - 1
        name = _TORCH_TO_SG.get(str(ins[0].dtype))
        if moved and name and ins[0].numel() > 0 and _inner_ok(ins, d):
            # the inner layout: x read in place as [outer, N, inner], no copy
            direct = out is not None and out.dtype == (ydt or ins[0].dtype) and \
                _inner_ok([ins[0], out], d)
            y = out if direct else torch.empty_like(ins[0], dtype=ydt)
            if not _inner_ok([y], d):
                y = torch.empty_like(ins[0], dtype=ydt, memory_format=torch.contiguous_format)
            place = "host" if ins[0].device.type == "cpu" else ins[0].device.index or 0
            k = _kernel(template, ins[0].shape[d], name, place, backend, out_dt, layout="inner")
            k(*ins, out=y, stream=stream, dim=d)
            if out is not None and y is not out:
                out.copy_(y)
                return out
            return y
        if moved:
            ins = [t.movedim(d, -1) for t in ins]
        ins = [t if t.is_contiguous() else t.contiguous() for t in ins]
        if ins[0].dim() == 1:
            ins = [t.unsqueeze(0) for t in ins]
        if ins[0].numel() == 0:
            y = torch.empty_like(ins[0], dtype=ydt)
        else:
            name = _TORCH_TO_SG.get(str(ins[0].dtype))
            if name is None:
                raise TypeError(f"{template}: dtype {ins[0].dtype} not supported "
                                "(float16, bfloat16, float32)")
            place = "host" if ins[0].device.type == "cpu" else ins[0].device.index or 0
            k = _kernel(template, ins[0].shape[-1], name, place, backend, out_dt)
            y = torch.empty_like(ins[0], dtype=ydt) if out is None or moved or ndim == 1 else out
            k(*ins, out=y, stream=stream)
        if ndim == 1:
            y = y.squeeze(0)
        if moved:
            y = y.movedim(-1, d).contiguous()
        if out is not None and y is not out:
            out.copy_(y)
            return out
        return y
    inner = d != ndim - 1
    if inner and 0 not in shape and not (_inner_ok(inputs, d, 1) and (out is None or _inner_ok([x, out], d, 1))):
        raise UnsupportedError(f"{template}: dim={dim} is not the last dim and the dims after it "
                               "are not contiguous: softgen's kernels reduce the last, contiguous "
                               "dim or (the inner layout) a dim whose later dims are contiguous; "
                               "make them so first (a torch tensor is moved and copied "
                               "automatically)", "SG_ERR_UNSUPPORTED")
    try:
        t, place = _describe(x, f"{template} input", dim=d if inner else None)
    except _LastDimStride as e:
        raise UnsupportedError(f"{e}: softgen's kernels need a contiguous last dim (a torch "
                               "tensor is copied automatically)", "SG_ERR_UNSUPPORTED") from None
    name = _rt.DTYPE_NAMES[t.dtype]
    if dt is not None and dt != name:
        raise TypeError(f"{template}: dtype={dtype} but the array is {name} (only torch "
                        "inputs are cast)")
    if out is None:
        if _is_cupy(x):
            import cupy
            out = cupy.empty_like(x)
        elif place == "host":
            out = _host.empty(x, shape, name)
        else:
            raise TypeError(f"{template}: out= is required for {type(x).__name__} (only torch, "
                            "CuPy and numpy outputs are allocated)")
    if t.cols == 0 or t.rows == 0:
        return out
    k = _kernel(template, t.cols, name, place or 0, backend, layout="inner" if inner else "rows")
    return k(*inputs, out=out, stream=stream, dim=d if inner else None)


# The fast path's kernels, (template, N, torch dtype, device index) -> Kernel
_fast = {}


def _fast_torch(template, inputs, dim, out):
    """The common torch call, launched with the least Python: dense CUDA tensors
    of one dtype softgen computes, reduced over the last dim, no dtype= or
    stream=, nothing for autograd or torch.compile to record; out= a dense tensor
    like x, or None. None when the call is not that one (the general path,
    _rowwise, then takes it). Written for speed: this is the host cost of every
    eager call (test/wheel/RESULTS.md)."""
    fns = _kernel_module._torch_fns
    x = inputs[0]
    two = len(inputs) == 2
    if fns[2]() or ((x.requires_grad or (two and inputs[1].requires_grad)) and fns[3]()):
        return None  # torch.compile traces, or autograd needs the op
    nd, dt = x.ndim, x.dtype
    # x is a torch tensor (_public); _dense_cuda's checks, inline: this is the hot path
    if not x.is_cuda or (dim != -1 and dim != nd - 1) or nd == 0 or dt not in fns[4] or \
            not x.is_contiguous():
        return None
    total = x.numel()
    device = x.get_device()
    if total == 0 or (two and not _dense_like(inputs[1], x, device, fns[5])) or \
            (out is not None and not _dense_like(out, x, device, fns[5])):
        return None
    n = x.shape[-1]
    key = (template, n, dt, device)
    k = _fast.get(key)
    if k is None:
        k = _kernel(template, n, fns[4][dt], device, "auto")  # counts its own hit
        if k._dense is None:
            return None
        _fast[key] = k
    else:
        _stats["memory_hits"] += 1
    y = k._launch_dense(inputs, out, device, total // n)
    if y is not None:
        _stats["calls"] += 1
    return y


def _public(template, inputs, dim, dtype, out, stream, backend):
    if _torch_route is not None and stream is None and backend == "auto" and \
            isinstance(inputs[0], _tensor_type):
        if dtype is None:
            y = _fast_torch(template, inputs, dim, out)
            if y is not None:
                return y
        y = _torch_route(template, inputs, dim, dtype, out)
        if y is not None:
            return y
    return _rowwise(template, inputs, dim, dtype, out, stream, backend)


def softmax(x, dim=-1, dtype=None, *, out=None, stream=None, backend="auto"):
    """torch.softmax(x, dim, dtype): exp(x - max) / sum(exp(x - max)) along dim,
    accumulated in f32. A row of all -inf, or with a NaN or +inf, gives NaN.
    On torch tensors it is the op softgen::softmax where autograd or
    torch.compile needs it (gradients through softmax_backward's kernel), and
    torch.softmax for what softgen does not compute (float64, 0-d tensors)."""
    return _public("softmax", (x,), dim, dtype, out, stream, backend)


def log_softmax(x, dim=-1, dtype=None, *, out=None, stream=None, backend="auto"):
    """torch.log_softmax(x, dim, dtype): x - max - log(sum(exp(x - max)));
    on torch tensors as softmax (the op softgen::log_softmax)."""
    return _public("log_softmax", (x,), dim, dtype, out, stream, backend)


def softmax_backward(grad, y, dim=-1, *, out=None, stream=None, backend="auto"):
    """The gradient of softmax given its output y: y * (grad - sum(grad * y))
    (torch's _softmax_backward_data(grad, y, dim, dtype))."""
    return _public("softmax_backward", (grad, y), dim, None, out, stream, backend)


def log_softmax_backward(grad, y, dim=-1, *, out=None, stream=None, backend="auto"):
    """The gradient of log_softmax given its output y: grad - exp(y) * sum(grad)."""
    return _public("log_softmax_backward", (grad, y), dim, None, out, stream, backend)
