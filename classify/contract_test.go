package classify

import (
	"testing"

	"github.com/wlprof/wlprof/internal/stage"
	"github.com/wlprof/wlprof/internal/stage/stagetest"
)

// The stage contract, checked by the compiler: Contract has exactly these
// types. Classify has no per-job numbers: its profile is tenants.json
// (Result.Profile), not a job's.
var _ stage.Stage[Options, Input, Result, Document] = Contract

func TestContract(t *testing.T) { stagetest.Check(t, Contract, false) }
