//go:build unix

package registry

import (
	"os/exec"
	"syscall"
)

// killGroup makes a cancelled git take its helpers (remote-https, ssh)
// down with it: git runs in its own process group and the group is killed.
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
