package classify

import "math"

// realFFT is a plan for the power spectrum |X_k|², k = 0..n/2, of real
// inputs of one length n whose prime factors are 2, 3 and 5.
//
// Why not gonum: dsp/fourier is a port of FFTPACK whose real transform
// reaches every element through accessor methods (threeArray.setCmplx,
// atCmplx, …) and was a quarter of classify's time at n = 2160. This plan
// does the same transform in plain slice loops:
//
//   - Even n: the classic "two for one" real transform. The n real samples
//     are packed as n/2 complex ones (even samples as real parts, odd
//     samples as imaginary parts), transformed by one complex FFT of
//     length n/2, and split back into the spectrum of the even and of the
//     odd samples, which one twiddle e^{-2πik/n} per bin combines into
//     X_k. Bins k and n/2−k come out of the same pair Z_k, Z_{n/2−k}, so
//     the split loop runs over half the bins.
//   - Odd n: the samples go in as complex numbers with zero imaginary
//     part and the complex FFT of length n gives X_k directly. (Odd
//     lengths are rare here; this path just keeps them correct.)
//
// The complex FFT is an iterative mixed-radix Stockham autosort
// transform (decimation in frequency; radix 4 while it divides, then 3s
// and 5s, then one radix 2 if a factor 2 is left):
// each stage reads one buffer and writes the other, so no bit- or
// digit-reversal pass is needed and every inner loop walks memory with
// unit stride. All twiddle factors — per stage, and for the split — are
// computed once in newRealFFT with math.Sincos of the exact angle
// 2π·j/N (j reduced to |j| ≤ N/2) rather than by repeated multiplication,
// whose rounding error would grow with the index: the power spectrum
// then agrees with a direct DFT, and with gonum, to within ~1e-14 of its
// largest bin (rfft_test.go).
//
// A plan owns its scratch buffers, so power does not allocate; a plan must
// therefore be used by one goroutine at a time.
type realFFT struct {
	n      int
	m      int  // length of the complex transform: n/2 for even n, else n
	packed bool // even n: x is packed as m complex samples
	stages []fftStage
	a, b   []complex128 // ping-pong buffers of length m
	split  []complex128 // even n: split[k] = -i/2·e^{-2πik/n}, k = 0..m/2
}

// fftStage is one pass of the Stockham transform: a radix-r butterfly on
// s interleaved sub-sequences of length r·m each.
type fftStage struct {
	radix, s, m int
	// tw[p*(radix-1)+k-1] = e^{-2πi·p·k/(radix·m)} for p = 0..m-1 and
	// k = 1..radix-1; nil on the last stage (m == 1), whose twiddles are
	// all 1.
	tw []complex128
}

// newRealFFT returns a plan for real inputs of length n, or nil when n
// is not supported: n < 2, or n has a prime factor other than 2, 3 or 5.
// Callers must fall back to gonum on nil: smoothLen also admits 7.
func newRealFFT(n int) *realFFT {
	if n < 2 {
		return nil
	}
	r := n
	for _, f := range [...]int{2, 3, 5} {
		for r%f == 0 {
			r /= f
		}
	}
	if r != 1 {
		return nil
	}
	p := &realFFT{n: n, m: n, packed: n%2 == 0}
	if p.packed {
		p.m = n / 2
	}
	p.a = make([]complex128, p.m)
	p.b = make([]complex128, p.m)

	// Radix 4 while it divides, then 3s and 5s, and a radix 2 left over
	// goes last, where m == 1 makes it a twiddle-free single row.
	var radices []int
	rest := p.m
	for _, f := range [...]int{4, 3, 5} {
		for rest%f == 0 {
			radices = append(radices, f)
			rest /= f
		}
	}
	if rest == 2 {
		radices = append(radices, 2)
	}
	s := 1
	for _, rad := range radices {
		st := fftStage{radix: rad, s: s, m: p.m / (s * rad)}
		if st.m > 1 {
			nst := rad * st.m
			st.tw = make([]complex128, 0, st.m*(rad-1))
			for q := 0; q < st.m; q++ {
				for k := 1; k < rad; k++ {
					st.tw = append(st.tw, expNeg(q*k, nst))
				}
			}
		}
		p.stages = append(p.stages, st)
		s *= rad
	}

	if p.packed {
		p.split = make([]complex128, p.m/2+1)
		for k := range p.split {
			w := expNeg(k, n)
			p.split[k] = complex(0.5*imag(w), -0.5*real(w)) // -i/2 · w
		}
	}
	return p
}

