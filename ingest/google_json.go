package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"unsafe"
)

// An instance_usage JSON line is about 1 KB, of which wlprof needs eight
// values; most of it is two float arrays (the CPU usage histograms).
// encoding/json decodes it all at ~15 MB/s; this scanner reads the keys it
// needs and skips the rest without building anything (see
// BenchmarkGoogleUsageJSON), and a test checks it against encoding/json.

// jsonCursor walks one JSON line.
type jsonCursor struct {
	b []byte
	i int
}

var errJSONEnd = errors.New("unexpected end of line")

func (c *jsonCursor) fail(what string) error {
	if c.i >= len(c.b) {
		return fmt.Errorf("%s: %w", what, errJSONEnd)
	}
	return fmt.Errorf("%s at column %d (%q)", what, c.i+1, c.b[c.i])
}

func (c *jsonCursor) ws() {
	for c.i < len(c.b) {
		switch c.b[c.i] {
		case ' ', '\t', '\r', '\n':
			c.i++
		default:
			return
		}
	}
}

func (c *jsonCursor) peek() byte {
	if c.i < len(c.b) {
		return c.b[c.i]
	}
	return 0
}

// str reads a string and returns its raw content (escapes checked, not
// decoded; hasEsc says whether there were any).
func (c *jsonCursor) str() (s []byte, hasEsc bool, err error) {
	if c.peek() != '"' {
		return nil, false, c.fail("want a string")
	}
	c.i++
	start := c.i
	for c.i < len(c.b) {
		switch ch := c.b[c.i]; {
		case ch == '"':
			s = c.b[start:c.i]
			c.i++
			return s, hasEsc, nil
		case ch == '\\':
			hasEsc = true
			c.i++
			switch c.peek() {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				c.i++
			case 'u':
				c.i++
				for k := 0; k < 4; k++ {
					if h := c.peek(); !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						return nil, false, c.fail("bad \\u escape")
					}
					c.i++
				}
			default:
				return nil, false, c.fail("bad escape")
			}
		case ch < 0x20:
			return nil, false, c.fail("control character in a string")
		default:
			c.i++
		}
	}
	return nil, false, c.fail("unterminated string")
}

// objectLine reads c's line as one JSON object and nothing after it,
// calling member with each key as container does. A member's error is
// named by what ("not a collection_events JSON object: …") unless what is
// empty.
func (c *jsonCursor) objectLine(what string, member func(key []byte) error) error {
	c.ws()
	if c.peek() != '{' {
		return c.fail("want a JSON object")
	}
	if err := c.container(member); err != nil {
		if what != "" {
			return fmt.Errorf("not %s JSON object: %v", what, err)
		}
		return err
	}
	c.ws()
	if c.i != len(c.b) {
		return c.fail("text after the object")
	}
	return nil
}

// token reads a literal or a number as JSON writes them, or nothing.
func (c *jsonCursor) token() []byte {
	start := c.i
	for _, lit := range [...]string{"null", "true", "false"} {
		if bytes.HasPrefix(c.b[c.i:], []byte(lit)) {
			c.i += len(lit)
			return c.b[start:c.i]
		}
	}
	digits := func() int {
		n := 0
		for c.i < len(c.b) && c.b[c.i] >= '0' && c.b[c.i] <= '9' {
			c.i++
			n++
		}
		return n
	}
	if c.peek() == '-' {
		c.i++
	}
	if c.peek() == '0' {
		c.i++
	} else if digits() == 0 {
		c.i = start
		return nil
	}
	if c.peek() == '.' {
		c.i++
		if digits() == 0 {
			c.i = start
			return nil
		}
	}
	if ch := c.peek(); ch == 'e' || ch == 'E' {
		c.i++
		if ch := c.peek(); ch == '+' || ch == '-' {
			c.i++
		}
		if digits() == 0 {
			c.i = start
			return nil
		}
	}
	return c.b[start:c.i]
}

// skip passes over one value of any kind.
func (c *jsonCursor) skip() error {
	c.ws()
	switch ch := c.peek(); {
	case ch == '"':
		_, _, err := c.str()
		return err
	case ch == '{' || ch == '[':
		return c.container(func([]byte) error { return c.skip() })
	default:
		if len(c.token()) == 0 {
			return c.fail("want a value")
		}
		return nil
	}
}

