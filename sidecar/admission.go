package sidecar

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/chromedp/cdproto/cdp/jsonv2"

	"github.com/glimpse/glimpse/cdp"
)

// A sidecar admits at most MaxPages pages at once, whoever asks: each
// orchestrator caps its own leases, but several orchestrators share the
// sidecars, and without a limit of its own a sidecar takes whatever
// arrives until Chromium runs out of memory. A page is a browser context
// (the pool opens one page in each); it counts from the command that
// creates its context to the one that disposes of it, or to the end of the
// connection that made it, which disposes of it too.

// Memory sizing of the default page limit: what the browser needs without
// pages, and what one page takes at its peak, renderer and the /dev/shm it
// draws in together.
const (
	browserBaseBytes = 512 << 20
	pageBytes        = 512 << 20
	// DefaultMaxPages is the limit without a memory limit to derive it
	// from.
	DefaultMaxPages = 8
)

// cgroupMemoryFiles are where a container's memory limit is read: cgroup
// v2, then v1.
var cgroupMemoryFiles = []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}

// MaxPagesFor is the default page limit for a memory limit in bytes (0 or
// less: none known): the pages that fit beside the browser, at least 1.
func MaxPagesFor(memoryLimit int64) int {
	if memoryLimit <= 0 {
		return DefaultMaxPages
	}
	return max(1, int((memoryLimit-browserBaseBytes)/pageBytes))
}

// MemoryLimit reads the container's memory limit from its cgroup; 0 when
// there is none, or none can be read.
func MemoryLimit() int64 {
	for _, f := range cgroupMemoryFiles {
		if n, ok := readMemoryLimit(f); ok {
			return n
		}
	}
	return 0
}

// readMemoryLimit reads one cgroup memory file: "max" or a number of bytes
// so large that it means no limit gives (0, true).
func readMemoryLimit(path string) (int64, bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	line, err := bufio.NewReader(f).ReadString('\n')
	if err != nil && line == "" {
		return 0, false
	}
	line = strings.TrimSpace(line)
	if line == "max" {
		return 0, true
	}
	n, err := strconv.ParseInt(line, 10, 64)
	if err != nil || n <= 0 {
		return 0, false
	}
	if n >= 1<<60 { // cgroup v1's "unlimited" is a page-rounded MaxInt64
		return 0, true
	}
	return n, true
}

// admission counts the pages of every client of one sidecar against its
// limit. A nil admission admits everything and counts nothing.
type admission struct {
	max     int // 0: no limit
	mu      sync.Mutex
	total   int
	refused atomic.Int64
}

// admit takes a page for a client that holds held of them, and reports
// whether it may be opened.
func (a *admission) admit(held *int) bool {
	if a == nil {
		return true
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.max > 0 && a.total >= a.max {
		a.refused.Add(1)
		return false
	}
	a.total++
	*held++
	return true
}

// release gives back n of the pages a client holds.
func (a *admission) release(held *int, n int) {
	if a == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	n = min(n, *held)
	*held -= n
	a.total -= n
}

// counts is the limit, the pages admitted now and the refusals ever.
func (a *admission) counts() (limit, admitted int, refused int64) {
	if a == nil {
		return 0, 0, 0
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.max, a.total, a.refused.Load()
}

// fullRefusal answers a page the limit does not admit: a DevTools error
// whose code tells the pool that the sidecar is full, not broken.
func (a *admission) fullRefusal() *refusal {
	return &refusal{reason: "full", code: int(cdp.CodeSidecarFull),
		message: fmt.Sprintf("glimpse's sidecar is full: it admits at most %d pages at once (GLIMPSE_SIDECAR_MAX_PAGES); try another sidecar or wait for a page to close", a.max)}
}

// commandID is the id of a command the filter already read.
func commandID(msg []byte) *int64 {
	var c command
	_ = jsonv2.Unmarshal(msg, &c)
	return c.ID
}