// expNeg returns e^{-2πi·j/n}, from the exact angle of j reduced to
// (-n/2, n/2] so that the argument of Sincos stays within ±π.
func expNeg(j, n int) complex128 {
	j %= n
	if 2*j > n {
		j -= n
	}
	s, c := math.Sincos(-2 * math.Pi * float64(j) / float64(n))
	return complex(c, s)
}

// power writes |X_k|² for k = 0..n/2 of x (len(x) == n) into dst, grown
// if needed, and returns it. X_k = Σ_j x_j e^{-2πi·jk/n} is the
// unnormalised DFT, as gonum's (*fourier.FFT).Coefficients computes it.
// x is not modified; nothing is allocated when dst is large enough. It
// panics if len(x) is not the plan's n.
func (p *realFFT) power(dst, x []float64) []float64 {
	if len(x) != p.n {
		panic("classify: realFFT.power: input length differs from the plan's")
	}
	nb := p.n/2 + 1
	if cap(dst) < nb {
		dst = make([]float64, nb)
	}
	dst = dst[:nb]

	a := p.a[:p.m]
	if p.packed {
		x = x[:2*len(a)]
		for j := range a {
			a[j] = complex(x[2*j], x[2*j+1])
		}
	} else {
		x = x[:len(a)]
		for j := range a {
			a[j] = complex(x[j], 0)
		}
	}
	z := p.transform()

	if !p.packed {
		z = z[:nb]
		for k, v := range z {
			dst[k] = real(v)*real(v) + imag(v)*imag(v)
		}
		return dst
	}

	// Split Z (the DFT of x_{2j} + i·x_{2j+1}) into X. With
	// E = Z_k + conj(Z_{m-k}) and O = Z_k − conj(Z_{m-k}):
	//	X_k     = E/2 + t_k·O
	//	X_{m-k} = conj(E/2 − t_k·O),  t_k = -i/2·e^{-2πik/n}.
	m := p.m
	z = z[:m]
	dst = dst[:m+1]
	r0, i0 := real(z[0]), imag(z[0])
	dst[0] = (r0 + i0) * (r0 + i0)
	dst[m] = (r0 - i0) * (r0 - i0)
	// Bins k = 1..m/2 from the front of z and dst, bins m-k from the back.
	lo := z[1 : m/2+1]
	hi := z[m-len(lo) : m][:len(lo)]
	split := p.split[1:][:len(lo)]
	dlo := dst[1:][:len(lo)]
	dhi := dst[m-len(lo) : m][:len(lo)]
	for i, zk := range lo {
		zm := hi[len(lo)-1-i]
		er, ei := 0.5*(real(zk)+real(zm)), 0.5*(imag(zk)-imag(zm))
		or, oi := real(zk)-real(zm), imag(zk)+imag(zm)
		t := split[i]
		tr := real(t)*or - imag(t)*oi
		ti := real(t)*oi + imag(t)*or
		dlo[i] = (er+tr)*(er+tr) + (ei+ti)*(ei+ti)
		dhi[len(lo)-1-i] = (er-tr)*(er-tr) + (ei-ti)*(ei-ti)
	}
	return dst
}

// transform runs the complex forward FFT of p.a in place of the
// ping-pong buffers and returns the buffer holding the result.
func (p *realFFT) transform() []complex128 {
	x, y := p.a, p.b
	for i := range p.stages {
		st := &p.stages[i]
		switch st.radix {
		case 4:
			radix4(y, x, st.s, st.m, st.tw)
		case 2:
			radix2(y, x, st.s, st.m, st.tw)
		case 3:
			radix3(y, x, st.s, st.m, st.tw)
		default:
			radix5(y, x, st.s, st.m, st.tw)
		}
		x, y = y, x
	}
	return x
}

