package procmem

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Root is where /proc is mounted; tests point it at a fixture.
var Root = "/proc"

// Tree returns pid and every process below it, parents before children.
func Tree(pid int) ([]int, error) {
	parents, err := parentsOf()
	if err != nil {
		return nil, err
	}
	children := map[int][]int{}
	for p, pp := range parents {
		children[pp] = append(children[pp], p)
	}
	if _, ok := parents[pid]; !ok {
		return nil, fmt.Errorf("process %d is not running", pid)
	}
	out := []int{pid}
	for i := 0; i < len(out); i++ {
		out = append(out, children[out[i]]...)
	}
	return out, nil
}

// parentsOf maps every running process to its parent.
func parentsOf() (map[int]int, error) {
	entries, err := os.ReadDir(Root)
	if err != nil {
		return nil, fmt.Errorf("listing processes in %s: %w", Root, err)
	}
	out := map[int]int{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(Root, e.Name(), "stat"))
		if err != nil {
			continue // it ended while we looked
		}
		if ppid, ok := parseParent(b); ok {
			out[pid] = ppid
		}
	}
	return out, nil
}

// parseParent reads the ppid from /proc/<pid>/stat, whose second field (the
// command name, in parentheses) may itself hold spaces and parentheses.
func parseParent(stat []byte) (int, bool) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 2 {
		return 0, false
	}
	ppid, err := strconv.Atoi(f[1])
	return ppid, err == nil
}

// PSS is a process's proportional set size in bytes.
func PSS(pid int) (int64, error) {
	return field(filepath.Join(Root, strconv.Itoa(pid), "smaps_rollup"), "Pss:")
}

// RSS is a process's resident set size in bytes.
func RSS(pid int) (int64, error) {
	return field(filepath.Join(Root, strconv.Itoa(pid), "status"), "VmRSS:")
}

// Usage is the memory of a tree of processes.
type Usage struct {
	PSS       int64 // bytes, summed over the tree
	Processes int
}

// TreePSS sums PSS over pid and every process below it. A process that ends
// while it is read is left out rather than failing the reading.
func TreePSS(pid int) (Usage, error) {
	pids, err := Tree(pid)
	if err != nil {
		return Usage{}, err
	}
	var u Usage
	for _, p := range pids {
		n, err := PSS(p)
		if err != nil {
			if p == pid {
				return Usage{}, err
			}
			continue
		}
		u.PSS += n
		u.Processes++
	}
	return u, nil
}

// field reads a "Name:   1234 kB" line.
func field(path, name string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("reading memory: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, name) {
			continue
		}
		fs := strings.Fields(line[len(name):])
		if len(fs) == 0 {
			break
		}
		n, err := strconv.ParseInt(fs[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%s in %s is %q, not a number", name, path, fs[0])
		}
		if len(fs) > 1 && fs[1] == "kB" {
			n *= 1024
		}
		return n, nil
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("reading %s: %w", path, err)
	}
	return 0, fmt.Errorf("%s has no %s line", path, strings.TrimSuffix(name, ":"))
}

// ChromiumKind names what a Chromium process is from its --type flag:
// "renderer", "zygote", "gpu-process", "utility"…, "browser" without one,
// and "gone" when it ended before it could be read.
func ChromiumKind(pid int) string {
	b, err := os.ReadFile(filepath.Join(Root, strconv.Itoa(pid), "cmdline"))
	if err != nil {
		return "gone"
	}
	// Chromium rewrites its command line for ps, joining the arguments
	// with spaces, so both separators are looked for.
	for _, arg := range bytes.FieldsFunc(b, func(r rune) bool { return r == 0 || r == ' ' }) {
		if v, ok := bytes.CutPrefix(arg, []byte("--type=")); ok {
			return string(v)
		}
	}
	return "browser"
}

// ticksPerSecond is USER_HZ, the unit of CPU times in /proc/<pid>/stat;
// it is 100 on every Linux that glimpse runs on.
const ticksPerSecond = 100

// CPU is the processor time pid has used, with that of its children that
// ended and were reaped: utime, stime, cutime and cstime of /proc/<pid>/stat.
func CPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(filepath.Join(Root, strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, fmt.Errorf("reading CPU time: %w", err)
	}
	return parseCPU(b)
}

func parseCPU(stat []byte) (time.Duration, error) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, errors.New("a stat line without a command name")
	}
	// After the name: state(0) ppid … utime(11) stime(12) cutime(13) cstime(14).
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 15 {
		return 0, fmt.Errorf("a stat line of %d fields", len(f))
	}
	var ticks int64
	for _, s := range f[11:15] {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("a CPU time of %q", s)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / ticksPerSecond, nil
}

// TreeCPU sums CPU over pid and every process below it. A process of the
// tree that ended counts once its parent reaps it, in the parent's share;
// one that ends between the listing and the reading is left out.
func TreeCPU(pid int) (time.Duration, error) {
	pids, err := Tree(pid)
	if err != nil {
		return 0, err
	}
	var sum time.Duration
	for _, p := range pids {
		d, err := CPU(p)
		if err != nil {
			if p == pid {
				return 0, err
			}
			continue
		}
		sum += d
	}
	return sum, nil
}
