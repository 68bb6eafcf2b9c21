package ingest

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wlprof/wlprof/dataset"
)

// jobsOut is what an ingest of job-run formats left in the dataset.
type jobsOut struct {
	res     *Result
	runs    []dataset.Run
	sky     []dataset.SkylineSample
	rejects []dataset.Reject
	prof    []dataset.ProfRun
}

func ingestJobs(t *testing.T, format string, paths []string, opts Options) jobsOut {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ds")
	res := mustIngest(t, dir, format, paths, opts)
	ds := openDataset(t, dir)
	ctx := context.Background()
	var o jobsOut
	var err error
	o.res = res
	if o.runs, err = dataset.ReadAll(ctx, ds, dataset.RunsTable); err != nil {
		t.Fatal(err)
	}
	if o.sky, err = dataset.ReadAll(ctx, ds, dataset.SkylinesTable); err != nil {
		t.Fatal(err)
	}
	if o.rejects, err = dataset.ReadAll(ctx, ds, dataset.RejectsTable); err != nil {
		t.Fatal(err)
	}
	if o.prof, err = dataset.ReadAll(ctx, ds, dataset.ProfRunsTable); err != nil {
		t.Fatal(err)
	}
	return o
}

// skyline returns the samples of one run.
func (o jobsOut) skyline(job, run string) []dataset.SkylineSample {
	var out []dataset.SkylineSample
	for _, s := range o.sky {
		if s.Job == job && s.Run == run {
			out = append(out, s)
		}
	}
	return out
}

// steps writes samples as "offset:containers" pairs.
func steps(ss []dataset.SkylineSample) string {
	var b strings.Builder
	for i, s := range ss {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.FormatFloat(s.OffsetS, 'g', -1, 64) + ":" + strconv.FormatFloat(s.Containers, 'g', -1, 64))
	}
	return b.String()
}

func rejectLines(rs []dataset.Reject) []int64 {
	var out []int64
	for _, r := range rs {
		out = append(out, r.Line)
	}
	return out
}

func utcMs(layout, s string) int64 {
	t, err := time.ParseInLocation(layout, s, time.UTC)
	if err != nil {
		panic(err)
	}
	return t.UnixMilli()
}
