//go:build !linux

package reports

import "errors"

func syncTree(dir string) error { return syncEach(dir) }

func exchange(a, b string) error { return errors.ErrUnsupported }
