#!/bin/sh
# The elasticity accuracy bar (median error within 5%, Iorgulescu et al., ATC'17 §2.3) at full size, by hand: profile the reference
# spilling workload (testdata/profiler/spillsort, 256 MiB of 100-byte
# records) at 9 memory settings with 9 repetitions in memory cgroups, fit
# the spill-rate model on two settings and print each setting's measured
# median runtime, the prediction and the error. About two and a half minutes.
# Usage: scripts/elasticity-accuracy.sh [OUT]   (default out/accuracy)
# The same in Go: go test ./elasticity -run '^$' -bench SandboxAccuracy -v
set -eu
out=${1:-out/accuracy}
rm -rf "$out"
mkdir -p "$out"
go build -o "$out/wlprof" ./cmd/wlprof
go build -o "$out/spillsort" ./testdata/profiler/spillsort
# 256M of records is 2684354 records of 100 bytes: 268435400 input bytes.
# Spillsort keeps 16 bytes of metadata per record in its buffer (expansion
# 1.16) and merges its last buffer from memory (wlprof.spill.buffer).
"$out/wlprof" profile run -d "$out/ds" -q --job spillsort --task reduce \
  --mem 32M,64M,96M,128M,160M,192M,224M,256M,320M --repeat 9 --interval 20ms \
  --cap-overhead 32M --input-bytes 268435400 --spill-dir "$out" \
  -- "$out/spillsort" -gen 256M -mem {mem} -spill {spill_dir}
"$out/wlprof" elasticity -d "$out/ds" --job spillsort --grid 32M \
  --set wlprof.spill.buffer=true --set wlprof.expansion.factor=1.16 -o json >"$out/elasticity.json"
/usr/bin/python3 - "$out/elasticity.json" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))["models"][0]
v = m["validation"]
pred = {c["memory_bytes"]: c["predicted_s"] for c in v["checks"]}
print("model %s (%s), fit at %s MiB" % (m["kind"], m["simulator"], [b >> 20 for b in m["fit_memory_bytes"]]))
print("%8s %12s %12s %12s %9s" % ("mem_MiB", "spilled_MB", "measured_s", "predicted_s", "error"))
for s in m["settings"]:
    p = pred.get(s["memory_bytes"])
    err = "fit" if s["used_to_fit"] else "%+.1f%%" % (100 * (p - s["runtime_s"]) / s["runtime_s"])
    print("%8d %12.1f %12.3f %12s %9s" % (s["memory_bytes"] >> 20, s["spilled_bytes"] / 1e6, s["runtime_s"],
                                         "%.3f" % p if p else "-", err))
print("median abs error: %.2f%% over %d settings' medians, %.2f%% over %d runs"
      % (100 * v["settings_median_abs_error"], v["settings"], 100 * v["median_abs_error"], v["runs"]))
EOF
