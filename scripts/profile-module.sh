#!/bin/sh
# The profile package is a Go module of its own so that a scheduler can
# import it alone. This checks that promise from outside the repository:
#   1. the profile module's own vet (its stdversion check refuses any
#      standard-library API newer than the module's go line) and tests;
#   2. a throwaway module in a temporary directory, with a go line as old
#      as profile's, that imports only github.com/wlprof/wlprof/profile
#      (replaced by this checkout's ./profile), builds with the local
#      toolchain and no module proxy, and lists no module but itself and
#      profile: nothing beyond the standard library is forced on it.
# Usage: scripts/profile-module.sh [GO]   (make test runs it)
set -eu
GO=${1:-go}
root=$(cd "$(dirname "$0")/.." && pwd)
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
echo "profile-module: a go $goline module importing only profile builds; its modules: example.com/scheduler, profile"
