package ingest

import "fmt"

// csvRow is the state every fixed-column CSV parser keeps for splitting its
// lines (the fields and their columns, reused from line to line) and the
// file its rejects name.
type csvRow struct {
	file    string
	fields  [][]byte
	cols    []int
	scratch []byte
}

// split splits one line into r.fields and r.cols, which must be want
// fields (names lists them for the reject), and returns the reject
// function of the line (a column and a reason) with a reject for a line
// that cannot be split or has another number of fields.
func (r *csvRow) split(line []byte, lineNo int64, want int, names string) (*ParseError, func(int, error) *ParseError) {
	bad, reject := r.splitAny(line, lineNo)
	if bad == nil && len(r.fields) != want {
		bad = reject(0, fmt.Errorf("%d fields, want %d (%s)", len(r.fields), want, names))
	}
	return bad, reject
}

// splitAny is split for a parser that checks the number of fields itself
// (a table with more than one published width).
func (r *csvRow) splitAny(line []byte, lineNo int64) (*ParseError, func(int, error) *ParseError) {
	reject := func(col int, err error) *ParseError {
		return &ParseError{File: r.file, Line: lineNo, Col: col, Err: err, Record: recordText(line)}
	}
	var err error
	if r.fields, r.cols, r.scratch, err = splitCSV(line, r.fields, r.cols, r.scratch); err != nil {
		return reject(0, err), reject
	}
	return nil, reject
}
