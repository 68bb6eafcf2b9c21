package ingest

import "testing"

// fuzzInput is body as Open would give it for a file called name: from
// memory when it can be (openMemory: no file written per fuzz execution),
// else from a temporary file (compressed and tiny bodies take Open's
// stream path).
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
