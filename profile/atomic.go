package profile

import (
	"fmt"
	"os"
	"path/filepath"
)

// writeAtomic writes data to path so that a reader sees the old file or
// the new one, never a mix: a temporary file in the same directory,
// synced, renamed over path, and the directory synced so the name
// survives a crash. It is wlprof's internal/atomicfile.WriteFile, kept
// here because this module imports nothing but the standard library.
func writeAtomic(path string, data []byte, perm os.FileMode) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Chmod(perm); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("profile: %w", err)
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err = d.Sync(); err != nil {
		return fmt.Errorf("profile: sync %s: %w", dir, err)
	}
	return nil
}
