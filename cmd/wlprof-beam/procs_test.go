package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	fnpb "github.com/apache/beam/sdks/v2/go/pkg/beam/model/fnexecution_v1"
	"google.golang.org/grpc"

	"github.com/wlprof/wlprof/classify"
	"github.com/wlprof/wlprof/skyline"
)

// The Beam Go SDK's own programs this test runs as processes: Prism's
// job server, and the harness boot loader that workers of an EXTERNAL or
// PROCESS environment (and the SDK's Docker image) start with.
const (
	prismPkg = "github.com/apache/beam/sdks/v2/go/cmd/prism"
	bootPkg  = "github.com/apache/beam/sdks/v2/go/container"
)

// buildSDKProgram builds one of the Beam Go SDK's programs from the
// module's own requirement into dir. It skips only when the package is not
// in the SDK version go.mod requires.
func buildSDKProgram(t *testing.T, pkg, dir string) string {
	t.Helper()
	if out, err := exec.Command("go", "list", pkg).CombinedOutput(); err != nil {
		if strings.Contains(string(out), "no required module") || strings.Contains(string(out), "does not contain package") {
			t.Skipf("%s is not in the Beam SDK this module requires: %s", pkg, out)
		}
		t.Fatalf("go list %s: %v\n%s", pkg, err, out)
	}
	bin := filepath.Join(dir, filepath.Base(pkg))
	if out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	return bin
}

