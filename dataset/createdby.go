package dataset

import (
	"runtime/debug"
	"sync"
)

// Version is the wlprof version the Parquet files' created_by names; the
// command sets it from its own (build-time) version.
var Version = "0.1.0-dev"

// createdBy is the footer's created_by string in the form parquet-mr's
// VersionParser reads ("NAME version X (build Y)"): readers built on
// parquet-mr (Spark, Hive, Trino) ignore the statistics of string columns
// written by an application whose version they cannot parse.
func createdBy() string {
	return "wlprof version " + Version + " (build " + buildRevision() + ")"
}

// buildRevision is the VCS revision the binary was built from (the first 12
// hex digits), or "unknown" (tests, builds outside a checkout).
var buildRevision = sync.OnceValue(func() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && s.Value != "" {
				return s.Value[:min(12, len(s.Value))]
			}
		}
	}
	return "unknown"
})
