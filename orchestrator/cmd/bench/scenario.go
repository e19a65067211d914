package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/glimpse/glimpse/orchestrator/cmd/bench/load"
	"github.com/glimpse/glimpse/orchestrator/cmd/bench/pages"
	"github.com/glimpse/glimpse/orchestrator/cmd/bench/procmem"
	"github.com/glimpse/glimpse/orchestrator/cmd/bench/rawcdp"
	"github.com/glimpse/glimpse/orchestrator/cmd/bench/scrape"
	"github.com/glimpse/glimpse/sidecar"
)

// requestTimeout bounds one request of either side: glimpse's default
// `timeout` of 28 s plus room for the answer to arrive.
const requestTimeout = 35 * time.Second

// bench is one run: the processes, the pages, and everything measured.
type bench struct {
	o   options
	out io.Writer
	dir string

	site       *pages.Site
	side, orch *proc
	sidecar    string  // host:port
	more       []*proc // sidecars beyond the first (-sidecars), glimpse's only
	api        *api
	raw        *rawcdp.Browser
	rawOpen    *rawcdp.Browser // raw through the unfiltered proxy: nothing blocked
	web        *pages.Web      // the web-like page model's third parties
	// full is a second sidecar on the full browser, and rawFull the
	// baseline's connection to it (-compare-chrome).
	full        *proc
	rawFull     *rawcdp.Browser
	fullBrowser string
	metricsURL  string
	browser     string // Chromium's product name, from /healthz

	metaPages, pdfPages []pages.Page
	seq                 atomic.Int64 // makes every target URL unique
	modes               fetchModes

	rows     []*row
	cutSteps []string // steps whose last requests were cut at their hard stop
	failures []string
	mem      memory
	leaks    leakCheck
	profiles []profileOut
	// profileNotes are profiles that could not be taken; a profile is not
	// a request, so they do not fail the run.
	profileNotes []string
}

// row is one line of the table.
type row struct {
	label    string // "metadata", "PDF", …
	side     string // "baseline" or "glimpse"
	conc     int
	sum      load.Summary
	base     *row   // the baseline its ratios refer to
	note     string // printed after the table
	phases   map[string]scrape.Histogram
	server   scrape.Histogram // glimpse's own request duration
	rawPhase rawPhases
	gaps     []pageGap // the pages glimpse lagged most on, at c1
	cpu      cpuUse
}

// rawPhases adds up where the baseline's time went.
type rawPhases struct {
	n                       int
	open, load, read, print time.Duration
}

func (r *rawPhases) add(res rawcdp.Result) {
	r.n++
	r.open += res.Open
	r.load += res.Load
	r.read += res.Read
	r.print += res.Print
}

// run is the whole benchmark; it returns the exit status.
func run(ctx context.Context, o options, out io.Writer) int {
	ctx, cancel := context.WithTimeout(ctx, o.timeLimit)
	defer cancel()
	b := &bench{o: o, out: out}
	defer b.close()
	if err := b.setup(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "bench: could not start:", err)
		return 2
	}
	// The timed steps end a reserve before the limit, so the readings
	// after them (settling, leaks, memory) always happen.
	end, _ := ctx.Deadline()
	runCtx, cancelRun := context.WithDeadline(ctx, end.Add(-reserve))
	err := b.measure(runCtx)
	truncated := err != nil && runCtx.Err() != nil && ctx.Err() == nil
	cancelRun()
	if ctx.Err() == nil {
		b.readingsAfter(ctx)
	}
	b.summariseProfiles()
	if truncated {
		err = fmt.Errorf("the run hit its time limit of %s (-time-limit) before it finished: %w", o.timeLimit, err)
	}
	b.report()
	if err != nil {
		fmt.Fprintln(out, "\nFAIL:", err)
		return 1
	}
	return b.verdict()
}

// readingsAfter waits for the browser to settle, then counts its targets
// and reads every process's memory.
func (b *bench) readingsAfter(ctx context.Context) {
	if !b.leaks.started {
		return
	}
	after, err := b.settled(ctx, &b.leaks.before)
	if err != nil {
		b.fail("counting the browser's targets after the run: %v", err)
		return
	}
	b.leaks.after, b.leaks.done = after, true
	b.mem.orchAfter = b.orchMemory()
	// Renderers of disposed contexts take a moment to exit; their memory
	// is not what the run left behind.
	deadline := time.Now().Add(5 * time.Second)
	for {
		b.mem.chromeAfter = b.chromeMemory()
		if b.mem.chromeAfter.Processes <= b.mem.chromeBefore.Processes || time.Now().After(deadline) {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(250 * time.Millisecond):
		}
	}
}

func (b *bench) step(format string, args ...any) {
	if b.o.verbose {
		fmt.Fprintf(os.Stderr, "bench: "+format+"\n", args...)
	}
}

