#!/usr/bin/env bash
# Runs every Go fuzz target of the project for FUZZTIME each (default 30s;
# the quality bar is FUZZTIME=10m) and prints, per target, the executions
# and their rate. A target that fails stops the run: its input is in the
# package's testdata/fuzz/<target>/, to be kept in the seed corpus once
# fixed. FUZZ=regexp picks targets. One worker per target (FUZZPARALLEL):
# with two, the progress counts of the slower targets stalled for the
# whole run, and a rate per core compares across machines.
set -euo pipefail
cd "$(dirname "$0")/.."
time=${FUZZTIME:-30s}
pick=${FUZZ:-.}
go=${GO:-go}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
printf '%-44s %12s %10s\n' TARGET EXECS PER_S
for pkg in $(grep -rl --include='*_test.go' '^func Fuzz' . | xargs -n1 dirname | sort -u); do
	for f in $("$go" test "$pkg" -list '^Fuzz' | grep '^Fuzz' | grep -E -- "$pick" || true); do
		if ! "$go" test "$pkg" -run '^$' -fuzz "^$f\$" -fuzztime "$time" -parallel "${FUZZPARALLEL:-1}" >"$log" 2>&1; then
			cat "$log"
			echo "fuzz: $pkg $f failed" >&2
			exit 1
		fi
		# The last progress line: "fuzz: elapsed: 30s, execs: 123456 (4115/sec), ..."
		last=$(grep 'execs:' "$log" | tail -1 || true)
		execs=$(sed -E 's/.*execs: ([0-9]+).*/\1/' <<<"$last")
		secs=$(sed -E 's/.*elapsed: ([0-9]+)s.*/\1/' <<<"$last")
		rate=$(( ${secs:-0} > 0 ? ${execs:-0} / secs : 0 ))
		printf '%-44s %12s %10s\n' "${pkg#./}.$f" "${execs:-?}" "$rate"
	done
done
