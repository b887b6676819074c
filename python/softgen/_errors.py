"""softgen's exceptions and the checks that raise them.

Needs: _rt (the sg_status names). Produces: Error, ArgumentError and
UnsupportedError (public, re-exported by the package), _LastDimStride (a
ValueError of _arrays._rows_view that functional.py turns into
UnsupportedError), _raise (an sg_status and its sg_diag as an exception) and
_int_arg (an integer checked before it crosses into C).
"""
import operator

from . import _rt


class Error(RuntimeError):
    """A softgen runtime failure; .status is the sg_status name."""

    def __init__(self, message, status="SG_ERR"):
        super().__init__(message)
        self.status = status


class ArgumentError(Error, ValueError):
    """Tensors that do not match the kernel (dtype, N, rows, strides, alignment)."""


class UnsupportedError(Error, NotImplementedError):
    """A valid request softgen does not do (e.g. dim other than the last on a non-torch array)."""


# Defined here, named where they are used: tracebacks and reprs say softgen.Error.
for _cls in (Error, ArgumentError, UnsupportedError):
    _cls.__module__ = "softgen"
del _cls


class _LastDimStride(ValueError):
    """A last dim with a stride other than 1 (functional.py: UnsupportedError)."""


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
