package k8sworld

import (
	"os/exec"
	"syscall"
)

// dieWithParent makes the server end when the test binary that started
// it does, even when it crashes before its cleanup.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
