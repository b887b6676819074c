"""Arrays as the runtime sees them: what kind an array is, its dtype in softgen's
names, and its sgrt_tensor (data, rows, cols, row stride, inner, N stride).

Needs: _rt (the dtype enum and sgrt_tensor), _errors, ctypes (DLPack capsules);
torch, CuPy and numpy are never imported here (an array's kind is read from its
class and attributes). GPU arrays other than torch's are read through DLPack
(__dlpack__ / __dlpack_device__: CuPy, JAX, ...) where they offer it, else through
__cuda_array_interface__; host arrays through __array_interface__.
Produces: the one table of dtype spellings (_LONG_NAMES, _TORCH_TO_SG, _NAMES,
_TYPESTRS; _long_name, _dtype_name), the kind predicates (_is_torch, _is_cupy,
_is_host_array), and the views (_shape, _interface, _strides_of, _rows_view,
_inner_view, _tensor, _describe).
"""
import ctypes

from . import _rt
from ._errors import _LastDimStride, _int_arg

# softgen's dtypes are _rt.DTYPE_NAMES (the C enum sg_dtype, in its order); these
# are their other spellings, all from this one table: the name torch, numpy and
# ml_dtypes give each ("float16": torch.float16, numpy.float16).
_LONG_NAMES = dict(zip(_rt.DTYPE_NAMES, ("float16", "bfloat16", "float32")))
_TORCH_TO_SG = {f"torch.{v}": k for k, v in _LONG_NAMES.items()}  # str(tensor.dtype) -> name
_NAMES = {**{k: k for k in _LONG_NAMES}, **{v: k for k, v in _LONG_NAMES.items()},
          "half": "f16", "float": "f32"}  # the spellings dtype= takes (after its last ".")
# __array_interface__ / __cuda_array_interface__ typestrs; "<V2" is bf16 only when
# the array's dtype says bfloat16 (_describe)
_TYPESTRS = {"<f2": _rt.DTYPE_F16, "<f4": _rt.DTYPE_F32, "<V2": _rt.DTYPE_BF16,
             "dlpack-bf16": _rt.DTYPE_BF16}  # the typestr _dlpack gives a DLPack bfloat16


def _long_name(dtype):
    """torch's (and numpy's) name of a softgen dtype name: "f16" -> "float16"."""
    return _LONG_NAMES[dtype]


def _dtype_name(dtype):
    """softgen's name (f16, bf16, f32) of a dtype= argument (a torch or numpy dtype,
    a numpy scalar type, or a string), None for None; TypeError for others."""
    if dtype is None:
        return None
    name = getattr(dtype, "__name__", None) or str(dtype)  # numpy.float16 is a class
    if name in _TORCH_TO_SG:
        return _TORCH_TO_SG[name]
    name = name.rsplit(".", 1)[-1]
    if name not in _NAMES:
        raise TypeError(f"dtype {dtype!r} not supported (float16, bfloat16, float32)")
    return _NAMES[name]


def _is_torch(x):
    """A torch tensor, read directly (data_ptr, dtype, device, stride): an object of
    a class of torch's own modules that has data_ptr. The class's module alone is
    not enough: torch.Size, torch.dtype, torch.device and streams are no tensors."""
    return type(x).__module__.startswith("torch") and hasattr(x, "data_ptr")


def _is_cupy(x):
    return type(x).__module__.startswith("cupy")


def _is_host_array(x):
    """True for a host array softgen reads through __array_interface__ (numpy)."""
    return hasattr(x, "__array_interface__") and not hasattr(x, "__cuda_array_interface__")


_I64 = 2 ** 63 - 1


def _tensor(data, rows, cols, row_stride, dtype, inner=0, n_stride=0, what="tensor"):
    """An sgrt_tensor whose fields are checked to fit (ctypes truncates silently)."""
    if data is not None:
        _int_arg(f"{what}: data pointer", data, 0, 2 ** 64 - 1)
    vals = [_int_arg(f"{what}: {n}", v, -_I64 - 1, _I64, "within int64")
            for n, v in (("rows", rows), ("cols", cols), ("row stride", row_stride),
                         ("inner", inner), ("n_stride", n_stride))]
    return _rt.Tensor(data, vals[0], vals[1], vals[2], dtype, vals[3], vals[4])


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


