"""softgen's kernels as PyTorch operators: torch.library custom ops with fake
(meta) kernels and autograd, so that softgen.softmax & co. train (gradients
through softgen's backward kernels), compile (torch.compile, fullgraph=True: no
graph break) and capture (CUDA graphs) as torch.softmax does.

Needs: torch (imported by the package when it is installed), functional (the
direct calls: _rowwise, the kernel cache), attention (attention_softmax).
Produces: the ops softgen::softmax, softgen::log_softmax, softgen::softmax_backward,
softgen::log_softmax_backward and softgen::attention_softmax, and `route`, which
functional's and attention's public functions call for a torch tensor (installed
into them here: they sit below this module and cannot import it).

How a torch call runs (route): while torch.compile traces, or when autograd will
need the call (grad mode on and an input requires grad), through the op; else,
the fast path, straight to the kernel (no dispatcher, a few microseconds less).
What softgen does not compute (float64 and other dtypes, 0-d tensors, devices
other than CUDA and the CPU) is computed by torch's own operator, with torch's
semantics and no warning. The ops' outputs are contiguous, as their fake kernels
say.
"""
import functools
from typing import Optional

import torch

from . import _kernel, attention, functional

_OURS = (torch.float16, torch.bfloat16, torch.float32)
_NS = "softgen"


def _ours(x, dtype=None):
    """Whether softgen computes this call (else torch's own operator does)."""
    return x.dtype in _OURS and x.dim() > 0 and x.device.type in ("cuda", "cpu") and \
        (dtype is None or dtype in _OURS)


def _dense(y):
    return y if y.is_contiguous() else y.contiguous()


def _check_dim(x, dim):
    nd = max(1, x.dim())
    if not -nd <= dim < nd:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], "
                         f"but got {dim})")


# ---- softmax and log_softmax: forward, fake, autograd ----
def _forward(template, torch_fn):
    def impl(x: torch.Tensor, dim: int, dtype: Optional[torch.dtype]) -> torch.Tensor:
        if not _ours(x, dtype):
            return _dense(torch_fn(x, dim, dtype=dtype))
        return _dense(functional._rowwise(template, (x,), dim, dtype, None, None, "auto"))
    impl.__name__ = template
    op = torch.library.custom_op(f"{_NS}::{template}", impl, mutates_args=())

    @op.register_fake
    def _(x, dim, dtype):
        _check_dim(x, dim)
        return x.new_empty(x.shape, dtype=dtype or x.dtype)
    return op


def _backward(template, torch_fn):
    def impl(grad: torch.Tensor, y: torch.Tensor, dim: int) -> torch.Tensor:
        if not _ours(y) or grad.dtype != y.dtype or grad.device != y.device:
            return _dense(torch_fn(grad, y, dim, y.dtype))
        return _dense(functional._rowwise(template, (grad, y), dim, None, None, None, "auto"))
    impl.__name__ = template
    op = torch.library.custom_op(f"{_NS}::{template}", impl, mutates_args=())

    @op.register_fake
    def _(grad, y, dim):
        _check_dim(y, dim)
        return y.new_empty(y.shape)
    return op


softmax = _forward("softmax", torch.softmax)
log_softmax = _forward("log_softmax", torch.log_softmax)
softmax_backward = _backward("softmax_backward", torch._softmax_backward_data)
log_softmax_backward = _backward("log_softmax_backward", torch._log_softmax_backward_data)


def _save_output(ctx, inputs, output):
    ctx.dim, ctx.x_dtype = inputs[1], inputs[0].dtype
    ctx.save_for_backward(output)


def _grad_of(backward_op):
    def grad(ctx, g):
        (y,) = ctx.saved_tensors
        return backward_op(g.to(y.dtype), y, ctx.dim).to(ctx.x_dtype), None, None
    return grad


softmax.register_autograd(_grad_of(softmax_backward), setup_context=_save_output)
log_softmax.register_autograd(_grad_of(log_softmax_backward), setup_context=_save_output)


# ---- attention_softmax ----
def _scores_dtype(x, mask):
    """PyTorch's dtype of x * scale + mask."""
    if mask is not None and mask.dtype != torch.bool:
        return torch.result_type(x, mask)
    return x.dtype


def _attention_torch(x, scale, mask, causal, causal_offset, safe, dtype):
    """attention_softmax as torch computes it, for what softgen does not (float64)."""
    s = x if scale is None else x * scale
    if mask is not None:
        s = s.masked_fill(~mask, float("-inf")) if mask.dtype == torch.bool else s + mask
    if causal:
        q = torch.arange(s.shape[-2] if s.dim() >= 2 else 1, device=s.device)[:, None]
        k = torch.arange(s.shape[-1], device=s.device)[None, :]
        s = s.masked_fill(k > q + causal_offset, float("-inf"))
    y = torch.softmax(s, -1, dtype=dtype)
    if safe:
        y = y.masked_fill(torch.isneginf(s).all(-1, keepdim=True), 0)
    return y


