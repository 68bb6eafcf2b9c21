package ingest

import (
	"fmt"
	"unicode/utf8"
)

// Reader is a stream of records of type T read from one input, in the style
// of bufio.Scanner. Scan advances to the next item, which is either a record
// or a rejected input record; Record returns it. Only I/O errors stop the
// stream (Err); a bad record is a *ParseError that the caller counts and keeps.
type Reader[T any] interface {
	Scan() bool
	// Record returns the current record, valid until the next Scan, or the
	// *ParseError that explains why the current input record was rejected.
	Record() (*T, *ParseError)
	Err() error
}

// Noter is implemented by readers that learn something about their input
// worth recording with the source (a detected unit, a skipped column).
type Noter interface {
	Notes() []string
}

// ParseError is a rejected input record: where it is and why.
type ParseError struct {
	File   string
	Line   int64 // 1-based line (or record number for binary formats)
	Col    int   // 1-based byte column; 0 when not tied to a column
	Err    error
	Record string // the offending record, truncated
}

func (e *ParseError) Error() string {
	if e.Col > 0 {
		return fmt.Sprintf("%s:%d:%d: %v", e.File, e.Line, e.Col, e.Err)
	}
	return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
}

func (e *ParseError) Unwrap() error { return e.Err }

// maxRecordText is how much of a rejected record is kept.
const maxRecordText = 256

// recordText returns a printable, truncated copy of a raw record.
func recordText(b []byte) string {
	if len(b) > maxRecordText {
		b = b[:maxRecordText]
		for len(b) > 0 && !utf8.Valid(b) { // do not cut a rune in half
			b = b[:len(b)-1]
		}
	}
	return string(b)
}
