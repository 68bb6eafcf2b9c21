package main

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/runtime/graphx"
	pipepb "github.com/apache/beam/sdks/v2/go/pkg/beam/model/pipeline_v1"
	"github.com/wlprof/wlprof/elasticity"
	"github.com/wlprof/wlprof/skyline"
	"google.golang.org/protobuf/proto"
)

// The pipelines translate to the portable pipeline proto that Flink's and
// Spark's job servers receive: every step of the pipeline is there, and
// each runs in the harness image given with --environment-config (the
// one with CLP).
func TestPortablePipelines(t *testing.T) {
	const image = "registry.example/wlprof-beam-harness:2.77.0"
	env, err := graphx.CreateEnvironment(context.Background(), "beam:env:docker:v1", func(context.Context) string { return image })
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		p     *beam.Pipeline
		steps []string
	}{
		{"skyline", buildSkyline([]string{"/in/a", "/in/b"}, skylineConfig{Format: "re-native", Options: skyline.DefaultOptions(), Out: "/out"}),
			[]string{"readSkylinesFn", "fitJobFn", "collectSkylinesFn", "writeRejectsFn"}},
		{"elasticity", buildElasticity([]string{"/in/a"}, elasticityConfig{Format: "profruns-csv", Options: elasticity.DefaultOptions(), Out: "/out"}),
			[]string{"readProfRunsFn", "modelGroupFn", "collectModelsFn", "writeRejectsFn"}},
		{"classify", buildClassify([]string{"/in/a"}, classifyConfig{Format: "csv", StepMs: 120_000, Out: "/out"}),
			[]string{"readShardFn", "analyseFn", "combineFn", "writeRejectsFn"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			edges, _, err := c.p.Build()
			if err != nil {
				t.Fatal(err)
			}
			pipe, err := graphx.Marshal(edges, &graphx.Options{Environment: env})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := proto.Marshal(pipe); err != nil {
				t.Fatal(err)
			}
			var names []string
			pardos := 0
			for _, tr := range pipe.GetComponents().GetTransforms() {
				names = append(names, tr.GetUniqueName())
				if tr.GetSpec().GetUrn() != "beam:transform:pardo:v1" {
					continue
				}
				pardos++
				e := pipe.GetComponents().GetEnvironments()[tr.GetEnvironmentId()]
				var dp pipepb.DockerPayload
				if err := proto.Unmarshal(e.GetPayload(), &dp); err != nil || dp.GetContainerImage() != image {
					t.Errorf("%s runs in %q (%v), want %s", tr.GetUniqueName(), dp.GetContainerImage(), err, image)
				}
			}
			all := strings.Join(names, " ")
			for _, s := range c.steps {
				if !strings.Contains(all, s) {
					t.Errorf("no step %s in the proto: %s", s, all)
				}
			}
			if pardos < len(c.steps) {
				t.Errorf("%d ParDos, want at least %d", pardos, len(c.steps))
			}
		})
	}
}