// setup starts the page server, the sidecar, the orchestrator and the
// baseline's own DevTools connection.
func (b *bench) setup(ctx context.Context) error {
	for _, name := range []string{"sidecar", "orchestrator"} {
		if _, err := os.Stat(filepath.Join(b.o.binDir, name)); err != nil {
			return fmt.Errorf("%s is missing from %s: run `make build` first (make bench does)", name, b.o.binDir)
		}
	}
	dir, err := os.MkdirTemp("", "glimpse-bench-")
	if err != nil {
		return err
	}
	b.dir = dir
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))

	if !b.o.noWeb {
		if b.web, err = pages.StartWeb(b.o.webSeed); err != nil {
			return err
		}
	}
	site, err := pages.StartWith(b.o.evalDir, b.web)
	if err != nil {
		return err
	}
	b.site = site
	b.choosePages()

	plans := filepath.Join(dir, "plans.yaml")
	if err := os.WriteFile(plans, []byte("anonymous: {name: bench, limit: 1000000000, window: 24h}\n"), 0o600); err != nil {
		return err
	}
	sidecarAddr, err := freeAddr()
	if err != nil {
		return err
	}
	b.sidecar = sidecarAddr
	token := sidecar.NewToken()
	b.side, err = startProc("sidecar", filepath.Join(b.o.binDir, "sidecar"), b.sidecarEnv(sidecarAddr, token), filepath.Join(dir, "sidecar.log"))
	if err != nil {
		return err
	}
	startCtx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if err := waitReady(startCtx, b.side, "http://"+sidecarAddr+"/healthz"); err != nil {
		return err
	}
	addrs, err := b.startMoreSidecars(startCtx, token)
	if err != nil {
		return err
	}
	apiAddr, err := freeAddr()
	if err != nil {
		return err
	}
	b.orch, err = startProc("orchestrator", filepath.Join(b.o.binDir, "orchestrator"), []string{
		"GLIMPSE_ADDR=" + apiAddr,
		"GLIMPSE_SIDECARS=" + strings.Join(append([]string{sidecarAddr}, addrs...), ","),
		"GLIMPSE_SIDECAR_TOKEN=" + token,
		"GLIMPSE_ALLOW_TARGETS=127.0.0.0/8",
		"GLIMPSE_PLANS=" + plans,
		"GLIMPSE_STORAGE_DIR=" + filepath.Join(dir, "data"),
		"GLIMPSE_PPROF=true",
		fmt.Sprintf("GLIMPSE_WARM=%d", b.o.warm),
	}, filepath.Join(dir, "orchestrator.log"))
	if err != nil {
		return err
	}
	base := "http://" + apiAddr
	if err := waitReady(startCtx, b.orch, base+"/readyz"); err != nil {
		return err
	}
	b.api = newAPI(base, max(b.o.cacheConns, b.o.soakConc, 8))
	b.metricsURL = base + "/metrics"
	b.raw, err = rawcdp.Dial(startCtx, "ws://"+sidecarAddr+"/devtools/browser", token)
	if err != nil {
		return fmt.Errorf("the baseline could not connect to the sidecar: %w", err)
	}
	if b.rawOpen, err = b.unfilteredBaseline(startCtx); err != nil {
		return err
	}
	if err := b.startFullBrowser(startCtx, token); err != nil {
		return err
	}
	b.browser = b.sidecarHealth(startCtx).Browser
	return nil
}

// sidecarEnv is the environment of a sidecar glimpse renders on, listening
// on addr. Recycling is off: a restart in the middle would cut the
// baseline's connection and make the memory and leak readings meaningless.
func (b *bench) sidecarEnv(addr, token string) []string {
	return append([]string{
		"GLIMPSE_SIDECAR_ADDR=" + addr,
		"GLIMPSE_SIDECAR_TOKEN=" + token,
		"GLIMPSE_ALLOW_TARGETS=127.0.0.0/8",
		"GLIMPSE_RECYCLE_AFTER=0",
	}, b.webSidecarEnv()...)
}

// startMoreSidecars starts the sidecars beyond the first that -sidecars
// asks for, like the first, and returns their addresses.
func (b *bench) startMoreSidecars(ctx context.Context, token string) ([]string, error) {
	var addrs []string
	for i := 2; i <= b.o.sidecars; i++ {
		addr, err := freeAddr()
		if err != nil {
			return nil, err
		}
		p, err := startProc(fmt.Sprintf("sidecar %d", i), filepath.Join(b.o.binDir, "sidecar"), b.sidecarEnv(addr, token),
			filepath.Join(b.dir, fmt.Sprintf("sidecar-%d.log", i)))
		if err != nil {
			return nil, err
		}
		b.more = append(b.more, p)
		if err := waitReady(ctx, p, "http://"+addr+"/healthz"); err != nil {
			return nil, err
		}
		addrs = append(addrs, addr)
	}
	return addrs, nil
}

// sidecars are every sidecar glimpse renders on, the first one first.
func (b *bench) sidecars() []*proc {
	if b.side == nil {
		return nil
	}
	return append([]*proc{b.side}, b.more...)
}

// choosePages spreads the metadata rows over the corpus and takes the
// named cases for the PDF rows; the synthetic pages are in both.
func (b *bench) choosePages() { b.choose(b.site.Pages()) }

func (b *bench) choose(all []pages.Page) {
	var corpus []pages.Page
	byName := map[string]pages.Page{}
	for _, p := range all {
		if p.Corpus {
			corpus = append(corpus, p)
			byName[p.Name] = p
			continue
		}
		b.metaPages = append(b.metaPages, p)
		b.pdfPages = append(b.pdfPages, p)
	}
	n := b.o.corpusPages
	if n < 0 || n > len(corpus) {
		n = len(corpus)
	}
	for i := range n {
		b.metaPages = append(b.metaPages, corpus[i*len(corpus)/n])
	}
	for _, name := range b.o.pdfCorpus {
		if p, ok := byName[name]; ok {
			b.pdfPages = append(b.pdfPages, p)
		}
	}
}

type sidecarHealth struct {
	Browser     string `json:"browser"`
	MemoryBytes int64  `json:"memory_bytes"`
	OpenPages   int    `json:"open_pages"`
}

func (b *bench) sidecarHealth(ctx context.Context) sidecarHealth {
	var h sidecarHealth
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+b.sidecar+"/healthz", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return h
	}
	defer resp.Body.Close()
	_ = json.NewDecoder(resp.Body).Decode(&h)
	return h
}

