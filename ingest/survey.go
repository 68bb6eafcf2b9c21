package ingest

import (
	"fmt"
	"os"
)

// Undetected is an input no format claims, and why.
type Undetected struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Survey expands paths (directories stand for the non-hidden files below
// them) and splits the files into those a registered format recognises and
// those none does (documentation, a jhist job's _conf.xml read beside it,
// stray files), for commands that take whole folders of mixed inputs. An
// input that cannot be opened is an error.
func Survey(paths []string) (known []string, unknown []Undetected, err error) {
	files, err := expand(paths)
	if err != nil {
		return nil, nil, err
	}
	for _, path := range files {
		in, err := Open(path)
		if err != nil {
			return nil, nil, err
		}
		_, derr := Detect(in)
		in.Close()
		if derr != nil {
			unknown = append(unknown, Undetected{Path: path, Reason: derr.Error()})
			continue
		}
		known = append(known, path)
	}
	return known, unknown, nil
}

// SurveyDirs is Survey for the directories among paths only: each is
// replaced by the files below it that a format recognises, the others are
// returned as unknown. Files named one by one are kept whatever they hold,
// so that one no format reads is an error that names it, as a mixed folder
// is not. Order is kept: a directory's files stand where it stood.
func SurveyDirs(paths []string) (known []string, unknown []Undetected, err error) {
	for _, p := range paths {
		if info, err := os.Stat(p); err != nil || !info.IsDir() {
			known = append(known, p)
			continue
		}
		k, u, err := Survey([]string{p})
		if err != nil {
			return nil, nil, err
		}
		known, unknown = append(known, k...), append(unknown, u...)
	}
	return known, unknown, nil
}

// NoneKnown is the error of inputs among which no format reads anything:
// unknown are what a survey left out.
func NoneKnown(unknown []Undetected) error {
	return fmt.Errorf("no input in a known format among %d file(s); see wlprof ingest --help for the formats", len(unknown))
}
