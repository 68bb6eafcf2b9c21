package reports

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// CheckDir refuses, before any work, a destination Write could not
// create (issue 22 #8: report --out failed only after the analysis), and
// leaves nothing behind when it accepts one.
func TestCheckDir(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	os.WriteFile(file, []byte("x"), 0o644)
	full := filepath.Join(dir, "full")
	os.MkdirAll(full, 0o755)
	os.WriteFile(filepath.Join(full, "notes.txt"), []byte("x"), 0o644)
	for _, c := range []struct {
		out, err string
	}{
		{filepath.Join(dir, "new", "deeper", "r"), ""},
		{filepath.Join(dir, "r"), ""},
		{full, "no index.json of a report"},
		{filepath.Join(file, "sub", "r"), "not a directory"},
		{"/proc/wlprof-report", "is not writable"}, // not writable even by root
	} {
		err := CheckDir(c.out)
		if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("CheckDir(%s) = %v, want %q", c.out, err, c.err)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("CheckDir left something in %s: %v", dir, entries)
	}
}
