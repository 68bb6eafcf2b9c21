package ingest

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// Options.Watch sees every input with its size on disk, and the bytes
// read grow to that size by the time the input is done, for mapped,
// gzip-compressed and whole-document inputs alike (the progress line of
// wlprof ingest on a terminal).
func TestWatchProgress(t *testing.T) {
	inputs := []string{
		"../testdata/provenance/world/hdfs-audit.log.gz",
		"../testdata/resourceestimator/tpch_q12.txt",
		"../testdata/elasticity/profruns.csv",
	}
	type seen struct {
		size, last int64
		samples    []int64
	}
	var mu sync.Mutex
	got := map[string]*seen{}
	opts := DefaultOptions()
	opts.Watch = func(path string, size int64, read func() int64) func() {
		s := &seen{size: size}
		mu.Lock()
		got[path] = s
		mu.Unlock()
		stop, done := make(chan struct{}), make(chan struct{})
		go func() { // sample from another goroutine, as the progress line does
			defer close(done)
			for {
				select {
				case <-stop:
					return
				case <-time.After(time.Millisecond):
					s.samples = append(s.samples, read())
				}
			}
		}()
		return func() { close(stop); <-done; s.last = read() }
	}
	for _, in := range inputs {
		ds := filepath.Join(t.TempDir(), "ds")
		if _, _, err := Into(context.Background(), ds, "auto", []string{in}, opts); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
	}
	for _, in := range inputs {
		s := got[in]
		st, err := os.Stat(in)
		if s == nil || err != nil {
			t.Fatalf("%s: not watched (%v)", in, err)
		}
		if s.size != st.Size() || s.last != st.Size() {
			t.Errorf("%s: size %d, last read %d; want both %d", in, s.size, s.last, st.Size())
		}
		for i := 1; i < len(s.samples); i++ {
			if s.samples[i] < s.samples[i-1] || s.samples[i] > s.size {
				t.Fatalf("%s: read went %d then %d (size %d)", in, s.samples[i-1], s.samples[i], s.size)
			}
		}
	}
}
