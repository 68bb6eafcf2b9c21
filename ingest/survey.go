package ingest

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
