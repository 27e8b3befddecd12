#!/usr/bin/env python3
"""PyTorch baselines for bench_sample_categorical, on the same shapes (M x K = 2^28 floats, 1 GiB).

Times torch.multinomial(p, 1) and torch.searchsorted(torch.cumsum(p, 1), u * total) with CUDA events
(3 warm-ups, median of 21, two matrices alternated past L2), then, given the C benchmark's CSV, prints
samplekit's speed over the faster PyTorch method for each K.
  usage: bench_categorical_torch.py [--csv OUT.csv] [--samplekit-csv bench_sample_categorical.csv]
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


def median_ms(fn, reps=21, warmup=3):
    for r in range(warmup):
        fn(r)
    times = []
    for r in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn(r)
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--csv", help="write PyTorch's timings here")
    ap.add_argument("--samplekit-csv", help="bench_sample_categorical's CSV from the same run, for the ratios")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        print("SKIP: no CUDA GPU for PyTorch")
        return 77
    gen = torch.Generator(device="cuda").manual_seed(2026)
    floats = 1 << 28
    rows = []
    print(f"PyTorch {torch.__version__} on {torch.cuda.get_device_name(0)}")
    print(f"{'K':>6} {'M':>9} {'method':<22} {'ms':>10} {'samples/s':>12}")
    for K in (32, 128, 1024, 10240):
        M = floats // K
        p = [torch.rand(M, K, device="cuda", generator=gen) for _ in range(2)]
        u = torch.rand(M, 1, device="cuda", generator=gen)

        def multinomial(r):
            return torch.multinomial(p[r & 1], 1, generator=gen)

        def cumsum_search(r):
            c = torch.cumsum(p[r & 1], 1)
            return torch.searchsorted(c, u * c[:, -1:])

        for name, fn in (("multinomial", multinomial), ("cumsum+searchsorted", cumsum_search)):
            ms = median_ms(fn)
            rows.append({"K": K, "M": M, "method": name, "ms": ms, "samples_per_s": M / (ms * 1e-3)})
            print(f"{K:>6} {M:>9} {name:<22} {ms:>10.4f} {M / (ms * 1e-3):>12.4g}")
        del p, u
        torch.cuda.empty_cache()
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
            w.writeheader()
            w.writerows(rows)
    if args.samplekit_csv:
        sk = {}
        with open(args.samplekit_csv) as f:
            for r in csv.DictReader(f):
                if r["algorithm"] == "auto":
                    sk[int(r["K"])] = float(r["ms"])
        print("\nsamplekit (auto) against the faster PyTorch method, same GPU, same run:")
        for K in sorted(k for k in sk if any(r["K"] == k for r in rows)):
            best = min((r for r in rows if r["K"] == K), key=lambda r: r["ms"])
            print(f"  K={K:>6}: samplekit {sk[K]:.4f} ms, {best['method']} {best['ms']:.4f} ms: "
                  f"{best['ms'] / sk[K]:.1f}x faster")
    return 0


if __name__ == "__main__":
    sys.exit(main())
