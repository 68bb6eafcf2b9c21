#!/bin/sh
# Installs the system packages wlprof needs, when missing:
#   scripts/deps.sh build   what the binary needs (make build, make demo)
#   scripts/deps.sh test    that and what the tests and benchmarks check
#                           against (make test, make bench); the default
# Debian/Ubuntu only (apt-get); run as root or with sudo available.
# build:
#   coinor-libclp-dev  COIN-OR CLP, linked through cgo by github.com/lanl/clp
#   pkg-config, g++    cgo finds and compiles against CLP with them
# test:
#   glpk-utils         glpsol, the independent LP solver the skyline tests check CLP against
#   python3-scipy      HiGHS (scipy linprog), the baseline of the skyline benchmark
#   python3-numpy, python3-pandas  the pandas + numpy baseline that the classify
#                      benchmark (classify/bench_test.go) runs side by side with wlprof
#   chromium           headless browser: the report test loads index.html from disk and screenshots it
#   curl               the report's reservations/submit.sh, run against a stand-in ResourceManager
#   prometheus         prometheus and promtool: the ingest tests backfill a generated Kubernetes
#                      cluster with promtool and read it through a real server on 127.0.0.1
#   nodejs, npm        (when npm is missing) to install, in .deps/node, @duckdb/node-api:
#                      DuckDB, the independent Parquet reader the dataset tests read the files with
# The Python baselines run with Debian's /usr/bin/python3, which sees these packages.
set -eu
mode="${1:-test}"
case "$mode" in
build | test) ;;
*)
	echo "usage: $0 [build|test]" >&2
	exit 2
	;;
esac
need="coinor-libclp-dev pkg-config g++"
if [ "$mode" = test ]; then
	need="$need glpk-utils python3-scipy"
	need="$need python3-numpy python3-pandas"
	need="$need chromium curl prometheus"
fi
missing=""
for p in $need; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ "$mode" = test ]; then
	command -v npm >/dev/null 2>&1 || missing="$missing nodejs npm"
fi
if [ -n "$missing" ]; then
	echo "deps: installing$missing" >&2
	SUDO=""
	[ "$(id -u)" -ne 0 ] && SUDO="sudo"
	export DEBIAN_FRONTEND=noninteractive
	$SUDO apt-get install -y -q --no-install-recommends $missing >/dev/null 2>&1 || {
		$SUDO apt-get update -q >/dev/null
		$SUDO apt-get install -y -q --no-install-recommends $missing >/dev/null
	}
fi
[ "$mode" = test ] || exit 0
duckdb="@duckdb/node-api@1.5.6-r.1"
node_dir="$(cd "$(dirname "$0")/.." && pwd)/.deps/node"
if ! grep -qs '"version": "1.5.6-r.1"' "$node_dir/node_modules/@duckdb/node-api/package.json"; then
	echo "deps: installing $duckdb in $node_dir" >&2
	mkdir -p "$node_dir"
	npm install --prefix "$node_dir" --no-audit --no-fund --loglevel=error "$duckdb" >/dev/null
fi
