package ingest

import (
	"encoding/binary"
	"math"

	"github.com/wlprof/wlprof/internal/strtab"
)

// The generic CSV's common line, parsed in one pass. Most utilisation
// files are written by a program in the header's canonical order
// (tenant,server,timestamp,cpu[,memory]), with epoch timestamps and plain
// decimals; for those lines the parallel workers do not split the line
// into field slices and then parse each field (splitLine, parseFields,
// checkRange: two passes over the bytes and a record per line), but find
// the fields and accumulate the numbers in the same pass, straight into the
// chunk's columns. Any other line (a quote, a sign, an exponent, a date,
// an empty or out-of-range value, too many fields, a name not yet known and
// not valid UTF-8...) is left to the general path, which accepts or rejects
// it as before: the fast path only ever accepts what the general path
// accepts, with the same values (TestFastRowAgrees).

// csvFastPath: tests turn it off to compare with the general path.
var csvFastPath = true

// fastLayout reports whether p's lines can take the fast path: the
// canonical column order and a known unit.
func (p *csvParser) fastLayout() bool {
	if !csvFastPath || p.unit == UnitAuto || p.scale == 0 {
		return false
	}
	i := p.idx
	canonical := i[colTenant] == 0 && i[colServer] == 1 && i[colTime] == 2 && i[colCPU] == 3
	return canonical && (p.nfields == 4 && i[colMemory] < 0 || p.nfields == 5 && i[colMemory] == 4)
}

// maxFastName bounds a tenant or server name on the fast path; longer
// ones go the general way.
const maxFastName = 256

// nameField is the length of the name at the start of b, up to its comma,
// when it is not empty, not longer than maxFastName and holds no quote,
// CR or LF.
func nameField(b []byte) (int, bool) {
	for i, c := range b {
		switch {
		case c == ',':
			return i, i > 0
		case c == '"' || c == '\n' || c == '\r' || i >= maxFastName:
			return 0, false
		}
	}
	return 0, false
}

// epochField reads the unsigned decimal integer at the start of b, of 1 to
// 15 digits, up to its terminator: the value in milliseconds as
// parseTimestamp gives it (below epochMsThreshold: seconds), and the
// length.
func epochField(b []byte) (ms int64, n int, ok bool) {
	var v int64
	if len(b) >= 8 {
		// Eight digits at once: an epoch in seconds has ten.
		if w := binary.LittleEndian.Uint64(b); eightDigits(w) {
			v, n = int64(parseEight(w)), 8
		}
	}
	for n < len(b) && n < 16 {
		c := b[n] - '0'
		if c > 9 {
			break
		}
		v = v*10 + int64(c)
		n++
	}
	if n == 0 || n > 15 {
		return 0, 0, false
	}
	if v < epochMsThreshold {
		v *= 1000
	}
	return v, n, true
}

// timeField remembers the last timestamp field read (its bytes and the
// comma after them, as two masked words) and its value: the rows of one
// time step share a timestamp, so most lines of a time-major trace repeat
// the last line's, which two word comparisons recognise where reading the
// digits takes a dozen steps.
type timeField struct {
	w, mask [2]uint64
	n       int // digits; 0: nothing remembered
	ms      int64
}

// read is epochField on the timestamp at the start of b, which must be
// followed by a comma: the value and the digits' length.
func (t *timeField) read(b []byte) (ms int64, n int, ok bool) {
	le := binary.LittleEndian
	if len(b) >= 16 {
		w0, w1 := le.Uint64(b), le.Uint64(b[8:])
		if t.n > 0 && w0&t.mask[0] == t.w[0] && w1&t.mask[1] == t.w[1] {
			return t.ms, t.n, true
		}
		ms, n, ok = epochField(b)
		if !ok || n >= len(b) || b[n] != ',' {
			return 0, 0, false
		}
		if l := uint(n + 1); l <= 16 { // the digits and the comma: what epochField's result depends on
			m0 := ^uint64(0) >> (64 - 8*min(l, 8))
			m1 := uint64(1)<<(8*(l-min(l, 8))) - 1
			*t = timeField{w: [2]uint64{w0 & m0, w1 & m1}, mask: [2]uint64{m0, m1}, n: n, ms: ms}
		}
		return ms, n, true
	}
	ms, n, ok = epochField(b)
	return ms, n, ok && n < len(b) && b[n] == ','
}

