package ingest

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// estimatorOracle is Hadoop's RmSingleLineParser + JobMetaData, transcribed
// line for line from their Java (split(",", 5), the filter on the fifth
// field, the tail after three blank-separated fields, the same regular
// expressions, a HashMap of JobMetaData, createSkyline's integer seconds).
// It returns, per application id kept, "pipeline submitMs specMB/vcores
// steps" where steps are the capacity changes of the RLE skyline.
func estimatorOracle(lines []string) map[string]string {
	filter := regexp.MustCompile(`(Submit Application Request|AM Allocated Container|AM Released Container|finalState=FAILED|ApplicationSummary|, Resource:)`)
	type meta struct {
		submit     int64
		start, end map[string]int64
		mb, vc     int64
	}
	metas := map[string]*meta{}
	out := map[string]string{}
	newMeta := func(t int64) *meta { return &meta{submit: t, start: map[string]int64{}, end: map[string]int64{}} }
	for _, line := range lines {
		sp := strings.SplitN(line, ",", 5)
		if len(sp) < 5 {
			continue
		}
		m := filter.FindStringSubmatch(sp[4])
		if m == nil {
			continue
		}
		t, err := time.ParseInLocation("01/02/2006 15:04:05", sp[1], time.UTC)
		if err != nil {
			continue // ParseException: logged, skipped
		}
		date := t.UnixMilli()
		f := regexp.MustCompile(`\s+`).Split(sp[4], 4)
		if len(f) < 4 {
			continue // the Java would throw ArrayIndexOutOfBounds here
		}
		tail := f[3]
		switch m[1] {
		case "Submit Application Request":
			if g := rmAppIDRe.FindStringSubmatch(tail); g != nil {
				metas[g[1]] = newMeta(date)
			}
		case "AM Allocated Container", "AM Released Container":
			if g := rmContainerRe.FindStringSubmatch(tail); g != nil && metas[g[1]] != nil {
				if m[1] == "AM Allocated Container" {
					metas[g[1]].start[g[2]] = date
				} else {
					metas[g[1]].end[g[2]] = date
				}
			}
		case ", Resource:":
			if g := rmSpecRe.FindStringSubmatch(tail); g != nil {
				if a := metas["application_"+g[2]]; a != nil {
					a.mb, _ = strconv.ParseInt(g[3], 10, 64)
					a.vc, _ = strconv.ParseInt(g[4], 10, 64)
				}
			}
		case "finalState=FAILED":
			if g := rmAttemptRe.FindStringSubmatch(tail); g != nil {
				if _, ok := metas["application_"+g[1]]; ok {
					metas["application_"+g[1]] = newMeta(date)
				}
			}
		case "ApplicationSummary":
			g := rmFinishRe.FindStringSubmatch(tail)
			if g == nil {
				continue
			}
			a := metas[g[1]]
			delete(metas, g[1])
			if a == nil {
				continue
			}
			mb, vc := a.mb, a.vc
			if mb == 0 && vc == 0 { // containerSpec == null
				mb, vc = 1024, 1
			}
			delta := map[int64]int64{}
			for c, s := range a.start {
				e, ok := a.end[c]
				if !ok {
					continue
				}
				delta[(s-a.submit)/1000]++
				delta[(e-a.submit)/1000]--
			}
			var ks []int64
			for k, d := range delta {
				if d != 0 {
					ks = append(ks, k)
				}
			}
			sort.Slice(ks, func(i, j int) bool { return ks[i] < ks[j] })
			var b strings.Builder
			cur := int64(0)
			fmt.Fprintf(&b, "%s %d %d/%d", g[2], a.submit, mb, vc)
			for _, k := range ks {
				cur += delta[k]
				fmt.Fprintf(&b, " %d:%d", k, cur)
			}
			out[g[1]] = b.String()
		}
	}
	return out
}