// The radix-r kernels below do one Stockham decimation-in-frequency pass
// over the n = r·m·s elements of x into y: for p < m and q < s, with
// a_j = x[q + s·(p + j·m)],
//
//	y[q + s·(r·p + k)] = e^{-2πi·p·k/(r·m)} · Σ_j a_j e^{-2πi·j·k/r}.
//
// Each row p of inputs and outputs is resliced to the length of x0, so
// the inner loop over q runs without bounds checks. Row p = 0 has unit
// twiddles and goes through the kernel's untwiddled butterfly: on the
// last stage (m == 1, tw == nil) that is the whole pass.

func radix2(y, x []complex128, s, m int, tw []complex128) {
	for p := 0; p < m; p++ {
		x0 := x[s*p : s*p+s]
		x1 := x[s*(p+m):][:len(x0)]
		y0 := y[2*s*p:][:len(x0)]
		y1 := y[2*s*p+s:][:len(x0)]
		if p == 0 {
			for q, a0 := range x0 {
				a1 := x1[q]
				y0[q] = a0 + a1
				y1[q] = a0 - a1
			}
			continue
		}
		wr, wi := real(tw[p]), imag(tw[p])
		for q, a0 := range x0 {
			a1 := x1[q]
			y0[q] = a0 + a1
			br, bi := real(a0)-real(a1), imag(a0)-imag(a1)
			y1[q] = complex(wr*br-wi*bi, wr*bi+wi*br)
		}
	}
}

func radix4(y, x []complex128, s, m int, tw []complex128) {
	if s == 1 && m > 1 {
		radix4First(y, x, m, tw)
		return
	}
	for p := 0; p < m; p++ {
		x0 := x[s*p : s*p+s]
		x1 := x[s*(p+m):][:len(x0)]
		x2 := x[s*(p+2*m):][:len(x0)]
		x3 := x[s*(p+3*m):][:len(x0)]
		o := 4 * s * p
		y0 := y[o:][:len(x0)]
		y1 := y[o+s:][:len(x0)]
		y2 := y[o+2*s:][:len(x0)]
		y3 := y[o+3*s:][:len(x0)]
		if p == 0 {
			for q, a0 := range x0 {
				a1, a2, a3 := x1[q], x2[q], x3[q]
				s02r, s02i := real(a0)+real(a2), imag(a0)+imag(a2)
				d02r, d02i := real(a0)-real(a2), imag(a0)-imag(a2)
				s13r, s13i := real(a1)+real(a3), imag(a1)+imag(a3)
				d13r, d13i := real(a1)-real(a3), imag(a1)-imag(a3)
				y0[q] = complex(s02r+s13r, s02i+s13i)
				y1[q] = complex(d02r+d13i, d02i-d13r)
				y2[q] = complex(s02r-s13r, s02i-s13i)
				y3[q] = complex(d02r-d13i, d02i+d13r)
			}
			continue
		}
		t := tw[3*p : 3*p+3]
		w1r, w1i := real(t[0]), imag(t[0])
		w2r, w2i := real(t[1]), imag(t[1])
		w3r, w3i := real(t[2]), imag(t[2])
		for q, a0 := range x0 {
			a1, a2, a3 := x1[q], x2[q], x3[q]
			s02r, s02i := real(a0)+real(a2), imag(a0)+imag(a2)
			d02r, d02i := real(a0)-real(a2), imag(a0)-imag(a2)
			s13r, s13i := real(a1)+real(a3), imag(a1)+imag(a3)
			d13r, d13i := real(a1)-real(a3), imag(a1)-imag(a3)
			y0[q] = complex(s02r+s13r, s02i+s13i)
			b1r, b1i := d02r+d13i, d02i-d13r
			b2r, b2i := s02r-s13r, s02i-s13i
			b3r, b3i := d02r-d13i, d02i+d13r
			y1[q] = complex(w1r*b1r-w1i*b1i, w1r*b1i+w1i*b1r)
			y2[q] = complex(w2r*b2r-w2i*b2i, w2r*b2i+w2i*b2r)
			y3[q] = complex(w3r*b3r-w3i*b3i, w3r*b3i+w3i*b3r)
		}
	}
}

