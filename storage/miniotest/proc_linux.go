package miniotest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// sysProcAttr puts the server in its own process group, so that killing it
// also ends anything it spawned, and has the kernel kill it if the test
// binary dies first.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

func killGroup(cmd *exec.Cmd) {
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}

// pauseGroup stops or continues every process of the group: a server that
// accepts connections and never answers, as a hung one does.
func pauseGroup(cmd *exec.Cmd, pause bool) {
	sig := syscall.SIGCONT
	if pause {
		sig = syscall.SIGSTOP
	}
	syscall.Kill(-cmd.Process.Pid, sig)
	if !pause {
		return
	}
	// A stop reaches each thread in its own time; until every one has
	// stopped, a request in flight may still be answered.
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) && !allStopped(cmd.Process.Pid) {
		time.Sleep(5 * time.Millisecond)
	}
}

// allStopped reports whether every thread of pid is stopped.
func allStopped(pid int) bool {
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/stat", pid))
	if err != nil || len(tasks) == 0 {
		return false
	}
	for _, p := range tasks {
		b, err := os.ReadFile(p)
		if err != nil {
			return false
		}
		// The state follows the command's closing parenthesis.
		i := strings.LastIndexByte(string(b), ')')
		if i < 0 || i+2 >= len(b) || (b[i+2] != 'T' && b[i+2] != 't') {
			return false
		}
	}
	return true
}
