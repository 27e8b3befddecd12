#!/usr/bin/env python3
"""The sweep of bench_mixture (sk-mixture's Gibbs sampler) written in PyTorch, on the same GPU.

Same shapes (N = 10^7 points, D = 16, K = 8, 64 and 512 by default), same model and priors
(examples/mixture/README.md), float32 on the device:
  z-step      log-weights by one matrix product, [x^2, x] (N x 2D) times [-prec/2, mu prec] (2D x K), plus
              log pi - sum(mu^2 prec) / 2 - sum(log sigma2) / 2; z by Gumbel-max (argmax of the log-weights
              plus -log(-log U)), which torch.multinomial would only slow down (it needs the weights
              normalised); points in chunks of at most 2^30 / K so that the N x K arrays fit
  statistics  torch.bincount and index_add_ of x and x^2 (float atomics: not deterministic)
  parameters  Dirichlet by torch.distributions.Gamma, the Normal-Inverse-Gamma posterior's variances by
              Gamma and means by torch.randn
Each step is timed with CUDA events; the median of --runs sweeps after 2 warm-up ones. The data is
planted (64 well-separated clusters), standardized as sk-mixture standardizes it; every K starts from
random points as means.
  usage: bench_mixture_torch.py [--n N] [--d D] [--ks 8,64,512] [--runs R] [--csv OUT.csv]
                                [--samplekit-csv bench_mixture.csv]
With --samplekit-csv (bench_mixture's CSV from the same GPU) it prints PyTorch's time over samplekit's
for the sweep and the z-step, per K.
"""
import argparse
import csv
import statistics
import sys

try:
    import torch
except ImportError:
    print("SKIP: PyTorch is not installed")
    sys.exit(77)

ALPHA, KAPPA0, A0, B0 = 1.0, 0.01, 2.0, 0.1  # sk-mixture's defaults (standardized units)


def planted(n, d, gen):
    """N x D float32 points from 64 well-separated clusters, standardized per dimension."""
    centres = 20.0 * torch.randn(64, d, device="cuda", generator=gen)
    labels = torch.randint(0, 64, (n,), device="cuda", generator=gen)
    x = centres[labels] + torch.randn(n, d, device="cuda", generator=gen)
    x = (x - x.mean(0)) / x.std(0, unbiased=False)
    return x.contiguous()