func (b *bench) close() {
	if b.raw != nil {
		_ = b.raw.Close()
	}
	if b.rawFull != nil {
		_ = b.rawFull.Close()
	}
	if b.full != nil {
		if err := b.full.stop(30 * time.Second); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
		}
	}
	if b.orch != nil {
		if err := b.orch.stop(30 * time.Second); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
		}
	}
	for _, p := range b.sidecars() {
		if err := p.stop(30 * time.Second); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
		}
	}
	if b.site != nil {
		_ = b.site.Close()
	}
	if b.web != nil {
		_ = b.web.Close()
	}
	if b.dir != "" {
		if b.o.keep || len(b.failures) > 0 {
			fmt.Fprintln(os.Stderr, "bench: logs and stored files are kept in", b.dir)
		} else {
			_ = os.RemoveAll(b.dir)
		}
	}
}

// fail records a failed request or check for the report.
func (b *bench) fail(format string, args ...any) {
	b.failures = append(b.failures, fmt.Sprintf(format, args...))
}

func (b *bench) recordFailures(label string, r load.Result) {
	for _, err := range r.Errors {
		b.fail("%s: %v", label, err)
	}
	if more := r.Failures - len(r.Errors); more > 0 {
		b.fail("%s: %d more failed requests", label, more)
	}
}

// reserve is kept at the end of the time limit for settling, the leak and
// memory readings, stopping the processes and the report.
const reserve = 30 * time.Second

// step is one part of the run with its share of the time: weight against
// the other steps' weights, or a fixed length.
type step struct {
	name   string
	weight float64
	fixed  time.Duration
	run    func(ctx context.Context, budget time.Duration) error
}

// measure runs every step in order. Each gets a share of the time left
// before the limit, so a slow machine shortens the rows instead of
// overrunning; a row cut short says so.
func (b *bench) measure(ctx context.Context) error {
	var meta1 *row
	steps := []step{
		{"warm-up", 1.5, 0, b.warmUp},
		{"readings before", 0, 15 * time.Second, func(ctx context.Context, _ time.Duration) error {
			var err error
			b.leaks.before, err = b.settled(ctx, nil)
			b.leaks.started = err == nil
			b.mem.orchBefore = b.orchMemory()
			b.mem.chromeBefore = b.chromeMemory()
			return err
		}},
		{"metadata c1", 1.5, 0, func(ctx context.Context, d time.Duration) (err error) {
			meta1, err = b.pair(ctx, kindMetadata, b.metaPages, 1, d)
			return err
		}},
		{"metadata c4", 4, 0, func(ctx context.Context, d time.Duration) error {
			_, err := b.pair(ctx, kindMetadata, b.metaPages, 4, d)
			return err
		}},
		{"metadata c4 without pixels", 2, 0, func(ctx context.Context, d time.Duration) error {
			_, err := b.pair(ctx, kindMetadataNoPixels, b.metaPages, 4, d)
			return err
		}},
		{"PDF c1", 2, 0, func(ctx context.Context, d time.Duration) error {
			_, err := b.pair(ctx, kindPDF, b.pdfPages, 1, d)
			return err
		}},
		{"PDF c4", 2.5, 0, func(ctx context.Context, d time.Duration) error {
			_, err := b.pair(ctx, kindPDF, b.pdfPages, 4, d)
			return err
		}},
		{"metadata with defaults", 1, 0, func(ctx context.Context, d time.Duration) error {
			return b.glimpseOnly(ctx, kindDefaults, b.metaPages, 1, meta1, d)
		}},
		{"metadata with defaults without ping", 1, 0, func(ctx context.Context, d time.Duration) error {
			return b.glimpseOnly(ctx, kindDefaultsNoPing, b.metaPages, 1, meta1, d)
		}},
		{"Markdown with defaults", 1, 0, func(ctx context.Context, d time.Duration) error {
			return b.glimpseOnly(ctx, kindMarkdown, b.metaPages, 1, meta1, d)
		}},
	}
	steps = append(steps, b.fullBrowserSteps()...)
	steps = append(steps, b.webSteps()...)
	steps = append(steps, []step{
		{"cache hits", 0, 2*b.o.cacheDuration + 5*time.Second, func(ctx context.Context, _ time.Duration) error {
			return b.cacheHits(ctx)
		}},
		{"soak", 5, 0, b.soak},
	}...)
	if b.o.profileDir != "" {
		steps = append(steps, step{"profiles", 0, 25 * time.Second, b.profileRenders})
	}
	if len(b.o.steps) > 0 {
		steps = slices.DeleteFunc(steps, func(st step) bool {
			return st.name != "warm-up" && st.name != "readings before" && !slices.Contains(b.o.steps, st.name)
		})
	}
	end := time.Now().Add(b.o.timeLimit - reserve)
	if dl, ok := ctx.Deadline(); ok {
		end = dl
	}
	for i, st := range steps {
		var weights float64
		// Every step left may run past its share by the grace, so the
		// grace of each is set aside too.
		fixed := hardStopGrace * time.Duration(len(steps)-i+1)
		for _, later := range steps[i:] {
			weights += later.weight
			fixed += later.fixed
		}
		budget := st.fixed
		if st.weight > 0 {
			budget = time.Duration(float64(time.Until(end)-fixed) * st.weight / weights)
			budget = max(budget, 5*time.Second)
		}
		b.step("%s (%s)", st.name, budget.Round(time.Second))
		// Requests still in flight a little after the step's share are cut
		// (and counted as cut, not failed), so a slow step cannot eat the
		// ones after it.
		sctx, cancel := context.WithTimeout(ctx, budget+hardStopGrace)
		err := st.run(sctx, budget)
		cut := sctx.Err() != nil
		cancel()
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("%s: %w", st.name, err)
		}
		if cut {
			b.cutSteps = append(b.cutSteps, st.name)
			if err != nil {
				b.step("%s stopped at its hard stop: %v", st.name, err)
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("%s: %w", st.name, err)
		}
	}
	return nil
}

