"""FakeArray: host memory seen through __cuda_array_interface__, for the Python
tests against the fake CUDA driver (whose device memory is host memory).
Used by test/Runtime/python-binding.py and test/Compile/python-api.py, with
softmax_error, the largest difference from a float64 softmax."""
import ctypes
import math
import struct


class FakeArray:
    """A row-major f32 array in 256-byte aligned host memory, seen through CAI."""

    def __init__(self, shape, typestr="<f4", strides=None, offset=0, device=None, stream=None):
        n = 1
        for s in shape:
            n *= s
        self.itemsize = int(typestr[2:])
        self.raw = ctypes.create_string_buffer(n * self.itemsize * 2 + 512)
        base = ctypes.addressof(self.raw)
        self.ptr = (base + 255) // 256 * 256 + offset
        self.shape, self.typestr, self.strides = tuple(shape), typestr, strides
        if device is not None:
            self.device = device
        self.stream = stream

    @property
    def __cuda_array_interface__(self):
        cai = {"shape": self.shape, "typestr": self.typestr, "data": (self.ptr, False),
               "strides": self.strides, "version": 3}
        if self.stream is not None:
            cai["stream"] = self.stream
        return cai

    def set(self, values):
        ctypes.memmove(self.ptr, struct.pack(f"<{len(values)}f", *values), 4 * len(values))

    def get(self, count):
        return struct.unpack(f"<{count}f", ctypes.string_at(self.ptr, 4 * count))


def softmax_error(vals, got, m, n):
    """max |got - softmax(row)| over m rows of n values (float64 reference)."""
    worst = 0.0
    for r in range(m):
        xs = vals[r * n:(r + 1) * n]
        mx = max(xs)
        e = [math.exp(v - mx) for v in xs]
        s = sum(e)
        worst = max(worst, max(abs(g - v / s) for g, v in zip(got[r * n:(r + 1) * n], e)))
    return worst


class _DLManaged(ctypes.Structure):  # dlpack.h's DLManagedTensor (legacy, "dltensor")
    _fields_ = [("data", ctypes.c_void_p), ("device_type", ctypes.c_int32),
                ("device_id", ctypes.c_int32), ("ndim", ctypes.c_int32),
                ("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64),
                ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]


_new_capsule = ctypes.pythonapi.PyCapsule_New
_new_capsule.restype = ctypes.py_object
_new_capsule.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]


class DLPackArray:
    """A FakeArray's memory seen through DLPack only (__dlpack__, __dlpack_device__;
    no __cuda_array_interface__): dtype (code, bits) of dlpack.h (float 2, bfloat 4),
    strides in elements or None, a byte offset, on CUDA device `device`."""

    def __init__(self, fake, code=2, bits=32, strides=None, byte_offset=0, device=0,
                 device_type=2):
        self.fake, self.device_type, self.device = fake, device_type, device
        n = len(fake.shape)
        self._shape = (ctypes.c_int64 * n)(*fake.shape)
        self._strides = (ctypes.c_int64 * n)(*strides) if strides else None
        self._m = _DLManaged(fake.ptr - byte_offset, device_type, device, n, code, bits, 1,
                             self._shape, self._strides, byte_offset, None, None)
        self.exported = 0

    def __dlpack_device__(self):
        return (self.device_type, self.device)

    def __dlpack__(self, stream=None):
        self.exported += 1
        return _new_capsule(ctypes.addressof(self._m), b"dltensor", None)
