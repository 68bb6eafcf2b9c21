package reports

import (
	"strings"
	"testing"
)

// The section shows Ω(t) with the deadlines in one figure, a row per job,
// the jobs not estimated and the warnings, job names escaped.
func TestEstimateSection(t *testing.T) {
	in := synthInput(0, 3, 5)
	fit, mean, short, late := 12, 17.5, 3.0, 4
	in.Estimate = &Estimate{At: "2024-01-07T06:00:00Z", AtS: 1704607200, SlotCPU: 0.5, AvailabilityFrom: "periodic tenants",
		StartS: []float64{0, 6 * 3600, 18 * 3600}, Slots: []float64{20, 12, 18},
		Rows: []EstimateRow{
			{Job: "early" + xss, DeadlineS: 1800, Phase: "map", Pending: 60, MuS: 20, SReq: 2, SFit: &fit, AvailMeanSlots: &mean, ShortTasks: new(float64), MeetsGoal: true,
				SReqWaves: 3, LateTasks: new(int), Rank: 2},
			{Job: "late", DeadlineS: 30 * 3600, Phase: "map", Pending: 900, MuS: 1800, SReq: 19, SFit: &fit, AvailMeanSlots: &mean, ShortTasks: &short,
				SReqWaves: 23, LateTasks: &late, Rank: 1},
		},
		NotEstimated: []Skipped{{Stage: StageEstimate, Job: "nomu", Reason: `phase "map" has no µ`}},
		Warnings:     []string{"warning " + xss}}
	idx, names, page := writeSection(t, in, StageEstimate)
	if strings.Join(names, ",") != "estimate-availability" {
		t.Errorf("estimate plots %v", names)
	}
	html := unaligned(page)
	i := strings.Index(html, `<section id="estimate">`)
	if i < 0 {
		t.Fatal("no estimate section")
	}
	sec := html[i:]
	sec = sec[:strings.Index(sec, "</section>")]
	// The late job's row: s_req 19 beside s_req waves 23, 4 late tasks,
	// rank 1; the early one's s_req 2, waves 3, none late, rank 2.
	for _, w := range []string{"<td>30m</td><td>19</td><td>23</td><td>17.5</td><td>12</td><td>3.0</td><td>4</td><td><b>no</b></td><td>1</td></tr>",
		"<td>2</td><td>3</td><td>17.5</td><td>12</td><td>0.0</td><td>0</td><td>yes</td><td>2</td></tr>", "s_req waves the fewest slots",
		"<td>late</td>", "<td>1d6h</td>", "<td>30m</td>", "<b>no</b>", "Availability Ω(t) and deadlines", "has no µ", "<svg", "<td>17.5</td>", "<td>3.0</td>", "<td>0.0</td>"} {
		if !strings.Contains(sec, w) {
			t.Errorf("section lacks %q", w)
		}
	}
	if i := strings.Index(html, "%!"); i >= 0 {
		t.Errorf("a formatting error in the page: %s", html[i:min(len(html), i+40)])
	}
	if strings.Contains(html, xss) {
		t.Error("a job name is not escaped")
	}
	for _, s := range idx.Stages {
		if s.Stage == StageEstimate && (!s.Computed || s.Jobs != 2) {
			t.Errorf("index stage %+v", s)
		}
	}
	if EstimateAvailability(nil) != nil || EstimateAvailability(&Estimate{}) != nil {
		t.Error("plots of nothing")
	}
}

// synthEstimate gives every job a deadline an hour apart on a day of
// 20 slots by night and 10 by day; every third misses it.
func synthEstimate(jobs []Job) *Estimate {
	e := &Estimate{At: "2024-01-01T00:00:00Z", AtS: 1704067200, SlotCPU: 0.0625, AvailabilityFrom: "periodic tenants",
		StartS: []float64{0, 8 * 3600, 20 * 3600}, Slots: []float64{20, 10, 20}}
	for i, j := range jobs {
		fit := i
		e.Rows = append(e.Rows, EstimateRow{Job: j.Profile.Job, DeadlineS: float64(i+1) * 3600, Phase: "map", Pending: 10 * (i + 1),
			MuS: 60, SReq: i + 1, SFit: &fit, MeetsGoal: i%3 != 2})
	}
	return e
}