// maxFastNumber bounds a decimal on the fast path (a line of a million
// leading zeros is the general path's to measure against MaxLineBytes).
const maxFastNumber = 64

// decimalField reads a plain decimal at the start of b (digits with at most
// one dot, no sign or exponent) as parseFloat reads it, and its length. It
// reports false for what parseFloat would send to its slow path.
func decimalField(b []byte) (f float64, n int, ok bool) {
	// The usual number: up to 18 digits, one dot or none. The integer
	// and the fraction are read by a loop each, with no test per digit
	// of which part it is in, and the significant digits counted from
	// the value (a digit string without leading zeros of more than 15
	// digits is a value of 10^15 or more).
	var v uint64
	for n < len(b) && n < 19 {
		d := b[n] - '0'
		if d > 9 {
			break
		}
		v = v*10 + uint64(d)
		n++
	}
	frac := 0
	if n < len(b) && b[n] == '.' {
		i := n + 1
		for i < len(b) && i < 20 {
			d := b[i] - '0'
			if d > 9 {
				break
			}
			v = v*10 + uint64(d)
			i++
		}
		frac = i - n - 1
		n = i
	}
	// Below 19 characters the loops stopped at a non-digit (a second dot
	// ends the number as in slowDecimal) or the end, with at most 18
	// digits in v.
	if n >= 19 || n == 0 || n == 1 && b[0] == '.' || v >= 1e15 { // long, none, a lone dot, more than 15 digits
		return slowDecimal(b)
	}
	return float64(v) / pow10[frac], n, true
}

// slowDecimal is decimalField one character at a time, for what its
// loops do not take.
func slowDecimal(b []byte) (f float64, n int, ok bool) {
	var mant uint64
	digits, frac := 0, 0
	seenDot := false
	for ; n < len(b); n++ {
		if n == maxFastNumber {
			return 0, 0, false
		}
		c := b[n]
		if d := c - '0'; d <= 9 {
			if mant == 0 && d == 0 && !seenDot {
				continue // leading zeros are not significant
			}
			mant = mant*10 + uint64(d)
			if mant != 0 {
				digits++
			}
			if seenDot {
				frac++
			}
			continue
		}
		if c == '.' && !seenDot {
			seenDot = true
			continue
		}
		break
	}
	if n == 0 || (seenDot && n == 1) || digits > 15 || frac > 22 {
		return 0, 0, false
	}
	return float64(mant) / pow10[frac], n, true
}

// fastRow parses the line at the start of data, when it takes the fast
// path, into the parser's ids and the returned values (cpu and memory
// already scaled and clamped as checkRange leaves them; memory NaN when
// absent), and returns the bytes it took, newline included. ok false: the
// general path must read this line.
func (p *csvParser) fastRow(data []byte) (ts int64, cpu, mem float64, used int, ok bool) {
	pid, known := p.nextPair(data)
	var nt, ns int
	if known {
		ids := p.pairIDs[pid]
		nt, ns = int(ids[2]), int(ids[3])
	} else {
		if nt, ok = nameField(data); !ok {
			return
		}
		if ns, ok = nameField(data[nt+1:]); !ok {
			return
		}
	}
	rest := data[nt+1+ns+1:]
	ts, n, ok := p.lastTime.read(rest)
	if !ok {
		return 0, 0, 0, 0, false
	}
	rest = rest[n+1:]
	raw, n, ok := decimalField(rest)
	if !ok {
		return
	}
	rest = rest[n:]
	mem = math.NaN()
	if p.nfields == 5 {
		if len(rest) == 0 || rest[0] != ',' {
			return 0, 0, 0, 0, false
		}
		rest = rest[1:]
		if len(rest) > 0 && rest[0] != '\n' && rest[0] != '\r' { // an empty memory is null
			var rawMem float64
			if rawMem, n, ok = decimalField(rest); !ok {
				return
			}
			rest = rest[n:]
			if mem = rawMem * p.scale; mem > 1+1e-9 {
				return 0, 0, 0, 0, false
			}
			mem = min(mem, 1)
		}
	}
	// The line ends here: "\n", "\r\n", or the end of the chunk.
	switch {
	case len(rest) == 0:
	case rest[0] == '\n':
		rest = rest[1:]
	case rest[0] == '\r' && (len(rest) == 1 || rest[1] == '\n'):
		rest = rest[min(2, len(rest)):]
	default:
		return 0, 0, 0, 0, false
	}
	if cpu = raw * p.scale; cpu > 1+1e-9 {
		return 0, 0, 0, 0, false
	}
	cpu = min(cpu, 1)
	// Names are looked up last: a line that goes the general way after
	// all must not have added a name to the tables.
	if known {
		ids := p.pairIDs[pid]
		if ids[0] < 0 {
			return 0, 0, 0, 0, false
		}
		p.tenantID, p.serverID, p.lastPair = ids[0], ids[1], pid
	} else if !p.names(data[:nt+1+ns], nt) {
		return 0, 0, 0, 0, false
	}
	return ts, cpu, mem, len(data) - len(rest), true
}

