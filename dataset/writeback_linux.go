package dataset

import (
	"os"

	"golang.org/x/sys/unix"
)

// startWriteback has the kernel start writing the range to disk and
// returns without waiting (sync_file_range, SYNC_FILE_RANGE_WRITE). It is
// a hint: its error is of no consequence, the commit's fsync is what
// makes the file durable.
func startWriteback(f *os.File, off, n int64) {
	_ = unix.SyncFileRange(int(f.Fd()), off, n, unix.SYNC_FILE_RANGE_WRITE)
}