// radix4First is radix4 for the first stage (s == 1, m > 1), where the
// generic kernel's inner loop would run once per row: here one loop runs
// over the rows, with no reslicing per butterfly.
func radix4First(y, x []complex128, m int, tw []complex128) {
	x0 := x[:m]
	x1 := x[m:][:len(x0)]
	x2 := x[2*m:][:len(x0)]
	x3 := x[3*m:][:len(x0)]
	tw = tw[:3*len(x0)]
	y = y[:4*len(x0)]
	for p, a0 := range x0 {
		a1, a2, a3 := x1[p], x2[p], x3[p]
		t := tw[3*p : 3*p+3 : 3*p+3]
		o := y[4*p : 4*p+4 : 4*p+4]
		s02r, s02i := real(a0)+real(a2), imag(a0)+imag(a2)
		d02r, d02i := real(a0)-real(a2), imag(a0)-imag(a2)
		s13r, s13i := real(a1)+real(a3), imag(a1)+imag(a3)
		d13r, d13i := real(a1)-real(a3), imag(a1)-imag(a3)
		o[0] = complex(s02r+s13r, s02i+s13i)
		b1r, b1i := d02r+d13i, d02i-d13r
		b2r, b2i := s02r-s13r, s02i-s13i
		b3r, b3i := d02r-d13i, d02i+d13r
		w1r, w1i := real(t[0]), imag(t[0])
		w2r, w2i := real(t[1]), imag(t[1])
		w3r, w3i := real(t[2]), imag(t[2])
		o[1] = complex(w1r*b1r-w1i*b1i, w1r*b1i+w1i*b1r)
		o[2] = complex(w2r*b2r-w2i*b2i, w2r*b2i+w2i*b2r)
		o[3] = complex(w3r*b3r-w3i*b3i, w3r*b3i+w3i*b3r)
	}
}

func radix3(y, x []complex128, s, m int, tw []complex128) {
	const h = 0.86602540378443864676 // sin(2π/3)
	for p := 0; p < m; p++ {
		x0 := x[s*p : s*p+s]
		x1 := x[s*(p+m):][:len(x0)]
		x2 := x[s*(p+2*m):][:len(x0)]
		o := 3 * s * p
		y0 := y[o:][:len(x0)]
		y1 := y[o+s:][:len(x0)]
		y2 := y[o+2*s:][:len(x0)]
		if p == 0 {
			for q, a0 := range x0 {
				a1, a2 := x1[q], x2[q]
				sr, si := real(a1)+real(a2), imag(a1)+imag(a2)
				dr, di := h*(real(a1)-real(a2)), h*(imag(a1)-imag(a2))
				ur, ui := real(a0)-0.5*sr, imag(a0)-0.5*si
				y0[q] = complex(real(a0)+sr, imag(a0)+si)
				y1[q] = complex(ur+di, ui-dr)
				y2[q] = complex(ur-di, ui+dr)
			}
			continue
		}
		t := tw[2*p : 2*p+2]
		w1r, w1i := real(t[0]), imag(t[0])
		w2r, w2i := real(t[1]), imag(t[1])
		for q, a0 := range x0 {
			a1, a2 := x1[q], x2[q]
			sr, si := real(a1)+real(a2), imag(a1)+imag(a2)
			dr, di := h*(real(a1)-real(a2)), h*(imag(a1)-imag(a2))
			ur, ui := real(a0)-0.5*sr, imag(a0)-0.5*si
			y0[q] = complex(real(a0)+sr, imag(a0)+si)
			b1r, b1i := ur+di, ui-dr
			b2r, b2i := ur-di, ui+dr
			y1[q] = complex(w1r*b1r-w1i*b1i, w1r*b1i+w1i*b1r)
			y2[q] = complex(w2r*b2r-w2i*b2i, w2r*b2i+w2i*b2r)
		}
	}
}

// Radix-5 butterfly constants: cos and sin of 2π/5 and 4π/5.
const (
	r5c1 = 0.30901699437494742410
	r5c2 = -0.80901699437494742410
	r5s1 = 0.95105651629515357212
	r5s2 = 0.58778525229247312917
)

