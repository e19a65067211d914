package main

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/glimpse/glimpse/orchestrator/cmd/bench/load"
	"github.com/glimpse/glimpse/orchestrator/cmd/bench/pages"
)

// Budgets of the benchmark issue, held here rather than in timed unit
// tests, since shared machines are noisy.
const (
	maxP50Ratio = 1.15
	// A metadata render does less than the baseline's bare render (no
	// pixels, no wait for load), and a PDF no more than it.
	minMetadataRPSRatio = 1.5
	minPDFRPSRatio      = 1.1
	maxMetadataCPURatio = 0.6
	minCacheRPS         = 10000
	maxCacheP99         = 5 * time.Millisecond
	maxOrchestratorMB   = 150
	maxChromeDrift      = 0.15
	// maxPingRatio bounds what probing image and logo adds to the
	// defaults' p50.
	maxPingRatio = 1.5
)

// budget is one budget with its measured value.
type budget struct {
	name     string
	measured string
	pass     bool
	hard     bool // fails the run without -strict
	missing  bool // could not be measured
}

func (b *bench) budgets() []budget {
	var out []budget
	ratio := func(name string, label string, conc int, p50 bool, minRPS float64) {
		g := b.findRow(label, "glimpse", conc)
		if g == nil || g.base == nil || g.base.sum.Requests == 0 || g.sum.Requests == 0 {
			out = append(out, budget{name: name, measured: "not measured", missing: true})
			return
		}
		if p50 {
			r := ratioOf(g.sum.P50, g.base.sum.P50)
			out = append(out, budget{name: name, measured: fmt.Sprintf("%.2f× (%s vs %s)", r, ms(g.sum.P50), ms(g.base.sum.P50)), pass: r <= maxP50Ratio})
			return
		}
		r := g.sum.RPS / g.base.sum.RPS
		out = append(out, budget{name: name, measured: fmt.Sprintf("%.2f× (%.1f vs %.1f req/s)", r, g.sum.RPS, g.base.sum.RPS), pass: r >= minRPS})
	}
	ratio(fmt.Sprintf("metadata p50 at c1 ≤ %.2f × baseline", maxP50Ratio), kindMetadata.name, 1, true, 0)
	ratio(fmt.Sprintf("PDF p50 at c1 ≤ %.2f × baseline", maxP50Ratio), kindPDF.name, 1, true, 0)
	ratio(fmt.Sprintf("metadata req/s at c4 ≥ %.2f × baseline", minMetadataRPSRatio), kindMetadata.name, 4, false, minMetadataRPSRatio)
	ratio(fmt.Sprintf("PDF req/s at c4 ≥ %.2f × baseline", minPDFRPSRatio), kindPDF.name, 4, false, minPDFRPSRatio)
	if g := b.findRow(kindMetadata.name, "glimpse", 4); g != nil && g.base != nil && g.cpu.n > 0 && g.base.cpu.n > 0 {
		gc, bc := g.cpu.browser/time.Duration(g.cpu.n), g.base.cpu.browser/time.Duration(g.base.cpu.n)
		r := ratioOf(gc, bc)
		out = append(out, budget{name: fmt.Sprintf("metadata Chromium CPU per request at c4 ≤ %.2f × baseline", maxMetadataCPURatio),
			measured: fmt.Sprintf("%.2f× (%s vs %s)", r, ms(gc), ms(bc)), pass: r <= maxMetadataCPURatio})
	} else {
		out = append(out, budget{name: "metadata Chromium CPU per request at c4", measured: "not measured", missing: true})
	}

	on, off := b.findRow(kindDefaults.name, "glimpse", 1), b.findRow(kindDefaultsNoPing.name, "glimpse", 1)
	if on != nil && off != nil && on.sum.Requests > 0 && off.sum.Requests > 0 {
		r := ratioOf(on.sum.P50, off.sum.P50)
		out = append(out, budget{name: fmt.Sprintf("defaults p50 with ping ≤ %.1f × with ping=false", maxPingRatio),
			measured: fmt.Sprintf("%.2f× (%s vs %s)", r, ms(on.sum.P50), ms(off.sum.P50)), pass: r <= maxPingRatio})
	} else {
		out = append(out, budget{name: "defaults p50 with ping against ping=false", measured: "not measured", missing: true})
	}

	if c := b.findRow("cache hits", "glimpse", b.o.cacheConns); c != nil {
		out = append(out,
			budget{name: fmt.Sprintf("cache hits ≥ %d req/s", minCacheRPS), measured: fmt.Sprintf("%.0f req/s (p99 %s at full speed)", c.sum.RPS, ms(c.sum.P99)), pass: c.sum.RPS >= minCacheRPS})
	} else {
		out = append(out, budget{name: "cache hits", measured: "not measured", missing: true})
	}
	if c := b.findRow(cacheRateLabel, "glimpse", b.o.cacheConns); c != nil {
		// The rate must have been kept too: a server that fell behind
		// answers fewer requests than were due in the time.
		kept := c.sum.Elapsed > 0 && float64(c.sum.Requests)/c.sum.Elapsed.Seconds() >= 0.95*minCacheRPS
		out = append(out, budget{name: fmt.Sprintf("cache hits p99 < %s at %d req/s", maxCacheP99, minCacheRPS),
			measured: fmt.Sprintf("%s (%.0f req/s kept)", ms(c.sum.P99), c.sum.RPS), pass: kept && c.sum.P99 < maxCacheP99})
	} else {
		out = append(out, budget{name: "cache hits p99 at a fixed rate", measured: "not measured", missing: true})
	}
	if b.mem.orchPeakRSS > 0 {
		mb := float64(b.mem.orchPeakRSS) / (1 << 20)
		out = append(out, budget{name: fmt.Sprintf("orchestrator RSS during the soak < %d MB", maxOrchestratorMB),
			measured: fmt.Sprintf("%.1f MB at most", mb), pass: mb < maxOrchestratorMB})
	} else {
		out = append(out, budget{name: "orchestrator RSS during the soak", measured: "not measured", missing: true})
	}
	if b.mem.chromeBefore.PSS > 0 && b.mem.chromeAfter.PSS > 0 {
		d := float64(b.mem.chromeAfter.PSS)/float64(b.mem.chromeBefore.PSS) - 1
		out = append(out, budget{name: fmt.Sprintf("Chromium PSS after the soak within %.0f%% of after warm-up", maxChromeDrift*100),
			measured: fmt.Sprintf("%+.1f%% (%s → %s)", d*100, mib(b.mem.chromeBefore.PSS), mib(b.mem.chromeAfter.PSS)), pass: math.Abs(d) <= maxChromeDrift})
	} else {
		out = append(out, budget{name: "Chromium PSS after the soak", measured: "not measured", missing: true})
	}
	if b.leaks.done {
		l := b.leaks
		leaked := l.after.Leaked(l.before)
		out = append(out, budget{name: "no leaked targets or browser contexts", hard: true, pass: !leaked,
			measured: fmt.Sprintf("targets %d → %d, contexts %d → %d", l.before.Targets, l.after.Targets, l.before.Contexts, l.after.Contexts)})
	} else {
		out = append(out, budget{name: "no leaked targets or browser contexts", measured: "not measured", hard: true, missing: true})
	}
	out = append(out, b.webBudgets()...)
	out = append(out, budget{name: "no failed request", hard: true, pass: len(b.failures) == 0,
		measured: strconv.Itoa(len(b.failures)) + " failures"})
	return out
}