# DLPack (dlpack.h, v0.8 / v1.x legacy capsules "dltensor"): the DLTensor a capsule
# points at (a DLManagedTensor begins with it)
class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


_DL_GPUS = (2, 10, 13)  # kDLCUDA, kDLROCM, kDLCUDAManaged
_DL_TYPES = {(2, 16): "<f2", (2, 32): "<f4", (4, 16): "dlpack-bf16"}  # (code, bits) -> typestr
_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


def _dlpack(x):
    """An array interface dict (as __cuda_array_interface__'s: data, shape, strides in
    bytes, typestr) and the device ordinal of a GPU array that exports DLPack; None
    when x does not, or is not on a GPU. The capsule is read and dropped unconsumed
    (its destructor releases it): x, which the caller holds, keeps the memory."""
    try:
        dev_type, dev_id = x.__dlpack_device__()
    except (AttributeError, TypeError, ValueError):
        return None
    if dev_type not in _DL_GPUS:
        return None
    try:
        cap = x.__dlpack__()
    except (AttributeError, TypeError, BufferError) as e:
        raise TypeError(f"{type(x).__name__}.__dlpack__() failed: {e}") from None
    t = _DLTensor.from_address(_capsule_pointer(cap, b"dltensor"))
    code = (t.dtype.code, t.dtype.bits)
    typestr = _DL_TYPES.get(code, f"DLPack dtype code {code[0]} of {code[1]} bits") \
        if t.dtype.lanes == 1 else f"DLPack dtype of {t.dtype.lanes} lanes"
    shape = tuple(t.shape[i] for i in range(t.ndim))
    size = max(1, t.dtype.bits // 8)
    strides = tuple(t.strides[i] * size for i in range(t.ndim)) if t.strides else None
    data = (t.data or 0) + t.byte_offset
    return {"data": (data, False), "shape": shape, "strides": strides, "typestr": typestr,
            "version": 3}, dev_id


def _interface(x):
    """(array interface dict, place): DLPack's (_dlpack) or __cuda_array_interface__'s
    and the device ordinal when known (else None), or __array_interface__'s and
    "host"."""
    if hasattr(x, "__dlpack__"):
        found = _dlpack(x)
        if found is not None:
            return found
    cai = getattr(x, "__cuda_array_interface__", None)
    if cai is not None:
        return cai, None
    if _is_host_array(x):
        return x.__array_interface__, "host"
    raise TypeError(f"{type(x).__name__} is neither a torch tensor nor has "
                    "__cuda_array_interface__ or __array_interface__")


def _shape(x):
    return tuple(x.shape) if _is_torch(x) else tuple(_interface(x)[0]["shape"])


def _element_strides(cai, size):
    """The strides of an array interface in elements of size bytes (C order when
    it gives none); None when they are not whole elements."""
    if cai.get("strides") is None:
        strides, acc = [], 1
        for s in reversed(list(cai["shape"])):
            strides.insert(0, acc)
            acc *= s
        return strides
    if any(s % size for s in cai["strides"]):
        return None
    return [s // size for s in cai["strides"]]


def _strides_of(a):
    """(shape, strides in elements) of a torch tensor, a CAI array or a host
    (__array_interface__) array; None when its typestr is not one softgen takes or
    its strides are not whole elements."""
    if _is_torch(a):
        return list(a.shape), list(a.stride())
    try:
        cai = _interface(a)[0]
    except TypeError:
        return None
    shape = list(cai["shape"])
    if cai["typestr"] not in _TYPESTRS:
        return None
    strides = _element_strides(cai, _rt.DTYPE_SIZES[_TYPESTRS[cai["typestr"]]])
    return None if strides is None else (shape, strides)


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
        if name not in _TORCH_TO_SG:
            raise TypeError(f"{what}: dtype {name} not supported (float16, bfloat16, float32)")
        dtype = _rt.DTYPE_NAMES.index(_TORCH_TO_SG[name])
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
    if typestr in _TYPESTRS and (typestr != "<V2" or "bfloat16" in str(getattr(x, "dtype", ""))):
        dtype = _TYPESTRS[typestr]
    else:
        raise TypeError(f"{what}: typestr {typestr!r} not supported ('<f2', '<f4', bfloat16)")

    shape = list(cai["shape"])
    strides = _element_strides(cai, _rt.DTYPE_SIZES[dtype])
    if strides is None:
        raise ValueError(f"{what}: strides {cai['strides']} are not whole elements")
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
