#!/usr/bin/python3
"""The YARN / YARN-ME simulator of simulate/doc.go, written again in Python.

An independent, straightforward implementation of the same rules and
tie-breaking (standard library only), which the simulate package is
checked and timed against: it recomputes everything it needs at every
decision (the job queue is sorted afresh, a phase's lanes and a node's
release times are sorted from its running tasks, an elastic task's memory
is searched over every candidate) where the Go engine keeps indexes.

  simulate.py TRACE (--nodes N --node-memory BYTES | --node-shapes SHAPES)
      --node-cores C --memory-unit BYTES --node-disk-bandwidth BYTES_PER_S
      --elastic-disk-share SHARE --policy yarn|yarn-me
      [--default-model SPEC] [--no-reserved-gaps] [--schedule]

SHAPES is COUNTxBYTES[/CORES],... (a cluster of nodes that differ, numbered
in that order; no cores: --node-cores). TRACE is simjobs-csv. Prints {"policy", "makespan_s", "memory_utilisation",
"task_events", "seconds", "jobs": [{"job", "submit_s", "finish_s", "tasks",
"elastic_tasks"}], "left_out": [job ids], "schedule": [...] with
--schedule}.
"""
import argparse
import csv
import json
import math
import sys
import time

INF = math.inf
GAP_TRIES = 8  # candidates a gap walk tries before it gives up


def parse_size(s):
    s = s.strip().upper()
    for suf in ("IB", "B", "I"):
        if s.endswith(suf):
            s = s[: -len(suf)]
            break
    mult = 1
    if s and s[-1] in "KMGT":
        mult = 1 << (10 * ("KMGT".index(s[-1]) + 1))
        s = s[:-1]
    v = float(s)
    if not v > 0:
        raise ValueError("size %r" % s)
    return int(v * mult)


def parse_model(spec):
    """None (never elastic) or (kind, points, disk): kind "step" with one
    slowdown, "curve" with [(fraction, slowdown)] sorted by fraction."""
    spec = spec.strip()
    if spec == "none":
        return None
    kind, _, rest = spec.partition(":")
    disk = 0
    if "@" in rest:
        rest, _, d = rest.partition("@")
        disk = parse_size(d)
    if kind == "step":
        s = float(rest)
        if not s >= 1:
            raise ValueError("slowdown %r" % rest)
        return ("step", s, disk)
    if kind == "curve":
        pts = []
        for part in rest.split(";"):
            f, _, s = part.partition("=")
            f, s = float(f), float(s)
            if not (0 < f < 1) or not s >= 1:
                raise ValueError("curve point %r" % part)
            pts.append((f, s))
        pts.sort()
        return ("curve", pts, disk)
    raise ValueError("unknown model %r" % spec)


def model_at(model, mem, ideal):
    """Slowdown and disk bytes/s at mem bytes for a task of ideal bytes."""
    kind, body, disk = model
    if kind == "step":
        return body, disk
    f = mem / ideal
    s = INF
    for frac, sl in body:
        if frac <= f:
            s = sl
    return s, disk


def parse_shapes(spec, default_cores):
    """[(count, memory bytes, cores, disk bytes/s or 0)] of
    COUNTxBYTES[/CORES][@DISK],... (disk 0: --node-disk-bandwidth)"""
    out = []
    for part in spec.split(","):
        part, _, disk = part.strip().lower().partition("@")
        count, _, rest = part.partition("x")
        mem, _, cores = rest.partition("/")
        out.append((int(count), parse_size(mem), int(cores) if cores else default_cores, parse_size(disk) if disk else 0))
    return out


class Phase:
    def __init__(self, job, name, tasks, dur, mem, cores, after, model):
        self.job, self.name, self.tasks, self.dur = job, name, tasks, dur
        self.mem, self.cores, self.after, self.model = mem, cores, after, model
        self.pending, self.done, self.ready = tasks, 0, False
        self.running = []  # tasks


class Job:
    def __init__(self, jid, submit):
        self.id, self.submit = jid, submit
        self.phases = []
        self.cons = 0
        self.next = None
        self.left = 0
        self.finish = None
        self.tasks = self.elastic = 0


class Task:
    __slots__ = ("job", "phase", "node", "start", "end", "units", "cores", "disk", "elastic")


