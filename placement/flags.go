package placement

import "fmt"

// Flags are the options wlprof placement takes as text: the storage of a
// server as a size with its unit.
type Flags struct {
	ServerStorage string // --server-storage: 4T, 500G, or bytes (binary units, bytesize.Parse)
}

// Apply parses the flags into o and returns every problem, named as its
// flag.
func (f Flags) Apply(o *Options) []error {
	var errs []error
	if f.ServerStorage != "" {
		b, err := ParseBytes(f.ServerStorage)
		if err != nil {
			errs = append(errs, fmt.Errorf("--server-storage: %w", err))
		} else {
			o.ServerStorageBytes = b
		}
	}
	return errs
}
