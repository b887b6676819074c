"""Issue 7's variants on the GPU (called by test/gpu/suite.py, section "variants"):
softgen.attention_softmax (scale, additive mask whose rows repeat, causal, safe) and
softgen.softmax / log_softmax with dtype= (f16 / bf16 in, f32 out) on torch tensors,
against PyTorch's semantics in float64.

Needs: torch with a CUDA device, python/softgen, and either libsoftgen.so (compile on first
use) or the code objects test/gpu/generate.sh writes to OBJECTS/variants (preloaded here).
Produces: a list of (name, ok, detail) cases.

Cases per (template, dtype, N), x [2, 3, L, N] with L = 24 queries (M = 144 rows), x = 3 randn:
  scaled     softmax(x * 0.125)
  masked     softmax(x * 0.125 + mask), mask [L, N] (10 % -inf, row 5 all -inf: NaN rows)
  causal     softmax of x * 0.125 with keys n > q + offset removed, offsets 0, N / 3 + 5
             and N - L (staged rows skip the chunks a row masks wholly: every boundary)
  attention  mask and causal together (offset 0)
  safe       the safe rule on mask + causal (offset -3: rows with no key left give zeros)
  safe_plain safe_softmax of x with a row of all -inf (zeros, as torch._safe_softmax)
  dtype      softmax / log_softmax(x, dtype=torch.float32) of f16 / bf16 x: the U kernel
Checks: NaN exactly where the reference is NaN; relative error by norm over the finite
entries <= TOL of the output dtype (f16 1e-3, bf16 1e-2, f32 1e-5, x 2 for the input's own
rounding already in the reference), or twice the output dtype's own rounding of the reference
where that is larger (f16 subnormals at N = 131072); output dtype and shape as asked.
"""
import os

TOL = {"f16": 2e-3, "bf16": 2e-2, "f32": 2e-5}
NS = [128, 1000, 4097, 32768, 131072]
L = 24


def _rel(y, ref):
    y, ref = y.double(), ref.double()
    nan_y, nan_r = torch.isnan(y), torch.isnan(ref)
    if not torch.equal(nan_y, nan_r):
        bad = (nan_y != nan_r).nonzero()[0].tolist()
        return None, f"NaN at {bad}: got {y[tuple(bad)].item()}, reference {ref[tuple(bad)].item()}"
    ok = ~nan_r
    d = (y - ref)[ok].norm().item()
    den = ref[ok].norm().item()
    return (d / den if den else d), ""


def _reference(x, scale, mask, offset, safe):
    s = x.double() * (1.0 if scale is None else scale)
    if mask is not None:
        s = s + mask.double()
    if offset is not None:
        n = x.shape[-1]
        keep = torch.ones(L, n, dtype=torch.bool, device=x.device).tril(offset)
        s = s.masked_fill(~keep, float("-inf"))
    y = torch.softmax(s, -1)
    if safe:
        dead = (s == float("-inf")).all(-1, keepdim=True)
        y = y.masked_fill(dead, 0.0)
    return y


def run(objects, say):
    """Runs the cases; objects: the generated folder (its variants/ subfolder) or None."""
    global torch
    import torch
    import softgen
    vdir = os.path.join(objects, "variants") if objects else None
    if vdir and os.path.isdir(vdir):
        n = softgen.preload(vdir)
        say(f"variants: preloaded {n} objects; compiler: "
            f"{softgen.version() or 'absent (prebuilt objects only)'}")
    tdt = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}
    g = torch.Generator(device="cuda")
    g.manual_seed(7)
    cases = []

    def case(name, fn):
        try:
            ok, detail = fn()
        except Exception as e:  # noqa: BLE001 - a case that raises fails
            ok, detail = False, f"raised {type(e).__name__}: {e}"
        cases.append((name, ok, detail))
        say(f"{'ok' if ok else 'FAIL'} variants {name}: {detail}")

    def judge(y, ref, dt, want_dtype):
        if y.dtype != want_dtype:
            return False, f"dtype {y.dtype}, expected {want_dtype}"
        rel, why = _rel(y, ref)
        if rel is None:
            return False, why
        # long f16 rows hold values under f16's normal range (N = 131072: ~1e-5), where
        # the output's own rounding of the exact result exceeds TOL: allow twice that
        # (the rule of torch_api.py's bound())
        tol = max(TOL[dt], 2 * _rel(ref.to(want_dtype), ref)[0])
        return rel <= tol, f"rel err {rel:.2e} (tol {tol:.1e})"

    for dt in ("f16", "bf16", "f32"):
        for n in NS:
            x = (3 * torch.randn(2, 3, L, n, generator=g, device="cuda")).to(tdt[dt])
            mask = torch.randn(L, n, generator=g, device="cuda")
            mask = mask.masked_fill(torch.rand(L, n, generator=g, device="cuda") < 0.1,
                                    float("-inf"))
            mask[5] = float("-inf")
            mask = mask.to(tdt[dt])
            out_t = tdt[dt]

            def one(scale=None, m=None, offset=None, safe=False):
                y = softgen.attention_softmax(x, scale=scale, mask=m, causal=offset is not None,
                                              causal_offset=offset or 0, safe=safe)
                ref = _reference(x, scale, m, offset, safe)
                return judge(y, ref, dt, out_t)
            tag = f"{dt} N={n}"
            case(f"scaled {tag}", lambda: one(scale=0.125))
            case(f"masked {tag}", lambda: one(scale=0.125, m=mask))
            case(f"causal {tag}", lambda: one(scale=0.125, offset=0))
            case(f"causal_mid {tag}", lambda: one(scale=0.125, offset=n // 3 + 5))
            case(f"causal_br {tag}", lambda: one(scale=0.125, offset=n - L))
            case(f"attention {tag}", lambda: one(scale=0.125, m=mask, offset=0))
            case(f"safe {tag}", lambda: one(scale=0.125, m=mask, offset=-3, safe=True))

            def safe_plain():
                x2 = x.clone()
                x2[0, 0, 3] = float("-inf")
                y = softgen.attention_softmax(x2, safe=True)
                return judge(y, _reference(x2, None, None, None, True), dt, out_t)
            case(f"safe_plain {tag}", safe_plain)
            if dt != "f32":
                for fn, tfn in ((softgen.softmax, torch.softmax),
                                (softgen.log_softmax, torch.log_softmax)):
                    def cast(fn=fn, tfn=tfn):
                        y = fn(x, -1, dtype=torch.float32)
                        return judge(y, tfn(x.double(), -1), "f32", torch.float32)
                    case(f"dtype {fn.__name__} {dt}->f32 N={n}", cast)
    return cases
