package dataset

import (
	"fmt"
	"unicode/utf8"
)

// InvalidUTF8Error is what an append of a record with a string that is
// not valid UTF-8 returns. Nothing of the record is written, and the
// writer stays usable: Parquet's string columns are UTF-8, and readers
// such as DuckDB refuse a file with one invalid value ("Invalid string
// encoding found in Parquet file"), so a caller turns the record into a
// reject instead.
type InvalidUTF8Error struct {
	Table, Column string
	Value         string
}

func (e *InvalidUTF8Error) Error() string {
	return fmt.Sprintf("%s is not valid UTF-8: %s", e.Column, EscapeInvalidUTF8(e.Value))
}

// checkStrings reports the first string field of r that is not UTF-8.
func (t *Table[T]) checkStrings(r *T) error {
	for i := range t.cols {
		if g := t.cols[i].str; g != nil && !utf8.ValidString(*g(r)) {
			return &InvalidUTF8Error{Table: t.Name, Column: t.cols[i].field.Name, Value: *g(r)}
		}
	}
	return nil
}

// EscapeInvalidUTF8 returns s with every byte that is not part of a valid
// UTF-8 sequence written as \xNN; valid text, backslashes included, is
// kept as it is.
func EscapeInvalidUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	b := make([]byte, 0, len(s)+16)
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		if r == utf8.RuneError && n <= 1 {
			const hex = "0123456789abcdef"
			b = append(b, '\\', 'x', hex[s[0]>>4], hex[s[0]&0xf])
			s = s[1:]
			continue
		}
		b = append(b, s[:n]...)
		s = s[n:]
	}
	return string(b)
}

// CheckStrings reports what Append would refuse r for: a string field
// that is not UTF-8 (an *InvalidUTF8Error), or nil.
func (w *Writer[T]) CheckStrings(r *T) error { return w.tbl.checkStrings(r) }
