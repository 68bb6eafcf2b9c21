package simulate

import (
	"testing"

	"github.com/wlprof/wlprof/internal/stage"
	"github.com/wlprof/wlprof/internal/stage/stagetest"
)

// The stage contract, checked by the compiler: Contract has exactly
// these types. The simulated jobs run together on one cluster, so there
// is no --job, and their what-if times are no section of a job's
// profile.
var _ stage.Stage[Options, Input, Result, Document] = Contract

func TestContract(t *testing.T) { stagetest.Check(t, Contract, false) }
