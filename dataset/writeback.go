package dataset

import "os"

// writebackEvery is how many bytes a table file takes between two starts
// of its writeback.
const writebackEvery = 8 << 20

// writeback writes to a table file and starts the kernel writing each 8
// MB of it to disk once written (without waiting, see startWriteback), so
// the fsync that commits the file waits for its last megabytes, not for
// all of them: a freshly written file stays dirty in the page cache until
// the fsync otherwise, and that fsync (38 MB after ingesting a thousand
// tenants' month) was time the command did nothing else.
type writeback struct {
	f            *os.File
	written, off int64 // bytes written; start of the range not yet handed to writeback
}

func (w *writeback) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	w.written += int64(n)
	if w.written-w.off >= writebackEvery {
		startWriteback(w.f, w.off, w.written-w.off)
		w.off = w.written
	}
	return n, err
}