func radix5(y, x []complex128, s, m int, tw []complex128) {
	for p := 0; p < m; p++ {
		x0 := x[s*p : s*p+s]
		x1 := x[s*(p+m):][:len(x0)]
		x2 := x[s*(p+2*m):][:len(x0)]
		x3 := x[s*(p+3*m):][:len(x0)]
		x4 := x[s*(p+4*m):][:len(x0)]
		o := 5 * s * p
		y0 := y[o:][:len(x0)]
		y1 := y[o+s:][:len(x0)]
		y2 := y[o+2*s:][:len(x0)]
		y3 := y[o+3*s:][:len(x0)]
		y4 := y[o+4*s:][:len(x0)]
		if p == 0 {
			for q, a0 := range x0 {
				a1, a2, a3, a4 := x1[q], x2[q], x3[q], x4[q]
				t1r, t1i := real(a1)+real(a4), imag(a1)+imag(a4)
				t2r, t2i := real(a2)+real(a3), imag(a2)+imag(a3)
				t3r, t3i := real(a1)-real(a4), imag(a1)-imag(a4)
				t4r, t4i := real(a2)-real(a3), imag(a2)-imag(a3)
				u1r, u1i := real(a0)+r5c1*t1r+r5c2*t2r, imag(a0)+r5c1*t1i+r5c2*t2i
				u2r, u2i := real(a0)+r5c2*t1r+r5c1*t2r, imag(a0)+r5c2*t1i+r5c1*t2i
				v1r, v1i := r5s1*t3r+r5s2*t4r, r5s1*t3i+r5s2*t4i
				v2r, v2i := r5s2*t3r-r5s1*t4r, r5s2*t3i-r5s1*t4i
				y0[q] = complex(real(a0)+t1r+t2r, imag(a0)+t1i+t2i)
				y1[q] = complex(u1r+v1i, u1i-v1r) // u1 − i·v1
				y2[q] = complex(u2r+v2i, u2i-v2r) // u2 − i·v2
				y3[q] = complex(u2r-v2i, u2i+v2r) // u2 + i·v2
				y4[q] = complex(u1r-v1i, u1i+v1r) // u1 + i·v1
			}
			continue
		}
		t := tw[4*p : 4*p+4]
		w1r, w1i := real(t[0]), imag(t[0])
		w2r, w2i := real(t[1]), imag(t[1])
		w3r, w3i := real(t[2]), imag(t[2])
		w4r, w4i := real(t[3]), imag(t[3])
		for q, a0 := range x0 {
			a1, a2, a3, a4 := x1[q], x2[q], x3[q], x4[q]
			t1r, t1i := real(a1)+real(a4), imag(a1)+imag(a4)
			t2r, t2i := real(a2)+real(a3), imag(a2)+imag(a3)
			t3r, t3i := real(a1)-real(a4), imag(a1)-imag(a4)
			t4r, t4i := real(a2)-real(a3), imag(a2)-imag(a3)
			u1r, u1i := real(a0)+r5c1*t1r+r5c2*t2r, imag(a0)+r5c1*t1i+r5c2*t2i
			u2r, u2i := real(a0)+r5c2*t1r+r5c1*t2r, imag(a0)+r5c2*t1i+r5c1*t2i
			v1r, v1i := r5s1*t3r+r5s2*t4r, r5s1*t3i+r5s2*t4i
			v2r, v2i := r5s2*t3r-r5s1*t4r, r5s2*t3i-r5s1*t4i
			y0[q] = complex(real(a0)+t1r+t2r, imag(a0)+t1i+t2i)
			b1r, b1i := u1r+v1i, u1i-v1r
			b2r, b2i := u2r+v2i, u2i-v2r
			b3r, b3i := u2r-v2i, u2i+v2r
			b4r, b4i := u1r-v1i, u1i+v1r
			y1[q] = complex(w1r*b1r-w1i*b1i, w1r*b1i+w1i*b1r)
			y2[q] = complex(w2r*b2r-w2i*b2i, w2r*b2i+w2i*b2r)
			y3[q] = complex(w3r*b3r-w3i*b3i, w3r*b3i+w3i*b3r)
			y4[q] = complex(w4r*b4r-w4i*b4i, w4r*b4i+w4i*b4r)
		}
	}
}
