package profiler

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/wlprof/wlprof/internal/bytesize"
)

// ParseSizes parses a comma-separated list of memory sizes such as
// "256M,512M,1G" (bytesize.Parse: suffixes K, M, G, T, optionally followed
// by "i", "B" or "iB", any case, are binary multiples of 1024; a bare
// number is bytes), and reports every bad one.
func ParseSizes(list string) ([]int64, error) {
	var out []int64
	var errs []error
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		n, err := bytesize.Parse(f)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, n)
	}
	return out, errors.Join(errs...)
}

// ParseSlots parses a comma-separated list of positive concurrency levels.
func ParseSlots(list string) ([]int, error) {
	var out []int
	var errs []error
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 || n > 1024 {
			errs = append(errs, fmt.Errorf("slots %q: want an integer in [1,1024]", f))
			continue
		}
		out = append(out, n)
	}
	return out, errors.Join(errs...)
}

// Placeholders are the names substituted into the command's arguments.
var Placeholders = []string{"{mem}", "{mem_mb}", "{mem_bytes}", "{slots}", "{spill_dir}", "{run}", "{copy}", "{input}"}

// vars are the values of the placeholders for one copy of one run.
type vars struct {
	mem      int64 // 0: no memory setting
	slots    int
	input    string // "": no --input
	spillDir string
	run      string
	copy     int
}

func (v vars) lookup(name string) (string, error) {
	switch name {
	case "{mem}", "{mem_mb}", "{mem_bytes}":
		if v.mem == 0 {
			return "", fmt.Errorf("%s is used but no --mem setting was given", name)
		}
		switch name {
		case "{mem}":
			return bytesize.Format(v.mem), nil
		case "{mem_mb}":
			return strconv.FormatInt(v.mem>>20, 10), nil
		}
		return strconv.FormatInt(v.mem, 10), nil
	case "{slots}":
		return strconv.Itoa(v.slots), nil
	case "{input}":
		if v.input == "" {
			return "", fmt.Errorf("%s is used but no --input was given", name)
		}
		return v.input, nil
	case "{spill_dir}":
		return v.spillDir, nil
	case "{run}":
		return v.run, nil
	case "{copy}":
		return strconv.Itoa(v.copy), nil
	}
	return name, nil
}

// expand substitutes the placeholders in one argument. Other text in
// braces is left alone: awk programs and JSON keep their braces.
func (v vars) expand(arg string) (string, error) {
	if !strings.Contains(arg, "{") {
		return arg, nil
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(arg, '{')
		if i < 0 {
			b.WriteString(arg)
			return b.String(), nil
		}
		b.WriteString(arg[:i])
		arg = arg[i:]
		j := strings.IndexByte(arg, '}')
		if j < 0 {
			b.WriteString(arg)
			return b.String(), nil
		}
		val, err := v.lookup(arg[:j+1])
		if err != nil {
			return "", err
		}
		b.WriteString(val)
		arg = arg[j+1:]
	}
}

// argv substitutes every argument.
func (v vars) argv(args []string) ([]string, error) {
	out := make([]string, len(args))
	for i, a := range args {
		s, err := v.expand(a)
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

// env is the WLPROF_* environment of one copy.
func (v vars) env() []string {
	e := []string{
		"WLPROF_SLOTS=" + strconv.Itoa(v.slots),
		"WLPROF_SPILL_DIR=" + v.spillDir,
		"WLPROF_RUN=" + v.run,
		"WLPROF_COPY=" + strconv.Itoa(v.copy),
	}
	if v.mem > 0 {
		e = append(e, "WLPROF_MEM_BYTES="+strconv.FormatInt(v.mem, 10))
	}
	return e
}

// Flags are a sweep's settings as wlprof profile run's flags write them.
type Flags struct {
	Mem         string // memory sizes (ParseSizes); "": one setting, not capped
	Slots       string // slot counts (ParseSlots)
	Cap         string // auto, off or require (ParseCapMode)
	CapOverhead string // a byte size; "0": none (ParseCapOverhead)
	IOCapacity  string // bytes per second (ParseRate); "": measured
	DiskLimit   string // bytes per second (ParseRate); "": none
	PhaseRegex  string // a regular expression; "": no phases
	Input       string // the task's input, a file or directory; "": none
	InputBytes  string // the task's input size (bytesize.Parse); "": Input's size, or none
}

// Apply parses f into o and checks o's repetitions and sampling interval,
// which the command sets (0 is not the default there); it stops at the
// first bad value, named as the flag is.
func (f Flags) Apply(o *Options) error {
	var err error
	if f.Mem != "" {
		if o.Mems, err = ParseSizes(f.Mem); err != nil {
			return err
		}
	}
	if o.Slots, err = ParseSlots(f.Slots); err != nil {
		return err
	}
	if o.Cap, err = ParseCapMode(f.Cap); err != nil {
		return err
	}
	if o.CapOverhead, err = ParseCapOverhead(f.CapOverhead); err != nil {
		return fmt.Errorf("--cap-overhead: %w", err)
	}
	if f.IOCapacity != "" {
		if o.IOCapacity, err = ParseRate(f.IOCapacity); err != nil {
			return fmt.Errorf("--io-capacity: %w", err)
		}
	}
	if f.DiskLimit != "" {
		if o.DiskLimit, err = ParseRate(f.DiskLimit); err != nil {
			return fmt.Errorf("--disk-limit: %w", err)
		}
	}
	if f.Input != "" && f.InputBytes != "" {
		return errors.New("--input and --input-bytes: give the input (its size is recorded) or its size, not both")
	}
	if f.Input != "" {
		if fi, err := os.Stat(f.Input); err != nil {
			return fmt.Errorf("--input: %w", err)
		} else if !fi.Mode().IsRegular() && !fi.IsDir() {
			return fmt.Errorf("--input %s: not a file or a directory", f.Input)
		}
		o.Input = f.Input
	}
	if f.InputBytes != "" {
		if o.InputBytes, err = bytesize.Parse(f.InputBytes); err != nil {
			return fmt.Errorf("--input-bytes: %w", err)
		}
	}
	if f.PhaseRegex != "" {
		if o.PhaseRegex, err = regexp.Compile(f.PhaseRegex); err != nil {
			return fmt.Errorf("--phase-regex: %w", err)
		}
	}
	if o.Repeat < 1 || o.Interval <= 0 {
		return errors.New("--repeat and --interval must be positive")
	}
	return nil
}
