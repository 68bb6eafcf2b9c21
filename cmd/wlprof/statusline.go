package main

import (
	"io"
	"slices"
	"sync"
	"time"

	"github.com/wlprof/wlprof/internal/progress"
)

// statusOwner is the one writer of the terminal's status line. A line
// started while another is shown (an input's bytes inside the ingest
// stage's timer) takes its place until it stops; the one below then comes
// back, its clock still running. Progress text printed meanwhile clears
// the line first and the line is drawn again below it. Two lines never
// draw over each other.
type statusOwner struct {
	mu    sync.Mutex
	w     io.Writer
	stack []*statusSpec
	line  *progress.Line
}

type statusSpec struct {
	label string
	size  int64
	read  func() int64
	start time.Time
}

// push shows a line on top of the others and returns what removes it.
func (o *statusOwner) push(label string, size int64, read func() int64) (stop func()) {
	s := &statusSpec{label: label, size: size, read: read, start: time.Now()}
	o.mu.Lock()
	o.hide()
	o.stack = append(o.stack, s)
	o.show()
	o.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			o.mu.Lock()
			defer o.mu.Unlock()
			top := len(o.stack) > 0 && o.stack[len(o.stack)-1] == s
			if top {
				o.hide()
			}
			if i := slices.Index(o.stack, s); i >= 0 {
				o.stack = slices.Delete(o.stack, i, i+1)
			}
			if top {
				o.show()
			}
		})
	}
}

// around runs print with the line cleared, then draws it again.
func (o *statusOwner) around(print func()) {
	o.mu.Lock()
	defer o.mu.Unlock()
	shown := o.line != nil
	o.hide()
	print()
	if shown {
		o.show()
	}
}

func (o *statusOwner) hide() {
	if o.line != nil {
		o.line.Stop()
		o.line = nil
	}
}

func (o *statusOwner) show() {
	if n := len(o.stack); n > 0 {
		s := o.stack[n-1]
		o.line = progress.StartAt(o.w, s.label, s.size, s.read, s.start)
	}
}