// hardStopGrace is how long past its share a step's requests may run.
const hardStopGrace = 5 * time.Second

// warmUp visits every page once through each side, so caches, fonts and
// JIT are warm before anything is timed; a page that fails here fails the
// run, as it would fail every row.
func (b *bench) warmUp(ctx context.Context, budget time.Duration) error {
	end := time.Now().Add(budget)
	type job struct {
		k  kind
		ps []pages.Page
	}
	for _, j := range []job{{kindMetadata, b.metaPages}, {kindPDF, b.pdfPages}} {
		for _, p := range j.ps {
			if time.Now().After(end) {
				b.step("warm-up: out of time, going on with the rest unwarmed")
				return ctx.Err()
			}
			if _, err := b.baselineJob(j.k, []pages.Page{p}, nil)(ctx, 0); err != nil && !errors.Is(err, load.ErrAborted) {
				b.fail("warm-up, baseline %s of %s: %v", j.k.name, p.Path, err)
			}
			if _, err := b.glimpseJob(j.k, []pages.Page{p})(ctx, 0); err != nil && !errors.Is(err, load.ErrAborted) {
				b.fail("warm-up, glimpse %s of %s: %v", j.k.name, p.Path, err)
			}
		}
	}
	return ctx.Err()
}

// baselineJob visits list[i mod len] with raw DevTools, timing until the
// result exists.
func (b *bench) baselineJob(k kind, list []pages.Page, phases *rawPhases) load.Job {
	var mu sync.Mutex
	var pdf *rawcdp.PDF
	if k.name == kindPDF.name {
		pdf = &rawcdp.DefaultPDF
	}
	return func(ctx context.Context, i int) (time.Duration, error) {
		rctx, cancel := context.WithTimeout(ctx, requestTimeout)
		defer cancel()
		p := list[i%len(list)]
		target := b.site.URL(p, int(b.seq.Add(1)))
		start := time.Now()
		var took time.Duration
		ready := func() { took = time.Since(start) }
		var res rawcdp.Result
		var err error
		if k.visit != nil {
			res, err = k.visit(b.rawOpen, rctx, target, ready)
		} else if k.name == kindMetadataNoPixels.name {
			res, err = b.raw.VisitWithout(rctx, target, rawcdp.PixelTypes, ready)
		} else {
			res, err = b.raw.Visit(rctx, target, pdf, ready)
		}
		if err != nil {
			return time.Since(start), aborted(ctx, err)
		}
		if phases != nil {
			mu.Lock()
			phases.add(res)
			mu.Unlock()
		}
		return took, nil
	}
}

// aborted marks err as the run's own doing when the run's context has
// ended, so a request cut at the time limit is not a failure of glimpse.
func aborted(runCtx context.Context, err error) error {
	if runCtx.Err() != nil {
		return fmt.Errorf("%w: %v", load.ErrAborted, err)
	}
	return err
}

// glimpseJob asks glimpse for list[i mod len] and checks the answer; the
// clock stops at the answer's last byte.
func (b *bench) glimpseJob(k kind, list []pages.Page) load.Job {
	return func(ctx context.Context, i int) (time.Duration, error) {
		rctx, cancel := context.WithTimeout(ctx, requestTimeout)
		defer cancel()
		p := list[i%len(list)]
		target := b.site.URL(p, int(b.seq.Add(1)))
		start := time.Now()
		q := k.query(target)
		if b.o.params != "" {
			q += "&" + strings.TrimPrefix(b.o.params, "&")
		}
		a, err := b.api.do(rctx, k.method, q)
		took := time.Since(start)
		if err != nil {
			return took, aborted(ctx, fmt.Errorf("%s of %s: %w", k.name, p.Path, err))
		}
		b.modes.add(k.name, a.header.Get("x-fetch-mode"))
		if err := k.check(a, p); err != nil {
			return took, fmt.Errorf("%s of %s: %w", k.name, p.Path, err)
		}
		return took, nil
	}
}

// pair measures the baseline and glimpse on the same requests, in rounds
// that alternate which side goes first (ABBA), so slow drift of a shared
// machine falls on both alike. Each run stops at its share of budget.
func (b *bench) pair(ctx context.Context, k kind, list []pages.Page, conc int, budget time.Duration) (*row, error) {
	if conc == 1 {
		return b.interleaved(ctx, k, list, budget)
	}
	n := len(list)
	if conc > 1 {
		n *= 2 // enough requests that the ramp-down tail weighs little
	}
	plan := load.Plan{Concurrency: conc, Requests: n, Duration: budget / time.Duration(2*b.o.rounds)}
	base := &row{label: k.name, side: "baseline", conc: conc}
	gl := &row{label: k.name, side: "glimpse", conc: conc, base: base, phases: map[string]scrape.Histogram{}}
	var baseRuns, glRuns []load.Result
	var err error
rounds:
	for r := range b.o.rounds {
		for s := range 2 {
			// Each half gets the same time: requests still running shortly
			// after it are cut, so a slow first half cannot starve the
			// second.
			hctx, cancel := context.WithTimeout(ctx, plan.Duration+halfGrace)
			var res load.Result
			cpu := b.cpuNow()
			if (s == 0) == (r%2 == 0) {
				b.step("baseline %s at concurrency %d, round %d", k.name, conc, r+1)
				res, err = load.Run(hctx, plan, b.baselineJob(k, list, &base.rawPhase))
				baseRuns = append(baseRuns, res)
				base.cpu.add(cpu, b.cpuNow(), res.Requests)
			} else {
				b.step("glimpse %s at concurrency %d, round %d", k.name, conc, r+1)
				res, err = b.glimpseRun(hctx, gl, plan, b.glimpseJob(k, list))
				glRuns = append(glRuns, res)
				gl.cpu.add(cpu, b.cpuNow(), res.Requests)
			}
			cancel()
			if err == nil {
				err = ctx.Err()
			}
			if err != nil {
				break rounds // keep what was measured
			}
		}
	}
	base.sum = b.finish("baseline "+k.name, baseRuns)
	gl.sum = b.finish("glimpse "+k.name, glRuns)
	base.note, gl.note = cutNote(plan, baseRuns), cutNote(plan, glRuns)
	b.rows = append(b.rows, base, gl)
	return base, err
}

