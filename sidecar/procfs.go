package sidecar

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// procStat is the part of /proc/<pid>/stat the supervisor needs to tell which
// processes belong to a generation and whether they are still alive.
type procStat struct {
	pid   int
	state byte // R, S, D, Z, …; Z is a zombie waiting to be reaped
	ppid  int
	pgrp  int
}

func (p procStat) zombie() bool { return p.state == 'Z' || p.state == 'X' }

// readStat parses /proc/<pid>/stat. The command name is in parentheses and may
// itself contain spaces and parentheses, so the fields are counted from the
// last ')'.
func readStat(procRoot string, pid int) (procStat, error) {
	b, err := os.ReadFile(fmt.Sprintf("%s/%d/stat", procRoot, pid))
	if err != nil {
		return procStat{}, err
	}
	return parseStat(pid, b)
}

func parseStat(pid int, b []byte) (procStat, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStat{}, fmt.Errorf("process %d has a stat line without a command name", pid)
	}
	fields := strings.Fields(string(b[i+1:]))
	if len(fields) < 3 || len(fields[0]) != 1 {
		return procStat{}, fmt.Errorf("process %d has a stat line too short to read", pid)
	}
	ppid, err1 := strconv.Atoi(fields[1])
	pgrp, err2 := strconv.Atoi(fields[2])
	if err := errors.Join(err1, err2); err != nil {
		return procStat{}, fmt.Errorf("process %d has an unreadable stat line: %w", pid, err)
	}
	return procStat{pid: pid, state: fields[0][0], ppid: ppid, pgrp: pgrp}, nil
}

// listPIDs returns every process id under procRoot. Processes come and go
// while it reads; callers treat a pid that vanished as gone.
func listPIDs(procRoot string) ([]int, error) {
	entries, err := os.ReadDir(procRoot)
	if err != nil {
		return nil, fmt.Errorf("listing processes in %s: %w", procRoot, err)
	}
	pids := make([]int, 0, len(entries))
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil && pid > 0 {
			pids = append(pids, pid)
		}
	}
	return pids, nil
}

// cmdlineMentions reports whether an argument of the process is dir or a
// path under it (--user-data-dir=DIR, DIR/…). Matching up to a separator
// keeps dir-12 from matching dir-123. A zombie has an empty command
// line, which is why membership is also decided by process group.
func cmdlineMentions(procRoot string, pid int, dir string) bool {
	if dir == "" {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("%s/%d/cmdline", procRoot, pid))
	if err != nil {
		return false
	}
	return namesDir(b, dir)
}

// namesDir reports whether a NUL-separated command line names dir or a path
// under it.
func namesDir(b []byte, dir string) bool {
	if dir == "" {
		return false
	}
	for rest := b; ; {
		i := bytes.Index(rest, []byte(dir))
		if i < 0 {
			return false
		}
		rest = rest[i+len(dir):]
		if len(rest) == 0 || rest[0] == 0 || rest[0] == '/' {
			return true
		}
	}
}

// members returns the processes of one generation: those in its process group
// and, in case one escaped the group, those whose command line names its
// profile directory. Zombies are included so the caller can reap its own.
func members(procRoot string, pgid int, profileDir string) ([]procStat, error) {
	pids, err := listPIDs(procRoot)
	if err != nil {
		return nil, err
	}
	var out []procStat
	for _, pid := range pids {
		st, err := readStat(procRoot, pid)
		if err != nil {
			continue // exited between the listing and the read
		}
		if (pgid > 0 && st.pgrp == pgid) || cmdlineMentions(procRoot, pid, profileDir) {
			out = append(out, st)
		}
	}
	return out, nil
}

// processMemory returns how much memory a process uses: its proportional set
// size when the kernel offers smaps_rollup (shared pages, which Chromium's
// helpers have plenty of, are split between the processes instead of counted
// in each), else its resident set size.
func processMemory(procRoot string, pid int) (int64, error) {
	if f, err := os.Open(fmt.Sprintf("%s/%d/smaps_rollup", procRoot, pid)); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			rest, ok := strings.CutPrefix(sc.Text(), "Pss:")
			if !ok {
				continue
			}
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				break
			}
			return kb * 1024, nil
		}
	}
	b, err := os.ReadFile(fmt.Sprintf("%s/%d/statm", procRoot, pid))
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0, fmt.Errorf("process %d has a statm line too short to read", pid)
	}
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("process %d has an unreadable statm line: %w", pid, err)
	}
	return pages * int64(os.Getpagesize()), nil
}

// groupMemory sums the memory of every live process in the process group.
func groupMemory(procRoot string, pgid int) int64 {
	ms, err := members(procRoot, pgid, "")
	if err != nil {
		return 0
	}
	var sum int64
	for _, m := range ms {
		if m.zombie() {
			continue
		}
		if n, err := processMemory(procRoot, m.pid); err == nil {
			sum += n
		}
	}
	return sum
}
