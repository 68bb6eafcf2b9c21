package profiler

import (
	"bufio"
	"io"
	"os"
	"regexp"
	"sync"
	"time"
)

// output reads the command's merged stdout and stderr line by line: it
// finds phase boundaries with the phase regex, keeps the last bytes for
// error messages, and copies lines to an optional writer.
type output struct {
	re    *regexp.Regexp
	copy  io.Writer
	start time.Time

	// onMark, when set, is called (outside mu) with each new phase's name
	// as soon as its line is read, before the next line is: the run takes a
	// sample there, so the phase's counters start at its mark.
	onMark func(name string)

	mu     sync.Mutex
	phase  string
	phases []phaseMark
	tail   []byte
	done   chan struct{}
}

type phaseMark struct {
	offsetS float64
	name    string
}

const tailBytes = 2048

func newOutput(re *regexp.Regexp, copyTo io.Writer, start time.Time) *output {
	return &output{re: re, copy: copyTo, start: start, done: make(chan struct{})}
}

// read consumes r until EOF; one goroutine per pipe.
func (o *output) read(r *os.File, wg *sync.WaitGroup) {
	defer wg.Done()
	defer r.Close()
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadSlice('\n')
		if len(line) > 0 {
			o.line(line)
		}
		if err != nil && err != bufio.ErrBufferFull {
			return
		}
	}
}

func (o *output) line(line []byte) {
	if name, ok := o.scan(line); ok && o.onMark != nil {
		o.onMark(name)
	}
}

// scan copies and keeps line, and reports the name of the phase it
// starts, if it does.
func (o *output) scan(line []byte) (string, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.copy != nil {
		o.copy.Write(line)
	}
	o.tail = append(o.tail, line...)
	if len(o.tail) > 2*tailBytes {
		o.tail = append(o.tail[:0], o.tail[len(o.tail)-tailBytes:]...)
	}
	if o.re == nil {
		return "", false
	}
	m := o.re.FindSubmatch(line)
	if m == nil {
		return "", false
	}
	// The phase is named by the first capture group that matched, else by
	// the whole match: alternatives can name different phases, as in
	// `(map) \d+% reduce 0%|(reduce) [1-9]` over Hadoop's progress lines.
	name := string(m[0])
	for _, g := range m[1:] {
		if len(g) > 0 {
			name = string(g)
			break
		}
	}
	if name == o.phase {
		return "", false
	}
	o.phase = name
	o.phases = append(o.phases, phaseMark{time.Since(o.start).Seconds(), name})
	return name, true
}

func (o *output) current() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.phase
}

func (o *output) lastBytes() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	t := o.tail
	if len(t) > tailBytes {
		t = t[len(t)-tailBytes:]
	}
	return string(t)
}
