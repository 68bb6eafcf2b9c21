package reports

import (
	"os"

	"golang.org/x/sys/unix"
)

// syncTree makes everything written under dir durable with one syncfs(2)
// call: a report is thousands of files, and one fsync each would cost
// seconds.
func syncTree(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := unix.Syncfs(int(f.Fd())); err != nil {
		return syncEach(dir)
	}
	return nil
}

// exchange swaps two directories in one step (renameat2 RENAME_EXCHANGE):
// there is no moment at which the report's path is missing.
func exchange(a, b string) error {
	return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
}
