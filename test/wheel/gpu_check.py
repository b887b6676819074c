"""The installed wheel with PyTorch, as a user meets it (issue 22's checks):
    python gpu_check.py [--device cuda|cpu] [--out RESULTS.md]
Run on the GPU machine after `pip install --no-deps softgen-*.whl` (torch is
there, LLVM is not); on a CPU-only machine with torch, --device cpu runs what
applies (the host target) and skips CUDA graphs and host-cost figures.

Checks, one line each ("ok: ..." / "FAIL: ..."), exit status 1 on any FAIL:
  1. compile on first use: every template x dtype at a few N, against float64
     (fresh cache directory), with the first call's latency (compile + load);
  2. autograd: gradients of softmax, log_softmax and attention_softmax against
     torch's (f32, f16, bf16), gradcheck in float64 (torch computes float64);
  3. torch.compile(fullgraph=True) of an attention block and of a classifier
     head with cross-entropy through softgen.log_softmax, forward and backward,
     against eager;
  4. CUDA graphs: 100 launches captured after a warm-up, replayed, compared; a
     kernel that would compile during capture raises softgen.Error (no hang);
  5. host cost per call: softgen.softmax against torch.softmax on a tensor small
     enough that the host is the limit (medians of 5 rounds);
  6. the first call's latency with and without ptxas (PTX through the driver's
     JIT), each in a fresh process and cache.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

import torch

import softgen

ap = argparse.ArgumentParser()
ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
ap.add_argument("--out", default=None)
ap.add_argument("--first-call", default=None, help=argparse.SUPPRESS)  # internal: item 6
ap.add_argument("--only-host-cost", action="store_true", help="item 5 alone (its rounds again)")
args = ap.parse_args()
dev = torch.device(args.device)
cuda = dev.type == "cuda"
lines, failures = [], []


def say(text):
    print(text, flush=True)
    lines.append(text)


def check(ok, what):
    say(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        failures.append(what)


def sync():
    if cuda:
        torch.cuda.synchronize()


if args.first_call:  # item 6's child: one first call, its latency in ms
    x = torch.randn(64, int(args.first_call), device=dev, dtype=torch.float16)
    t = time.perf_counter()
    y = softgen.softmax(x, -1)
    sync()
    ms = (time.perf_counter() - t) * 1e3
    err = (y.double() - torch.softmax(x.double(), -1)).abs().max().item()
    print(f"{ms:.1f} {err:.2e} {softgen.cache_info()['last']['kind']}")
    sys.exit(0)

DTYPES = (torch.float32, torch.float16, torch.bfloat16)
TOL = {torch.float32: 2e-6, torch.float16: 2e-3, torch.bfloat16: 1.6e-2}
say(f"# softgen wheel check on {torch.cuda.get_device_name() if cuda else 'CPU'}")
say(f"softgen {softgen.__file__}; version {softgen.version()}; torch {torch.__version__}")

# ---- 1. compile on first use, every template x dtype ----
torch.manual_seed(0)


def ref_rowwise(template, x, g):
    x = x.double()
    if template == "softmax":
        return torch.softmax(x, -1)
    if template == "log_softmax":
        return torch.log_softmax(x, -1)
    g = g.double()
    if template == "softmax_backward":
        return x * (g - (g * x).sum(-1, keepdim=True))
    return g - x.exp() * g.sum(-1, keepdim=True)


def ref_attention(x, scale, mask, causal, safe):
    s = x.double() * (1.0 if scale is None else scale)
    if mask is not None:
        s = s + mask.double()
    if causal:
        q = torch.arange(s.shape[-2], device=s.device)[:, None]
        s = s.masked_fill(torch.arange(s.shape[-1], device=s.device)[None, :] > q, float("-inf"))
    y = torch.softmax(s, -1)
    return y.nan_to_num(0.0) if safe else y


first_ms = []
for dt in (() if args.only_host_cost else DTYPES):
    for n in (7, 1000, 4099, 32768):
        x = torch.randn(5, n, device=dev, dtype=dt)
        g = torch.randn(5, n, device=dev, dtype=dt)
        for template in ("softmax", "log_softmax", "softmax_backward", "log_softmax_backward"):
            t = time.perf_counter()
            if template.endswith("_backward"):
                y = (softgen.softmax if template == "softmax_backward" else softgen.log_softmax)(x)
                got = getattr(softgen, template)(g, y)
                want = ref_rowwise(template, y, g)
            else:
                got = getattr(softgen, template)(x)
                want = ref_rowwise(template, x, None)
            sync()
            first_ms.append((time.perf_counter() - t) * 1e3)
            err = ((got.double() - want).norm() / want.norm().clamp_min(1e-30)).item()
            check(err < TOL[dt], f"{template} {str(dt)[6:]} N={n}: relative error {err:.1e}")
    for n in (7, 1000, 4099):
        x = torch.randn(2, 3, 16, n, device=dev, dtype=dt)
        mask = torch.randn(16, n, device=dev, dtype=dt)
        for name, kw in (("scaled", dict(scale=0.125)), ("masked", dict(mask=mask)),
                         ("causal", dict(causal=True)),
                         ("attention", dict(scale=0.125, mask=mask, causal=True)),
                         ("safe attention", dict(scale=0.125, mask=mask, causal=True, safe=True))):
            t = time.perf_counter()
            got = softgen.attention_softmax(x, **kw)
            sync()
            first_ms.append((time.perf_counter() - t) * 1e3)
            want = ref_attention(x, kw.get("scale"), kw.get("mask"), kw.get("causal", False),
                                 kw.get("safe", False))
            err = ((got.double() - want).norm() / want.norm()).item()
            check(err < TOL[dt], f"attention_softmax {name} {str(dt)[6:]} N={n}: relative "
                  f"error {err:.1e}")
if first_ms:
    say(f"first calls (compile + load + run, fresh cache): median "
        f"{statistics.median(first_ms):.0f} ms, max {max(first_ms):.0f} ms over "
        f"{len(first_ms)} kernels")

# ---- 1b. the dense launch (the fast path of softgen.softmax and of Kernel calls) ----
if cuda and not args.only_host_cost:
    for dt, n in ((torch.float16, 1000), (torch.float32, 4099), (torch.bfloat16, 8192)):
        tol = TOL[dt]
        x = torch.randn(6, n, device=dev, dtype=dt)
        want = torch.softmax(x.double(), -1)
        k = softgen.compile("softmax", N=n, dtype=str(dt)[6:])
        y = torch.empty_like(x)
        cases = {"k(x)": lambda: k(x), "k(x, out=y)": lambda: k(x, out=y),
                 "softmax(x, out=y)": lambda: softgen.softmax(x, out=y),
                 "softmax(x.clone(), out=itself)": lambda: (lambda c: softgen.softmax(c, out=c))(
                     x.clone()),
                 "softmax of an offset view": lambda: softgen.softmax(
                     torch.cat([torch.zeros(1, device=dev, dtype=dt), x.flatten()])[1:].view(6, n))}
        for name, f in cases.items():
            got = f()
            sync()
            err = ((got.double() - want).norm() / want.norm()).item()
            check(err < tol, f"dense launch {name} {str(dt)[6:]} N={n}: relative error {err:.1e}")
        g = torch.randn_like(x)
        yy = softgen.softmax(x)
        kb = softgen.compile("softmax_backward", N=n, dtype=str(dt)[6:])
        want = ref_rowwise("softmax_backward", yy, g)
        got = kb(g, yy)
        err = ((got.double() - want).norm() / want.norm()).item()
        check(err < 4 * tol, f"dense launch kb(grad, y) {str(dt)[6:]} N={n}: relative error "
              f"{err:.1e}")
    try:
        k(torch.randn(6, n + 1, device=dev, dtype=torch.bfloat16))
        check(False, "a row of the wrong N was launched")
    except softgen.Error as e:
        check("N" in str(e) or "cols" in str(e), f"a row of the wrong N refused: {e}")

# ---- 2. autograd ----
for dt in (() if args.only_host_cost else DTYPES):
    for fn, tfn in ((softgen.softmax, torch.softmax), (softgen.log_softmax, torch.log_softmax)):
        for dim in (-1, 0):
            x = torch.randn(33, 517, device=dev, dtype=dt, requires_grad=True)
            xr = x.detach().clone().requires_grad_()
            y = fn(x, dim)
            g = torch.randn_like(y)
            y.backward(g)
            tfn(xr.float(), dim).to(dt).backward(g)
            err = ((x.grad.double() - xr.grad.double()).norm() / xr.grad.double().norm()).item()
            check(y.grad_fn is not None and err < 4 * TOL[dt],
                  f"grad {fn.__name__} {str(dt)[6:]} dim={dim}: relative difference to torch's "
                  f"{err:.1e}")
    x = torch.randn(2, 4, 16, 64, device=dev, dtype=dt, requires_grad=True)
    m = torch.randn(16, 64, device=dev, dtype=dt, requires_grad=True)
    xr, mr = x.detach().clone().requires_grad_(), m.detach().clone().requires_grad_()
    y = softgen.attention_softmax(x, scale=0.3, mask=m, causal=True)
    s = (xr.float() * 0.3 + mr.float()).masked_fill(
        torch.ones(16, 64, dtype=torch.bool, device=dev).triu(1), float("-inf"))
    g = torch.randn_like(y)
    y.backward(g)
    torch.softmax(s, -1).to(dt).backward(g)
    ex = ((x.grad.double() - xr.grad.double()).norm() / xr.grad.double().norm()).item()
    em = ((m.grad.double() - mr.grad.double()).norm() / mr.grad.double().norm()).item()
    check(ex < 4 * TOL[dt] and em < 4 * TOL[dt],
          f"grad attention_softmax {str(dt)[6:]} (x, mask): {ex:.1e}, {em:.1e}")
if not args.only_host_cost:
    x64 = torch.randn(4, 9, device=dev, dtype=torch.float64, requires_grad=True)
    check(torch.autograd.gradcheck(lambda t: softgen.softmax(t, -1), (x64,)) and
          torch.autograd.gradcheck(lambda t: softgen.log_softmax(t, 0), (x64,)),
          "gradcheck float64 (torch's operator computes float64)")
    x32 = torch.randn(4, 9, device=dev, dtype=torch.float32, requires_grad=True)
    check(torch.autograd.gradcheck(lambda t: softgen.softmax(t, -1), (x32,), eps=1e-3, atol=2e-3,
                                   rtol=1e-2, nondet_tol=1e-6, fast_mode=True),
          "gradcheck float32 through softgen's kernels (eps 1e-3, atol 2e-3)")
    check(softgen.softmax(torch.tensor(2.0, device=dev), 0).item() == 1.0, "0-d tensor as torch")

# ---- 3. torch.compile(fullgraph=True) ----
class Attention(torch.nn.Module):
    def __init__(self, d=64, h=4):
        super().__init__()
        self.h, self.qkv, self.o = h, torch.nn.Linear(d, 3 * d), torch.nn.Linear(d, d)

    def forward(self, x):
        b, l, d = x.shape
        q, k, v = self.qkv(x).view(b, l, 3, self.h, d // self.h).permute(2, 0, 3, 1, 4)
        p = softgen.attention_softmax(q @ k.transpose(-1, -2), scale=(d // self.h) ** -0.5,
                                      causal=True)
        return self.o((p @ v).transpose(1, 2).reshape(b, l, d))


class Head(torch.nn.Module):
    def __init__(self, d=64, classes=1000):
        super().__init__()
        self.fc = torch.nn.Linear(d, classes)

    def forward(self, x, target):
        return torch.nn.functional.nll_loss(softgen.log_softmax(self.fc(x), -1), target)


backend = "inductor"
for name, model, inputs in () if args.only_host_cost else (
        ("attention block", Attention().to(dev), (torch.randn(2, 32, 64, device=dev),)),
        ("classifier head + cross-entropy", Head().to(dev),
         (torch.randn(16, 64, device=dev), torch.randint(0, 1000, (16,), device=dev)))):
    torch._dynamo.reset()
    eager_out = model(*inputs)
    eager_out.sum().backward()
    eager_grads = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    try:
        compiled = torch.compile(model, fullgraph=True, backend=backend)
        out = compiled(*inputs)
        out.sum().backward()
        ef = ((out - eager_out).abs().max() / eager_out.abs().max()).item()
        eg = max(((p.grad - g).abs().max() / g.abs().max().clamp_min(1e-30)).item()
                 for p, g in zip(model.parameters(), eager_grads))
        check(ef < 1e-4 and eg < 1e-3, f"torch.compile(fullgraph=True, {backend}) {name}: "
              f"forward {ef:.1e}, gradients {eg:.1e} from eager")
    except Exception as e:  # noqa: BLE001
        check(False, f"torch.compile(fullgraph=True) {name}: {type(e).__name__}: {e}")

# ---- 4. CUDA graphs ----
if cuda and not args.only_host_cost:
    x = torch.randn(64, 2048, device=dev, dtype=torch.float16)
    ys = [torch.empty_like(x) for _ in range(100)]
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        softgen.softmax(x, -1, out=ys[0])  # warm-up: compiled and loaded here
    torch.cuda.current_stream().wait_stream(s)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for y in ys:
            softgen.softmax(x, -1, out=y)
    x.copy_(torch.randn_like(x))
    graph.replay()
    sync()
    want = torch.softmax(x.float(), -1)
    err = max((y.float() - want).abs().max().item() for y in ys)
    check(err < 2e-3, f"CUDA graph of 100 softgen.softmax launches replayed: max error {err:.1e}")
    x2 = torch.randn(8, 3001, device=dev, dtype=torch.float16)  # never called before
    t = time.perf_counter()
    try:
        g2 = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g2):
            softgen.softmax(x2, -1)
        check(False, "a compile during capture was not refused")
    except softgen.Error as e:
        check("during CUDA graph capture" in str(e),
              f"compile during capture refused in {time.perf_counter() - t:.2f} s: {e}")
    except Exception as e:  # noqa: BLE001
        check(False, f"compile during capture: {type(e).__name__}: {e}")
    sync()
    check(torch.allclose(softgen.softmax(x2, -1).float(), torch.softmax(x2.float(), -1),
                         atol=2e-3), "the same call after the failed capture works")

# ---- 5. host cost per call ----
if cuda:
    x = torch.randn(4, 256, device=dev, dtype=torch.float16)
    y = torch.empty_like(x)
    k = softgen.compile("softmax", N=256, dtype="f16")
    calls = {"torch.softmax(x, -1)": lambda: torch.softmax(x, -1),
             "softgen.softmax(x, -1)": lambda: softgen.softmax(x, -1),
             "softgen.softmax(x, -1, out=y)": lambda: softgen.softmax(x, -1, out=y),
             "k(x, out=y)": lambda: k(x, out=y),
             # the parts of the public call: its allocation, and its launch alone
             "  part: torch.empty_like(x)": lambda: torch.empty_like(x),
             "  part: the launch (_launch_dense_fn)": lambda: launch(handle, 4, raw(0),
                                                                      x.data_ptr(), y.data_ptr(), 0)}
    from softgen import _kernel
    launch, raw, handle = _kernel._launch_dense_fn, torch._C._cuda_getCurrentRawStream, \
        k._get(0).value
    say(f"launch through: {launch!r}")
    for f in calls.values():
        for _ in range(200):
            f()
    sync()
    rounds = {name: [] for name in calls}
    for _ in range(5):
        for name, f in calls.items():
            sync()
            t = time.perf_counter()
            for _ in range(5000):
                f()
            t_host = time.perf_counter() - t
            sync()
            rounds[name].append(t_host / 5000 * 1e6)
    base = statistics.median(rounds["torch.softmax(x, -1)"])
    say("host cost per call (us; median of 5 rounds of 5000 calls, min-max):")
    for name, r in rounds.items():
        say(f"  {name:32s} {statistics.median(r):6.2f}  ({min(r):.2f}-{max(r):.2f})  "
            f"{statistics.median(r) / base:.2f}x torch.softmax")
    ratio = statistics.median(rounds["softgen.softmax(x, -1)"]) / base
    check(ratio <= 1.5, f"softgen.softmax host cost {ratio:.2f}x torch.softmax's (target 1.5x)")

# ---- 6. first call with and without ptxas ----
if cuda and not args.only_host_cost:
    for label, env_change in (("with ptxas (a cubin)", {}),
                              ("without ptxas (PTX, the driver JIT-compiles it)",
                               {"PATH": "/usr/bin:/bin", "CUDA_HOME": "/nonexistent"})):
        times = []
        for n in (4096, 50257):
            with tempfile.TemporaryDirectory() as cache:
                env = dict(os.environ, SOFTGEN_CACHE_DIR=cache, **env_change)
                r = subprocess.run([sys.executable, __file__, "--device", "cuda",
                                    "--first-call", str(n)], env=env, capture_output=True,
                                   text=True)
                if r.returncode:
                    check(False, f"first call {label} N={n}: {r.stderr.strip()[-300:]}")
                    continue
                ms, err, kind = r.stdout.split()
                times.append(f"N={n} {ms} ms ({kind}, error {err})")
        say(f"first call {label}: " + "; ".join(times))

say(f"wheel GPU check: {'FAIL' if failures else 'PASS'} ({len(failures)} failed)")
if args.out:
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")
sys.exit(1 if failures else 0)
