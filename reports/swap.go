package reports

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/wlprof/wlprof/internal/atomicfile"
)

// syncEach fsyncs every file and directory under dir.
func syncEach(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		return f.Sync()
	})
}

// swapDir puts the directory tmp in place of dir. When dir exists the two
// are exchanged atomically where the file system can (tmp then holds the
// previous report, which the caller removes); elsewhere dir is moved
// aside first, leaving a moment without a report but never a mixed one.
func swapDir(tmp, dir string) error {
	if _, err := os.Lstat(dir); errors.Is(err, os.ErrNotExist) {
		if err := os.Rename(tmp, dir); err != nil {
			return err
		}
		return atomicfile.SyncDir(filepath.Dir(dir))
	}
	if err := exchange(tmp, dir); err != nil {
		old := tmp + ".old"
		if err := os.Rename(dir, old); err != nil {
			return err
		}
		if err := os.Rename(tmp, dir); err != nil {
			_ = os.Rename(old, dir)
			return err
		}
		if err := os.Rename(old, tmp); err != nil {
			return err
		}
	}
	return atomicfile.SyncDir(filepath.Dir(dir))
}
