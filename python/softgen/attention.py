"""softgen's attention-style softmax on torch tensors: scale, an additive mask,
the causal mask and the "safe" rule, in one pass over the scores.

Needs: functional._kernel (compile on first use, caches), _arrays (dtype names),
_errors, _kernel (the counters); torch. Produces:
attention_softmax. The templates (kernels-templates/): softmax, safe_softmax,
scaled_softmax, masked_softmax, causal_softmax, attention_softmax,
safe_attention_softmax; the call picks the smallest that does what was asked.

dtypes, as PyTorch computes torch.softmax(x * scale + mask, -1, dtype=dtype): the
scores' dtype P is torch.result_type(x, mask) (f16 scores with an f32 mask give
f32), the output dtype U is dtype= or P. When U is P, or widens it to f32 (an
exact cast), one kernel reads x in its dtype T and the mask in U (the masked
templates declare mask: in[R, N] U), so an f32 mask is added unrounded
(finfo(f32).min stays finite: a fully masked row is uniform, as in PyTorch, not
NaN); the mask is cast only when its dtype differs from U (exactly: it widens).
A dtype= that narrows P (f32 -> f16 / bf16, or between f16 and bf16) makes
PyTorch round the scores x * scale + mask before the softmax (an f16 score above
65504 is inf, its row NaN): that sum is computed in P and cast, as PyTorch does,
and the softmax (causal, safe) runs on it.
"""
from ._arrays import _TORCH_TO_SG, _dtype_name, _is_torch, _long_name
from ._errors import UnsupportedError
from ._kernel import _stats
from .functional import _kernel


def _template(scaled, masked, causal, safe):
    if not (scaled or masked or causal):
        return "safe_softmax" if safe else "softmax"
    if safe or (masked and causal):
        return "safe_attention_softmax" if safe else "attention_softmax"
    return "masked_softmax" if masked else "causal_softmax" if causal else "scaled_softmax"


def _mask_rows(mask, x, dtype):
    """mask in dtype (the output's U; cast only when it differs) as a 2-D [R, N]
    tensor whose rows repeat over x's rows (R divides M), without a copy when
    its dims are a suffix of x's; else expanded."""
    import torch
    if mask.dtype == torch.bool:  # SDPA's convention: True takes part
        mask = torch.zeros(mask.shape, dtype=dtype, device=mask.device).masked_fill(
            ~mask, float("-inf"))
    if mask.dtype != dtype:
        mask = mask.to(dtype)
    while mask.dim() > 1 and mask.shape[0] == 1:
        mask = mask[0]
    k = mask.dim()
    suffix = k <= x.dim() and tuple(mask.shape) == tuple(x.shape[x.dim() - k:])
    if not suffix:
        try:
            mask = mask.expand(x.shape)
        except RuntimeError as e:
            raise ValueError(f"attention_softmax: mask of shape {tuple(mask.shape)} does not "
                             f"broadcast to the scores' {tuple(x.shape)}") from e
    mask = mask.contiguous()
    return mask.reshape(-1, x.shape[-1])


# The route of a call (_torchops.route_attention, installed by it): through the op
# softgen::attention_softmax (autograd, torch.compile), to torch (float64), or None.
_attention_route = None


def attention_softmax(x, *, scale=None, mask=None, causal=False, causal_offset=0, safe=False,
                      dtype=None, out=None, stream=None, backend="auto"):
    """softmax over the last dim of attention scores x (torch, [..., L, N]):
        softmax(x * scale + mask), keys n > q + causal_offset of query q
        removed when causal (q: the index along x's second-last dim; offset 0
        is torch SDPA's is_causal, N - L aligns bottom-right).
    mask: float (added) or bool (True takes part, as SDPA), broadcast to x; a
    mask whose dims are a suffix of x's ([L, N] under [B, H, L, N]) is read as
    is, repeated over the leading rows. safe=True: a row with no key left gives
    zeros (torch._safe_softmax), else NaN (torch.softmax). dtype: the output's
    dtype (default: PyTorch's promotion of x and a float mask, torch.result_type;
    else x's); accumulation is f32. One pass: no masked copy of x. Where autograd
    or torch.compile needs it, the op softgen::attention_softmax (gradients for x
    and a float mask); float64 is computed by torch."""
    if _attention_route is not None and stream is None and backend == "auto" and _is_torch(x):
        y = _attention_route(x, scale, mask, causal, causal_offset, safe, dtype, out)
        if y is not None:
            return y
    return _attention(x, scale, mask, causal, causal_offset, safe, dtype, out, stream, backend)


