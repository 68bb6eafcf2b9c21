#!/usr/bin/python3
"""LowCost (seed 001 §6) written again, straightforwardly, in Python/numpy.

The independent implementation the plan package is checked and timed
against: it places one container at a time (the definition; plan's fill
batches them) and follows plan/doc.go's rules. Reads
{"step_s", "lcm_cap_s", "end_points", "jobs": [{"id", "period_s",
"arrival_s", "deadline_s", "phase_s", "skyline"}]} on stdin and prints
{"lcm_steps", "footprint", "naive", "lower_bound", "seconds",
"units": [{"job", "instance", "offset", "allocation", "naive"}],
"not_planned": [job ids]}.

With "capacity": {"containers", "memory_bytes", "millicores"} (0 or
absent: the resource is left out) the cost is seed 001 §6's multi-resource
one, c(t) = max over the resources named of load(r, t) / capacity(r), and
each job may give "memory_per_container" and "millicores_per_container",
the size of one of its containers in each step of its skyline (absent: 0).
A container of a stage weighs that stage's sizes; each goes to the eligible
step whose cost with it (the max over the job's instances) is lowest. The
answer adds "footprint_share", "naive_share", "lower_bound_share", "peaks"
({resource: [packed, naive, lower bound]}) and, per unit,
"allocation_memory" and "allocation_millicores". Shares are
float(load) / float(capacity), as plan does, so that they compare exactly.
A capacity of containers alone orders every choice as the load does: the
packing is the default one, with the shares added.
"""
import json
import math
import sys
import time

import numpy as np


def rnd(x):
    """Go's math.Round: halves away from zero."""
    return int(math.floor(abs(x) + 0.5)) * (1 if x >= 0 else -1)


RES = ("containers", "memory_bytes", "millicores")


def check(j, step):
    vals = [j["period_s"], j["arrival_s"], j["deadline_s"], j["phase_s"]]
    if any(math.isnan(x) or math.isinf(x) for x in vals):
        return None
    sky = j["skyline"]
    if not sky or j["period_s"] <= 0 or j["arrival_s"] < 0 or j["deadline_s"] <= j["arrival_s"]:
        return None
    if any(v < 0 for v in sky):
        return None
    lo, hi = 0, len(sky)
    while lo < hi and sky[lo] == 0:
        lo += 1
    while hi > lo and sky[hi - 1] == 0:
        hi -= 1
    if lo == hi:
        return None
    sky = sky[lo:hi]
    period = rnd(j["period_s"] / step)
    if period < 1:
        return None
    window = int(math.floor((j["deadline_s"] - j["arrival_s"]) / step + 1e-9))
    if window < len(sky):
        return None
    arrival = rnd(j["arrival_s"] / step)
    start = (rnd(j["phase_s"] / step) + arrival) % period
    return sky, period, start, window


def greedy(base, alloc, min_lo, hi, d):
    """One container at a time on the cheapest eligible step, ties latest."""
    lo = hi + 1
    for _ in range(d):
        a = max(lo - 1, min_lo)
        lev = base[a:hi + 1] + alloc[a:hi + 1]
        best = a + len(lev) - 1 - int(np.argmin(lev[::-1]))
        alloc[best] += 1
        lo = min(lo, best)
    return lo


def candidates(first, last, n):
    if last - first + 1 <= n:
        return list(range(first, last + 1))
    out = []
    for i in range(n):
        e = first + rnd(i * (last - first) / (n - 1))
        if not out or e != out[-1]:
            out.append(e)
    return out


def low_cost(load, starts, window, sky, n_end):
    n = len(load)
    t = np.arange(window)
    base = np.max(np.stack([load[(s + t) % n] for s in starts]), axis=0)
    best = None
    for e in candidates(len(sky) - 1, window - 1, n_end):
        alloc = np.zeros(window, dtype=np.int64)
        rest = sum(sky)
        hi, lo = e, e + 1
        for k in range(len(sky) - 1, -1, -1):
            if sky[k] == 0:
                continue
            length = max(1, int(math.floor(float(hi + 1) * float(sky[k]) / float(rest))))
            lo = greedy(base, alloc, max(hi - length + 1, k), hi, sky[k])
            rest -= sky[k]
            hi = lo - 1
        c = base[lo:e + 1] + alloc[lo:e + 1]
        pk, sm = int(c.max()), int((alloc[lo:e + 1] * c).sum())
        if best is None or pk < best[0] or (pk == best[0] and sm < best[1]):
            best = (pk, sm, lo, alloc[lo:e + 1].copy())
    return best[2], best[3]


def add(load, starts, offset, alloc, sign=1):
    n = len(load)
    for s in starts:
        idx = (s + offset + np.arange(len(alloc))) % n
        np.add.at(load, idx, sign * np.asarray(alloc, dtype=np.int64))


