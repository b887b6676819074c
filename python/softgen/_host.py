"""Host arrays for kernels of softgen's host target: numpy arrays (anything with
__array_interface__) and torch CPU tensors.

Needs: _arrays (what kind an array is, the dtype names); numpy or torch,
imported only when such an array is passed. Produces: empty (an output, or
the copy of an array the kernel cannot take in place, aligned) and copy.

Why copies: a host kernel loads whole SIMD registers with aligned loads, so the
runtime requires every row to start on the kernel's vector_bytes (up to 64,
AVX-512). numpy's allocator aligns to 16 bytes only, and a view may start
anywhere; outputs softgen allocates are 64-byte aligned, and an input or out=
array that is not aligned goes through an aligned copy (one extra read and
write). torch's CPU allocator aligns to 64 bytes, so only views are copied.
"""
from ._arrays import _is_torch, _long_name

ALIGN = 64


def _np_dtype(np, dtype, like):
    if dtype == "bf16":  # numpy has none; ml_dtypes' bfloat16 is taken from the input
        if "bfloat16" not in str(getattr(like, "dtype", "")):
            raise TypeError("a bf16 output needs a bfloat16 input array (numpy has no bfloat16)")
        return like.dtype
    return np.dtype(_long_name(dtype))


def empty(like, shape, dtype):
    """An uninitialised C-contiguous array of shape and softgen dtype (f16, bf16,
    f32), of like's kind (torch CPU tensor or numpy array), ALIGN-byte aligned."""
    if _is_torch(like):
        import torch
        tdt = getattr(torch, _long_name(dtype))
        t = torch.empty(shape, dtype=tdt)
        if t.data_ptr() % ALIGN == 0:
            return t
        count = t.numel()
        buf = torch.empty(count * t.element_size() + ALIGN, dtype=torch.uint8)
        off = (-buf.data_ptr()) % ALIGN
        return buf[off:off + count * t.element_size()].view(tdt).view(shape)
    import numpy as np
    ndt = _np_dtype(np, dtype, like)
    count = 1
    for s in shape:
        count *= s
    buf = np.empty(count * ndt.itemsize + ALIGN, dtype=np.uint8)
    off = (-buf.ctypes.data) % ALIGN
    return buf[off:off + count * ndt.itemsize].view(ndt).reshape(shape)


def copy(dst, src):
    """dst[...] = src for two host arrays of one kind and shape."""
    if _is_torch(dst):
        dst.copy_(src)
    else:
        import numpy as np
        np.copyto(dst, src, casting="no")
