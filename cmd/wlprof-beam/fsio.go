package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"cloud.google.com/go/storage"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/gcs"   // gs://
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local" // paths without a scheme
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/memfs" // memfs:// (one process: tests, Prism)
)

// Inputs and outputs go through Beam's file systems when they name a
// scheme (gs://, memfs://): the shard readers copy a shard to a local
// temporary file, since ingest's parsers read local files, and the
// outputs are written to a local temporary file and copied. A path
// without a scheme is a local path and is read and written directly, as
// it always was.

// isLocal says whether path is a local path (no scheme://), the way
// Beam's filesystem.New tells them.
func isLocal(path string) bool { return strings.Index(path, "://") <= 0 }

// scheme is path's scheme ("" when local).
func scheme(path string) string {
	if isLocal(path) {
		return ""
	}
	return path[:strings.Index(path, "://")]
}

// openFS is Beam's file system for path's scheme.
func openFS(ctx context.Context, path string) (filesystem.Interface, error) {
	return filesystem.New(ctx, path)
}

// globShards expands one --input glob: filepath.Glob for a local one,
// the file system's List for the others. An unknown scheme is a
// usageError; a failure of the store to list is not.
func globShards(ctx context.Context, glob string) ([]string, error) {
	if isLocal(glob) {
		return filepath.Glob(glob)
	}
	fs, err := openFS(ctx, glob)
	if err != nil {
		return nil, usageError{err} // a scheme no file system has
	}
	defer fs.Close()
	return fs.List(ctx, glob)
}

// fetchShard makes a shard readable by ingest's parsers: a local shard
// is itself; another is copied, under its own base name (formats and
// compression are told by name), to a new local temporary directory,
// with the companions its format reads beside it (companions). name maps
// a file name the parser reports (a reject's file) back to the shard's
// store; done removes the copies.
func fetchShard(ctx context.Context, path string) (local string, name func(string) string, done func(), err error) {
	if isLocal(path) {
		return path, func(s string) string { return s }, func() {}, nil
	}
	tmp, err := os.MkdirTemp("", "wlprof-beam-fetch-")
	if err != nil {
		return "", nil, nil, err
	}
	done = func() { os.RemoveAll(tmp) }
	rdir := path[:strings.LastIndex(path, "/")]
	ldir, glob := companions(tmp, path)
	if err := os.MkdirAll(ldir, 0o755); err != nil {
		done()
		return "", nil, nil, err
	}
	local = filepath.Join(ldir, baseOf(path))
	if err := copyFrom(ctx, path, local); err != nil {
		done()
		return "", nil, nil, fmt.Errorf("read %s: %w", path, err)
	}
	if glob != "" {
		others, err := globShards(ctx, glob)
		if err != nil {
			done()
			return "", nil, nil, fmt.Errorf("list %s: %w", glob, err)
		}
		for _, o := range others {
			if o == path {
				continue
			}
			if err := copyFrom(ctx, o, filepath.Join(ldir, baseOf(o))); err != nil {
				done()
				return "", nil, nil, fmt.Errorf("read %s: %w", o, err)
			}
		}
	}
	name = func(s string) string {
		if rest, ok := strings.CutPrefix(s, ldir+string(filepath.Separator)); ok {
			return rdir + "/" + filepath.ToSlash(rest)
		}
		return s
	}
	return local, name, done, nil
}

var (
	// jobIDRe is a MapReduce job id in a job history file's name.
	jobIDRe = regexp.MustCompile(`job_[0-9]+_[0-9]+`)
	// rolledPartRe is an event file of a rolled Spark log, as ingest
	// names them (eventlog_v2_<app>/events_<N>_<app>...).
	rolledPartRe = regexp.MustCompile(`^events_[0-9]+_`)
)

// companions says where a fetched shard goes under tmp and which files
// of its store go with it (a glob, or ""), as ingest reads them beside a
// file: a job history's <jobid>_conf.xml (every _conf.xml of the folder
// when the name carries no job id), and every file of a rolled Spark
// event log's folder, which is copied as a folder of the same name (its
// first part reads them all, in order; the others are then skipped).
func companions(tmp, path string) (dir, glob string) {
	rdir := path[:strings.LastIndex(path, "/")]
	base, parent := baseOf(path), baseOf(rdir)
	switch {
	case rolledPartRe.MatchString(base) && strings.HasPrefix(parent, "eventlog_v2_"):
		return filepath.Join(tmp, parent), rdir + "/*"
	case strings.Contains(base, ".jhist"):
		if id := jobIDRe.FindString(base); id != "" {
			return tmp, rdir + "/*" + id + "_conf.xml"
		}
		return tmp, rdir + "/*_conf.xml"
	}
	return tmp, ""
}

