#!/usr/bin/python3
"""Baseline for `make bench`: the skyline LP of seed 001 §5 (the textbook
model, as Apache Hadoop's LpSolver builds it) solved with scipy's HiGHS.

Reads JSON {"c": [[containers per step] per run], "alpha": a, "beta": b} on
stdin and prints JSON {"objective": ..., "solve_s": ..., "build_s": ...,
"status": ...}. Run with Debian's python3 (python3-scipy)."""
import json
import sys
import time

import numpy as np
from scipy.optimize import linprog
from scipy.sparse import coo_matrix


def main():
    d = json.load(sys.stdin)
    c = np.asarray(d["c"], dtype=float)
    alpha, beta = float(d["alpha"]), float(d["beta"])
    t0 = time.perf_counter()
    n, k = c.shape
    total = c.sum(axis=1)
    # columns: x (k), then per (i,t): oa, uap, ua; then eps
    nv = k + 3 * n * k + 1
    eps = nv - 1
    it = np.arange(n * k)
    i_of, t_of = it // k, it % k
    oa, uap, ua = k + 3 * it, k + 3 * it + 1, k + 3 * it + 2
    rows, cols, vals, ub = [], [], [], []
    r = 0
    # A_ub x <= b_ub; every ">=" row is negated.
    # oa - x >= -c      ->  -oa + x <= c
    rr = r + it
    rows += [rr, rr]; cols += [oa, t_of]; vals += [-np.ones(n * k), np.ones(n * k)]
    ub.append(c.ravel())
    r += n * k
    # uap + x >= c      ->  -uap - x <= -c
    rr = r + it
    rows += [rr, rr]; cols += [uap, t_of]; vals += [-np.ones(n * k), -np.ones(n * k)]
    ub.append(-c.ravel())
    r += n * k
    # ua_t - ua_{t-1} + x >= c  ->  -ua_t + ua_{t-1} - x <= -c
    rr = r + it
    rows += [rr, rr]; cols += [ua, t_of]; vals += [-np.ones(n * k), -np.ones(n * k)]
    prev = it[t_of > 0]
    rows.append(r + prev); cols.append(ua[prev] - 3); vals.append(np.ones(len(prev)))
    ub.append(-c.ravel())
    r += n * k
    # sum uap / C_i - N eps <= 0
    rows += [np.full(n * k, r), np.array([r])]
    cols += [uap, np.array([eps])]
    vals += [1.0 / total[i_of], np.array([-float(n)])]
    ub.append(np.zeros(1))
    r += 1
    A = coo_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(r, nv)).tocsr()
    b = np.concatenate(ub)
    obj = np.zeros(nv)
    obj[oa] = alpha / n
    last = np.arange(n) * k + (k - 1)
    obj[ua[last]] = (1 - alpha) / n
    obj[eps] = beta
    t1 = time.perf_counter()
    res = linprog(obj, A_ub=A, b_ub=b, bounds=(0, None), method="highs")
    t2 = time.perf_counter()
    json.dump({"objective": res.fun, "status": res.status, "message": res.message,
               "build_s": t1 - t0, "solve_s": t2 - t1, "rows": r, "cols": nv}, sys.stdout)


if __name__ == "__main__":
    main()
