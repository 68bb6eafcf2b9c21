package skyline

import (
	"testing"

	"github.com/wlprof/wlprof/internal/stage"
	"github.com/wlprof/wlprof/internal/stage/stagetest"
)

// The stage contract, checked by the compiler: Contract has exactly
// these types, and its result sets job profiles.
var (
	_ stage.Stage[Options, Input, Result, Document] = Contract
	_ stage.JobProfiler                             = (*Result)(nil)
)

func TestContract(t *testing.T) { stagetest.Check(t, Contract, true) }
