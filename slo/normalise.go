package slo

import (
	"regexp"
	"strings"
)

// Normalisation rules, applied in order. They remove what changes from run
// to run of the same recurring job (dates, times, timestamps, UUIDs, YARN
// ids, run and attempt numbers, long hex hashes) and keep what names the
// job: short numbers stay ("job042", "v2", "top10" are different jobs), so
// only digit runs of 8 or more (yyyymmdd, epoch seconds or milliseconds)
// and numbers after a run-like key are replaced.
var normRules = []struct {
	re   *regexp.Regexp
	repl string
}{
	{regexp.MustCompile(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`), "<uuid>"},
	{regexp.MustCompile(`(application|appattempt|job|attempt|container)_\d{9,14}_\d+(_\w+)?`), "<$1>"},
	// 2024-01-31, 2024-01-31T12:00:00.123Z, 2024-01-31 12:00, 2024/01/31/12
	{regexp.MustCompile(`\d{4}[-/]\d{2}[-/]\d{2}(?:[T _/-]\d{2}(?::?\d{2}(?::?\d{2}(?:[.,]\d+)?)?)?Z?)?`), "<date>"},
	// partition keys: dt=..., hour=03, hr=3, ds=20240131
	{regexp.MustCompile(`(?i)\b(dt|ds|date|day|hour|hr|minute|min|month|year|batch|run|runid|run_id|attempt|try|seq|instance|part)=[^/,\s]+`), "$1=<v>"},
	// run and attempt numbers: run17, run-17, run_17, attempt#3, #1234
	{regexp.MustCompile(`(?i)(run|attempt|try|retry|seq|instance)[-_#]?\d+`), "$1<n>"},
	{regexp.MustCompile(`#\d+`), "#<n>"},
	// long hex hashes (git shas, md5s) with at least one letter and one digit
	{regexp.MustCompile(`\b[0-9a-f]*(?:[a-f][0-9]|[0-9][a-f])[0-9a-f]*\b`), "\x00hex"},
	// yyyymmdd[hh[mm[ss]]], epoch seconds or milliseconds
	{regexp.MustCompile(`\d{8,}`), "<n>"},
}

// Normalise returns the recurring identity of a job name or a path: the
// same string for every run of the same job.
func Normalise(s string) string {
	for _, r := range normRules {
		if r.repl == "\x00hex" {
			s = r.re.ReplaceAllStringFunc(s, func(m string) string {
				if len(m) >= 12 {
					return "<hex>"
				}
				return m
			})
			continue
		}
		s = r.re.ReplaceAllString(s, r.repl)
	}
	return strings.TrimSpace(s)
}