// container reads an object (calling member with each key, positioned at
// its value) or an array (member with a nil key). A member that returns a
// valueError (a value read past but unusable) does not stop the object: a
// later member of the same name replaces it, as encoding/json's last
// member wins, and what is left unreplaced at the end is the container's
// error (the first seen). Any other error stops it at once.
func (c *jsonCursor) container(member func(key []byte) error) error {
	open := c.b[c.i]
	close := byte('}')
	if open == '[' {
		close = ']'
	}
	c.i++
	c.ws()
	if c.peek() == close {
		c.i++
		return nil
	}
	var bad []keyError // nil on the common path: no allocation
	for {
		c.ws()
		var key []byte
		if open == '{' {
			k, _, err := c.str()
			if err != nil {
				return err
			}
			key = k
			c.ws()
			if c.peek() != ':' {
				return c.fail("want ':'")
			}
			c.i++
			c.ws()
		}
		err := member(key)
		if err != nil {
			ve, ok := err.(valueError) // int64Value and floatValue return it as it is
			if !ok {
				return err
			}
			bad = setKeyError(bad, open == '{', key, ve)
		} else if len(bad) > 0 && open == '{' {
			bad = setKeyError(bad, true, key, valueError{})
		}
		c.ws()
		switch c.peek() {
		case ',':
			c.i++
		case close:
			c.i++
			if len(bad) > 0 {
				return bad[0].err
			}
			return nil
		default:
			return c.fail("want ',' or '" + string(close) + "'")
		}
	}
}

// keyError is an object member's unusable value, or an array element's
// (named false: never replaced).
type keyError struct {
	key   string
	named bool
	err   valueError
}

// setKeyError records err for key (an empty err clears it): a member read
// again replaces what its name held.
func setKeyError(bad []keyError, named bool, key []byte, err valueError) []keyError {
	if named {
		for i := range bad {
			if bad[i].named && bad[i].key == string(key) {
				bad = append(bad[:i], bad[i+1:]...)
				break
			}
		}
	}
	if err.error != nil {
		bad = append(bad, keyError{string(key), named, err})
	}
	return bad
}

// int64Value reads an INT64 written as a string or a number, or null.
func (c *jsonCursor) int64Value(name string) (int64, bool, error) {
	var t []byte
	if c.peek() == '"' {
		s, esc, err := c.str()
		if err != nil {
			return 0, false, err
		}
		if esc {
			return 0, false, valueError{fmt.Errorf("%s: %q is not a 64-bit integer", name, s)}
		}
		t = s
	} else {
		t = c.token()
		if string(t) == "null" {
			return 0, false, nil
		}
		if len(t) == 0 {
			return 0, false, c.fail(name + ": want a value")
		}
	}
	v, err := strconv.ParseInt(string(t), 10, 64)
	if err != nil {
		return 0, false, valueError{fmt.Errorf("%s: %q is not a 64-bit integer", name, t)}
	}
	return v, true, nil
}

// floatValue reads a number (or a quoted one), or null.
func (c *jsonCursor) floatValue(name string) (float64, bool, error) {
	var t []byte
	if c.peek() == '"' {
		s, _, err := c.str()
		if err != nil {
			return 0, false, err
		}
		t = s
	} else {
		t = c.token()
		if string(t) == "null" {
			return 0, false, nil
		}
		if len(t) == 0 {
			return 0, false, c.fail(name + ": want a value")
		}
	}
	if len(t) == 0 {
		return 0, false, valueError{fmt.Errorf("%s: empty number", name)}
	}
	v, err := strconv.ParseFloat(unsafe.String(&t[0], len(t)), 64)
	if err != nil {
		return 0, false, valueError{fmt.Errorf("%s: %q is not a number", name, t)}
	}
	return v, true, nil
}

// valueError is a value the scanner read past but cannot use (a number
// out of range, a string where an object belongs); container lets a later
// member of the same name replace it. A syntax error stops the line.
type valueError struct{ error }

// scanGoogleJSON reads the fields of one instance_usage line into u.
func scanGoogleJSON(line []byte, u *googleUsage) error {
	*u = googleUsage{}
	c := jsonCursor{b: line}
	return c.objectLine("", func(key []byte) error {
		var err error
		switch string(key) {
		case "start_time":
			u.start, u.hasStart, err = c.int64Value("start_time")
		case "end_time":
			u.end, u.hasEnd, err = c.int64Value("end_time")
		case "collection_id":
			u.collection, u.hasColl, err = c.int64Value("collection_id")
		case "machine_id":
			u.machine, u.hasMach, err = c.int64Value("machine_id")
		case "instance_index":
			u.instance, u.hasInst, err = c.int64Value("instance_index")
		case "alloc_collection_id":
			u.alloc, u.hasAlloc, err = c.int64Value("alloc_collection_id")
		case "average_usage":
			// A later average_usage replaces the whole object, and with
			// it the errors of its members (container's, per name).
			u.hasCPU, u.hasMem = false, false
			switch c.peek() {
			case '{':
				err = c.container(func(k []byte) error {
					var err error
					switch string(k) {
					case "cpus":
						u.cpus, u.hasCPU, err = c.floatValue("average_usage.cpus")
					case "memory":
						u.memory, u.hasMem, err = c.floatValue("average_usage.memory")
					default:
						err = c.skip()
					}
					return err
				})
			case 'n':
				if t := c.token(); string(t) != "null" {
					return fmt.Errorf("average_usage: %q is not an object", t) // not JSON
				}
			default:
				if err = c.skip(); err == nil {
					err = valueError{errors.New("average_usage: want an object")}
				}
			}
		default:
			err = c.skip()
		}
		return err
	})
}
