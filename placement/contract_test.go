package placement

import (
	"testing"

	"github.com/wlprof/wlprof/internal/stage"
	"github.com/wlprof/wlprof/internal/stage/stagetest"
)

// The stage contract, checked by the compiler: Contract has exactly
// these types. Placement's numbers are per tenant and class, not per job:
// it sets no job profile.
var _ stage.Stage[Options, Input, Result, Document] = Contract

func TestContract(t *testing.T) { stagetest.Check(t, Contract, false) }