def _attention(x, scale, mask, causal, causal_offset, safe, dtype, out, stream, backend):
    """attention_softmax's launch (its doc), without the route."""
    if not _is_torch(x):
        raise UnsupportedError("attention_softmax takes torch tensors", "SG_ERR_UNSUPPORTED")
    import torch
    _stats["calls"] += 1
    if x.dim() == 0:
        raise ValueError("attention_softmax: needs at least one dim, got a scalar")
    name = _TORCH_TO_SG.get(str(x.dtype))
    if name is None:
        raise TypeError(f"attention_softmax: dtype {x.dtype} not supported "
                        "(float16, bfloat16, float32)")
    tpl = _template(scale is not None, mask is not None, bool(causal), bool(safe))
    masked = tpl in ("masked_softmax", "attention_softmax", "safe_attention_softmax")
    promoted = x.dtype  # PyTorch's dtype of x * scale + mask
    if mask is not None and mask.dtype != torch.bool:
        promoted = torch.result_type(x, mask)
    p_name = _TORCH_TO_SG.get(str(promoted))
    out_name = _dtype_name(dtype) or p_name
    if out_name is None:
        raise TypeError(f"attention_softmax: scores {x.dtype} and mask {mask.dtype} promote "
                        f"to {promoted}, which softgen does not compute: pass dtype= or a "
                        "float16, bfloat16 or float32 mask")
    if out_name != p_name and not (out_name == "f32" and p_name in ("f16", "bf16")):
        # dtype= narrows the scores: PyTorch rounds x * scale + mask to it first
        s = x if scale is None else x * scale
        if mask is not None and mask.dtype == torch.bool:
            s = s.masked_fill(~mask, float("-inf"))
        elif mask is not None:
            s = s + mask
        x, name, scale, mask = s.to(getattr(torch, _long_name(out_name))), out_name, None, None
        tpl = _template(False, False, bool(causal), bool(safe))
        masked = tpl in ("masked_softmax", "attention_softmax", "safe_attention_softmax")
    x2 = x.reshape(-1, x.shape[-1]) if x.dim() != 2 else x
    if x2.stride(-1) != 1:
        x2 = x2.contiguous()
    n = x.shape[-1]
    y = out if out is not None else torch.empty(x.shape, dtype=getattr(torch, _long_name(out_name)),
                                                device=x.device)
    if x.numel() == 0:
        return y
    place = "host" if x.device.type == "cpu" else x.device.index or 0
    k = _kernel(tpl, n, name, place, backend, out_name)
    inputs = [x2]
    if masked:
        udt = getattr(torch, _long_name(out_name))
        m = _mask_rows(mask, x, udt) if mask is not None else torch.zeros(
            (1, n), dtype=udt, device=x.device)
        inputs.append(m)
    scalars = {}
    for s, kind in k.scalars:
        if s == "scale":
            scalars[s] = 1.0 if scale is None else scale  # checked by the call (an f32)
        elif s == "L":
            scalars[s] = x.shape[-2] if x.dim() >= 2 else 1
        else:
            scalars[s] = causal_offset if causal else n  # checked by the call (an i64)
    y2 = y.view(-1, n) if y.is_contiguous() else torch.empty_like(x2, dtype=y.dtype)
    k(*inputs, out=y2, stream=stream, **scalars)
    if y2.data_ptr() != y.data_ptr():
        y.copy_(y2.view(y.shape))
    return y
