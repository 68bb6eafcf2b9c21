package dag

import (
	"testing"

	"github.com/wlprof/wlprof/internal/stage"
	"github.com/wlprof/wlprof/internal/stage/stagetest"
)

// The stage contract, checked by the compiler: Contract has exactly
// these types. The maximum per run is no section of a job's profile, so
// the result sets none.
var _ stage.Stage[Options, Input, Result, Document] = Contract

func TestContract(t *testing.T) { stagetest.Check(t, Contract, true) }