// nextPair reports whether data starts with the pair after the last
// line's, or the last line's, and a comma, and which: a line of a trace
// in one of the two usual orders (see names) is then known by one
// comparison, without looking for its commas. What a pair holds passed
// nameField when it was added, so the commas are where nameField would
// find them.
func (p *csvParser) nextPair(data []byte) (int32, bool) {
	if p.pairs == nil {
		return 0, false
	}
	strs := p.pairs.Strings()
	if id := p.lastPair + 1; int(id) < len(strs) {
		if s := strs[id]; len(data) > len(s) && data[len(s)] == ',' && string(data[:len(s)]) == s {
			return id, true
		}
	}
	if id := p.lastPair; id >= 0 && int(id) < len(strs) {
		if s := strs[id]; len(data) > len(s) && data[len(s)] == ',' && string(data[:len(s)]) == s {
			return id, true
		}
	}
	return 0, false
}

// names sets p.tenantID and p.serverID from pair, the line's
// "tenant,server" (the tenant nt bytes long), and reports false when a
// name is not UTF-8. The pair is looked up as one string: the lines of a
// trace repeat a fixed sequence of pairs (a time step's servers) or one
// pair many times (a server's samples), which strtab's guess of the next
// or the same entry matches with one comparison where two names took two.
func (p *csvParser) names(pair []byte, nt int) bool {
	if p.pairs == nil {
		p.pairs = strtab.New()
	}
	id, _ := p.pairs.Bytes(pair)
	p.lastPair = id
	if int(id) < len(p.pairIDs) {
		ids := p.pairIDs[id]
		p.tenantID, p.serverID = ids[0], ids[1]
		return ids[0] >= 0
	}
	ids := [4]int32{-1, -1, int32(nt), int32(len(pair) - nt - 1)}
	tid, _, ok := p.tenants.ValidBytes(pair[:nt])
	if ok {
		if sid, _, ok := p.servers.ValidBytes(pair[nt+1:]); ok {
			ids[0], ids[1] = tid, sid
		}
	}
	p.pairIDs = append(p.pairIDs, ids)
	p.tenantID, p.serverID = ids[0], ids[1]
	return ids[0] >= 0
}

// eightDigits reports whether the eight bytes of w (little-endian) are all
// ASCII digits: each byte's high nibble is 3, and stays 3 when 6 is added.
func eightDigits(w uint64) bool {
	const hi, three, six = 0xf0f0f0f0f0f0f0f0, 0x3030303030303030, 0x0606060606060606
	return w&hi == three && (w+six)&hi == three
}

// parseEight is the value of eight ASCII digits (eightDigits), the first
// in the lowest byte: pairs, then quadruples, then the whole, with three
// multiplications instead of eight dependent ones.
func parseEight(w uint64) uint64 {
	w -= 0x3030303030303030
	w = w*10 + w>>8 // each 16-bit lane: two digits
	w = (w&0x000000ff000000ff)*(100+1000000<<32) + (w>>16&0x000000ff000000ff)*(1+10000<<32)
	return w >> 32
}
