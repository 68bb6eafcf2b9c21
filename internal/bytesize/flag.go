package bytesize

import "strings"

// Value is a size flag (a pflag.Value): read by Parse, written by Format,
// so every size flag of both binaries takes the one grammar.
type Value struct {
	p      *int64
	zero   string
	zeroOK bool
}

// NewValue is the flag of a size that must be given as one (> 0).
func NewValue(p *int64) Value { return Value{p: p} }

// NewOptional is the flag of a size that may be absent: 0, written and
// read as zero ("" or "0"), says none.
func NewOptional(p *int64, zero string) Value { return Value{p: p, zero: zero, zeroOK: true} }

func (v Value) String() string {
	if v.p == nil {
		return ""
	}
	if *v.p == 0 && v.zeroOK {
		return v.zero
	}
	return Format(*v.p)
}

// Set reads s with Parse; the optional flag's zero text sets 0.
func (v Value) Set(s string) error {
	if v.zeroOK && strings.TrimSpace(s) == v.zero {
		*v.p = 0
		return nil
	}
	b, err := Parse(s)
	if err != nil {
		return err
	}
	*v.p = b
	return nil
}

// Type is "string", as the flags were before they parsed their sizes, so
// --help quotes the default as it did.
func (Value) Type() string { return "string" }
