#!/bin/sh
# Installs the system packages wlprof needs to build and test, when missing.
# Debian/Ubuntu only (apt-get); run as root or with sudo available.
#   coinor-libclp-dev  COIN-OR CLP, linked through cgo by github.com/lanl/clp
#   pkg-config, g++    cgo finds and compiles against CLP with them
#   glpk-utils         glpsol, the independent LP solver the skyline tests check CLP against
#   python3-scipy      HiGHS (scipy linprog), the baseline of the skyline benchmark
#   python3-numpy, python3-pandas  the pandas + numpy baseline that the classify
#                      benchmark (fft/bench_test.go) runs side by side with wlprof
#   chromium           headless browser: the report test loads index.html from disk and screenshots it
# The Python baselines run with Debian's /usr/bin/python3, which sees these packages.
set -eu
need="coinor-libclp-dev pkg-config g++"
need="$need glpk-utils python3-scipy"
need="$need python3-numpy python3-pandas"
need="$need chromium"
missing=""
for p in $need; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "deps: installing$missing" >&2
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get install -y -q --no-install-recommends $missing >/dev/null 2>&1 || {
	$SUDO apt-get update -q >/dev/null
	$SUDO apt-get install -y -q --no-install-recommends $missing >/dev/null
}
