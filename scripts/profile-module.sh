#!/bin/sh
# The profile package is a Go module of its own so that a scheduler can
# import it alone. This checks that promise from outside the repository:
#   1. the profile module's own vet (its stdversion check refuses any
#      standard-library API newer than the module's go line) and tests;
#   2. a throwaway module in a temporary directory, with a go line as old
#      as profile's, that imports only github.com/wlprof/wlprof/profile
#      (replaced by this checkout's ./profile), builds with the local
#      toolchain and no module proxy, and lists no module but itself and
#      profile: nothing beyond the standard library is forced on it;
#   3. the same module builds with an older Go: the toolchain of the go
#      line's last release (OLD_GO, default go1.21.13), which the go
#      command fetches through the module proxy once and caches.
# Usage: scripts/profile-module.sh [GO]   (make test runs it)
set -eu
GO=${1:-go}
OLD_GO=${OLD_GO:-go1.21.13}
root=$(cd "$(dirname "$0")/.." && pwd)
proxy=$("$GO" env GOPROXY)
export GOTOOLCHAIN=local GOPROXY=off GOFLAGS=-mod=mod

goline=$(sed -n 's/^go \([0-9.]*\)$/\1/p' "$root/profile/go.mod")
[ -n "$goline" ] || { echo "profile-module: no go line in profile/go.mod" >&2; exit 1; }

(cd "$root/profile" && "$GO" vet ./... && "$GO" test ./...)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/go.mod" <<EOF
module example.com/scheduler

go $goline

require github.com/wlprof/wlprof/profile v0.0.0

replace github.com/wlprof/wlprof/profile => $root/profile
EOF
cat >"$tmp/main.go" <<'EOF'
// A scheduler that reads wlprof's job profiles.
package main

import (
	"fmt"
	"os"

	"github.com/wlprof/wlprof/profile"
)

func main() {
	for _, path := range os.Args[1:] {
		j, err := profile.LoadJob(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println(j.Job, profile.FileName(profile.JobKey(j.Job)))
	}
}
EOF
(cd "$tmp" && "$GO" build -o scheduler . && ./scheduler "$root/profile/testdata/job.json" >/dev/null)
mods=$(cd "$tmp" && "$GO" list -m all)
want="example.com/scheduler
github.com/wlprof/wlprof/profile v0.0.0 => $root/profile"
if [ "$mods" != "$want" ]; then
	printf 'profile-module: a module importing profile requires more than the standard library:\n%s\n' "$mods" >&2
	exit 1
fi
# An older toolchain: the proxy serves it; the module itself still needs
# nothing from the proxy (its only requirement is replaced by a directory).
if ! (cd "$tmp" && rm -f scheduler && GOTOOLCHAIN=$OLD_GO GOPROXY=$proxy "$GO" build -o scheduler . && ./scheduler "$root/profile/testdata/job.json" >/dev/null); then
	echo "profile-module: the module importing profile does not build with $OLD_GO" >&2
	exit 1
fi
old=$(cd "$tmp" && GOTOOLCHAIN=$OLD_GO GOPROXY=$proxy "$GO" version)
echo "profile-module: a go $goline module importing only profile builds (local Go and $old); its modules: example.com/scheduler, profile"
