#!/bin/sh
# Regenerates cmd/wlprof/default.pgo, the CPU profile `go build` optimises
# the wlprof binary with (profile-guided optimisation: the hot calls it
# shows are inlined). It profiles the work the classify benchmark times:
# `wlprof ingest csv` and a first `wlprof classify` of 1,000 tenants × 30
# days at 2 minutes (the benchmark's world, written by `wlprof synth` with
# the same options), three runs of each, merged.
#   scripts/pgo.sh [GO]      run from the repository root; about a minute
set -eu
go="${1:-go}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$go" build -o "$tmp/wlprof" ./cmd/wlprof
"$tmp/wlprof" synth --out "$tmp/world" --tenants 1000 --days 30 --min-servers 1 --max-servers 1 --compact --seed 5 -q >/dev/null
for i in 1 2 3; do
	rm -rf "$tmp/ds"
	WLPROF_CPUPROFILE="$tmp/ingest$i.prof" "$tmp/wlprof" ingest csv "$tmp/world/usage.csv" -d "$tmp/ds" -q >/dev/null
	WLPROF_CPUPROFILE="$tmp/classify$i.prof" "$tmp/wlprof" classify -d "$tmp/ds" -o json -q >/dev/null
done
"$go" tool pprof -proto "$tmp"/ingest?.prof "$tmp"/classify?.prof >"$tmp/default.pgo"
mv "$tmp/default.pgo" cmd/wlprof/default.pgo
echo "cmd/wlprof/default.pgo: $(wc -c <cmd/wlprof/default.pgo) bytes"
