package profile

import (
	"bytes"
	"os"
	"testing"
)

// DecodeJob never panics, and what it accepts marshals and decodes again
// to the same bytes (read → write → read).
func FuzzDecodeJob(f *testing.F) {
	for _, p := range []string{"testdata/job.json", "testdata/minimal-job.json"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"version": 1, "kind": "job", "job": "x", "skyline": {"runs": 1, "step_s": 1, "containers": [1], "reservation": [1], "peak_reservation": 1}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		j, err := DecodeJob(bytes.NewReader(data))
		if err != nil {
			return
		}
		b1, err := j.Marshal()
		if err != nil {
			t.Fatalf("accepted, then refused to write: %v", err)
		}
		j2, err := DecodeJob(bytes.NewReader(b1))
		if err != nil {
			t.Fatalf("wrote what it cannot read: %v\n%s", err, b1)
		}
		b2, err := j2.Marshal()
		if err != nil || !bytes.Equal(b1, b2) {
			t.Fatalf("read → write → read changed the document:\n%s\n%s", b1, b2)
		}
	})
}
