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
