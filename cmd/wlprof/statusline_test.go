package main

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wlprof/wlprof/internal/progress"
)

// syncBuffer is a terminal the lines' goroutines may write at once.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A file's progress inside the ingest stage's timer, and a message
// printed meanwhile, never draw over each other: the terminal shows the
// stage, then only the file (the stage cleared first), then the message
// on a clean line, then the file again, then the stage again with its
// clock still running, and a clean line at the end. Before one writer
// owned the line, both redrew it every 250 ms and the terminal showed
// "ingest  2ssage.csv  206.6 MB".
func TestStatusLineOneWriter(t *testing.T) {
	term := &syncBuffer{}
	o := &statusOwner{w: term}
	wait := func() { time.Sleep(progress.Interval + 100*time.Millisecond) }
	stopStage := o.push("ingest", 0, nil)
	wait()
	var read int64 = 500
	stopFile := o.push("  usage.csv", 1000, func() int64 { return read })
	wait()
	o.around(func() { term.Write([]byte("ingested 9 records\n")) })
	wait()
	stopFile()
	wait()
	stopStage()
	out := term.String()
	if !strings.HasSuffix(out, "\r") {
		t.Errorf("the line is not cleared at the end: %q", out)
	}
	// Each draw starts at \r; blank ones are clears. The non-blank draws
	// must come in blocks: stage, file, message, file, stage.
	var seq []string
	for _, seg := range strings.Split(out, "\r") {
		s := strings.TrimSpace(seg)
		var kind string
		switch {
		case s == "":
			continue
		case strings.HasPrefix(s, "ingest  "):
			kind = "stage"
		case strings.HasPrefix(s, "usage.csv  "):
			kind = "file"
		case s == "ingested 9 records":
			kind = "message"
		default:
			t.Fatalf("a draw mixes two lines: %q in %q", s, out)
		}
		if len(seq) == 0 || seq[len(seq)-1] != kind {
			seq = append(seq, kind)
		}
	}
	if got, want := strings.Join(seq, ","), "stage,file,message,file,stage"; got != want {
		t.Errorf("draws %s, want %s: %q", got, want, out)
	}
	// The stage's clock kept running while the file was shown.
	if i := strings.LastIndex(out, "ingest  "); i < 0 || strings.HasPrefix(out[i:], "ingest  0s") {
		t.Errorf("the stage line came back with its clock reset: %q", out)
	}
}
