//go:build !linux

package miniotest

import (
	"os/exec"
	"syscall"
)

func sysProcAttr() *syscall.SysProcAttr { return nil }

func killGroup(cmd *exec.Cmd) { cmd.Process.Kill() }

func pauseGroup(cmd *exec.Cmd, pause bool) {}