// interleaved measures latency at concurrency 1 in pairs: each page once
// through each side, back to back, the side that goes first alternating.
// Both halves of a pair see the same moment of a shared machine, so the
// median of the per-pair ratios holds up where plain percentiles drift.
func (b *bench) interleaved(ctx context.Context, k kind, list []pages.Page, budget time.Duration) (*row, error) {
	base := &row{label: k.name, side: "baseline", conc: 1}
	gl := &row{label: k.name, side: "glimpse", conc: 1, base: base, phases: map[string]scrape.Histogram{}}
	baseJob, glJob := b.baselineJob(k, list, &base.rawPhase), b.glimpseJob(k, list)
	n := len(list) * b.o.rounds
	b.step("baseline and glimpse %s at concurrency 1, interleaved, %d pairs", k.name, n)
	before, err := scrape.Fetch(ctx, b.api.client, b.metricsURL)
	if err != nil {
		return nil, err
	}
	var br, gr load.Result
	var ratios []float64
	perPage := map[string][]float64{}
	end := time.Now().Add(budget)
	for i := 0; i < n && time.Now().Before(end) && ctx.Err() == nil; i++ {
		one := func(job load.Job, res *load.Result, rw *row) (time.Duration, error) {
			cpu := b.cpuNow()
			start := time.Now()
			d, err := job(ctx, i)
			res.Elapsed += time.Since(start)
			res.Add(d, err)
			rw.cpu.add(cpu, b.cpuNow(), 1)
			return d, err
		}
		var bd, gd time.Duration
		var berr, gerr error
		if i%2 == 0 {
			bd, berr = one(baseJob, &br, base)
			gd, gerr = one(glJob, &gr, gl)
		} else {
			gd, gerr = one(glJob, &gr, gl)
			bd, berr = one(baseJob, &br, base)
		}
		if berr == nil && gerr == nil && bd > 0 {
			r := float64(gd) / float64(bd)
			ratios = append(ratios, r)
			name := list[i%len(list)].Name
			perPage[name] = append(perPage[name], r, float64(bd), float64(gd))
		}
	}
	if err := b.addPhases(ctx, gl, before); err != nil {
		return nil, err
	}
	base.sum = b.finish("baseline "+k.name, []load.Result{br})
	gl.sum = b.finish("glimpse "+k.name, []load.Result{gr})
	if len(ratios) > 0 {
		slices.Sort(ratios)
		gl.note = fmt.Sprintf("interleaved with the baseline; the median of the %d per-pair ratios is %.2f", len(ratios), ratios[len(ratios)/2])
	}
	gl.gaps = worstGaps(perPage, 3)
	if done := min(br.Requests, gr.Requests); done < n {
		gl.note += fmt.Sprintf("; cut at its time share (%s) after %d of %d pairs, compare with care", budget.Round(time.Second), done, n)
	}
	b.rows = append(b.rows, base, gl)
	return base, ctx.Err()
}

// halfGrace is how long past its share one half of a pair may run.
const halfGrace = 3 * time.Second

// pageGap is one page's glimpse latency against the baseline's at c1.
type pageGap struct {
	page              string
	ratio             float64
	baseline, glimpse time.Duration
}

// worstGaps returns the n pages where glimpse lagged the baseline most;
// per holds, per page, triples of ratio, baseline and glimpse latency.
func worstGaps(per map[string][]float64, n int) []pageGap {
	var gaps []pageGap
	for page, v := range per {
		g := pageGap{page: page}
		for i := 0; i+2 < len(v); i += 3 {
			if v[i] >= g.ratio {
				g.ratio, g.baseline, g.glimpse = v[i], time.Duration(v[i+1]), time.Duration(v[i+2])
			}
		}
		gaps = append(gaps, g)
	}
	slices.SortFunc(gaps, func(a, b pageGap) int {
		switch {
		case a.ratio > b.ratio:
			return -1
		case a.ratio < b.ratio:
			return 1
		}
		return strings.Compare(a.page, b.page)
	})
	return gaps[:min(n, len(gaps))]
}

// cutNote says when runs stopped at their time share before their count.
func cutNote(plan load.Plan, runs []load.Result) string {
	done, aborted := 0, 0
	for _, r := range runs {
		done += r.Requests
		aborted += r.Aborted
	}
	want := plan.Requests * len(runs)
	switch {
	case done >= want:
		return ""
	case aborted > 0:
		return fmt.Sprintf("cut at its time share (%s per run) after %d of %d requests, %d more cut in flight; compare with care",
			plan.Duration.Round(time.Second), done, want, aborted)
	default:
		return fmt.Sprintf("cut at its time share (%s per run) after %d of %d requests; compare with care", plan.Duration.Round(time.Second), done, want)
	}
}

