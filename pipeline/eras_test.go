package pipeline

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// Inputs ten years apart (NAB's 2014 taxi series, a 2024 utilisation
// CSV; dates from the files' own timestamps) get one warning above the
// answers that names the years; inputs of one month get none.
func TestErasWarnedOnce(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		inputs []string
		want   string // "" = no warning
	}{
		{[]string{"../testdata/timeseries/nab_nyc_taxi.csv", "../testdata/usage_with_rejects.csv"}, "The inputs span 2014-07-01 to 2024-03-01 (10 years)"},
		{[]string{"../testdata/usage_with_rejects.csv"}, ""},
	} {
		var lines []string
		rep, err := Run(ctx, c.inputs, runOptions(filepath.Join(t.TempDir(), "out"), &lines))
		if err != nil {
			t.Fatal(err)
		}
		w := rep.Report.Summary.Decisions.Warning
		// wlprof run gives the warning up front too, before any stage runs.
		early := -1
		for i, l := range lines {
			if strings.HasPrefix(l, "warning: The inputs span") {
				early = i
				break
			}
		}
		firstStage := -1
		for i, l := range lines {
			if strings.HasPrefix(l, "stage ") && l != "stage ingest" {
				firstStage = i
				break
			}
		}
		switch {
		case c.want == "" && early >= 0:
			t.Errorf("%v: warned up front: %q", c.inputs, lines[early])
		case c.want != "" && (early < 0 || firstStage >= 0 && early > firstStage):
			t.Errorf("%v: no warning before the stages (warning at line %d, first stage at %d): %q", c.inputs, early, firstStage, lines)
		case c.want != "" && lines[early] != "warning: "+w:
			t.Errorf("%v: up front %q, in the summary %q: want the same text", c.inputs, lines[early], w)
		}
		switch {
		case c.want == "" && w != "":
			t.Errorf("%v: warned %q", c.inputs, w)
		case c.want != "" && (!strings.HasPrefix(w, c.want) || !strings.Contains(w, "2014: 1 tenant series") || !strings.Contains(w, "2024: ")):
			t.Errorf("%v: warning %q, want it to start %q and name both years", c.inputs, w, c.want)
		}
	}
}
