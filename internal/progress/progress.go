// Package progress draws one self-updating status line on a terminal:
// bytes read of a file with rate and ETA while it is ingested, or a
// stage's elapsed time while it runs. It is for a terminal only: the
// caller decides (IsTerminal) and never draws with --quiet or -o json,
// so logs and pipes see only the summaries.
package progress

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/wlprof/wlprof/internal/safetext"
)

// IsTerminal says whether f is a terminal (/dev/null, a file or a pipe
// is not).
func IsTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// Line is one status line, redrawn in place every Interval until Stop.
type Line struct {
	w        io.Writer
	label    string
	size     int64
	read     func() int64
	start    time.Time
	now      func() time.Time
	mu       sync.Mutex
	drawn    int // width of what is on the line now
	stop     chan struct{}
	done     chan struct{}
	stopOnce sync.Once
}

// Interval is how often a Line is redrawn.
const Interval = 250 * time.Millisecond

// Start draws label on w and keeps it current until Stop: with read and
// size > 0, as "label  12.3 MB / 1.2 GB  1%  85 MB/s  ETA 14s"; otherwise
// as "label  12s" (elapsed). label is shown with its invisible characters
// escaped (it may hold a file name).
func Start(w io.Writer, label string, size int64, read func() int64) *Line {
	return StartAt(w, label, size, read, time.Now())
}

// StartAt is Start with the clock started at start: a line shown again
// after another took its place keeps counting from when it first began.
func StartAt(w io.Writer, label string, size int64, read func() int64, start time.Time) *Line {
	l := &Line{w: w, label: safetext.Escape(label), size: size, read: read, start: start, now: time.Now,
		stop: make(chan struct{}), done: make(chan struct{})}
	go l.loop()
	return l
}

func (l *Line) loop() {
	defer close(l.done)
	t := time.NewTicker(Interval)
	defer t.Stop()
	for {
		l.draw()
		select {
		case <-l.stop:
			return
		case <-t.C:
		}
	}
}

func (l *Line) draw() {
	var done int64
	if l.read != nil {
		done = l.read()
	}
	s := Status(l.label, done, l.size, l.now().Sub(l.start))
	l.mu.Lock()
	defer l.mu.Unlock()
	pad := l.drawn - len(s)
	if pad < 0 {
		pad = 0
	}
	fmt.Fprintf(l.w, "\r%s%*s", s, pad, "")
	l.drawn = len(s)
}

// Stop stops redrawing and clears the line, so what is printed next
// starts on a clean line.
func (l *Line) Stop() {
	l.stopOnce.Do(func() {
		close(l.stop)
		<-l.done
		l.mu.Lock()
		fmt.Fprintf(l.w, "\r%*s\r", l.drawn, "")
		l.drawn = 0
		l.mu.Unlock()
	})
}

// Status is the text of a line: with size > 0, bytes done of size with
// the share, the average rate and the time left at that rate; otherwise
// the elapsed time.
func Status(label string, done, size int64, elapsed time.Duration) string {
	if size <= 0 {
		return fmt.Sprintf("%s  %s", label, elapsed.Round(time.Second))
	}
	done = min(max(done, 0), size)
	s := fmt.Sprintf("%s  %s / %s  %d%%", label, Bytes(done), Bytes(size), done*100/size)
	if secs := elapsed.Seconds(); secs >= 1 && done > 0 {
		rate := float64(done) / secs
		left := time.Duration(float64(size-done) / rate * float64(time.Second))
		s += fmt.Sprintf("  %s/s  ETA %s", Bytes(int64(rate)), left.Round(time.Second))
	}
	return s
}

// Bytes writes n in decimal units, as file managers and ls -h --si do.
func Bytes(n int64) string {
	const unit = 1000
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %cB", float64(n)/float64(div), "kMGTP"[exp])
}