// glimpseOnly is a glimpse row compared with an existing baseline row.
func (b *bench) glimpseOnly(ctx context.Context, k kind, list []pages.Page, conc int, base *row, budget time.Duration) error {
	gl := &row{label: k.name, side: "glimpse", conc: conc, base: base, phases: map[string]scrape.Histogram{}}
	var runs []load.Result
	plan := load.Plan{Concurrency: conc, Requests: len(list), Duration: budget / time.Duration(b.o.rounds)}
	var err error
	for r := range b.o.rounds {
		b.step("glimpse %s at concurrency %d, round %d", k.name, conc, r+1)
		var res load.Result
		res, err = b.glimpseRun(ctx, gl, plan, b.glimpseJob(k, list))
		runs = append(runs, res)
		if err == nil {
			err = ctx.Err()
		}
		if err != nil {
			break // keep what was measured
		}
	}
	gl.sum = b.finish("glimpse "+k.name, runs)
	gl.note = "prerender=auto and ping=true; compared with the baseline's browser render at c1, which probes no image or logo; " + b.modes.describe(k.name)
	if cut := cutNote(plan, runs); cut != "" {
		gl.note += "; " + cut
	}
	b.rows = append(b.rows, gl)
	return err
}

// glimpseRun runs a glimpse load and adds what /metrics saw during it to
// the row's per-phase histograms.
func (b *bench) glimpseRun(ctx context.Context, rw *row, plan load.Plan, job load.Job) (load.Result, error) {
	before, err := scrape.Fetch(ctx, b.api.client, b.metricsURL)
	if err != nil {
		return load.Result{}, err
	}
	res, err := load.Run(ctx, plan, job)
	if err != nil {
		return res, err
	}
	return res, b.addPhases(ctx, rw, before)
}

// addPhases adds to the row what /metrics saw since before.
func (b *bench) addPhases(ctx context.Context, rw *row, before scrape.Snapshot) error {
	// Read what the run did even when its context has just ended.
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	after, err := scrape.Fetch(sctx, b.api.client, b.metricsURL)
	if err != nil {
		return err
	}
	for _, ph := range renderPhases {
		lbl := map[string]string{"phase": ph}
		d := after.Histogram(phaseMetric, lbl).Sub(before.Histogram(phaseMetric, lbl))
		rw.phases[ph] = rw.phases[ph].Add(d)
	}
	rw.server = rw.server.Add(after.Histogram(requestMetric, nil).Sub(before.Histogram(requestMetric, nil)))
	return nil
}

const (
	phaseMetric   = "glimpse_render_phase_duration_seconds"
	requestMetric = "glimpse_http_request_duration_seconds"
	hitsMetric    = "glimpse_cache_requests_total"
)

var renderPhases = []string{"lease_wait", "navigate", "reveal", "extract", "probe", "pdf", "upload"}

func (b *bench) finish(label string, runs []load.Result) load.Summary {
	m := load.Merge(runs...)
	b.recordFailures(label, m)
	return m.Summary()
}

// cacheHits primes one answer, then has wrk (or, without wrk, the Go
// client) ask for it over many connections, and checks from /metrics that
// every answer was a hit.
func (b *bench) cacheHits(ctx context.Context) error {
	article := b.metaPages[0]
	target := b.site.Base() + article.Path + "?r=0"
	query := kindCached.query(target)
	for i := range 2 {
		a, err := b.api.do(ctx, http.MethodGet, query)
		if err == nil {
			_, err = success(a)
		}
		if err == nil && i == 1 {
			err = wantHit(a)
		}
		if err != nil {
			b.fail("priming the cache-hit answer: %v", err)
			return nil
		}
	}
	before, err := scrape.Fetch(ctx, b.api.client, b.metricsURL)
	if err != nil {
		return err
	}
	rw := &row{label: "cache hits", side: "glimpse", conc: b.o.cacheConns}
	var profileDone chan error
	if b.o.profileDir != "" && b.o.cacheDuration > 3*time.Second {
		profileDone = make(chan error, 1)
		go func() {
			time.Sleep(time.Second)
			profileDone <- b.cpuProfile(ctx, "cpu-cache-hits", b.o.cacheDuration-2*time.Second)
		}()
	}
	b.step("cache hits with %d connections for %s", b.o.cacheConns, b.o.cacheDuration)
	sum, err := load.Wrk(ctx, load.WrkPlan{URL: b.api.base + "/?" + query, Threads: 2, Connections: b.o.cacheConns, Duration: b.o.cacheDuration})
	if errors.Is(err, load.ErrNoWrk) {
		rw.note = "wrk is not installed (./.ci/deps.sh bench installs it); the Go client measured this row and competes for the same cores"
		res, rerr := load.Run(ctx, load.Plan{Concurrency: b.o.cacheConns, Duration: b.o.cacheDuration}, func(ctx context.Context, i int) (time.Duration, error) {
			start := time.Now()
			a, err := b.api.do(ctx, http.MethodGet, query)
			took := time.Since(start)
			if err == nil {
				err = wantHit(a)
			}
			return took, err
		})
		if rerr != nil {
			return rerr
		}
		b.recordFailures("cache hits", res)
		sum, err = res.Summary(), nil
	} else if err == nil {
		rw.note = "measured with wrk (2 threads) on the same 2 cores, closed loop at full speed"
	}
	if profileDone != nil {
		if perr := <-profileDone; perr != nil {
			b.profileNotes = append(b.profileNotes, fmt.Sprintf("profiling the cache hits: %v", perr))
		}
	}
	if err != nil {
		return err
	}
	after, err := scrape.Fetch(ctx, b.api.client, b.metricsURL)
	if err != nil {
		return err
	}
	hits := after.Value(hitsMetric, map[string]string{"result": "hit"}) - before.Value(hitsMetric, map[string]string{"result": "hit"})
	if sum.Failures > 0 {
		b.fail("cache hits: %d of %d requests failed (errors or HTTP status ≥ 400)", sum.Failures, sum.Requests)
	}
	// wrk counts the requests it completed; glimpse may have answered a few
	// more that wrk dropped at the end.
	if int(hits) < sum.Requests {
		b.fail("cache hits: glimpse counted %d hits for %d requests, so some were not served from the cache", int(hits), sum.Requests)
	}
	rw.sum = sum
	rw.base = b.findRow("metadata", "baseline", 4)
	rw.server = after.Histogram(requestMetric, map[string]string{"cache": "HIT"}).Sub(before.Histogram(requestMetric, map[string]string{"cache": "HIT"}))
	b.rows = append(b.rows, rw)
	return b.cacheHitsAtRate(ctx, query)
}

