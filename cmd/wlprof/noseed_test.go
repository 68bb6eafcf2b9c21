package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// seedName is how the papers were once cited by their file name: "seed
// 000", "seed-002", "seed 004's". A reader cites them by authors, venue and
// section (Zhang et al., OSDI'16 §4.1); "seed" is the random seed only.
var seedName = regexp.MustCompile(`(?i)seed[\s-]+0\d\d`)

// workLog is an issue or session number: the history of the work, which
// belongs in git, not in what the code or a user reads.
var workLog = regexp.MustCompile(`(?i)\b(issue\s+#?\d+|session\s+\d+)\b`)

// No help text, command output (the goldens pin every command's), README,
// package doc or non-test Go source (its comments and strings) names a
// paper by its file name or cites an issue or session number. Benchmark
// histories under docs/benchmarks keep their runs' dates and sessions.
func TestNoSeedFileNames(t *testing.T) {
	root := "../.."
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			switch {
			case rel != "." && strings.HasPrefix(d.Name(), "."), d.Name() == "node_modules", rel == filepath.Join("docs", "benchmarks"):
				return filepath.SkipDir
			}
			return nil
		}
		golden := strings.Contains(rel, filepath.Join("testdata", "golden"))
		source := strings.HasSuffix(rel, ".go") && !strings.HasSuffix(rel, "_test.go") && !strings.Contains(rel, "testdata"+string(filepath.Separator))
		doc := strings.HasSuffix(rel, ".md") && !strings.Contains(rel, "testdata"+string(filepath.Separator))
		help := strings.HasSuffix(rel, ".sh") || d.Name() == "Makefile"
		if !golden && !source && !doc && !help {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if m := seedName.Find(b); m != nil {
			t.Errorf("%s names a paper by its file name (%q): cite it by authors, venue and section", rel, m)
		}
		if m := workLog.Find(b); m != nil {
			t.Errorf("%s cites %q: the history of the work is in git, not in the text", rel, m)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
