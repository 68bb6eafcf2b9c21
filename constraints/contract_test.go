package constraints

import (
	"testing"

	"github.com/wlprof/wlprof/internal/stage"
	"github.com/wlprof/wlprof/internal/stage/stagetest"
)

// The stage contract, checked by the compiler: Contract has exactly
// these types. Its numbers are per constraint and attribute, not per
// job, so the result sets no job profile, and it has no --job.
var _ stage.Stage[Options, Input, Result, Document] = Contract

func TestContract(t *testing.T) { stagetest.Check(t, Contract, false) }
