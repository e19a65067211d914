package main

import (
	"fmt"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/glimpse/glimpse/orchestrator/cmd/bench/procmem"
)

// cpuUse is processor time spent by each party, and the requests it served.
// At concurrency 4 the two cores are the limit, so a side's requests/s is
// about their count divided by its CPU per request.
type cpuUse struct {
	orch    time.Duration // the orchestrator
	sidecar time.Duration // the sidecar process: DevTools proxy, egress guard
	browser time.Duration // Chromium below the sidecar
	self    time.Duration // this program: load, page server, baseline client
	n       int
}

func (b *bench) cpuNow() cpuUse {
	var u cpuUse
	if b.orch != nil {
		u.orch, _ = procmem.CPU(b.orch.pid())
	}
	for _, side := range b.sidecars() {
		// The sidecar's own figure leaves out Chromium, a child that has
		// not ended; the tree's holds both.
		own, _ := procmem.CPU(side.pid())
		tree, _ := procmem.TreeCPU(side.pid())
		u.sidecar += own
		u.browser += tree - own
	}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		u.self = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	return u
}

// add counts what was spent between before and after, on n requests.
func (c *cpuUse) add(before, after cpuUse, n int) {
	c.orch += after.orch - before.orch
	c.sidecar += after.sidecar - before.sidecar
	c.browser += after.browser - before.browser
	c.self += after.self - before.self
	c.n += n
}

// reportCPU prints processor time per request for every row that has it.
func (b *bench) reportCPU() {
	w := b.out
	fmt.Fprintln(w, "\nCPU per request (from /proc/<pid>/stat and getrusage; a side's background work after its last answer falls on the next step)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "row\tc\torchestrator\tsidecar\tChromium\tbench process\ttotal\t")
	for _, r := range b.rows {
		if r.cpu.n == 0 {
			continue
		}
		n := time.Duration(r.cpu.n)
		fmt.Fprintf(tw, "%s %s\t%d\t%s\t%s\t%s\t%s\t%s\t\n", r.side, r.label, r.conc,
			ms(r.cpu.orch/n), ms(r.cpu.sidecar/n), ms(r.cpu.browser/n), ms(r.cpu.self/n),
			ms((r.cpu.orch+r.cpu.sidecar+r.cpu.browser+r.cpu.self)/n))
	}
	tw.Flush()
}
