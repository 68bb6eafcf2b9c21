#!/usr/bin/env python3
"""Baseline for BenchmarkClassifyEndToEnd: the same job as
`wlprof ingest csv` + `wlprof classify` in pandas + numpy, on the same CSV.

Per tenant: average each server per 2-minute slot, then the servers
(the average server); linear interpolation of gaps; the constant test
(noise-corrected spread of hourly means); the periodic test (detrend,
rfft, the largest power of shuffled copies as threshold, de-levelled
autocorrelation at the strongest peak's period >= 0.3); else unpredictable.
It prints one JSON line: tenants, patterns, seconds. The CSV is read in
chunks so memory stays bounded as in wlprof.
"""
import json, sys, time
import numpy as np
import pandas as pd

STEP_S = 120

def classify(x, rng):
    n = len(x)
    mean = float(np.nanmean(x))
    # constant: hourly means, less the white-noise share
    w = 3600 // STEP_S
    d = np.diff(x)
    noise = float(np.mean(d * d)) / 2
    nb = n // w
    hm = x[: nb * w].reshape(nb, w).mean(axis=1)
    spread = np.sqrt(max(hm.var() - noise / w, 0.0))
    if spread <= max(0.05 * mean, 0.01):
        return "constant"
    f = max(1, -(-n // 4320))
    y = x[n - (n // f) * f:].reshape(-1, f).mean(axis=1)
    t = np.arange(len(y))
    y = y - np.polyval(np.polyfit(t, y, 1), t)
    p = np.abs(np.fft.rfft(y)) ** 2
    tau = 0.0
    for _ in range(3):
        tau = max(tau, float((np.abs(np.fft.rfft(rng.permutation(y))) ** 2)[1:].max()))
    k = 3 + int(np.argmax(p[3:]))
    if p[k] <= tau:
        return "unpredictable"
    lag = int(round(len(y) / k))
    ma = pd.Series(y).rolling(lag, center=True, min_periods=1).mean().to_numpy()
    e = y - ma
    a, b = e[:-lag], e[lag:]
    r = float((a * b).sum() / np.sqrt((a * a).sum() * (b * b).sum()))
    return "periodic" if r >= 0.3 else "unpredictable"

def main(path):
    t0 = time.time()
    sums = {}
    for chunk in pd.read_csv(path, chunksize=5_000_000, dtype={"tenant": str, "server": str, "timestamp": np.int64, "cpu": np.float64}):
        chunk["slot"] = chunk["timestamp"] // STEP_S
        per_server = chunk.groupby(["tenant", "server", "slot"], sort=False)["cpu"].mean()
        per_tenant = per_server.groupby(level=["tenant", "slot"]).agg(["sum", "count"])
        sums[len(sums)] = per_tenant
    allp = pd.concat(sums.values()).groupby(level=["tenant", "slot"]).sum()
    avg = (allp["sum"] / allp["count"]).rename("cpu")
    rng = np.random.default_rng(1)
    patterns = {}
    for tenant, s in avg.groupby(level="tenant"):
        s = s.droplevel("tenant")
        idx = np.arange(s.index.min(), s.index.max() + 1)
        x = s.reindex(idx).interpolate().to_numpy()
        pat = classify(x, rng)
        patterns[pat] = patterns.get(pat, 0) + 1
    print(json.dumps({"tenants": int(sum(patterns.values())), "patterns": patterns, "seconds": time.time() - t0}))

if __name__ == "__main__":
    main(sys.argv[1])
