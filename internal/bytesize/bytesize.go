// Package bytesize reads and writes sizes in bytes with binary suffixes
// (K = 1024), for the stages and the command line alike. There are two
// written forms because there are two readers: Format is exact and reads
// back with Parse ("1536K"), for values that are passed on to programs
// (java -Xmx, sort -S) and labels that must name a setting exactly;
// Human rounds to three significant digits with a unit ("10.8 GiB"), for
// warnings and reasons written for people.
package bytesize

import (
	"fmt"
	"strconv"
	"strings"
)

// Parse reads one size, for every size flag of wlprof: a number
// (fractions and exponents allowed) with an optional suffix K, M, G, T or
// P, optionally followed by "i", "B" or "iB", in any case; all suffixes are
// binary multiples of 1024 ("2MB" is 2 MiB, "4TB" 4 TiB: the memory
// settings of sort -S and java -Xmx read them so, and one grammar serves
// memory and storage alike), and a bare number is bytes. The size must be positive and under 2⁶² bytes;
// a fraction of a byte is dropped.
func Parse(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	t = strings.TrimSuffix(t, "B")
	t = strings.TrimSuffix(t, "I")
	mult := int64(1)
	if n := len(t); n > 0 {
		switch t[n-1] {
		case 'K':
			mult = 1 << 10
		case 'M':
			mult = 1 << 20
		case 'G':
			mult = 1 << 30
		case 'T':
			mult = 1 << 40
		case 'P':
			mult = 1 << 50
		}
		if mult > 1 {
			t = strings.TrimSpace(t[:n-1])
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || !(v > 0) || v*float64(mult) >= 1<<62 { // !(v > 0): NaN too
		return 0, fmt.Errorf("size %q: want a positive size such as 512M, 2G or 4T (binary: 1K = 1024 bytes)", s)
	}
	return int64(v * float64(mult)), nil
}

// Format writes b with the largest binary suffix that divides it exactly
// ("256M", "1G", "1536K"), as GNU sort -S and java -Xmx read it; a size
// that is no multiple of 1 KiB is written as a bare number of bytes.
// Parse reads every result back to b.
func Format(b int64) string {
	for _, u := range []struct {
		s string
		n int64
	}{{"T", 1 << 40}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}} {
		if b >= u.n && b%u.n == 0 {
			return strconv.FormatInt(b/u.n, 10) + u.s
		}
	}
	return strconv.FormatInt(b, 10)
}

// Human writes b for people: three significant digits (%.3g) in the
// largest of GiB, MiB and KiB that is at most b ("10.8 GiB", "512 MiB"),
// else whole bytes ("900 B"). %g turns to an exponent past three digits:
// a PiB is "1.05e+06 GiB", and 1023.9 MiB is "1.02e+03 MiB". That is the
// form elasticity's warnings are pinned in by golden files.
func Human(b float64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.3g GiB", b/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.3g MiB", b/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.3g KiB", b/(1<<10))
	}
	return fmt.Sprintf("%.0f B", b)
}
