package k8sworld

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// Serve is what a test of the world needs: the world backfilled a day at a
// time into storage of t's own and a Prometheus server over it, stopped
// when t ends.
func Serve(t testing.TB, w *World) *Server {
	t.Helper()
	ctx := context.Background()
	storage := filepath.Join(t.TempDir(), "tsdb")
	if err := w.Backfill(ctx, storage, 24*time.Hour); err != nil {
		t.Fatal(err)
	}
	srv, err := Start(ctx, storage)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	return srv
}
