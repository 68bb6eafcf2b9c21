package k8sworld

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"
)

// Backfill writes the world into a Prometheus storage directory, a piece
// of at most chunk at a time (promtool reads its whole input once per
// block, so a month goes in day by day), with promtool tsdb
// create-blocks-from openmetrics.
func (w *World) Backfill(ctx context.Context, storage string, chunk time.Duration) error {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		return fmt.Errorf("promtool not found (Debian package prometheus; make test installs it): %w", err)
	}
	if err := os.MkdirAll(storage, 0o755); err != nil {
		return err
	}
	end := w.c.Start.Add(w.c.Duration)
	in := filepath.Join(storage, "..", filepath.Base(storage)+".om")
	defer os.Remove(in)
	for t := w.at; t.Before(end); t = w.at {
		f, err := os.Create(in)
		if err != nil {
			return err
		}
		err = w.Write(f, t.Add(chunk))
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		hours := int(max(chunk, 2*time.Hour).Hours())
		cmd := exec.CommandContext(ctx, promtool, "tsdb", "create-blocks-from", "openmetrics",
			"--max-block-duration="+strconv.Itoa(hours)+"h", in, storage)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("promtool tsdb create-blocks-from openmetrics: %v\n%s", err, tail(out))
		}
	}
	return nil
}

func tail(b []byte) []byte {
	if len(b) > 2000 {
		return b[len(b)-2000:]
	}
	return b
}

// Server is a Prometheus server started on 127.0.0.1.
type Server struct {
	URL  string
	cmd  *exec.Cmd
	done chan error
	log  *bytes.Buffer
}

// Start runs prometheus over storage on a free port of 127.0.0.1, with no
// scrape targets, a retention that keeps backfilled history, and blocks of
// at most a day (the backfill's own: compacting a month of them in the
// background would load the machine during a benchmark), and waits until
// it says it is ready.
func Start(ctx context.Context, storage string) (*Server, error) {
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		return nil, fmt.Errorf("prometheus not found (Debian package prometheus; make test installs it): %w", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := l.Addr().String()
	l.Close()
	cfg := filepath.Join(storage, "..", filepath.Base(storage)+".yml")
	if err := os.WriteFile(cfg, []byte("global:\n  scrape_interval: 1h\n"), 0o644); err != nil {
		return nil, err
	}
	s := &Server{URL: "http://" + addr, done: make(chan error, 1), log: &bytes.Buffer{}}
	s.cmd = exec.Command(bin, "--config.file="+cfg, "--storage.tsdb.path="+storage,
		"--storage.tsdb.retention.time=100y", "--storage.tsdb.max-block-duration=24h", "--web.listen-address="+addr, "--log.level=warn")
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	dieWithParent(s.cmd)
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	go func() { s.done <- s.cmd.Wait() }()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		select {
		case err := <-s.done:
			return nil, fmt.Errorf("prometheus exited before it was ready: %v\n%s", err, tail(s.log.Bytes()))
		case <-ctx.Done():
			s.Stop()
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		resp, err := http.Get(s.URL + "/-/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s, nil
			}
		}
		if time.Now().After(deadline) {
			s.Stop()
			return nil, errors.New("prometheus not ready after 2 minutes")
		}
	}
}

// Stop ends the server (SIGTERM, then SIGKILL after 10 s).
func (s *Server) Stop() {
	if s.cmd.Process == nil {
		return
	}
	_ = s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
}