def sizes(j, lo, hi):
    """The job's container sizes per resource on its trimmed skyline, or
    None when they are bad (a length or a value)."""
    out = [[1] * (hi - lo)]
    for key in ("memory_per_container", "millicores_per_container"):
        v = j.get(key)
        if v is None:
            out.append([0] * (hi - lo))
            continue
        if len(v) != len(j["skyline"]) or any(x < 0 for x in v):
            return None
        out.append(list(v[lo:hi]))
    return out


def trim_bounds(sky):
    lo, hi = 0, len(sky)
    while lo < hi and sky[lo] == 0:
        lo += 1
    while hi > lo and sky[hi - 1] == 0:
        hi -= 1
    return lo, hi


def ceil_div(a, b):
    return -(-a // b)


def multi(doc):
    """The multi-resource cost, one container at a time, written from
    plan/doc.go's rules (not from plan/multi.go)."""
    step, n_end = doc["step_s"], doc["end_points"]
    caps = [int(doc["capacity"].get(r) or 0) for r in RES]
    named = [r for r in range(3) if caps[r] > 0]
    cap_steps = int(math.floor(doc["lcm_cap_s"] / step + 1e-9))
    t0 = time.perf_counter()
    good, not_planned, lcm, one_off = [], [], 1, False
    for j in doc["jobs"]:
        c = check(j, step)
        w = sizes(j, *trim_bounds(j["skyline"])) if c is not None else None
        if c is None or w is None:
            not_planned.append(j["id"])
            continue
        sky, period, start, window = c
        if cap_steps % period == 0:
            lcm = lcm * period // math.gcd(lcm, period)
        else:
            one_off = True
        good.append((j["id"], sky, period, start, window, w))
    if one_off:
        lcm = cap_steps
    units = []
    for jid, sky, period, start, window, w in good:
        if lcm % period == 0:
            units.append((jid, None, list(range(start % period, lcm, period)), window, sky, w))
        else:
            for i, s in enumerate(range(start, lcm, period)):
                units.append((jid, i, [s], window, sky, w))
    units.sort(key=lambda u: (u[2][0], u[0]))

    load = [np.zeros(lcm, dtype=np.int64) for _ in range(3)]
    naive = [np.zeros(lcm, dtype=np.int64) for _ in range(3)]

    def cost(loads, t):
        return max((float(int(loads[r][t])) / float(caps[r]) for r in named), default=0.0)

    def peak_cost(loads):
        return max((cost(loads, t) for t in range(lcm)), default=0.0)

    offsets, allocs = [], []
    area, lb = [0, 0, 0], [0, 0, 0]
    for jid, inst, starts, window, sky, w in units:
        scaled = [[sky[k] * w[r][k] for k in range(len(sky))] for r in range(3)]
        for r in range(3):
            a = sum(scaled[r])
            area[r] += a * len(starts)
            lb[r] = max(lb[r], ceil_div(a, window))
            add(naive[r], starts, 0, scaled[r])
        # Loads seen by each instance over the window: instances × window.
        t = np.arange(window)
        seen = [np.stack([load[r][(s + t) % lcm] for s in starts]) for r in range(3)]
        best = None
        for e in candidates(len(sky) - 1, window - 1, n_end):
            al = [np.zeros(window, dtype=np.int64) for _ in range(3)]
            rest = sum(sky)
            hi, lo = e, e + 1
            for k in range(len(sky) - 1, -1, -1):
                if sky[k] == 0:
                    continue
                length = max(1, int(math.floor(float(hi + 1) * float(sky[k]) / float(rest))))
                min_lo = max(hi - length + 1, k)
                lo = hi + 1
                for _ in range(sky[k]):
                    a = max(lo - 1, min_lo)
                    c = np.zeros(hi + 1 - a)
                    for r in named:
                        after = seen[r][:, a:hi + 1] + al[r][a:hi + 1] + w[r][k]
                        c = np.maximum(c, (after.astype(np.float64) / float(caps[r])).max(axis=0))
                    b = a + len(c) - 1 - int(np.argmin(c[::-1]))  # the cheapest, ties to the latest
                    for r in range(3):
                        al[r][b] += w[r][k]
                    lo = min(lo, b)
                rest -= sky[k]
                hi = lo - 1
            pk, sm = 0.0, 0.0
            for q in range(lo, e + 1):
                c = max((float(int((seen[r][:, q] + al[r][q]).max())) / float(caps[r]) for r in named), default=0.0)
                pk = max(pk, c)
                sm += float(int(al[0][q])) * c
            if best is None or pk < best[0] or (pk == best[0] and sm < best[1]):
                best = (pk, sm, lo, [al[r][lo:e + 1].copy() for r in range(3)])
        offsets.append(best[2])
        allocs.append(best[3])
        for r in range(3):
            add(load[r], starts, best[2], best[3][r])
    lb = [max(lb[r], ceil_div(area[r], lcm)) for r in range(3)]
    naive_top = peak_cost(naive)
    is_naive = [False] * len(units)
    while peak_cost(load) > naive_top:
        top = peak_cost(load)
        victim = None
        for i in range(len(units) - 1, -1, -1):
            if is_naive[i]:
                continue
            if any(v > 0 and cost(load, (s + offsets[i] + t) % lcm) == top
                   for s in units[i][2] for t, v in enumerate(allocs[i][0])):
                victim = i
                break
        if victim is None:
            break
        jid, inst, starts, window, sky, w = units[victim]
        scaled = [np.asarray([sky[k] * w[r][k] for k in range(len(sky))], dtype=np.int64) for r in range(3)]
        for r in range(3):
            add(load[r], starts, offsets[victim], allocs[victim][r], -1)
            add(load[r], starts, 0, scaled[r])
        offsets[victim], allocs[victim], is_naive[victim] = 0, scaled, True
    secs = time.perf_counter() - t0
    return {"lcm_steps": lcm, "footprint": int(load[0].max()), "naive": int(naive[0].max()),
            "lower_bound": int(lb[0]), "seconds": secs, "not_planned": not_planned,
            "footprint_share": peak_cost(load), "naive_share": naive_top,
            "lower_bound_share": max((float(lb[r]) / float(caps[r]) for r in named), default=0.0),
            "peaks": {RES[r]: [int(load[r].max()), int(naive[r].max()), int(lb[r])] for r in range(3)},
            "units": [{"job": u[0], "instance": u[1], "offset": int(offsets[i]),
                       "allocation": [int(v) for v in allocs[i][0]],
                       "allocation_memory": [int(v) for v in allocs[i][1]],
                       "allocation_millicores": [int(v) for v in allocs[i][2]], "naive": is_naive[i]}
                      for i, u in enumerate(units)]}


def main():
    doc = json.load(sys.stdin)
    capacity = doc.get("capacity") or {}
    if int(capacity.get("memory_bytes") or 0) > 0 or int(capacity.get("millicores") or 0) > 0:
        json.dump(multi(doc), sys.stdout)
        return
    step, n_end = doc["step_s"], doc["end_points"]
    cap = int(math.floor(doc["lcm_cap_s"] / step + 1e-9))
    t0 = time.perf_counter()
    good, not_planned, lcm, one_off = [], [], 1, False
    for j in doc["jobs"]:
        c = check(j, step)
        if c is None:
            not_planned.append(j["id"])
            continue
        sky, period, start, window = c
        if cap % period == 0:
            lcm = lcm * period // math.gcd(lcm, period)
        else:
            one_off = True
        good.append((j["id"], sky, period, start, window))
    if one_off:
        lcm = cap
    units = []
    for jid, sky, period, start, window in good:
        if lcm % period == 0:
            units.append((jid, None, list(range(start % period, lcm, period)), window, sky))
        else:
            for i, s in enumerate(range(start, lcm, period)):
                units.append((jid, i, [s], window, sky))
    units.sort(key=lambda u: (u[2][0], u[0]))
    load = np.zeros(lcm, dtype=np.int64)
    naive = np.zeros(lcm, dtype=np.int64)
    offsets, allocs = [], []
    area, lb = 0, 0
    for jid, inst, starts, window, sky in units:
        a = sum(sky)
        area += a * len(starts)
        lb = max(lb, -(-a // window))
        add(naive, starts, 0, sky)
        off, alloc = low_cost(load, starts, window, sky, n_end)
        add(load, starts, off, alloc)
        offsets.append(off)
        allocs.append(alloc)
    lb = max(lb, -(-area // lcm))
    naive_peak = int(naive.max()) if lcm else 0
    is_naive = [False] * len(units)
    while int(load.max()) > naive_peak:
        top = int(load.max())
        victim = None
        for i in range(len(units) - 1, -1, -1):
            if is_naive[i]:
                continue
            starts = units[i][2]
            if any(v > 0 and load[(s + offsets[i] + t) % lcm] == top
                   for s in starts for t, v in enumerate(allocs[i])):
                victim = i
                break
        if victim is None:
            break
        add(load, units[victim][2], offsets[victim], allocs[victim], -1)
        offsets[victim], allocs[victim], is_naive[victim] = 0, np.asarray(units[victim][4]), True
        add(load, units[victim][2], 0, allocs[victim])
    secs = time.perf_counter() - t0
    out = {"lcm_steps": lcm, "footprint": int(load.max()), "naive": naive_peak, "lower_bound": int(lb),
           "seconds": secs, "not_planned": not_planned,
           "units": [{"job": u[0], "instance": u[1], "offset": int(offsets[i]),
                      "allocation": [int(v) for v in allocs[i]], "naive": is_naive[i]}
                     for i, u in enumerate(units)]}
    n = int(capacity.get("containers") or 0)
    if n > 0:  # containers alone: the load over a constant orders everything as the load does
        out.update({"footprint_share": out["footprint"] / float(n), "naive_share": naive_peak / float(n),
                    "lower_bound_share": int(lb) / float(n)})
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
