package reports

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/wlprof/wlprof/internal/table"
)

// WriteText writes where index.html is, what was written, and which
// stages the report has, as wlprof report and wlprof run print them.
func (idx *Index) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "%s\n", filepath.Join(idx.Dir, idx.IndexHTML))
	fmt.Fprintf(w, "  %d profiles, %d plots", len(idx.Profiles), len(idx.Plots))
	if idx.Tenants != nil {
		fmt.Fprintf(w, ", %s", *idx.Tenants)
	}
	fmt.Fprintln(w)
	var missing []string
	for _, s := range idx.Stages {
		if s.Computed {
			fmt.Fprintf(w, "  %-10s computed (%s)\n", s.Stage, stageSubject(s, &idx.Summary.Decisions))
		} else {
			missing = append(missing, s.Stage)
		}
	}
	if len(missing) > 0 {
		fmt.Fprintf(w, "  not computed: %s\n", strings.Join(missing, ", "))
	}
	if q := idx.DataQuality; q.Rejected > 0 {
		fmt.Fprintf(w, "  data quality: %d of %d inputs had rejected records (%d of %d); see the report's data-quality section or wlprof rejects\n",
			q.InputsWithRejects, len(q.Inputs), q.Rejected, q.Accepted+q.Rejected)
	}
	if idx.Summary.Decisions.Version > 0 {
		idx.Summary.Decisions.WriteText(w)
	}
	return nil
}

// stageSubject is what a computed stage is about, counted: tenants,
// jobs, or the jobs a what-if replayed.
func stageSubject(s IndexStage, d *Decisions) string {
	switch {
	case s.Tenants != nil:
		return plural(int64(*s.Tenants), "tenant", "tenants")
	case s.Stage == StageHarvest && len(d.Harvest.Replay) > 0:
		return plural(int64(d.Harvest.Replay[0].Jobs), "job", "jobs") + " replayed"
	case s.Stage == StageSimulate:
		return plural(int64(s.Jobs), "job", "jobs") + " simulated"
	}
	return plural(int64(s.Jobs), "job", "jobs")
}

// WriteCSV lists the written files, one per row.
func (idx *Index) WriteCSV(w io.Writer) error {
	return table.CSV(w, []string{"kind", "stage", "job", "path"}, func(row func(...string)) {
		row("html", "", "", idx.IndexHTML)
		if idx.Tenants != nil {
			row("tenants", StageClassify, "", *idx.Tenants)
		}
		for _, p := range idx.Profiles {
			row("profile", "", p.Job, p.Path)
		}
		for _, p := range idx.Plots {
			row("svg", p.Stage, p.Job, p.SVG)
			if p.PNG != "" {
				row("png", p.Stage, p.Job, p.PNG)
			}
		}
	})
}
