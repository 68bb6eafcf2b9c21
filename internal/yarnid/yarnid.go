// Package yarnid finds YARN application ids in the strings that carry
// them (HDFS audit caller contexts, task output paths), for ingest and the
// slo stage alike.
package yarnid

import "strings"

// AppID returns "application_TS_N" for a string that names a YARN
// application, else "": an HDFS audit caller context or tracking id, or
// a path. MapReduce (attempt_/job_/container_ ids carry the cluster
// timestamp and the application number, as do task output paths such as
// ".../_temporary/attempt_1700000000000_0042_m_000001_0/part"), Spark
// (SPARK_..._application_..., ".sparkStaging/application_..."), Tez and
// Hive contexts all embed one of these. A hand-written scan: a regular
// expression here cost a tenth of the HDFS audit ingest time.
func AppID(ctx string) string {
	for i := 1; i < len(ctx); i++ {
		if ctx[i] != '_' || !afterAppPrefix(ctx[:i]) {
			continue
		}
		rest := ctx[i+1:]
		ts := digitRun(rest)
		if len(ts) < 9 || len(ts) > 14 || len(rest) <= len(ts) || rest[len(ts)] != '_' {
			continue
		}
		if n := digitRun(rest[len(ts)+1:]); len(n) >= 4 {
			return "application_" + ts + "_" + n
		}
	}
	return ""
}

// afterAppPrefix reports whether s ends with a word that precedes a YARN
// cluster timestamp: application, job, attempt, appattempt, container, or
// container_eNN (an epoch).
func afterAppPrefix(s string) bool {
	for _, w := range [...]string{"application", "job", "attempt", "container"} {
		if strings.HasSuffix(s, w) {
			return true
		}
	}
	k := len(s)
	for k > 0 && s[k-1] >= '0' && s[k-1] <= '9' {
		k--
	}
	return k < len(s) && strings.HasSuffix(s[:k], "container_e")
}

// digitRun returns the leading ASCII digits of s.
func digitRun(s string) string {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return s[:i]
}
