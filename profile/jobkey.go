package profile

import (
	"regexp"
	"strings"
)

// A profile's "job" is the key of a recurring job: what is left of a run's
// name once what changes from run to run (dates, times, run numbers, ids)
// is taken out. wlprof makes keys with one of two rules, by where the name
// was logged; FORMAT.md ("Job keys") says which. A scheduler holding the
// name of a run looks its profile up at FileName(AppJobKey(name)), then
// FileName(JobKey(name)).

// jobKeyRules are JobKey's rules, applied in order. They remove what
// changes from run to run of the same recurring job (dates, times,
// timestamps, UUIDs, YARN ids, run and attempt numbers, long hex hashes)
// and keep what names the job: short numbers stay ("job042", "v2",
// "top10" are different jobs), so only digit runs of 8 or more (yyyymmdd,
// epoch seconds or milliseconds) and numbers after a run-like key are
// replaced.
var jobKeyRules = []struct {
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

// JobKey is the key of a job named in a lineage log (an OpenLineage job
// name, a name without an id) or of a path: changing parts are replaced by
// placeholders, so "daily_sales_01 2024-01-08" is "daily_sales_01 <date>"
// and "/warehouse/sales/dt=2024-01-31" "/warehouse/sales/dt=<v>". The
// rules, in order: a UUID becomes <uuid>; a YARN id
// (application_1700000000000_0042) <application> (likewise appattempt,
// job, attempt, container); a date with an optional time <date>; the value
// of a partition key (dt=, ds=, date=, hour=, run=, ... up to the next /,
// comma or space) <v>; a run-like word's number (run17, attempt_3, try-2)
// <n>, and #1234 #<n>; a hex word of 12 or more characters with a letter
// and a digit <hex>; a run of 8 or more digits <n>. Shorter numbers stay:
// "job042" and "top10" name jobs. JobKey(JobKey(s)) == JobKey(s).
func JobKey(name string) string {
	s := name
	for _, r := range jobKeyRules {
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

var (
	appUUID    = regexp.MustCompile(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`)
	appStamp   = regexp.MustCompile(`^[0-9]{8}[Tt]?[0-9]{0,9}[Zz]?$`) // 20240131, 20240131T1200Z
	appHexID   = regexp.MustCompile(`^[0-9a-fA-F]{12,}$`)             // hashes, hex ids
	appNumeric = regexp.MustCompile(`^[0-9]+$`)
)

// AppJobKey is the key of a job named by a YARN application, Spark
// application or MapReduce job name (what wlprof's yarn-rm,
// spark-eventlog and jhist readers store as a run's job): changing parts
// are dropped rather than replaced. It removes UUIDs anywhere, then every
// token (a run of letters, digits and non-ASCII bytes between other
// characters) that is all digits, a compact date or timestamp (20240131,
// 20240131T120000Z) or a hex id of 12 or more characters with a digit;
// the separators before removed tokens go with them, and separators left
// at either end are trimmed. A name with nothing left is kept as it is.
// "daily_etl_2024-01-31" is "daily_etl", "FraudDetection-1"
// "FraudDetection", "tpch_q12" stays.
func AppJobKey(name string) string {
	s := appUUID.ReplaceAllString(name, "0") // then dropped as a number, with its separator
	var b strings.Builder
	sep := ""
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && !isKeyAlnum(s[j]) {
			j++
		}
		if j > i {
			sep += s[i:j]
		}
		k := j
		for k < len(s) && isKeyAlnum(s[k]) {
			k++
		}
		tok := s[j:k]
		i = k
		if tok == "" {
			continue
		}
		if appNumeric.MatchString(tok) || appStamp.MatchString(tok) ||
			(appHexID.MatchString(tok) && strings.ContainsAny(tok, "0123456789")) {
			sep = "" // the separator before a dropped token goes with it
			continue
		}
		if b.Len() > 0 {
			b.WriteString(sep)
		}
		b.WriteString(tok)
		sep = ""
	}
	if b.Len() == 0 {
		return name
	}
	return b.String()
}

func isKeyAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}
