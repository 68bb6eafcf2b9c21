package ingest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"

	"github.com/wlprof/wlprof/dataset"
)

// sources indexes the inputs a dataset already holds by size, so that a
// file is hashed before it is read only when one of them has its size.
type sources map[int64][]dataset.Source

func seenSources(srcs []dataset.Source) sources {
	s := sources{}
	for _, src := range srcs {
		s.add(src)
	}
	return s
}

func (s sources) add(src dataset.Source) {
	if src.SHA256 != "" {
		s[src.SizeBytes] = append(s[src.SizeBytes], src)
	}
}

// duplicate says whether path's content (sha256 of its bytes, as the
// manifest records them) was ingested before; then fr is its skipped
// result, with a note that says where.
func (s sources) duplicate(path string, f *Format) (fr FileResult, dup bool, err error) {
	info, err := os.Stat(path)
	if err != nil || len(s[info.Size()]) == 0 {
		return FileResult{}, false, nil // an unreadable file is ingestFile's to report
	}
	file, err := os.Open(path)
	if err != nil {
		return FileResult{}, false, nil
	}
	defer file.Close()
	h := sha256.New()
	if _, err := io.Copy(h, file); err != nil {
		return FileResult{}, false, fmt.Errorf("%s: %w", path, err)
	}
	sum := hex.EncodeToString(h.Sum(nil))
	for _, src := range s[info.Size()] {
		if src.SHA256 == sum {
			when := fmt.Sprintf("ingest %d", src.Ingest)
			if src.Ingest == 0 {
				when = "this ingest"
			}
			fr = FileResult{Path: path, Skipped: true, Notes: []string{fmt.Sprintf(
				"skipped: the same content (sha256 %s…) was ingested before from %s (%s); --allow-duplicate ingests it again",
				sum[:12], src.Path, when)}}
			if f != nil {
				fr.Format = f.Name
			}
			return fr, true, nil
		}
	}
	return FileResult{}, false, nil
}