def read_trace(path, default_model):
    jobs = {}
    order = []
    with open(path, newline="") as f:
        rows = [r for r in csv.reader(f) if r and not r[0].startswith("#")]
    header = [h.strip().lower() for h in rows[0]]
    col = {h: i for i, h in enumerate(header)}
    for r in rows[1:]:
        g = lambda c: r[col[c]].strip() if c in col and col[c] < len(r) else ""
        jid = g("job")
        if jid not in jobs:
            jobs[jid] = Job(jid, float(g("submit_s")))
            order.append(jid)
        j = jobs[jid]
        spec = g("model")
        model = parse_model(spec) if spec else default_model
        j.phases.append(Phase(j, g("task"), int(g("tasks")), float(g("runtime_s")), parse_size(g("memory_bytes")),
                              int(g("cores") or 1), g("after") or None, model))
    out = [jobs[i] for i in order]
    out.sort(key=lambda j: (j.submit, j.id))
    return out


class Sim:
    def __init__(self, jobs, a):
        self.a = a
        self.unit = a.memory_unit
        if a.node_shapes:
            shapes = parse_shapes(a.node_shapes, a.node_cores)
        else:
            shapes = [(a.nodes, a.node_memory, a.node_cores, 0)]
        self.cap_disk = int(math.floor(a.elastic_disk_share * a.node_disk_bandwidth)) if a.node_disk_bandwidth > 0 else -1
        self.me = a.policy == "yarn-me"
        self.jobs = jobs
        self.left_out = []
        for rank, j in enumerate(jobs):
            j.rank = rank
            for p in j.phases:
                p.units = -(-p.mem // self.unit)
        self.nodes = []
        for count, mem, cores, disk in shapes:
            # a shape's own disk bandwidth, else the cluster's
            cap_disk = int(math.floor(a.elastic_disk_share * disk)) if disk > 0 else self.cap_disk
            for _ in range(count):
                u = mem // self.unit
                self.nodes.append(dict(cap_units=u, cap_cores=cores, units=u, cores=cores, disk=0, cap_disk=cap_disk, res=None, running=[]))
        self.cap = sum(n["cap_units"] for n in self.nodes)
        for j in jobs:
            # left out: a task that no node could hold, memory and cores together
            if any(not any(p.units <= mem // self.unit and p.cores <= cores for _, mem, cores, _ in shapes) for p in j.phases):
                self.left_out.append(j)
        self.now = 0.0
        self.dirty = set()
        self.running = []
        self.held = 0
        self.schedule = []
        self.events = 0

    # --- the queue and what jobs ask for ---

    def queue(self):
        return sorted((j for j in self.jobs if j.next is not None), key=lambda j: (j.cons, j.rank))

    def update_next(self, j):
        nxt = None
        for p in j.phases:
            if p.ready and p.pending > 0:
                nxt = p
                break
        if nxt is j.next:
            return
        j.next = nxt
        if nxt is None:
            self.dirty |= {i for i, n in enumerate(self.nodes) if n["res"] is not None and n["res"][0] is j}
        else:
            self.dirty |= {i for i, n in enumerate(self.nodes) if n["res"] is None or n["res"][0] is j}

    # --- estimates ---

    def fit_time(self, ni, p):
        n = self.nodes[ni]
        u, c = n["units"], n["cores"]
        if u >= p.units and c >= p.cores:
            return self.now
        for t in sorted(n["running"], key=lambda t: t.end):
            u += t.units
            c += t.cores
            if u >= p.units and c >= p.cores:
                return t.end
        return INF

    def could_fit(self, ni, p):
        n = self.nodes[ni]
        return n["cap_units"] >= p.units and n["cap_cores"] >= p.cores

    def estimate(self, ni, p):
        lanes = sorted(t.end for t in p.running if not t.elastic)
        ends = [t.end for t in p.running if t.elastic]
        est = max(ends) if ends else -INF
        if not lanes:
            if self.could_fit(ni, p):
                start = self.fit_time(ni, p)
            else:  # this node never fits it: when the first node that could
                start = min(self.fit_time(k, p) for k in range(len(self.nodes)) if self.could_fit(k, p))
            return max(est, start + p.dur)
        q, r = divmod(p.pending, len(lanes))
        est = max(est, lanes[-1] + q * p.dur)
        if r:
            est = max(est, lanes[r - 1] + (q + 1) * p.dur)
        return est

    # --- allocations ---

    def fits(self, ni, p):
        n = self.nodes[ni]
        return n["units"] >= p.units and n["cores"] >= p.cores

    def elastic(self, ni, p):
        """(units, runtime, disk) of an elastic start of p's task on ni, or None."""
        n = self.nodes[ni]
        if p.model is None or n["cores"] < p.cores:
            return None
        kmin = max(1, (p.units * 10 + 99) // 100)
        best = None
        for k in range(kmin, min(n["units"], p.units - 1) + 1):
            s, disk = model_at(p.model, k * self.unit, p.units * self.unit)
            if not s >= 1:
                s = INF
            rt = p.dur * s
            if best is None or rt < best[1]:
                best = (k, rt, disk)
        if best is None or best[1] == INF:
            return None
        k, rt, disk = best
        if disk > 0 and n["cap_disk"] >= 0 and n["disk"] + disk > n["cap_disk"]:
            return None
        if not self.now + rt <= self.estimate(ni, p):
            return None
        return best

    def start(self, ni, j, p, units, rt, disk, elastic):
        t = Task()
        t.job, t.phase, t.node, t.start, t.end = j, p, ni, self.now, self.now + rt
        t.units, t.cores, t.disk, t.elastic = units, p.cores, disk, elastic
        n = self.nodes[ni]
        n["units"] -= units
        n["cores"] -= p.cores
        n["disk"] += disk
        n["running"].append(t)
        p.running.append(t)
        self.running.append(t)
        self.held += units
        j.cons += units
        j.tasks += 1
        j.elastic += elastic
        p.pending -= 1
        self.events += 1
        self.schedule.append(t)
        if p.pending == 0:
            self.update_next(j)

    def end(self, t):
        n = self.nodes[t.node]
        n["units"] += t.units
        n["cores"] += t.cores
        n["disk"] -= t.disk
        n["running"].remove(t)
        t.phase.running.remove(t)
        self.running.remove(t)
        self.dirty.add(t.node)
        self.held -= t.units
        self.events += 1
        j, p = t.job, t.phase
        j.cons -= t.units
        p.done += 1
        if p.done < p.tasks:
            return
        for q in j.phases:
            if q.after == p.name:
                q.ready = True
        j.left -= 1
        if j.left == 0:
            j.finish = self.now
        self.update_next(j)

    # --- a node's visit ---

    def visit(self, ni):
        n = self.nodes[ni]
        while True:
            if n["res"] is not None:
                j, p = n["res"]
                if j.next is not p:
                    n["res"] = None
                    continue
                if self.fits(ni, p):
                    self.start(ni, j, p, p.units, p.dur, 0, False)
                    n["res"] = None
                    continue
                if not self.me:
                    return
                el = self.elastic(ni, p)
                if el:
                    self.start(ni, j, p, el[0], el[1], el[2], True)
                    n["res"] = None
                    continue
                if self.a.reserved_gaps:
                    self.gaps(ni, j, p)
                return
            # the head is the first job whose task the node could ever hold;
            # yarn-me may start the ones before it elastically
            h = None
            started = False
            for j in self.queue():
                if self.could_fit(ni, j.next):
                    h = j
                    break
                if self.me:
                    el = self.elastic(ni, j.next)
                    if el:
                        self.start(ni, j, j.next, el[0], el[1], el[2], True)
                        started = True
                        break
            if started:
                continue
            if h is None:
                return
            p = h.next
            if self.fits(ni, p):
                self.start(ni, h, p, p.units, p.dur, 0, False)
                continue
            if self.me:
                el = self.elastic(ni, p)
                if el:
                    self.start(ni, h, p, el[0], el[1], el[2], True)
                    continue
            n["res"] = (h, p)

    def lane_estimate(self, p):
        lanes = sorted(t.end for t in p.running if not t.elastic)
        return self.estimate(None, p) if lanes else None

    def min_rt(self, p):
        kmin = max(1, (p.units * 10 + 99) // 100)
        best = INF
        for k in range(kmin, p.units):
            s, _ = model_at(p.model, k * self.unit, p.units * self.unit)
            if not s >= 1:
                s = INF
            best = min(best, p.dur * s)
        return best

    def gap_candidate(self, ni, p, limit):
        n = self.nodes[ni]
        if p.cores > n["cores"]:
            return False
        if p.units <= n["units"]:
            return self.now + p.dur <= limit
        kmin = max(1, (p.units * 10 + 99) // 100)
        if p.model is None or p.units < 2 or kmin > n["units"] or kmin > p.units - 1:
            return False
        m = self.min_rt(p)
        if m == INF or not self.now + m <= limit:
            return False
        est = self.lane_estimate(p)
        return est is None or self.now + m <= est

    def gaps(self, ni, r, rp):
        n = self.nodes[ni]
        if n["cores"] <= 0:
            return
        limit = self.fit_time(ni, rp)
        while True:
            started = False
            tries = 0
            for j in self.queue():
                if j is r:
                    continue
                p = j.next
                if not self.gap_candidate(ni, p, limit):
                    continue
                if self.fits(ni, p):
                    self.start(ni, j, p, p.units, p.dur, 0, False)
                    started = True
                    break
                el = self.elastic(ni, p)
                if el and self.now + el[1] <= limit:
                    self.start(ni, j, p, el[0], el[1], el[2], True)
                    started = True
                    break
                tries += 1
                if tries == GAP_TRIES:
                    break
            if not started or n["cores"] <= 0:
                return

    # --- the event loop ---

    def run(self):
        arrivals = [j for j in self.jobs if j not in self.left_out]
        for j in arrivals:
            j.left = len(j.phases)
        if not arrivals:
            return 0.0, 0.0
        first = last = arrivals[0].submit
        area, last_t = 0.0, first
        ai = 0
        while ai < len(arrivals) or self.running:
            t = arrivals[ai].submit if ai < len(arrivals) else INF
            if self.running:
                t = min(t, min(x.end for x in self.running))
            area += self.held * (t - last_t)
            last_t = self.now = t
            for x in [x for x in self.running if x.end == t]:
                self.end(x)
                last = t
            while ai < len(arrivals) and arrivals[ai].submit == t:
                j = arrivals[ai]
                for p in j.phases:
                    if p.after is None:
                        p.ready = True
                self.update_next(j)
                ai += 1
            while self.dirty:
                ni = min(self.dirty)
                self.dirty.discard(ni)
                self.visit(ni)
        for j in arrivals:
            if j.left:
                raise SystemExit("simulate.py: job %s never finished" % j.id)
        span = last - first
        util = area / (self.cap * span) if span > 0 else 0.0
        return span, util


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trace")
    ap.add_argument("--nodes", type=int)
    ap.add_argument("--node-memory", type=int)
    ap.add_argument("--node-shapes")
    ap.add_argument("--node-cores", type=int, required=True)
    ap.add_argument("--memory-unit", type=int, required=True)
    ap.add_argument("--node-disk-bandwidth", type=int, required=True)
    ap.add_argument("--elastic-disk-share", type=float, required=True)
    ap.add_argument("--policy", choices=["yarn", "yarn-me"], required=True)
    ap.add_argument("--default-model", default="none")
    ap.add_argument("--no-reserved-gaps", dest="reserved_gaps", action="store_false")
    ap.add_argument("--schedule", action="store_true")
    a = ap.parse_args()
    if not a.node_shapes and (a.nodes is None or a.node_memory is None):
        ap.error("give --nodes and --node-memory, or --node-shapes")
    t0 = time.perf_counter()
    jobs = read_trace(a.trace, parse_model(a.default_model))
    s = Sim(jobs, a)
    makespan, util = s.run()
    out = {
        "policy": a.policy,
        "makespan_s": makespan,
        "memory_utilisation": util,
        "task_events": s.events,
        "seconds": time.perf_counter() - t0,
        "left_out": [j.id for j in s.left_out],
        "jobs": [{"job": j.id, "submit_s": j.submit, "finish_s": j.finish, "tasks": j.tasks, "elastic_tasks": j.elastic}
                 for j in jobs if j not in s.left_out],
    }
    if a.schedule:
        out["schedule"] = [{"job": t.job.id, "task": t.phase.name, "node": t.node, "start_s": t.start, "end_s": t.end,
                            "units": t.units, "elastic": t.elastic} for t in s.schedule]
    json.dump(out, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
