package synth

import (
	"fmt"
	"io"
)

// WriteText says what was written, as wlprof synth prints it.
func (wd *World) WriteText(w io.Writer) error {
	_, err := fmt.Fprintf(w, "wrote %s (%d rows, %d tenants) and %s\n", wd.Usage, wd.Rows, len(wd.Tenants), wd.Truth)
	return err
}

// WriteCSV writes the same as one CSV row.
func (wd *World) WriteCSV(w io.Writer) error {
	_, err := fmt.Fprintf(w, "usage,truth,rows,tenants\n%s,%s,%d,%d\n", wd.Usage, wd.Truth, wd.Rows, len(wd.Tenants))
	return err
}