// TestYarnRMMatchesEstimator: on seeded random logs in the estimator's
// wrapped layout (resubmits, failed attempts, spec lines for other apps,
// unreleased containers, events after the summary, names with and without
// a recurring id), the skylines equal the
// transcribed estimator's: same applications, pipeline ids, capacity
// steps and container specs.
func TestYarnRMMatchesEstimator(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 1))
	compared, nonEmpty := 0, 0
	base := time.Date(2017, 6, 21, 16, 0, 0, 0, time.UTC)
	for trial := 0; trial < 300; trial++ {
		var lines []string
		now := base
		apps := []string{"1497832133857_0001", "1497832133857_0002", "1497832133857_0003"}
		summarised := map[string]bool{}
		state := map[string]int{} // container: 0 new, 1 allocated, 2 released
		for i := 0; i < 60; i++ {
			// Times never go back: on a log out of order the estimator
			// makes intervals that start before the submission or end
			// before they start (held forever by its RLE); this reader
			// drops those containers instead (TestYarnRMOutOfOrder).
			now = now.Add(time.Duration(rng.IntN(90)) * time.Second)
			app := apps[rng.IntN(len(apps))]
			c := fmt.Sprintf("container_e26_%s_01_%06d", app, 1+rng.IntN(20))
			var body string
			// Submits early, summaries late, containers throughout; a
			// few resubmits, failed attempts and early summaries.
			ev := []int{1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 4, 4, 6, 0, 7, 7}[rng.IntN(24)]
			switch {
			case i < 3:
				app, ev = apps[i], 0
			case i >= 45 && rng.IntN(2) == 0:
				ev = 7
			}
			switch ev {
			case 0:
				body = "INFO resourcemanager.RMAuditLogger: USER=hadoop  IP=1.2.3.4  OPERATION=Submit Application Request  TARGET=ClientRMService  RESULT=SUCCESS  APPID=application_" + app
			case 1:
				// A container is allocated once and released once, after.
				if state[c] != 0 {
					continue
				}
				state[c] = 1
				body = "INFO resourcemanager.RMAuditLogger: USER=hadoop  OPERATION=AM Allocated Container  TARGET=SchedulerApp RESULT=SUCCESS  APPID=application_" + app + "  CONTAINERID=" + c
			case 2, 3:
				var held []string
				for k, v := range state {
					if v == 1 && strings.Contains(k, app) {
						held = append(held, k)
					}
				}
				if len(held) == 0 {
					continue
				}
				sort.Strings(held)
				c = held[rng.IntN(len(held))]
				state[c] = 2
				body = "INFO resourcemanager.RMAuditLogger: USER=hadoop  OPERATION=AM Released Container TARGET=SchedulerApp RESULT=SUCCESS  APPID=application_" + app + "  CONTAINERID=" + c
			case 4, 5:
				body = fmt.Sprintf("INFO attempt.RMAppAttemptImpl: Storing attempt: AppId: application_%s AttemptId: appattempt_%s_000001 MasterContainer: Container: [ContainerId: %s, NodeId: n:1, Resource: <memory:%d, vCores:%d>, Priority: 0, ]", app, app, c, 512*(1+rng.IntN(4)), 1+rng.IntN(3))
			case 6:
				body = "INFO capacity.CapacityScheduler: Application Attempt appattempt_" + app + "_000001 is done. finalState=FAILED"
			case 7:
				// One summary per application, as the RM writes it. (After
				// a summary without a recurring id the estimator keeps the
				// application's record and would use it for a second
				// summary; this reader forgets it, to bound memory.)
				if summarised[app] {
					continue
				}
				summarised[app] = true
				name := []string{"Pipe-1", "Pipe-2", "Other-7", "bad:name", "x.y-3"}[rng.IntN(5)]
				body = "INFO resourcemanager.RMAppManager$ApplicationSummary: appId=application_" + app + ",name=" + name + ",user=hadoop, queue=PROD,state=FINISHED,startTime=1,finishTime=2,finalStatus=SUCCEEDED"
			}
			lines = append(lines, fmt.Sprintf(`%d:e,%s,yarn resourcemanager,DefaultTag,Pid="5156" Tid="1" TS="0x01" String1="%s %s"`,
				252823+i, now.Format("01/02/2006 15:04:05"), now.Format("06/01/02 15:04:05"), body))
		}
		want := estimatorOracle(lines)
		body := strings.Join(lines, "\n") + "\n"
		runs, sky, _, err := readJobs(newYarnRM(memInput("rm.log", []byte(body)), time.UTC))
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		byRun := map[string][]string{}
		job := map[string]string{}
		spec := map[string]string{}
		for _, s := range sky {
			if s.Containers > 0 && spec[s.Run] == "" {
				spec[s.Run] = fmt.Sprintf("%d/%g", s.MemoryBytes/int64(s.Containers)>>20, s.VCores/s.Containers)
			}
			job[s.Run] = s.Job
			if s.OffsetS == 0 && s.Containers == 0 {
				continue // the explicit 0 at the start: the RLE has no entry for it
			}
			byRun[s.Run] = append(byRun[s.Run], fmt.Sprintf("%g:%g", s.OffsetS, s.Containers))
		}
		for app := range job {
			w := want[app]
			if w == "" {
				t.Fatalf("trial %d: %s has a skyline, the estimator none\n%s", trial, app, body)
			}
			f := strings.Fields(w)
			// Compare pipeline, steps, and the spec whenever a container was held.
			gotSteps := strings.Join(byRun[app], " ")
			wantSteps := strings.Join(f[3:], " ")
			if job[app] != f[0] || gotSteps != wantSteps || (spec[app] != "" && spec[app] != f[2]) {
				t.Fatalf("trial %d: %s: got %s %q spec %s, estimator %s\n%s", trial, app, job[app], gotSteps, spec[app], w, body)
			}
			got[app] = w
			compared++
			if len(f) > 3 {
				nonEmpty++
			}
		}
		for app, w := range want {
			if got[app] == "" {
				t.Fatalf("trial %d: estimator keeps %s (%s), we do not (runs %+v)\n%s", trial, app, w, runs, body)
			}
		}
	}
	// The comparison must have bitten: many kept applications, most with
	// containers.
	if compared < 200 || nonEmpty < 100 {
		t.Errorf("only %d applications compared (%d with containers)", compared, nonEmpty)
	}
	t.Logf("%d applications compared, %d with containers", compared, nonEmpty)
}