@torch.library.custom_op(f"{_NS}::attention_softmax", mutates_args=())
def attention_softmax(x: torch.Tensor, scale: Optional[float], mask: Optional[torch.Tensor],
                      causal: bool, causal_offset: int, safe: bool,
                      dtype: Optional[torch.dtype]) -> torch.Tensor:
    if not _ours(x, dtype) or (mask is not None and mask.dtype not in _OURS + (torch.bool,)) \
            or _scores_dtype(x, mask) not in _OURS:
        return _dense(_attention_torch(x, scale, mask, causal, causal_offset, safe, dtype))
    return _dense(attention._attention(x, scale, mask, causal, causal_offset, safe, dtype, None,
                                       None, "auto"))


@attention_softmax.register_fake
def _(x, scale, mask, causal, causal_offset, safe, dtype):
    return x.new_empty(x.shape, dtype=dtype or _scores_dtype(x, mask))


def _attention_save(ctx, inputs, output):
    x, scale, mask = inputs[:3]
    ctx.scale, ctx.x_dtype = scale, x.dtype
    ctx.mask_shape = None if mask is None or mask.dtype == torch.bool else mask.shape
    ctx.mask_dtype = None if mask is None else mask.dtype
    ctx.save_for_backward(output)


def _attention_grad(ctx, g):
    # y = softmax(s), s = x * scale + mask: ds = y * (g - sum(g * y)); dx = ds * scale
    (y,) = ctx.saved_tensors
    ds = softmax_backward(g.to(y.dtype), y, -1)
    dx = (ds if ctx.scale is None else ds * ctx.scale).to(ctx.x_dtype)
    dmask = None
    if ctx.mask_shape is not None and ctx.needs_input_grad[2]:
        dmask = ds.sum_to_size(ctx.mask_shape).to(ctx.mask_dtype)
    return dx, None, dmask, None, None, None, None


attention_softmax.register_autograd(_attention_grad, setup_context=_attention_save)


# ---- the route the public functions take for a torch tensor ----
_FORWARD = {"softmax": softmax, "log_softmax": log_softmax}
_BACKWARD = {"softmax_backward": softmax_backward, "log_softmax_backward": log_softmax_backward}
_TORCH_FORWARD = {"softmax": torch.softmax, "log_softmax": torch.log_softmax}
_TORCH_BACKWARD = {"softmax_backward": torch._softmax_backward_data,
                   "log_softmax_backward": torch._log_softmax_backward_data}


def _through_op(tensors):
    return torch.compiler.is_compiling() or \
        (torch.is_grad_enabled() and any(t.requires_grad for t in tensors))


def _refuse_out_with_grad(name, tensors):
    """torch's rule for out=: no autograd through it (RuntimeError, torch's words)."""
    if torch.is_grad_enabled() and any(t.requires_grad for t in tensors):
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support "
                           "automatic differentiation, but one of the arguments requires grad.")


def route(template, tensors, dim, dtype, out):
    """The result of a public call on torch tensors when the op or torch computes
    it; None: the caller launches the kernel directly (the fast path).
    tensors: (x,) or (grad, y); out: the caller's out= (then no autograd, as torch)."""
    if out is not None:
        _refuse_out_with_grad(template, tensors)
        return None
    if template in _FORWARD:
        x = tensors[0]
        if _through_op(tensors):
            return _FORWARD[template](x, dim, dtype)
        if not _ours(x, dtype):
            return _TORCH_FORWARD[template](x, dim, dtype=dtype)
        return None
    grad, y = tensors
    if _through_op(tensors):
        return _BACKWARD[template](grad, y, dim)
    if not _ours(y) or grad.dtype != y.dtype:
        return _TORCH_BACKWARD[template](grad, y, dim, y.dtype)
    return None


def route_attention(x, scale, mask, causal, causal_offset, safe, dtype, out):
    """As route, for attention_softmax."""
    tensors = (x,) if mask is None else (x, mask)
    if out is not None:
        _refuse_out_with_grad("attention_softmax", tensors)
        return None
    if _through_op(tensors):
        return attention_softmax(x, scale, mask, bool(causal), int(causal_offset), bool(safe),
                                 dtype)
    if not _ours(x, dtype) or _scores_dtype(x, mask) not in _OURS:
        return _attention_torch(x, scale, mask, causal, causal_offset, safe, dtype)
    return None


def _raw_stream():
    """The current CUDA stream's handle of a device index, as cheaply as torch
    gives it (torch._C._cuda_getCurrentRawStream where this torch has it)."""
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw is not None:
        return raw
    return lambda device: torch.cuda.current_stream(device).cuda_stream


# x is dense: contiguous_format spares empty_like inferring strides
_kernel._torch_fns = (functools.partial(torch.empty_like, memory_format=torch.contiguous_format),
                      _raw_stream(), torch.compiler.is_compiling,
                      torch.is_grad_enabled,
                      {torch.float16: "f16", torch.bfloat16: "bf16", torch.float32: "f32"},
                      torch.Tensor)
functional._tensor_type = torch.Tensor
functional._torch_route = route
attention._attention_route = route_attention
