package profiler

import (
	"strings"
	"testing"
)

func TestParseSizes(t *testing.T) {
	got, err := ParseSizes("256M, 1g,512KiB,1.5G,4096,2MB")
	want := []int64{256 << 20, 1 << 30, 512 << 10, 3 << 29, 4096, 2 << 20}
	if err != nil || len(got) != len(want) {
		t.Fatalf("got %v, %v", got, err)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("size %d = %d, want %d", i, got[i], want[i])
		}
	}
	if _, err := ParseSizes("256M,x,-1G"); err == nil || strings.Count(err.Error(), "size \"") != 2 {
		t.Errorf("bad sizes: err = %v, want both reported", err)
	}
}

func TestExpand(t *testing.T) {
	v := vars{mem: 256 << 20, slots: 4, spillDir: "/tmp/s", run: "256M-s4-r1-c2", copy: 2}
	got, err := v.argv([]string{"sort", "-S", "{mem}", "-T", "{spill_dir}", "--heap={mem_mb}m", "{mem_bytes}", "out-{run}.txt", "awk", "{print $1}", "{slots}x{copy}", "{unknown}"})
	want := []string{"sort", "-S", "256M", "-T", "/tmp/s", "--heap=256m", "268435456", "out-256M-s4-r1-c2.txt", "awk", "{print $1}", "4x2", "{unknown}"}
	if err != nil || strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, %v\nwant %q", got, err, want)
	}
	env := strings.Join(v.env(), " ")
	for _, w := range []string{"WLPROF_MEM_BYTES=268435456", "WLPROF_SLOTS=4", "WLPROF_SPILL_DIR=/tmp/s"} {
		if !strings.Contains(env, w) {
			t.Errorf("environment %q lacks %s", env, w)
		}
	}
	if _, err := (vars{slots: 1}).argv([]string{"x", "{mem_mb}"}); err == nil {
		t.Error("{mem_mb} without a memory setting was accepted")
	}
}

func TestParseStat(t *testing.T) {
	// A command name with spaces and a parenthesis, as /proc shows it.
	line := "4242 (my (odd) cmd) S 4241 4242 4242 0 -1 4194560 100 0 0 0 150 50 7 3 20 0 5 0 123456 1000000 300 18446744073709551615\n"
	var s procStat
	if !parseStat([]byte(line), &s) {
		t.Fatal("parseStat failed")
	}
	if s.state != 'S' || s.ppid != 4241 || s.pgid != 4242 || s.ticks != 210 || s.threads != 5 || s.start != 123456 || s.rss != 300*int64(pageSize) {
		t.Errorf("parsed %+v", s)
	}
}
