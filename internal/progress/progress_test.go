package progress

import (
	"bytes"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestStatus(t *testing.T) {
	for _, c := range []struct {
		done, size int64
		elapsed    time.Duration
		want       string
	}{
		{0, 0, 12400 * time.Millisecond, "x  12s"},
		{0, 2_000_000, 0, "x  0 B / 2.0 MB  0%"},
		{500_000_000, 2_000_000_000, 5 * time.Second, "x  500.0 MB / 2.0 GB  25%  100.0 MB/s  ETA 15s"},
		{3_000, 2_000, time.Second, "x  2.0 kB / 2.0 kB  100%  2.0 kB/s  ETA 0s"},
	} {
		if got := Status("x", c.done, c.size, c.elapsed); got != c.want {
			t.Errorf("Status(%d, %d, %v) = %q, want %q", c.done, c.size, c.elapsed, got, c.want)
		}
	}
	for n, want := range map[int64]string{0: "0 B", 999: "999 B", 1000: "1.0 kB", 1_500_000: "1.5 MB", 3_200_000_000_000: "3.2 TB"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}

// A Line redraws in place with \r, pads over a longer previous text, and
// Stop leaves the line blank with the cursor at its start. Its label is
// escaped.
func TestLine(t *testing.T) {
	var mu syncBuffer
	var n atomic.Int64
	l := Start(&mu, "f\u202e.csv", 1000, n.Load)
	time.Sleep(Interval + 50*time.Millisecond)
	n.Store(1000)
	l.Stop()
	l.Stop() // twice is fine
	out := mu.String()
	if !strings.HasPrefix(out, "\r") || !strings.HasSuffix(out, "\r") || strings.Contains(out, "\n") {
		t.Errorf("not drawn in place: %q", out)
	}
	if !strings.Contains(out, `f\u202e.csv  0 B / 1.0 kB  0%`) {
		t.Errorf("first draw missing: %q", out)
	}
	last := out[strings.LastIndex(strings.TrimSuffix(out, "\r"), "\r"):]
	if strings.TrimSpace(last) != "" {
		t.Errorf("Stop did not clear the line: %q", last)
	}
}

func TestIsTerminal(t *testing.T) {
	f, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if IsTerminal(f) {
		t.Error("/dev/null is a terminal")
	}
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
