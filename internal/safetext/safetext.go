// Package safetext shows names from input files so that what a reader
// sees is what the bytes say: control characters, bidirectional overrides
// and isolates (U+202A–U+202E, U+2066–U+2069), zero-width and other
// invisible format characters are written as Go escapes (\u202e), so a
// tenant named "abc\u202egnp.exe" cannot render as another name in a
// terminal or in the HTML report. Newline and tab are kept (text tables
// are made of them); bytes that are not UTF-8 are written as \xNN.
//
// Text output and stderr go through a Writer; JSON and CSV keep the bytes
// as they are (they are data for programs, which see every character).
package safetext

import (
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Invisible says whether r is escaped: a control character other than
// newline and tab, a format character (Cf: bidi controls, zero-width
// joiners and spaces, the BOM, soft hyphen), the line and paragraph
// separators, or U+FFFD standing for bytes that were not UTF-8.
func Invisible(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f:
		return true
	case r < 0x80:
		return false
	}
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp)
}

// Escape returns s with every invisible character (Invisible) and every
// byte that is not UTF-8 escaped; s itself when there are none.
func Escape(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || Invisible(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	appendEscaped(&b, []byte(s))
	return b.String()
}

// appendEscaped writes p to b escaped; p holds whole runes only (a
// trailing incomplete sequence is escaped byte by byte).
func appendEscaped(b *strings.Builder, p []byte) {
	for len(p) > 0 {
		r, n := utf8.DecodeRune(p)
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(b, `\x%02x`, p[0])
		case Invisible(r) && r <= 0xffff:
			fmt.Fprintf(b, `\u%04x`, r)
		case Invisible(r):
			fmt.Fprintf(b, `\U%08x`, r)
		default:
			b.Write(p[:n])
		}
		p = p[n:]
	}
}

// Writer escapes what is written through it (Escape). A rune split
// across two writes is kept until its last byte arrives; Flush writes
// what is held (escaped, when it never completed).
type Writer struct {
	w    io.Writer
	held []byte
}

// NewWriter returns a Writer onto w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write escapes p and writes it; it reports len(p) on success.
func (w *Writer) Write(p []byte) (int, error) {
	buf := append(w.held, p...)
	// Hold back a trailing incomplete UTF-8 sequence (at most 3 bytes).
	cut := len(buf)
	for i := len(buf) - 1; i >= 0 && i >= len(buf)-3; i-- {
		if utf8.RuneStart(buf[i]) {
			if !utf8.FullRune(buf[i:]) {
				cut = i
			}
			break
		}
	}
	whole, rest := buf[:cut], buf[cut:]
	if fastPath(whole) {
		if _, err := w.w.Write(whole); err != nil {
			return 0, err
		}
	} else {
		var b strings.Builder
		appendEscaped(&b, whole)
		if _, err := io.WriteString(w.w, b.String()); err != nil {
			return 0, err
		}
	}
	w.held = append(w.held[:0:0], rest...)
	return len(p), nil
}

// Flush writes a held incomplete sequence, escaped byte by byte.
func (w *Writer) Flush() error {
	if len(w.held) == 0 {
		return nil
	}
	var b strings.Builder
	appendEscaped(&b, w.held)
	w.held = nil
	_, err := io.WriteString(w.w, b.String())
	return err
}

// fastPath says whether p needs no escaping: printable ASCII, newline and
// tab only (the common case), or valid UTF-8 with no invisible rune.
func fastPath(p []byte) bool {
	for _, c := range p {
		if c >= 0x80 || (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
			return clean(p)
		}
	}
	return true
}

func clean(p []byte) bool {
	for len(p) > 0 {
		r, n := utf8.DecodeRune(p)
		if (r == utf8.RuneError && n <= 1) || Invisible(r) {
			return false
		}
		p = p[n:]
	}
	return true
}
