package ingest

import (
	"math"
	"testing"
)

// The hand-written sample (SOURCES.md): 8 lines of 3 machines at
// irregular steps. Line 1 "m_1932,386640,41,92,,,43.21,32.78,2" is cpu 41%,
// memory 92% at 386640 s after the trace start.
func TestAlibabaMachine(t *testing.T) {
	path := traceFile("alibaba2018", "machine_usage_sample.csv")
	got := mustRun(t, "alibaba2018-machine", []string{path}, DefaultOptions())
	if len(got.usage) != 8 || got.res.Rejected != 0 {
		t.Fatalf("%d rows, %d rejected", len(got.usage), got.res.Rejected)
	}
	if u := got.usage[0]; u.Tenant != "alibaba" || u.Server != "m_1932" || u.TimeMs != 386640_000 || !near(u.CPU, 0.41) || !near(u.Memory, 0.92) {
		t.Errorf("line 1: %+v", u)
	}
	if u := got.usage[7]; u.Server != "m_3" || !near(u.CPU, 0.77) || !near(u.Memory, 0.88) {
		t.Errorf("line 8: %+v", u)
	}
	// Irregular sampling is kept as is: m_2 at +0, +20, +90 s.
	if d1, d2 := got.usage[5].TimeMs-got.usage[4].TimeMs, got.usage[6].TimeMs-got.usage[5].TimeMs; d1 != 20_000 || d2 != 70_000 {
		t.Errorf("m_2 steps %d, %d ms", d1, d2)
	}
	opts := DefaultOptions()
	opts.TenantKey = "machine"
	got = mustRun(t, "alibaba2018-machine", []string{path}, opts)
	if got.usage[0].Tenant != "m_1932" || got.usage[4].Tenant != "m_2" {
		t.Errorf("machine key: %+v", got.usage[:5])
	}
	opts = DefaultOptions()
	opts.Tenant = "cluster-a"
	got = mustRun(t, "alibaba2018-machine", []string{path}, opts)
	if got.usage[0].Tenant != "cluster-a" {
		t.Errorf("--tenant: %+v", got.usage[0])
	}
}

func TestAlibabaBadInput(t *testing.T) {
	path := writeFile(t, t.TempDir(), "machine_usage.csv", []byte(""+
		"m_1,100,10,20,,,1,1,1\n"+ // 1 ok
		"m_1,100,11,20,,,1,1,1\n"+ // 2 duplicate
		"m_1,110,10,,,,1,1,1\n"+ // 3 ok, memory unknown
		"m_1,120,,20,,,1,1,1\n"+ // 4 no cpu
		"m_1,130,101,20,,,1,1,1\n"+ // 5
		"m_1,140,10,-2,,,1,1,1\n"+ // 6
		"m_1,150,10,20,,,1,1\n"+ // 7 eight fields
		"m_1,later,10,20,,,1,1,1\n"+ // 8
		",160,10,20,,,1,1,1\n"+ // 9
		"m_1,170,nan,20,,,1,1,1\n"+ // 10
		"m_2,90,5,6,,,1,1,1\n")) // 11 ok
	got := mustRun(t, "alibaba2018-machine", []string{path}, DefaultOptions())
	if len(got.usage) != 3 || len(got.rejects) != 8 {
		t.Fatalf("%d rows, %d rejects: %+v", len(got.usage), len(got.rejects), got.rejects)
	}
	if !math.IsNaN(got.usage[1].Memory) {
		t.Errorf("empty mem_util_percent: %+v", got.usage[1])
	}
	hasRejects(t, got.rejects, []lineReject{
		{2, "duplicate time_stamp for this machine"}, {4, "cpu_util_percent: empty number"}, {5, "cpu_util_percent 101 is above 100%"},
		{6, "mem_util_percent -2 is negative"}, {7, "8 fields, want 9"}, {8, `time_stamp "later" is not seconds`},
		{9, "empty machine_id"}, {10, "cpu_util_percent is NaN"},
	})
}
