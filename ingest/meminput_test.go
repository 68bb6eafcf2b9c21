package ingest

import (
	"io"
	"testing"
)

// fuzzInput is body as Open would give it for a file called name: from
// memory when it can be (openMemory: no file written per fuzz execution),
// else from a temporary file (a body Open refuses, such as a bad gzip
// header, gets Open's own error).
func fuzzInput(t testing.TB, name string, body []byte) *Input {
	t.Helper()
	if in, ok := openMemory(name, body); ok {
		return in
	}
	in, err := Open(writeFile(t, t.TempDir(), name, body))
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// openMemory gives what Open gives for the same bytes in a file: the same
// content, compression and mapping, for tiny bodies (a stream, which the
// fuzz targets' round trips write when every record was a reject, and
// which went through a temporary file per execution), plain, gzip and
// truncated gzip bodies.
func TestOpenMemoryMatchesOpen(t *testing.T) {
	gz, zs := gzipBytes(t, []byte("a,b\n")), zstdBytes(t, []byte("c,d\n"))
	for _, body := range [][]byte{nil, []byte("a"), []byte("ab\n"), []byte("abcd\n"), {0x1f}, {0x1f, 0x8b, 0x08}, gz, gz[:12], zs, zs[:3]} {
		fromFile, ferr := Open(writeFile(t, t.TempDir(), "x.csv", body))
		fromMem, ok := openMemory("x.csv", body)
		if !ok {
			if ferr == nil {
				t.Errorf("%q: openMemory refused what Open reads", body)
				fromFile.Close()
			}
			continue
		}
		if ferr != nil {
			t.Errorf("%q: openMemory read what Open refuses (%v)", body, ferr)
			continue
		}
		read := func(in *Input) string {
			if m := in.Mapped(); m != nil {
				return "mapped:" + string(m)
			}
			b, err := io.ReadAll(in.Reader())
			return "stream:" + string(b) + " " + errString(err) + " " + errString(in.Damage())
		}
		if f, m := read(fromFile), read(fromMem); f != m || fromFile.Compression != fromMem.Compression {
			t.Errorf("%q: Open gives %q (%s), openMemory %q (%s)", body, f, fromFile.Compression, m, fromMem.Compression)
		}
		fromFile.Close()
		fromMem.Close()
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
