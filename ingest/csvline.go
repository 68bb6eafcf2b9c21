package ingest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
)

// lineReader yields lines of a text input without copying them: a line is
// valid until the next call. It strips "\n", "\r\n" and a UTF-8 byte order
// mark, and counts lines from 1.
type lineReader struct {
	r    *bufio.Reader
	line int64
	long []byte // accumulates a line longer than the buffer
	err  error

	in   *Input // mapped mode: lines are slices of in.Mapped()
	data []byte
	off  int
	mark int // next offset at which to report progress to in
}

// nextLine is next for a loop over a whole input: it checks ctx every
// 4,096 lines and names an I/O error by path (err: io.EOF at the end); a
// line too long comes back with bad, for the caller to reject.
func (lr *lineReader) nextLine(ctx context.Context, path string) (line []byte, bad, err error) {
	line, err = lr.next()
	if err == io.EOF {
		return nil, nil, io.EOF
	}
	if lr.line&0xfff == 0 && ctx.Err() != nil {
		return nil, nil, ctx.Err()
	}
	if err != nil && !errors.Is(err, errLineTooLong) {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return line, err, nil
}

func newLineReader(in *Input) lineReader {
	if data := in.Mapped(); data != nil {
		return lineReader{in: in, data: data, mark: mapBlock}
	}
	return lineReader{r: in.Reader()}
}

// nextMapped is next for a mapped input.
func (lr *lineReader) nextMapped() ([]byte, error) {
	if lr.off >= len(lr.data) {
		lr.err = io.EOF
		return nil, io.EOF
	}
	if lr.off >= lr.mark {
		lr.in.consumed(lr.off)
		lr.mark = lr.off + mapBlock
	}
	rest := lr.data[lr.off:]
	k := bytes.IndexByte(rest, '\n')
	var b []byte
	if k < 0 {
		b, lr.off = rest, len(lr.data)
	} else {
		b, lr.off = rest[:k], lr.off+k+1
	}
	return lr.finish(b)
}

// MaxLineBytes bounds one input line; longer lines are rejected.
const MaxLineBytes = 16 << 20

var errLineTooLong = fmt.Errorf("line longer than %d bytes", MaxLineBytes)

// next returns the next line. A line that is too long is returned as a
// prefix with errLineTooLong; io.EOF ends the input; other errors are I/O.
func (lr *lineReader) next() ([]byte, error) {
	if lr.err != nil {
		return nil, lr.err
	}
	if lr.data != nil {
		return lr.nextMapped()
	}
	b, err := lr.r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		lr.long = append(lr.long[:0], b...)
		for errors.Is(err, bufio.ErrBufferFull) {
			b, err = lr.r.ReadSlice('\n')
			if len(lr.long) < MaxLineBytes {
				lr.long = append(lr.long, b...)
			}
		}
		b = lr.long
	}
	if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
		if err != io.EOF || len(b) == 0 {
			lr.err = err
			return nil, err
		}
		lr.err = io.EOF // last line without a newline
	}
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	return lr.finish(b)
}

// finish counts the line and strips a BOM and a "\r".
func (lr *lineReader) finish(b []byte) ([]byte, error) {
	lr.line++
	if lr.line == 1 {
		b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	if len(b) >= MaxLineBytes {
		return b[:MaxLineBytes], errLineTooLong
	}
	return b, nil
}

// splitCSV splits one CSV line into fields (RFC 4180 quoting, without
// newlines inside quotes), appending to fields and, for quoted fields,
// unquoting into scratch. It returns the 1-based byte column of each field.
func splitCSV(line []byte, fields [][]byte, cols []int, scratch []byte) ([][]byte, []int, []byte, error) {
	fields, cols, scratch = fields[:0], cols[:0], scratch[:0]
	i := 0
	for {
		cols = append(cols, i+1)
		if i < len(line) && line[i] == '"' {
			start := len(scratch)
			j := i + 1
			for {
				k := bytes.IndexByte(line[j:], '"')
				if k < 0 {
					return fields, cols, scratch, fmt.Errorf("column %d: unterminated quoted field (newlines inside quotes are not supported)", i+1)
				}
				scratch = append(scratch, line[j:j+k]...)
				j += k + 1
				if j < len(line) && line[j] == '"' { // "" is an escaped quote
					scratch = append(scratch, '"')
					j++
					continue
				}
				break
			}
			fields = append(fields, scratch[start:len(scratch):len(scratch)])
			if j == len(line) {
				return fields, cols, scratch, nil
			}
			if line[j] != ',' {
				return fields, cols, scratch, fmt.Errorf("column %d: unexpected %q after a quoted field", j+1, line[j])
			}
			i = j + 1
			continue
		}
		k := bytes.IndexByte(line[i:], ',')
		if k < 0 {
			fields = append(fields, line[i:])
			return fields, cols, scratch, nil
		}
		fields = append(fields, line[i:i+k])
		i += k + 1
	}
}

// fieldsOf splits one line as format detection reads it: its fields when
// it splits into exactly n, else nil.
func fieldsOf(line []byte, n int) [][]byte {
	f, _, _, err := splitCSV(line, nil, nil, nil)
	if err != nil || len(f) != n {
		return nil
	}
	return f
}

// fieldsDetect is a Detect for a CSV format without a header: the first
// line splits into n fields that ok accepts.
func fieldsDetect(n int, ok func(f [][]byte) bool) func(name string, head []byte) bool {
	return func(_ string, head []byte) bool {
		f := fieldsOf(firstLine(head), n)
		return f != nil && ok(f)
	}
}
