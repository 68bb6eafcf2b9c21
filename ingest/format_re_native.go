package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"unicode/utf8"

	"github.com/wlprof/wlprof/dataset"
)

// The native format of Apache Hadoop's ResourceEstimator
// (hadoop-tools/hadoop-resourceestimator, NativeSingleLineParser): one run
// per line, fields separated by white space:
//
//	pipeline numInstances submitMs startMs endMs runId memUsage coreUsage
//
// coreUsage is a list of "n:t|" units: n containers of <1 vcore, 1024 MB>
// held during [t, t+5) seconds from the run's start (5 s is the estimator's
// resourceestimator.timeInterval default; overlapping units add up).
// memUsage is not used by the estimator and not here either. A line is one
// run: a row in runs and its step function in skylines.

// nativeUnitS is how long one "n:t" unit holds its containers.
const nativeUnitS = 5

// nativeContainerBytes and nativeContainerVCores are the estimator's
// assumed container for the native format.
const (
	nativeContainerBytes  = 1024 << 20
	nativeContainerVCores = 1
)

func init() {
	register(&Format{
		Name:        "re-native",
		Table:       dataset.SkylinesTable.Name,
		Description: "Hadoop ResourceEstimator native skyline format: pipeline numInstances submit start end runId memUsage n:t|... (also fills runs)",
		Detect: func(name string, head []byte) bool {
			_, _, err := parseNativeLine(firstLine(head))
			return err == nil
		},
		ingest: ingestNative,
	})
}

type nativeErr struct {
	col int
	err error
}

func (e *nativeErr) Error() string { return e.err.Error() }

// parseNativeLine reads one line into a run and its skyline samples.
func parseNativeLine(line []byte) (*dataset.Run, []dataset.SkylineSample, error) {
	var fields [][]byte
	var cols []int
	for i := 0; i < len(line); {
		for i < len(line) && isSpace(line[i]) {
			i++
		}
		j := i
		for j < len(line) && !isSpace(line[j]) {
			j++
		}
		if j > i {
			fields = append(fields, line[i:j])
			cols = append(cols, i+1)
		}
		i = j
	}
	if len(fields) < 8 {
		return nil, nil, &nativeErr{0, fmt.Errorf("%d fields, want 8 (pipeline numInstances submit start end runId memUsage coreUsage)", len(fields))}
	}
	times := [3]int64{}
	for q := 0; q < 3; q++ {
		v, err := strconv.ParseInt(string(fields[2+q]), 10, 64)
		if err != nil || v < 0 {
			return nil, nil, &nativeErr{cols[2+q], fmt.Errorf("%s time %q is not epoch milliseconds", []string{"submit", "start", "end"}[q], fields[2+q])}
		}
		times[q] = v
	}
	if times[2] < times[1] {
		return nil, nil, &nativeErr{cols[4], fmt.Errorf("end %d before start %d", times[2], times[1])}
	}
	type event struct {
		t int64
		d int64
	}
	var events []event
	for _, u := range bytes.Split(fields[7], []byte("|")) {
		if len(u) == 0 {
			continue
		}
		ns, ts, ok := bytes.Cut(u, []byte(":"))
		n, err1 := strconv.ParseInt(string(ns), 10, 64)
		t, err2 := strconv.ParseInt(string(ts), 10, 64)
		if !ok || err1 != nil || err2 != nil || n < 0 || t < 0 || n > 1<<40 || t > 1<<40 {
			return nil, nil, &nativeErr{cols[7], fmt.Errorf("skyline unit %q is not containers:seconds", u)}
		}
		events = append(events, event{t, n}, event{t + nativeUnitS, -n})
	}
	if len(events) == 0 {
		return nil, nil, &nativeErr{cols[7], errors.New("empty skyline")}
	}
	sort.SliceStable(events, func(a, b int) bool { return events[a].t < events[b].t })
	for _, k := range []int{0, 5} {
		if !utf8.Valid(fields[k]) {
			return nil, nil, &nativeErr{cols[k], errors.New("job and run ids must be UTF-8")}
		}
	}
	job, runID := string(fields[0]), string(fields[5])
	var samples []dataset.SkylineSample
	level := int64(0)
	for q := 0; q < len(events); {
		t := events[q].t
		for ; q < len(events) && events[q].t == t; q++ {
			level += events[q].d
		}
		if n := len(samples); n > 0 && samples[n-1].Containers == float64(level) {
			continue
		}
		samples = append(samples, dataset.SkylineSample{Job: job, Run: runID, OffsetS: float64(t),
			Containers: float64(level), MemoryBytes: level * nativeContainerBytes, VCores: float64(level * nativeContainerVCores)})
	}
	run := &dataset.Run{Job: job, Run: runID, Name: job, Status: "FINISHED",
		SubmitMs: times[0], StartMs: times[1], EndMs: times[2], Source: "re-native"}
	return run, samples, nil
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\v' || c == '\f' }

func ingestNative(ctx context.Context, in *Input, s *sink) error {
	lr := newLineReader(in)
	runs, skylines := s.tx.Runs(), s.tx.Skylines()
	for {
		line, err, end := lr.nextLine(ctx, in.Path)
		if end == io.EOF {
			return nil
		} else if end != nil {
			return end
		}
		if err == nil && len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if err == nil {
			var run *dataset.Run
			var samples []dataset.SkylineSample
			run, samples, err = parseNativeLine(line)
			if err == nil {
				if err := runs.Append(run); err != nil {
					return err
				}
				for q := range samples {
					if err := skylines.Append(&samples[q]); err != nil {
						return err
					}
				}
				s.accepted++
				s.res.Accepted++
				continue
			}
		}
		col := 0
		var ne *nativeErr
		if errors.As(err, &ne) {
			col = ne.col
		}
		if rerr := s.reject(&ParseError{File: in.Path, Line: lr.line, Col: col, Err: err, Record: recordText(line)}); rerr != nil {
			return rerr
		}
	}
}
