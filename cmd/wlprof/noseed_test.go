package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
)

// seedName is how the papers were once cited by their file name: "seed
// 000", "seed 004's". A reader cites them by authors, venue and section
// (Zhang et al., OSDI'16 §4.1); "seed" is the random seed only.
var seedName = regexp.MustCompile(`(?i)seed\s+0\d\d`)

// notYetSwept are the files whose text still names a paper by its file
// name; the list only shrinks: a file that no longer does fails the test
// until it is taken off.
var notYetSwept = []string{
	"../../README.md",
	"testdata/golden/help-wlprof-classify.txt",
	"testdata/golden/help-wlprof-constraints.txt",
	"testdata/golden/help-wlprof-dag.txt",
	"testdata/golden/help-wlprof-elasticity.txt",
	"testdata/golden/help-wlprof-estimate.txt",
	"testdata/golden/help-wlprof-export-yarn-reservation.txt",
	"testdata/golden/help-wlprof-placement.txt",
	"testdata/golden/help-wlprof-plan.txt",
	"testdata/golden/help-wlprof-profile-run.txt",
	"testdata/golden/help-wlprof-profile-show.txt",
	"testdata/golden/help-wlprof-profile.txt",
	"testdata/golden/help-wlprof-simulate.txt",
	"testdata/golden/help-wlprof-skyline.txt",
	"testdata/golden/help-wlprof-slo.txt",
	"testdata/golden/help-wlprof.txt",
	"testdata/golden/placement.txt",
	"testdata/golden/profile-show-spillsort.txt",
}

// No help text, command output (the goldens pin every command's) or the
// README names a paper by its file name.
func TestNoSeedFileNames(t *testing.T) {
	files, err := filepath.Glob("testdata/golden/*")
	if err != nil {
		t.Fatal(err)
	}
	sub, _ := filepath.Glob("testdata/golden/*/*/*")
	files = append(append(files, sub...), "../../README.md")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // a directory
		}
		named := seedName.Find(b)
		pending := slices.Contains(notYetSwept, f)
		switch {
		case named != nil && !pending:
			t.Errorf("%s names a paper by its file name (%q): cite it by authors, venue and section", f, named)
		case named == nil && pending:
			t.Errorf("%s no longer names a paper by its file name: take it off notYetSwept", f)
		}
	}
}
