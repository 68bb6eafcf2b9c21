package main

import (
	"flag"
	"os"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
)

func TestMain(m *testing.M) {
	flag.Parse()
	beam.Init() // as main does: the runners refuse a pipeline before it
	os.Exit(m.Run())
}