// verdict is the exit status once the run finished.
func (b *bench) verdict() int {
	status := 0
	for _, bg := range b.budgets() {
		if bg.pass {
			continue
		}
		if bg.hard || b.o.strict {
			status = 1
		}
	}
	return status
}

func ratioOf(a, b time.Duration) float64 {
	if b <= 0 {
		return math.NaN()
	}
	return float64(a) / float64(b)
}

func ms(d time.Duration) string {
	switch {
	case d <= 0:
		return "—"
	case d < 10*time.Millisecond:
		return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 2, 64) + "ms"
	case d < time.Second:
		return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 0, 64) + "ms"
	default:
		return strconv.FormatFloat(d.Seconds(), 'f', 2, 64) + "s"
	}
}

func secs(v float64) string {
	if math.IsNaN(v) || v <= 0 {
		return "—"
	}
	return ms(time.Duration(v * float64(time.Second)))
}

func mib(n int64) string {
	if n <= 0 {
		return "(not measured)"
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
}

func procs(n int) string {
	if n == 1 {
		return "1 process"
	}
	return strconv.Itoa(n) + " processes"
}

// report prints the table, the phases, memory, leaks, budgets and
// profiles.
func (b *bench) report() {
	w := b.out
	fmt.Fprintf(w, "\nglimpse bench on %s\n", machine(b.browser))
	fmt.Fprintf(w, "pages: %d for metadata (%s), %d for PDF; %d round(s), baseline and glimpse alternating; GLIMPSE_WARM=%d\n\n",
		len(b.metaPages), describePages(b.metaPages), len(b.pdfPages), b.o.rounds, b.o.warm)
	if n := b.webNote(); n != "" {
		fmt.Fprintf(w, "%s\n\n", n)
	}
	if b.o.sidecars > 1 {
		fmt.Fprintf(w, "glimpse renders on %d sidecars, a browser each; the baseline and the leak check use the first; Chromium's CPU and memory are summed over all of them\n\n", b.o.sidecars)
	}

	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "row\tc\treqs\treq/s\tp50\tp95\tp99\tp50 ÷ base\treq/s ÷ base\t")
	var notes []string
	for _, r := range b.rows {
		label := r.side + " " + r.label
		ratioP50, ratioRPS := "—", "—"
		if r.base != nil && r.base.sum.Requests > 0 && r.sum.Requests > 0 {
			ratioP50 = fmt.Sprintf("%.2f", ratioOf(r.sum.P50, r.base.sum.P50))
			ratioRPS = fmt.Sprintf("%.2f", r.sum.RPS/r.base.sum.RPS)
			if r.label == "cache hits" {
				ratioP50 = fmt.Sprintf("%.4f", ratioOf(r.sum.P50, r.base.sum.P50))
				ratioRPS = fmt.Sprintf("%.0f", r.sum.RPS/r.base.sum.RPS)
				notes = append(notes, "cache hits: "+r.note+"; ratios against the baseline's metadata at c4")
			} else if r.note != "" {
				notes = append(notes, label+": "+r.note)
			}
		} else if r.note != "" {
			notes = append(notes, label+": "+r.note)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t\n", label, r.conc, r.sum.Requests, rate(r.sum.RPS),
			ms(r.sum.P50), ms(r.sum.P95), ms(r.sum.P99), ratioP50, ratioRPS)
	}
	tw.Flush()
	for _, n := range notes {
		fmt.Fprintln(w, "  ·", n)
	}
	if len(b.cutSteps) > 0 {
		fmt.Fprintf(w, "  · requests still running %s after their step's share were cut, not counted: %s\n", hardStopGrace, strings.Join(b.cutSteps, ", "))
	}

	b.reportGaps()
	b.reportPhases()
	b.reportCPU()

	fmt.Fprintln(w, "\nmemory (PSS summed over each process tree, from /proc/<pid>/smaps_rollup)")
	m := b.mem
	fmt.Fprintf(w, "  orchestrator: %s after warm-up → %s after the run; RSS at most %s during the soak\n",
		mib(m.orchBefore.PSS), mib(m.orchAfter.PSS), mib(m.orchPeakRSS))
	fmt.Fprintf(w, "  Chromium:     %s in %s after warm-up → %s in %s after the run\n",
		mib(m.chromeBefore.PSS), procs(m.chromeBefore.Processes), mib(m.chromeAfter.PSS), procs(m.chromeAfter.Processes))
	if m.chromeBefore.Processes > 0 && m.chromeAfter.Processes > 0 {
		fmt.Fprintf(w, "                (%s → %s)\n", m.chromeBefore.describeKinds(), m.chromeAfter.describeKinds())
	}
	if b.leaks.done {
		l := b.leaks
		fmt.Fprintf(w, "\nleaks (Target.getTargets / getBrowserContexts on a connection of our own; %d warm contexts belong to the pool)\n", b.o.warm)
		fmt.Fprintf(w, "  targets in created contexts %d → %d (pages %d → %d), browser contexts %d → %d; Chromium's own targets %d → %d\n",
			l.before.Targets, l.after.Targets, l.before.Pages, l.after.Pages, l.before.Contexts, l.after.Contexts, l.before.Own, l.after.Own)
	}

	fmt.Fprintln(w, "\nbudgets")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, bg := range b.budgets() {
		verdict := "PASS"
		switch {
		case bg.missing:
			verdict = "----"
		case !bg.pass:
			verdict = "FAIL"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", verdict, bg.name, bg.measured)
	}
	tw.Flush()
	if !b.o.strict {
		fmt.Fprintln(w, "  (a timing budget that fails does not fail the run without -strict; a failed request or a leak does)")
	}

	if len(b.failures) > 0 {
		fmt.Fprintf(w, "\nfailed requests and checks (%d)\n", len(b.failures))
		for _, f := range b.failures[:min(len(b.failures), 20)] {
			fmt.Fprintln(w, "  -", f)
		}
	}
	b.reportProfiles()
}

// reportGaps names the pages glimpse lagged the baseline most on at c1,
// the first place to look for an added wait.
func (b *bench) reportGaps() {
	for _, r := range b.rows {
		if len(r.gaps) == 0 {
			continue
		}
		var parts []string
		for _, g := range r.gaps {
			parts = append(parts, fmt.Sprintf("%s %.2f× (%s vs %s)", g.page, g.ratio, ms(g.glimpse), ms(g.baseline)))
		}
		fmt.Fprintf(b.out, "  · %s at c1 lagged most on: %s\n", r.label, strings.Join(parts, "; "))
	}
}

func rate(v float64) string {
	switch {
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	default:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
}

// reportPhases prints where glimpse's server-side time went, per render
// phase, next to the baseline's own phases.
func (b *bench) reportPhases() {
	w := b.out
	fmt.Fprintln(w, "\nwhere the time goes: mean per request (glimpse: glimpse_render_phase_duration_seconds; baseline: its own clock)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "row\tc\tlease_wait\tnavigate\treveal\textract\tprobe\tpdf\tupload\tserver total\tclient mean\t")
	for _, r := range b.rows {
		if r.side == "baseline" && r.rawPhase.n > 0 {
			n := time.Duration(r.rawPhase.n)
			fmt.Fprintf(tw, "baseline %s\t%d\t%s\t%s\t\t%s\t\t%s\t\t\t%s\t\n", r.label, r.conc,
				"open "+ms(r.rawPhase.open/n), "load "+ms(r.rawPhase.load/n), orDash("read ", r.rawPhase.read/n), orDash("print ", r.rawPhase.print/n), ms(mean(r.sum)))
			continue
		}
		if r.phases == nil && r.server.Count == 0 {
			continue
		}
		cells := []string{}
		for _, ph := range renderPhases {
			h := r.phases[ph]
			if h.Count == 0 {
				cells = append(cells, "")
				continue
			}
			cells = append(cells, secs(h.Mean()))
		}
		fmt.Fprintf(tw, "glimpse %s\t%d\t%s\t%s\t%s\t\n", r.label, r.conc, strings.Join(cells, "\t"), secs(r.server.Mean()), ms(mean(r.sum)))
	}
	tw.Flush()
	fmt.Fprintln(w, "  · navigate covers media emulation, Page.navigate and the wait for load; reveal the scroll-through before Markdown,")
	fmt.Fprintln(w, "    a PDF or a full-page screenshot; extract the head wait and the DOM transfer;")
	fmt.Fprintln(w, "    pdf is Page.printToPDF until its stream opens, upload the streamed read into storage; the rest of server total is")
	fmt.Fprintln(w, "    HTTP, parsing, the metadata rules and the envelope. Phases of concurrent requests overlap, so they need not add up.")
}

func orDash(prefix string, d time.Duration) string {
	if d <= 0 {
		return ""
	}
	return prefix + ms(d)
}

func mean(s load.Summary) time.Duration { return s.Mean }

// machine names the machine: cores, memory, system, browser.
func machine(browser string) string {
	memGB := "?"
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemTotal:" {
				if kb, err := strconv.ParseFloat(f[1], 64); err == nil {
					memGB = strconv.FormatFloat(kb/(1<<20), 'f', 0, 64)
				}
			}
		}
	}
	osName := runtime.GOOS
	if b, err := os.ReadFile("/etc/os-release"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "PRETTY_NAME="); ok {
				osName = strings.Trim(v, `"`)
			}
		}
	}
	if v, err := os.ReadFile("/etc/debian_version"); err == nil && strings.Contains(osName, "Debian") {
		osName += " (" + strings.TrimSpace(string(v)) + ")"
	}
	if browser == "" {
		browser = "Chromium"
	}
	return fmt.Sprintf("%d cores, %s GB, %s, %s, %s", runtime.NumCPU(), memGB, osName, browser, runtime.Version())
}

// describePages says how many pages are synthetic and how many real.
func describePages(ps []pages.Page) string {
	var real int
	for _, p := range ps {
		if p.Corpus {
			real++
		}
	}
	if real == 0 {
		return fmt.Sprintf("%d synthetic, no real pages: the corpus folder is absent", len(ps))
	}
	return fmt.Sprintf("%d synthetic + %d real", len(ps)-real, real)
}
