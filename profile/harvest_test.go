package profile

import (
	"strings"
	"testing"
)

// The optional harvest section: a job type and ordered thresholds.
func TestValidateHarvest(t *testing.T) {
	j := &Job{Version: Version, Kind: "job", Job: "q", Elasticity: []ElasticityModel{}, Phases: []Phase{}, Warnings: []string{},
		Harvest: &Harvest{JobType: "long", LastRunS: 500, ShortBelowS: 173, LongAboveS: 433, ThresholdsFrom: "paper"}}
	if err := j.Validate(); err != nil {
		t.Fatal(err)
	}
	j.Harvest.JobType, j.Harvest.LongAboveS = "huge", 100
	err := j.Validate()
	if err == nil || !strings.Contains(err.Error(), "harvest.job_type") || !strings.Contains(err.Error(), "long_above_s") {
		t.Fatalf("got %v", err)
	}
}