// cacheHitsAtRate asks for the cached answer at the budget's rate, open
// loop, over as many connections: the latency a caller sees when glimpse
// serves that many hits a second. wrk's closed loop above measures the
// most it can serve instead, where latency is the queue of connections.
func (b *bench) cacheHitsAtRate(ctx context.Context, query string) error {
	before, err := scrape.Fetch(ctx, b.api.client, b.metricsURL)
	if err != nil {
		return err
	}
	b.step("cache hits at %d/s over %d connections for %s", minCacheRPS, b.o.cacheConns, b.o.cacheDuration)
	plan := load.RatePlan{URL: b.api.base + "/?" + query, Rate: minCacheRPS, Connections: b.o.cacheConns, Duration: b.o.cacheDuration}
	res, err := load.AtRate(ctx, plan)
	if err != nil {
		return err
	}
	b.recordFailures("cache hits at a fixed rate", res)
	after, err := scrape.Fetch(ctx, b.api.client, b.metricsURL)
	if err != nil {
		return err
	}
	hit := map[string]string{"result": "hit"}
	if hits := after.Value(hitsMetric, hit) - before.Value(hitsMetric, hit); int(hits) < res.Requests {
		b.fail("cache hits at a fixed rate: glimpse counted %d hits for %d requests", int(hits), res.Requests)
	}
	rw := &row{label: cacheRateLabel, side: "glimpse", conc: b.o.cacheConns, sum: res.Summary(),
		note: fmt.Sprintf("open loop: %d requests due at %d/s, each timed from when it was due (no coordinated omission); planned %d",
			res.Requests, minCacheRPS, int(plan.Rate*plan.Duration.Seconds()))}
	rw.server = after.Histogram(requestMetric, map[string]string{"cache": "HIT"}).Sub(before.Histogram(requestMetric, map[string]string{"cache": "HIT"}))
	b.rows = append(b.rows, rw)
	return ctx.Err()
}

const cacheRateLabel = "cache hits at 10,000/s"

func (b *bench) findRow(label, side string, conc int) *row {
	for _, r := range b.rows {
		if r.label == label && r.side == side && r.conc == conc {
			return r
		}
	}
	return nil
}

// soakMix is the soak's request mix, one slot per twentieth: renders of
// every sort, cache hits in all their forms, and a refused query. Renders
// are a quarter, so that 1,000 requests fit the soak's share of the time.
var soakMix = [20]*kind{
	&kindMetadata, &kindMetadata, &kindDefaults, &kindDefaults, &kindPDF,
	&kindCached, &kindCached, &kindCached, &kindCached, &kindCached, &kindCached,
	&kindCached, &kindCached, &kindCached, &kindCached, &kindCached,
	&kindHead, &kindEmbedPDF, &kindNothing, &kindBadQuery,
}

const soakMixNote = "10% metadata (browser), 10% metadata with defaults, 5% PDF (without the heaviest pages), " +
	"55% cache hits, 5% HEAD, 5% embed=pdf.url, 5% meta=false, 5% refused query"