// freePort is a TCP port of 127.0.0.1 free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startPrism starts Prism's job server as a process of its own on
// 127.0.0.1 and returns its endpoint once it accepts connections; the
// process is killed at the end of the test.
func startPrism(t *testing.T, bin string) string {
	t.Helper()
	port := freePort(t)
	var log bytes.Buffer
	cmd := exec.Command(bin, "--job_port", fmt.Sprint(port), "--serve_http=false", "--log_level", "warn")
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("prism's log:\n%s", log.String())
		}
	})
	endpoint := fmt.Sprintf("127.0.0.1:%d", port)
	for deadline := time.Now().Add(20 * time.Second); ; {
		c, err := net.DialTimeout("tcp", endpoint, time.Second)
		if err == nil {
			c.Close()
			return endpoint
		}
		if time.Now().After(deadline) {
			t.Fatalf("prism at %s: not listening after 20s: %v", endpoint, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// workerPool is the Beam Fn API's external worker pool on 127.0.0.1, as
// the SDK's boot --worker_pool serves it (container/pool), but on a port
// of its own and with a temporary semi-persistent directory: each
// StartWorker starts the boot loader as a process, which fetches the
// staged worker binary from the runner and runs it.
type workerPool struct {
	fnpb.UnimplementedBeamFnExternalWorkerPoolServer
	boot, dir string

	mu      sync.Mutex
	workers map[string]*exec.Cmd
	started int
	logs    bytes.Buffer
}

func (p *workerPool) StartWorker(_ context.Context, req *fnpb.StartWorkerRequest) (*fnpb.StartWorkerResponse, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	cmd := exec.Command(p.boot,
		"--id="+req.GetWorkerId(),
		"--control_endpoint="+req.GetControlEndpoint().GetUrl(),
		"--artifact_endpoint="+req.GetArtifactEndpoint().GetUrl(),
		"--provision_endpoint="+req.GetProvisionEndpoint().GetUrl(),
		"--logging_endpoint="+req.GetLoggingEndpoint().GetUrl(),
		"--semi_persist_dir="+p.dir)
	cmd.Stdout, cmd.Stderr = &p.logs, &p.logs
	// The boot loader writes pipeline_options.json to its working
	// directory.
	cmd.Dir = p.dir
	// The boot loader runs the worker as its child: a process group, to
	// stop both.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		return &fnpb.StartWorkerResponse{Error: err.Error()}, nil
	}
	p.workers[req.GetWorkerId()] = cmd
	p.started++
	return &fnpb.StartWorkerResponse{}, nil
}

func (p *workerPool) StopWorker(_ context.Context, req *fnpb.StopWorkerRequest) (*fnpb.StopWorkerResponse, error) {
	p.mu.Lock()
	cmd := p.workers[req.GetWorkerId()]
	delete(p.workers, req.GetWorkerId())
	p.mu.Unlock()
	if cmd != nil {
		stopWorker(cmd)
	}
	return &fnpb.StopWorkerResponse{}, nil
}

// stopWorker kills a worker, the boot loader and the harness it started:
// the runner asks for it once the job is over, and the Go harness does not
// exit when its control stream closes.
func stopWorker(cmd *exec.Cmd) {
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	cmd.Wait()
}

// startPool serves a workerPool on 127.0.0.1 and returns it and its
// address; at the end of the test it stops, with its workers, and the
// copies of the worker binary the boot loader left under /tmp go too.
func startPool(t *testing.T, boot string) (*workerPool, string) {
	t.Helper()
	before := bootCopies()
	p := &workerPool{boot: boot, dir: t.TempDir(), workers: map[string]*exec.Cmd{}}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	fnpb.RegisterBeamFnExternalWorkerPoolServer(srv, p)
	go srv.Serve(l)
	t.Cleanup(func() {
		srv.Stop()
		p.mu.Lock()
		for id, cmd := range p.workers {
			stopWorker(cmd)
			delete(p.workers, id)
		}
		p.mu.Unlock()
		removeBootCopies(t, before)
		if t.Failed() {
			t.Logf("workers' log:\n%s", p.logs.String())
		}
	})
	return p, l.Addr().String()
}

// The boot loader copies the worker binary to a new /tmp/bin* directory
// (fixed in the SDK: the semi-persistent directory may be noexec) and
// never removes it.
func bootCopies() map[string]bool {
	m := map[string]bool{}
	dirs, _ := filepath.Glob("/tmp/bin*")
	for _, d := range dirs {
		m[d] = true
	}
	return m
}

// removeBootCopies removes the /tmp/bin* directories made since before
// whose only file is a copy of this test binary: this test's workers'.
func removeBootCopies(t *testing.T, before map[string]bool) {
	self, err := os.Executable()
	if err != nil {
		return
	}
	want, err := os.ReadFile(self)
	if err != nil {
		return
	}
	for d := range bootCopies() {
		if before[d] {
			continue
		}
		entries, err := os.ReadDir(d)
		if err != nil || len(entries) != 1 || entries[0].Name() != "worker" {
			continue
		}
		if got, err := os.ReadFile(filepath.Join(d, "worker")); err == nil && bytes.Equal(got, want) {
			if err := os.RemoveAll(d); err != nil {
				t.Logf("removing the worker's copy %s: %v", d, err)
			}
		}
	}
}

// Flink, Spark and Dataflow run the pipeline in other processes than the
// one that builds it: the DoFns, their fields, coders and side inputs
// cross as the pipeline proto and as encoded elements, and the workers
// run the staged binary. Here Prism runs as a job server process of its
// own on 127.0.0.1, with its workers in the launching process (LOOPBACK)
// and in processes of their own started through a worker pool
// (EXTERNAL: the SDK's boot loader fetches the staged binary, this test
// binary, and runs it as the SDK harness). classify and skyline give the
// bytes they give in process, which are wlprof's, on 1 and 4 shards.
func TestAcrossProcesses(t *testing.T) {
	dir := t.TempDir()
	start := time.Now()
	prism := buildSDKProgram(t, prismPkg, dir)
	boot := buildSDKProgram(t, bootPkg, dir)
	t.Logf("built prism and boot: %v", time.Since(start))
	endpoint := startPrism(t, prism)
	pool, poolAddr := startPool(t, boot)

	usage := world(t)
	wantClassify, _ := coreDoc(t, classify.Contract, "csv", []string{usage}, classify.DefaultOptions())
	jobs := skylineWorld(t, 12)
	wantSkyline, _ := coreDoc(t, skyline.Contract, "skyline-csv", []string{jobs}, skyline.DefaultOptions())

	envs := []struct {
		name string
		args []string
	}{
		{"in-process", nil},
		{"loopback", []string{"--endpoint", endpoint, "--environment-type", "LOOPBACK"}},
		{"external", []string{"--endpoint", endpoint, "--environment-type", "EXTERNAL", "--environment-config", poolAddr}},
	}
	for _, st := range []struct {
		cmd, file, format, path string
		want                    []byte
	}{
		{"classify", classifyJSON, "csv", usage, wantClassify},
		{"skyline", skylineJSON, "skyline-csv", jobs, wantSkyline},
	} {
		for _, n := range []int{1, 4} {
			glob := shard(t, st.path, n, "")
			for _, env := range envs {
				t.Run(fmt.Sprintf("%s-%d-shards-%s", st.cmd, n, env.name), func(t *testing.T) {
					pool.mu.Lock()
					workers := pool.started
					pool.mu.Unlock()
					start := time.Now()
					code, stdout, file, _ := beamDoc(t, st.cmd, st.file, st.format, append([]string{"--input", glob}, env.args...)...)
					t.Logf("%s, %d shards, %s: %v", st.cmd, n, env.name, time.Since(start))
					checkAsCore(t, st.cmd, st.file, code, stdout, file, st.want)
					pool.mu.Lock()
					workers = pool.started - workers
					pool.mu.Unlock()
					// The pool must have started the workers: else the
					// run did not leave this process.
					if env.name == "external" {
						if workers == 0 {
							t.Fatalf("the worker pool started no worker")
						}
						t.Logf("worker processes started: %d", workers)
					}
				})
			}
		}
	}
}