// baseOf is the last element of a path with a scheme.
func baseOf(path string) string {
	i := strings.LastIndex(path, "/")
	if b := path[i+1:]; b != "" {
		return b
	}
	return "shard"
}

// copyFrom copies the file src of a Beam file system to the local file dst.
func copyFrom(ctx context.Context, src, dst string) error {
	fs, err := openFS(ctx, src)
	if err != nil {
		return err
	}
	defer fs.Close()
	r, err := fs.OpenRead(ctx, src)
	if err != nil {
		return notExist(err)
	}
	defer r.Close()
	f, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// notExist makes a file system's "no such file" an os.ErrNotExist.
func notExist(err error) error {
	if errors.Is(err, storage.ErrObjectNotExist) {
		return fmt.Errorf("%w (%v)", os.ErrNotExist, err)
	}
	return err
}

// joinOut is the path of the output file name in the directory dir.
func joinOut(dir, name string) string {
	if isLocal(dir) {
		return filepath.Join(dir, name)
	}
	return strings.TrimSuffix(dir, "/") + "/" + name
}

// writeOut writes the output file name in dir: for a local directory,
// atomically in place (writeFileAtomic); for another, to a local
// temporary file that is then copied with the file system's OpenWrite
// (an object store's write is seen whole or not at all).
func writeOut(dir, name string, write func(io.Writer) error) error {
	if isLocal(dir) {
		return writeFileAtomic(filepath.Join(dir, name), write)
	}
	ctx := context.Background()
	f, err := os.CreateTemp("", "wlprof-beam-out-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	if err := write(f); err != nil {
		return err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	dst := joinOut(dir, name)
	fs, err := openFS(ctx, dst)
	if err != nil {
		return err
	}
	defer fs.Close()
	w, err := fs.OpenWrite(ctx, dst)
	if err != nil {
		return fmt.Errorf("write %s: %w", dst, err)
	}
	if _, err := io.Copy(w, f); err != nil {
		w.Close()
		return fmt.Errorf("write %s: %w", dst, err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("write %s: %w", dst, err)
	}
	return nil
}

// openOut opens the output file name in dir; an error that is
// os.ErrNotExist when there is none.
func openOut(ctx context.Context, dir, name string) (io.ReadCloser, error) {
	path := joinOut(dir, name)
	if isLocal(dir) {
		return os.Open(path)
	}
	fs, err := openFS(ctx, path)
	if err != nil {
		return nil, err
	}
	r, err := fs.OpenRead(ctx, path)
	if err != nil {
		fs.Close()
		return nil, fmt.Errorf("%s: %w", path, notExist(err))
	}
	return readCloser{r, fs}, nil
}

type readCloser struct {
	io.ReadCloser
	fs io.Closer
}

func (r readCloser) Close() error { return errors.Join(r.ReadCloser.Close(), r.fs.Close()) }

// readOut reads the output file name in dir (os.ErrNotExist when there
// is none).
func readOut(ctx context.Context, dir, name string) ([]byte, error) {
	r, err := openOut(ctx, dir, name)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

// removeOut removes the output file name of an earlier run from dir, if
// it is there.
func removeOut(ctx context.Context, dir, name string) error {
	path := joinOut(dir, name)
	if isLocal(dir) {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	fs, err := openFS(ctx, path)
	if err != nil {
		return err
	}
	defer fs.Close()
	rm, ok := fs.(filesystem.Remover)
	if !ok {
		return fmt.Errorf("--out %s: the %s file system cannot remove an earlier run's %s", dir, scheme(dir), name)
	}
	if err := rm.Remove(ctx, path); err != nil && !errors.Is(notExist(err), os.ErrNotExist) {
		return fmt.Errorf("remove %s: %w", path, err)
	}
	return nil
}
