package classify

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// The binary form of a Partial, for a distributed runner's shuffles
// (wlprof-beam): at 8 bytes a slot, the tenants' Partials and series were
// most of the bytes a runner copies between stages. A slot's count
// (servers averaged) rarely changes from one slot to the next and its sum
// moves by little, so the form keeps the counts as runs and the sums as
// deltas:
//
//	byte     partialVersion
//	string   Tenant (uvarint length, bytes)
//	uvarint  number of servers; per server, sorted: uvarint bytes shared
//	         with the previous name, then the rest as a string
//	varint   FirstSlot (zigzag)
//	uvarint  number of slots
//	uvarint  number of count runs; per run: uvarint count, uvarint slots
//	varint   per slot with a sample, its sum minus the previous such
//	         slot's sum (zigzag; the first from 0)
//
// A one-server tenant of the 10,000-tenant world takes about 3 bytes a
// slot instead of 8. Decoding checks every length against the bytes left,
// so a damaged element is an error, never a panic or a huge allocation.
const partialVersion = 1

// maxPartialSlots bounds a decoded Partial's slots (runs of empty slots
// cost a few bytes however long): 2^27 slots, 1 GiB, is 255 years at
// one minute.
const maxPartialSlots = 1 << 27

// AppendBinary appends p's binary form to b.
func (p *Partial) AppendBinary(b []byte) ([]byte, error) {
	b = append(b, partialVersion)
	b = appendString(b, p.Tenant)
	b = binary.AppendUvarint(b, uint64(len(p.Servers)))
	prev := ""
	for _, s := range p.Servers {
		n := 0
		for n < len(prev) && n < len(s) && prev[n] == s[n] {
			n++
		}
		b = binary.AppendUvarint(b, uint64(n))
		b = appendString(b, s[n:])
		prev = s
	}
	b = binary.AppendVarint(b, p.FirstSlot)
	b = binary.AppendUvarint(b, uint64(len(p.Slots)))
	var runs int
	for i := range p.Slots {
		if i == 0 || p.Slots[i]&slotCountMax != p.Slots[i-1]&slotCountMax {
			runs++
		}
	}
	b = binary.AppendUvarint(b, uint64(runs))
	for i := 0; i < len(p.Slots); {
		c := p.Slots[i] & slotCountMax
		j := i + 1
		for j < len(p.Slots) && p.Slots[j]&slotCountMax == c {
			j++
		}
		b = binary.AppendUvarint(b, c)
		b = binary.AppendUvarint(b, uint64(j-i))
		i = j
	}
	var last int64
	for _, v := range p.Slots {
		if v&slotCountMax == 0 {
			if v != 0 {
				return b, fmt.Errorf("classify: partial of %q: a slot without a count has a sum (%#x)", p.Tenant, v)
			}
			continue
		}
		sum := int64(v >> slotCountBits)
		b = binary.AppendVarint(b, sum-last)
		last = sum
	}
	return b, nil
}

// MarshalBinary is AppendBinary to a new slice.
func (p *Partial) MarshalBinary() ([]byte, error) {
	return p.AppendBinary(make([]byte, 0, 32+len(p.Tenant)+3*len(p.Slots)))
}

// errPartial is a damaged binary Partial.
var errPartial = errors.New("classify: damaged binary partial")

// UnmarshalBinary sets p from its binary form (MarshalBinary's).
func (p *Partial) UnmarshalBinary(b []byte) error {
	d := partialDecoder{b: b}
	if v := d.byte(); v != partialVersion && d.err == nil {
		return fmt.Errorf("classify: binary partial of version %d; this build reads %d", v, partialVersion)
	}
	q := Partial{Tenant: d.string()}
	if n := d.count(2); n > 0 {
		q.Servers = make([]string, n)
		prev := ""
		for i := range q.Servers {
			shared := d.uvarint()
			if shared > uint64(len(prev)) {
				d.fail("a server name shares more bytes than the previous has")
			}
			if d.err != nil {
				break
			}
			q.Servers[i] = prev[:shared] + d.string()
			if i > 0 && q.Servers[i] <= prev {
				d.fail("server names are not sorted and distinct")
			}
			prev = q.Servers[i]
		}
	}
	q.FirstSlot = d.varint()
	n := d.uvarint()
	if n > maxPartialSlots {
		d.fail(fmt.Sprintf("%d slots, more than %d", n, maxPartialSlots))
	}
	runs := d.count(2)
	if d.err != nil {
		return d.err
	}
	if n > 0 {
		q.Slots = make([]uint64, n)
	}
	pos := uint64(0)
	for range runs {
		c, k := d.uvarint(), d.uvarint()
		if c > slotCountMax || k == 0 || k > n-pos {
			d.fail("count runs do not fit the slots")
		}
		if d.err != nil {
			return d.err
		}
		for i := pos; i < pos+k; i++ {
			q.Slots[i] = c
		}
		pos += k
	}
	if pos != n {
		return fmt.Errorf("%w: count runs cover %d of %d slots", errPartial, pos, n)
	}
	var sum int64
	for i, v := range q.Slots {
		if v == 0 {
			continue
		}
		sum += d.varint()
		if sum < 0 || sum >= 1<<(64-slotCountBits) {
			d.fail("a sum out of range")
		}
		if d.err != nil {
			return d.err
		}
		q.Slots[i] = uint64(sum)<<slotCountBits | v
	}
	if len(d.b) != 0 {
		return fmt.Errorf("%w: %d bytes after its end", errPartial, len(d.b))
	}
	*p = q
	return nil
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// partialDecoder reads the binary form; its first error sticks, and every
// read after it returns zero.
type partialDecoder struct {
	b   []byte
	err error
}

func (d *partialDecoder) fail(why string) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: %s", errPartial, why)
	}
}

func (d *partialDecoder) byte() byte {
	if d.err != nil || len(d.b) == 0 {
		d.fail("it ends early")
		return 0
	}
	v := d.b[0]
	d.b = d.b[1:]
	return v
}

func (d *partialDecoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail("it ends early or holds a bad number")
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *partialDecoder) varint() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail("it ends early or holds a bad number")
		return 0
	}
	d.b = d.b[n:]
	return v
}

// count reads a number of items that take at least min bytes each: more
// than the bytes left could hold is damage.
func (d *partialDecoder) count(min int) int {
	n := d.uvarint()
	if n > uint64(len(d.b)/min) {
		d.fail("it counts more items than its bytes hold")
		return 0
	}
	return int(n)
}

func (d *partialDecoder) string() string {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.fail("a string runs past its end")
	}
	if d.err != nil {
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}
