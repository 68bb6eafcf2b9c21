#!/usr/bin/env bash
# Runs every Go fuzz target of the project for FUZZTIME each (default 30s;
# the quality bar is FUZZTIME=10m) and prints, per target, the executions
# and their rate. A target that fails stops the run: its input is in the
# package's testdata/fuzz/<target>/, to be kept in the seed corpus once
# fixed. FUZZ=regexp picks targets. One worker per target (FUZZPARALLEL):
# with two, the progress counts of the slower targets stalled for the
# whole run, and a rate per core compares across machines.
# FUZZMINIMIZE (default 200x: 200 executions) caps the work spent
# minimizing each new input (Go's default is 60s): the worker reports no
# executions while it minimizes, and on targets whose seeds are kilobytes
# (FuzzJhist, GODEBUG=fuzzdebug=1) one minimization took most of a
# minute's run. A time cap of 10s was not enough either: on parsers that
# find new coverage every few seconds (FuzzSparkEventLog, FuzzYarnRM,
# FuzzUsageCSV) minimizing filled most of a 10-minute run, at 1 to 400
# executions a second; with 200x, FuzzSparkEventLog ran 650/s beside two
# other fuzzers on this 2-core machine, where it had run 1/s.
# FUZZLOGDIR keeps each target's whole log there (FUZZLOGDIR/TARGET.log,
# with the progress lines), to watch a long run's rate as it goes.
set -euo pipefail
cd "$(dirname "$0")/.."
time=${FUZZTIME:-30s}
pick=${FUZZ:-.}
go=${GO:-go}
tmplog=$(mktemp)
trap 'rm -f "$tmplog"' EXIT
printf '%-44s %12s %10s\n' TARGET EXECS PER_S
for pkg in $(grep -rl --include='*_test.go' '^func Fuzz' . | xargs -n1 dirname | sort -u); do
	# Each package is tested from its own directory: profile is a module of
	# its own, which "go test ./profile" from the top cannot reach.
	for f in $(cd "$pkg" && "$go" test . -list '^Fuzz' | grep '^Fuzz' | grep -E -- "$pick" || true); do
		corpus="$pkg/testdata/fuzz/$f"
		before=$(ls "$corpus" 2>/dev/null | sort || true)
		log=$tmplog
		if [ -n "${FUZZLOGDIR:-}" ]; then
			mkdir -p "$FUZZLOGDIR"
			log="$FUZZLOGDIR/$f.log"
		fi
		if ! (cd "$pkg" && "$go" test . -run '^$' -fuzz "^$f\$" -fuzztime "$time" -fuzzminimizetime "${FUZZMINIMIZE:-200x}" -parallel "${FUZZPARALLEL:-1}") >"$log" 2>&1; then
			after=$(ls "$corpus" 2>/dev/null | sort || true)
			# Go 1.26's coordinator can report "context deadline exceeded"
			# when -fuzztime ends while a worker is mid-execution
			# (go.dev/issue/75804, fixed in Go 1.27): no input failed, so
			# nothing was written to the corpus. Only a written input is
			# a failure.
			if [ "$before" = "$after" ] && grep -q 'context deadline exceeded' "$log"; then
				echo "fuzz: $pkg $f: the fuzztime deadline race of go.dev/issue/75804, no failing input (not a failure)" >&2
			else
				cat "$log"
				echo "fuzz: $pkg $f failed; its input is in $corpus" >&2
				exit 1
			fi
		fi
		# The last progress line: "fuzz: elapsed: 30s, execs: 123456 (4115/sec), ..."
		# (elapsed is a Go duration: 30s, 10m0s, 1h0m0s).
		last=$(grep 'execs:' "$log" | tail -1 || true)
		execs=0 secs=0
		if [[ $last =~ execs:\ ([0-9]+) ]]; then execs=${BASH_REMATCH[1]}; fi
		if [[ $last =~ elapsed:\ ([0-9hms]+), ]]; then
			d=${BASH_REMATCH[1]}
			if [[ $d =~ ([0-9]+)h ]]; then secs=$((secs + BASH_REMATCH[1] * 3600)); fi
			if [[ $d =~ ([0-9]+)m ]]; then secs=$((secs + BASH_REMATCH[1] * 60)); fi
			if [[ $d =~ ([0-9]+)s ]]; then secs=$((secs + BASH_REMATCH[1])); fi
		fi
		rate=$(( secs > 0 ? execs / secs : 0 ))
		printf '%-44s %12s %10s\n' "${pkg#./}.$f" "$execs" "$rate"
	done
done
