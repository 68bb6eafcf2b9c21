package ingest

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

const (
	swarLow7 = 0x7f7f7f7f7f7f7f7f
	swarHigh = 0x8080808080808080
	swarOne  = 0x0101010101010101
)

// zeroBytes has the high bit of each byte of x that is zero, exactly (no
// false positives from borrows).
func zeroBytes(x uint64) uint64 {
	return ^(((x & swarLow7) + swarLow7) | x | swarLow7)
}

// splitLine cuts the first line off data (the line without its '\n' and
// one trailing '\r', and the rest after the '\n') and, when the line has no
// quote, splits it at commas into fields and their 1-based columns, as
// splitCSV would, in the same pass. simple is false when the line has a
// quote: its fields are then for splitCSV. The pass looks at eight bytes at
// a time for a comma, newline or quote; a newline search followed by a
// comma search per field costs a call per field of a few bytes.
func splitLine(data []byte, fields [][]byte, cols []int) (line, rest []byte, _ [][]byte, _ []int, simple bool) {
	fields, cols = fields[:0], cols[:0]
	start := 0
	i := 0
	for ; i+8 <= len(data); i += 8 {
		w := binary.LittleEndian.Uint64(data[i:])
		m := zeroBytes(w^(','*swarOne)) | zeroBytes(w^('\n'*swarOne)) | zeroBytes(w^('"'*swarOne))
		for m != 0 {
			j := i + bits.TrailingZeros64(m)>>3
			m &= m - 1
			switch data[j] {
			case ',':
				fields = append(fields, data[start:j])
				cols = append(cols, start+1)
				start = j + 1
			case '\n':
				return endLine(data, j, start, fields, cols)
			default:
				return quotedLine(data, j, fields, cols)
			}
		}
	}
	for ; i < len(data); i++ {
		switch data[i] {
		case ',':
			fields = append(fields, data[start:i])
			cols = append(cols, start+1)
			start = i + 1
		case '\n':
			return endLine(data, i, start, fields, cols)
		case '"':
			return quotedLine(data, i, fields, cols)
		}
	}
	end := len(data)
	if end > start && data[end-1] == '\r' {
		end--
	}
	return data[:end], nil, append(fields, data[start:end]), append(cols, start+1), true
}

// endLine finishes a simple line whose newline is at nl and last field
// starts at start.
func endLine(data []byte, nl, start int, fields [][]byte, cols []int) ([]byte, []byte, [][]byte, []int, bool) {
	end := nl
	if end > start && data[end-1] == '\r' {
		end--
	}
	return data[:end], data[nl+1:], append(fields, data[start:end]), append(cols, start+1), true
}

// quotedLine cuts the line holding the quote at q, for splitCSV.
func quotedLine(data []byte, q int, fields [][]byte, cols []int) ([]byte, []byte, [][]byte, []int, bool) {
	line, rest := data, []byte(nil)
	if k := bytes.IndexByte(data[q:], '\n'); k >= 0 {
		line, rest = data[:q+k], data[q+k+1:]
	}
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, rest, fields, cols, false
}