class Sweep:
    def __init__(self, x, k, gen):
        self.x, self.k, self.gen = x, k, gen
        self.x2 = x * x
        self.xx = torch.cat([self.x2, x], 1)  # N x 2D: the matrix product's left side
        n, d = x.shape
        self.chunk = max(1, min(n, (1 << 30) // k))
        self.mu = x[torch.randint(0, n, (k,), device="cuda", generator=gen)].clone()
        self.sigma2 = torch.full((k, d), 1.0, device="cuda")
        self.log_pi = torch.full((k,), -float(torch.log(torch.tensor(float(k)))), device="cuda")
        self.z = torch.empty(n, dtype=torch.long, device="cuda")

    def zstep(self):
        prec = 1.0 / self.sigma2
        right = torch.cat([-0.5 * prec, self.mu * prec], 1).t().contiguous()  # 2D x K
        const = self.log_pi - 0.5 * (self.mu * self.mu * prec).sum(1) - 0.5 * torch.log(self.sigma2).sum(1)
        n = self.x.shape[0]
        for lo in range(0, n, self.chunk):
            hi = min(n, lo + self.chunk)
            logw = torch.addmm(const, self.xx[lo:hi], right)  # (hi - lo) x K
            g = torch.rand(hi - lo, self.k, device="cuda", generator=self.gen)
            g.log_().neg_().log_().neg_()  # Gumbel(0, 1)
            logw.add_(g)
            self.z[lo:hi] = logw.argmax(1)

    def stats(self):
        d = self.x.shape[1]
        self.count = torch.bincount(self.z, minlength=self.k).to(torch.float32)
        self.sx = torch.zeros(self.k, d, device="cuda").index_add_(0, self.z, self.x)
        self.sxx = torch.zeros(self.k, d, device="cuda").index_add_(0, self.z, self.x2)

    def params(self):
        n = self.count[:, None]
        kappa = KAPPA0 + n
        safe = n.clamp(min=1.0)
        centred = (self.sxx - self.sx * self.sx / safe).clamp(min=0.0)
        b = B0 + 0.5 * centred + KAPPA0 * self.sx * self.sx / (2.0 * safe * kappa)
        a = (A0 + 0.5 * n).expand_as(b)
        self.sigma2 = b / torch.distributions.Gamma(a, torch.ones_like(a)).sample()
        self.mu = self.sx / kappa + torch.sqrt(self.sigma2 / kappa) * torch.randn(
            self.sigma2.shape, device="cuda", generator=self.gen)
        g = torch.distributions.Gamma(ALPHA + self.count, torch.ones_like(self.count)).sample()
        self.log_pi = torch.log(g / g.sum())


def time_sweeps(s, runs):
    steps = ("zstep", "stats", "params")
    times = {name: [] for name in steps}
    times["sweep"] = []
    for r in range(runs + 2):
        ev = [torch.cuda.Event(enable_timing=True) for _ in range(4)]
        ev[0].record()
        s.zstep()
        ev[1].record()
        s.stats()
        ev[2].record()
        s.params()
        ev[3].record()
        ev[3].synchronize()
        if r < 2:
            continue
        for i, name in enumerate(steps):
            times[name].append(ev[i].elapsed_time(ev[i + 1]))
        times["sweep"].append(ev[0].elapsed_time(ev[3]))
    return {name: statistics.median(v) for name, v in times.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=10_000_000)
    ap.add_argument("--d", type=int, default=16)
    ap.add_argument("--ks", default="8,64,512")
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--csv", help="write PyTorch's timings here")
    ap.add_argument("--samplekit-csv", help="bench_mixture's CSV from the same GPU, for the ratios")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        print("SKIP: no CUDA GPU for PyTorch")
        return 77
    torch.backends.cuda.matmul.allow_tf32 = False  # float32 products, as the model asks
    gen = torch.Generator(device="cuda").manual_seed(2026)
    x = planted(args.n, args.d, gen)
    print(f"PyTorch {torch.__version__} on {torch.cuda.get_device_name(0)}: N = {args.n}, D = {args.d}, "
          f"median of {args.runs} sweeps")
    print(f"{'K':>5} {'sweep ms':>10} {'z-step':>10} {'stats':>10} {'params':>10}")
    rows = []
    for k in (int(v) for v in args.ks.split(",")):
        t = time_sweeps(Sweep(x, k, gen), args.runs)
        rows.append({"K": k, "N": args.n, "D": args.d, "sweep_ms": t["sweep"], "zstep_ms": t["zstep"],
                     "stats_ms": t["stats"], "params_ms": t["params"]})
        print(f"{k:>5} {t['sweep']:>10.3f} {t['zstep']:>10.3f} {t['stats']:>10.3f} {t['params']:>10.3f}")
        torch.cuda.empty_cache()
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
            w.writeheader()
            w.writerows(rows)
    if args.samplekit_csv:
        with open(args.samplekit_csv) as f:
            sk = {int(r["K"]): r for r in csv.DictReader(f)}
        print("\nPyTorch's time over samplekit's (sk-mixture's GPU sweep), same GPU:")
        for r in rows:
            s = sk.get(r["K"])
            if s is None:
                continue
            print(f"  K={r['K']:>4}: sweep {r['sweep_ms']:.3f} / {float(s['sweep_ms']):.3f} ms = "
                  f"{r['sweep_ms'] / float(s['sweep_ms']):.1f}x; z-step {r['zstep_ms']:.3f} / "
                  f"{float(s['zstep_ms']):.3f} ms = {r['zstep_ms'] / float(s['zstep_ms']):.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
