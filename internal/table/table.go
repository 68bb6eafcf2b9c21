// Package table writes the tables of wlprof's text and CSV outputs: a CSV
// table with its header, and the cells of a text table that hold nothing.
// Each stage's result writes its own tables with it (WriteText, WriteCSV),
// so every command's empty cells and CSV framing read the same.
package table

import (
	"encoding/csv"
	"io"
	"strings"
)

// CSV writes a CSV table: the header, then the rows that rows gives to
// row. The first write error is returned.
func CSV(w io.Writer, header []string, rows func(row func(...string))) error {
	cw := csv.NewWriter(w)
	cw.Write(header)
	rows(func(r ...string) { cw.Write(r) })
	cw.Flush()
	return cw.Error()
}

// OrDash formats *v with format, or gives none when v is nil: a number
// that may be missing ("-" in text, "" in CSV).
func OrDash(v *float64, none string, format func(float64) string) string {
	if v == nil {
		return none
	}
	return format(*v)
}

// Dash gives s, or "-" when it is empty: an empty text cell.
func Dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// String is what write writes, as a string: a result's table where a
// caller (a test, a report) wants it whole.
func String(write func(io.Writer) error) (string, error) {
	var b strings.Builder
	err := write(&b)
	return b.String(), err
}
