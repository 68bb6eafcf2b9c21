package ingest

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
)

// Format is one input format: how to recognise it and how to read it into
// the dataset.
type Format struct {
	Name        string
	Table       string // the dataset table its records go to
	Description string
	// Detect reports whether an input with this base name and these first
	// decompressed bytes is in this format. Nil: only by name.
	Detect func(name string, head []byte) bool
	// ingest reads one opened input into the sink.
	ingest func(ctx context.Context, in *Input, s *sink) error
}

var registry = map[string]*Format{}

func register(f *Format) {
	if _, dup := registry[f.Name]; dup {
		panic("ingest: format registered twice: " + f.Name)
	}
	registry[f.Name] = f
}

// Lookup returns the format of that name.
func Lookup(name string) (*Format, error) {
	if f, ok := registry[name]; ok {
		return f, nil
	}
	return nil, fmt.Errorf("unknown format %q (known: %s, or auto)", name, strings.Join(FormatNames(), ", "))
}

// FormatNames lists the registered formats, sorted.
func FormatNames() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Formats returns the registered formats sorted by name.
func Formats() []*Format {
	out := make([]*Format, 0, len(registry))
	for _, n := range FormatNames() {
		out = append(out, registry[n])
	}
	return out
}

// headBytes is how much decompressed content detection looks at.
const headBytes = 64 << 10

// Detect returns the format of an opened input, or an error naming what was
// looked at when no format claims it.
func Detect(in *Input) (*Format, error) {
	head := in.Head(headBytes)
	name := filepath.Base(in.Path)
	for _, f := range Formats() {
		if f.Detect != nil && f.Detect(name, head) {
			return f, nil
		}
	}
	first, _, _ := bytes.Cut(head, []byte("\n"))
	return nil, fmt.Errorf("%s: cannot detect the format (first line %q); name it: wlprof ingest FORMAT", in.Path, recordText(first))
}

// firstLine returns the first non-blank line of head, without a BOM or "\r".
func firstLine(head []byte) []byte {
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	for len(head) > 0 {
		var line []byte
		line, head, _ = bytes.Cut(head, []byte("\n"))
		line = bytes.TrimRight(line, "\r")
		if len(bytes.TrimSpace(line)) > 0 {
			return line
		}
	}
	return nil
}
