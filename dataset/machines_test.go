package dataset

import (
	"math"
	"testing"
)

// Machine events round-trip, NaN capacity as null and back.
func TestMachineEventsRoundTrip(t *testing.T) {
	rows := []MachineEvent{
		{Machine: "23624491139", TimeMs: 1556693400000, Type: MachineAdd, Rack: "sw1", CPUs: 0.5, Memory: 0.25, Platform: "p1", Source: "google2019-machine-events"},
		{Machine: "23624491139", TimeMs: 1556700000000, Type: MachineRemove, Rack: "sw1", CPUs: math.NaN(), Memory: math.NaN(), Source: "google2019-machine-events"},
		{Machine: "m_1", TimeMs: 0, Type: MachineUpdate, Rack: "7", CPUs: 96, Memory: 1, Source: "alibaba2018-machine-meta"},
		{Machine: "m_2", TimeMs: 1000, Type: MachineAdd},
	}
	checkRoundTrip(t, MachineEventsTable, rows)
}
