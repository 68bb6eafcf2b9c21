package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/memfs"
	"github.com/wlprof/wlprof/internal/duckdbtest"
)

// runBeam runs wlprof-beam with args and returns its exit code, stdout
// and stderr.
func runBeam(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, streams{Out: &stdout, Err: &stderr})
	return code, stdout.String(), stderr.String()
}

// toMemfs copies the files of a local glob into memfs under dir and
// returns the glob of the copies.
func toMemfs(t *testing.T, glob, dir string) string {
	t.Helper()
	files, err := filepath.Glob(glob)
	if err != nil || len(files) == 0 {
		t.Fatalf("%s: %v %v", glob, files, err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		memfs.Write(dir+"/"+filepath.Base(f), b)
	}
	return dir + "/" + filepath.Base(glob)
}

// readMemfs reads a file of memfs.
func readMemfs(t *testing.T, path string) []byte {
	t.Helper()
	b, err := readOut(context.Background(), path[:strings.LastIndex(path, "/")], path[strings.LastIndex(path, "/")+1:])
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Shards and results on a Beam file system other than the local one
// (memfs://, as gs:// on Dataflow): each command, run on Prism with its
// shards in memfs and --out in memfs, writes the files of the same run on
// local paths, byte for byte (the rejects naming the memfs shards; the
// skyline fits' solve_s, a time, aside), and says the same on stdout.
func TestMemfsInputsAndOutputsAsLocal(t *testing.T) {
	usage, err := filepath.Abs("../../testdata/usage_with_rejects.csv")
	if err != nil {
		t.Fatal(err)
	}
	profruns, err := filepath.Abs("../../testdata/elasticity/profruns.csv")
	if err != nil {
		t.Fatal(err)
	}
	skylines := skylineWorld(t, 40)
	for _, c := range []struct {
		cmd, format, input string
		outputs            []string
		args               []string
	}{
		{"classify", "csv", shard(t, usage, 3, ""), []string{classifyJSON, tenantsParquet, classesParquet, rejectsCSV}, nil},
		{"skyline", "skyline-csv", shard(t, skylines, 4, ""), []string{skylineJSON, skylinesParquet, reservationsParquet, rejectsCSV}, nil},
		{"elasticity", "profruns-csv", shard(t, profruns, 4, ""), []string{elasticityJSON, modelsParquet, curvesParquet, rejectsCSV}, nil},
	} {
		t.Run(c.cmd, func(t *testing.T) {
			localOut := filepath.Join(t.TempDir(), "out")
			common := append([]string{c.cmd, "-o", "json", "-q", "--format", c.format}, c.args...)
			start := time.Now()
			lcode, lstdout, lstderr := runBeam(append(common, "--input", c.input, "--out", localOut)...)
			t.Logf("local: exit %d in %v", lcode, time.Since(start))
			if lcode != exitOK && lcode != exitRejected {
				t.Fatalf("local run: exit %d: %s", lcode, lstderr)
			}
			mem := "memfs://" + t.Name()
			glob := toMemfs(t, c.input, mem+"/in")
			memOut := mem + "/out/"
			// A stale output of an earlier run is removed first.
			memfs.Write(memOut+c.outputs[0], []byte("stale"))
			start = time.Now()
			mcode, mstdout, mstderr := runBeam(append(common, "--input", glob, "--out", memOut)...)
			t.Logf("memfs: exit %d in %v", mcode, time.Since(start))
			if mcode != lcode {
				t.Fatalf("memfs run: exit %d, local %d: %s", mcode, lcode, mstderr)
			}
			if c.cmd == "skyline" {
				lstdout, mstdout = string(maskSolveS([]byte(lstdout))), string(maskSolveS([]byte(mstdout)))
			}
			if mstdout != lstdout {
				t.Fatalf("stdout differs:\n%s", firstDiff([]byte(mstdout), []byte(lstdout)))
			}
			for _, name := range c.outputs {
				want, err := os.ReadFile(filepath.Join(localOut, name))
				if err != nil {
					t.Fatal(err)
				}
				got := readMemfs(t, joinOut(memOut, name))
				switch name {
				case rejectsCSV:
					// The rejects name the shards as they were given.
					want = bytes.ReplaceAll(want, []byte(filepath.Dir(c.input)+"/"), []byte(mem+"/in/"))
					if c.cmd == "classify" && !bytes.Contains(got, []byte(mem+"/in/part-")) {
						t.Errorf("rejects.csv names no memfs shard:\n%s", got)
					}
				case skylineJSON:
					got, want = maskSolveS(got), maskSolveS(want)
				case skylinesParquet:
					// solve_s is a time: the rest of the table is the same.
					tmp := filepath.Join(t.TempDir(), name)
					if err := os.WriteFile(tmp, got, 0o644); err != nil {
						t.Fatal(err)
					}
					q := "SELECT * EXCLUDE (solve_s) FROM '%s' ORDER BY job"
					res := duckdbtest.Query(t, fmt.Sprintf(q, tmp), fmt.Sprintf(q, filepath.Join(localOut, name)))
					if len(res[0]) == 0 || fmt.Sprint(res[0]) != fmt.Sprint(res[1]) {
						t.Errorf("%s: %d rows, local %d, differ", name, len(res[0]), len(res[1]))
					}
					continue
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s differs from the local run's (%d bytes, local %d):\n%s", name, len(got), len(want), firstDiff(got, want))
				}
			}
		})
	}
}

// A memfs glob that matches nothing is a usage error, as a local one is.
func TestMemfsUsage(t *testing.T) {
	code, _, stderr := runBeam("classify", "-q", "--format", "csv", "--input", "memfs://nothing/*.csv", "--out", "memfs://nothing/out")
	if code != exitUsage || !strings.Contains(stderr, `--input "memfs://nothing/*.csv": no file matches`) {
		t.Fatalf("exit %d: %s", code, stderr)
	}
}
