//go:build !unix

package registry

import "os/exec"

// killGroup: without process groups only git itself is killed on cancel.
func killGroup(cmd *exec.Cmd) {}