// soak runs the mix while sampling the orchestrator's RSS.
func (b *bench) soak(ctx context.Context, budget time.Duration) error {
	primeStart := time.Now()
	// Prime what the cached kinds ask for: each synthetic page's metadata,
	// and the article's PDF for embed.
	synthetic := b.pdfPages[:0:0]
	for _, p := range b.metaPages {
		if !p.Corpus {
			synthetic = append(synthetic, p)
		}
	}
	fixed := func(p pages.Page) string { return b.site.Base() + p.Path + "?r=0" }
	for _, p := range synthetic {
		if _, err := b.api.do(ctx, http.MethodGet, kindCached.query(fixed(p))); err != nil {
			return err
		}
	}
	pdfQuery := targetQuery(fixed(synthetic[0])) + "&meta=false&pdf=true"
	if a, err := b.api.do(ctx, http.MethodGet, pdfQuery); err != nil {
		return err
	} else if err := checkPDF(a, synthetic[0]); err != nil {
		b.fail("priming the soak's PDF: %v", err)
	}

	// The soak is about memory and leaks over many requests, not about
	// the slowest prints, which the PDF rows measure.
	var lightPDF []pages.Page
	for _, p := range b.pdfPages {
		if p.Name != "gallery" && p.Name != "blog" {
			lightPDF = append(lightPDF, p)
		}
	}
	var renders [2]atomic.Int64 // metadata, PDF cursors over their page lists
	job := func(ctx context.Context, i int) (time.Duration, error) {
		k := soakMix[i%len(soakMix)]
		switch k {
		case &kindMetadata, &kindDefaults:
			return b.glimpseJob(*k, b.metaPages)(ctx, int(renders[0].Add(1)))
		case &kindPDF:
			return b.glimpseJob(*k, lightPDF)(ctx, int(renders[1].Add(1)))
		}
		rctx, cancel := context.WithTimeout(ctx, requestTimeout)
		defer cancel()
		p := synthetic[i%len(synthetic)]
		if k == &kindEmbedPDF {
			p = synthetic[0]
		}
		start := time.Now()
		a, err := b.api.do(rctx, k.method, k.query(fixed(p)))
		took := time.Since(start)
		if err != nil {
			return took, aborted(ctx, fmt.Errorf("%s of %s: %w", k.name, p.Path, err))
		}
		if err := k.check(a, p); err != nil {
			return took, fmt.Errorf("%s of %s: %w", k.name, p.Path, err)
		}
		return took, nil
	}

	stop := make(chan struct{})
	sampled := make(chan int64, 1)
	go func() {
		var peak int64
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			if n, err := procmem.RSS(b.orch.pid()); err == nil {
				peak = max(peak, n)
			}
			select {
			case <-stop:
				sampled <- peak
				return
			case <-t.C:
			}
		}
	}()
	rw := &row{label: "mixed soak", side: "glimpse", conc: b.o.soakConc, phases: map[string]scrape.Histogram{}}
	b.step("soak: %d requests of every kind at concurrency %d", b.o.soak, b.o.soakConc)
	plan := load.Plan{Concurrency: b.o.soakConc, Requests: b.o.soak, Duration: max(budget-time.Since(primeStart), 5*time.Second)}
	res, err := b.glimpseRun(ctx, rw, plan, job)
	close(stop)
	b.mem.orchPeakRSS = <-sampled
	if err != nil {
		return err
	}
	b.recordFailures("soak", res)
	rw.sum = res.Summary()
	rw.note = soakMixNote
	if cut := cutNote(plan, []load.Result{res}); cut != "" {
		rw.note += "; " + cut
	}
	b.rows = append(b.rows, rw)
	return ctx.Err()
}

// leakCheck compares the browser's targets and contexts before the timed
// rows and after the soak, both taken with no request in flight.
type leakCheck struct {
	before, after rawcdp.Counts
	started       bool // before was read
	done          bool // after was read too
}

// settled waits until no render is in flight and the pool's warm contexts
// are back (the counts equal want, when given), then returns the counts; it
// gives up after 15 s and returns what it sees.
func (b *bench) settled(ctx context.Context, want *rawcdp.Counts) (rawcdp.Counts, error) {
	deadline := time.Now().Add(15 * time.Second)
	var last rawcdp.Counts
	for {
		c, err := b.raw.Count(ctx)
		if err != nil {
			return c, fmt.Errorf("counting the browser's targets: %w", err)
		}
		stable := want == nil && c.Settled(last) && c.Contexts == b.o.warm
		if (want != nil && c.Settled(*want)) || stable || time.Now().After(deadline) {
			return c, nil
		}
		last = c
		select {
		case <-ctx.Done():
			return c, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// memory is what the processes held.
type memory struct {
	orchBefore, orchAfter     procmem.Usage
	orchPeakRSS               int64
	chromeBefore, chromeAfter chromeUsage
}

func (b *bench) orchMemory() procmem.Usage {
	u, err := procmem.TreePSS(b.orch.pid())
	if err != nil {
		b.fail("reading the orchestrator's memory: %v", err)
	}
	return u
}

// chromeMemory sums PSS over every process below the sidecars: Chromium's
// browser, zygotes, renderers and utilities, without the sidecar itself,
// and counts them by kind.
func (b *bench) chromeMemory() chromeUsage {
	u := chromeUsage{kinds: map[string]int{}}
	for _, side := range b.sidecars() {
		pids, err := procmem.Tree(side.pid())
		if err != nil {
			b.fail("listing Chromium's processes: %v", err)
			return chromeUsage{}
		}
		for _, pid := range pids[1:] {
			if n, err := procmem.PSS(pid); err == nil {
				u.PSS += n
				u.Processes++
				u.kinds[procmem.ChromiumKind(pid)]++
			}
		}
	}
	return u
}

// chromeUsage is Chromium's memory and its processes by kind.
type chromeUsage struct {
	procmem.Usage
	kinds map[string]int // "renderer", "zygote", "browser", …
}

func (u chromeUsage) describeKinds() string {
	names := make([]string, 0, len(u.kinds))
	for k := range u.kinds {
		names = append(names, k)
	}
	slices.Sort(names)
	var parts []string
	for _, k := range names {
		parts = append(parts, fmt.Sprintf("%d %s", u.kinds[k], k))
	}
	return strings.Join(parts, ", ")
}

// fetchModes counts x-fetch-mode per kind of request: how often glimpse
// answered from a plain fetch rather than a browser.
type fetchModes struct {
	mu sync.Mutex
	n  map[string]map[string]int
}

func (f *fetchModes) add(kind, mode string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n == nil {
		f.n = map[string]map[string]int{}
	}
	if f.n[kind] == nil {
		f.n[kind] = map[string]int{}
	}
	f.n[kind][mode]++
}

func (f *fetchModes) describe(kind string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	m := f.n[kind]
	return fmt.Sprintf("x-fetch-mode: %d fetch, %d prerender", m["fetch"], m["prerender"])
}
