#!/usr/bin/python3
"""Writes the placement demo world (testdata/placement/README.md): usage.csv
(generic utilisation CSV) and machine_events.json (Google ClusterData2019
machine_events, JSON-lines export encoding, written from the v3 schema).
Deterministic: python3 make_world.py rewrites the same bytes."""
import json, math, random

rng = random.Random(19)
# Trace clock: microseconds from 600 s before 2019-05-01T00:00:00-07:00,
# the instant wlprof puts a ClusterData2019 trace window's start at.
START = 1556694000  # 2019-05-01T07:00:00Z
DAYS, STEP_H = 8, 2
# tenant: (servers, planted disruptions per server per month, peak level)
TENANTS = {
    "search-frontend": (4, 0.5, 0.80), "search-index": (3, 0.5, 0.45), "ads-serving": (2, 0.5, 0.20),
    "mail-store": (3, 4.0, 0.75), "maps-tiles": (3, 4.0, 0.50), "photos-meta": (2, 4.0, 0.25),
    "build-farm": (3, 15.0, 0.85), "ci-runners": (2, 15.0, 0.55), "test-sandbox": (3, 15.0, 0.15),
    "analytics-etl": (2, 2.0, 0.60), "logs-ingest": (2, 8.0, 0.35), "cache-tier": (1, 1.0, 0.40),
}
NO_EVENTS = "dev-scratch"  # usage but no machine events: excluded, with the reason

usage, events = [], []
mid = 5000
names = sorted(TENANTS)
for t in names + [NO_EVENTS]:
    servers, rate, peak = TENANTS.get(t, (2, 0, 0.3))
    for s in range(servers):
        mid += 1
        for k in range(DAYS * 24 // STEP_H):
            ts = START + k * STEP_H * 3600
            hour = (k * STEP_H) % 24
            cpu = peak * (0.6 + 0.4 * math.sin(2 * math.pi * (hour - 8) / 24)) + rng.gauss(0, 0.02)
            cpu = min(max(cpu, 0.0), 1.0)
            usage.append((t, str(mid), ts, round(cpu, 4)))
        if t == NO_EVENTS:
            continue
        events.append((0, mid, 1))
        now = 0.0
        horizon = DAYS * 86400.0
        per_s = rate / (30 * 86400.0)
        while True:
            now += rng.expovariate(per_s)
            if now >= horizon - 3 * 3600:
                break
            events.append((int(now * 1e6) + 600 * 10**6, mid, 2))
            now += 2 * 3600
            events.append((int(now * 1e6) + 600 * 10**6, mid, 1))
events.append((0, 9999, 1))  # a machine no usage row names: left out, counted
sw = {}
with open("machine_events.json", "w") as f:
    for t, m, typ in sorted(events):
        rack = "sw-%d" % (m % 4)
        cap = {"cpus": 0.5, "memory": 0.25} if typ != 2 else None
        f.write(json.dumps({"time": str(t), "machine_id": str(m), "type": str(typ), "switch_id": rack,
                            "capacity": cap, "platform_id": "plat-1", "missing_data_reason": None},
                           separators=(",", ":")) + "\n")
with open("usage.csv", "w") as f:
    f.write("tenant,server,timestamp,cpu_frac\n")
    for t, m, ts, cpu in usage:
        f.write("%s,%s,%d,%s\n" % (t, m, ts, cpu))
