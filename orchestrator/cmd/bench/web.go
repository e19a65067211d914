package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"time"

	"github.com/glimpse/glimpse/orchestrator/cmd/bench/load"
	"github.com/glimpse/glimpse/orchestrator/cmd/bench/pages"
	"github.com/glimpse/glimpse/orchestrator/cmd/bench/procmem"
	"github.com/glimpse/glimpse/orchestrator/cmd/bench/rawcdp"
)

// Rows against the web-like page model (pages.Web): every page with the
// third parties a real page asks for, tens to hundreds of milliseconds
// away. The baseline loads them all, as a browser does (waitUntil load,
// nothing blocked: the sidecar's unfiltered proxy); glimpse renders with
// its defaults (the ad-block list, the lean render and its early read for
// outputs that need no pixels).

// Budgets on the web-like model, as ratios to the same run's baseline.
const (
	maxWebReadP50Ratio = 0.5 // metadata and Markdown
	maxWebReadCPURatio = 0.6
	maxWebPaintP50     = 0.8 // PDF and screenshot
	// On today's pages, glimpse on the headless shell against the
	// baseline on the full browser: the shell's gain.
	minShellMetadataRPS = 1.3
	minShellPDFRPS      = 1.2
)

// webKind is a kind of request on the web-like pages, with the baseline's
// matching visit.
func webKind(k kind, name string, visit func(*rawcdp.Browser, context.Context, string, func()) (rawcdp.Result, error)) kind {
	k.name = name
	k.visit = visit
	return k
}

func readDOM(b *rawcdp.Browser, ctx context.Context, url string, ready func()) (rawcdp.Result, error) {
	return b.Visit(ctx, url, nil, ready)
}

func printPDF(b *rawcdp.Browser, ctx context.Context, url string, ready func()) (rawcdp.Result, error) {
	return b.Visit(ctx, url, &rawcdp.DefaultPDF, ready)
}

func takeShot(b *rawcdp.Browser, ctx context.Context, url string, ready func()) (rawcdp.Result, error) {
	return b.VisitScreenshot(ctx, url, ready)
}

var (
	kindWebMetadata = webKind(kindMetadata, "web metadata", readDOM)
	// kindWebMarkdown renders in the browser, as the baseline does; with
	// the defaults (prerender=auto) most pages are a plain fetch.
	kindWebMarkdown = webKind(kind{method: http.MethodGet, check: checkMarkdown,
		query: func(t string) string {
			return targetQuery(t) + "&data.content.attr=markdown&meta=false&embed=content&force=true&prerender=true"
		}}, "web Markdown", readDOM)
	kindWebPDF  = webKind(kindPDF, "web PDF", printPDF)
	kindWebShot = webKind(kind{method: http.MethodGet, check: checkScreenshot,
		query: func(t string) string { return targetQuery(t) + "&meta=false&screenshot.fullPage=true&force=true" }}, "web full-page screenshot", takeShot)
	// The same outputs without the third parties: the floor under the
	// model's rows.
	kindBareMetadata = webKind(kindMetadata, "web metadata, baseline without third parties", readDOM)
	kindBarePDF      = webKind(kindPDF, "web PDF, baseline without third parties", printPDF)
)

func checkScreenshot(a answer, _ pages.Page) error {
	e, err := success(a)
	if err != nil {
		return err
	}
	var shot struct {
		URL    string `json:"url"`
		Size   int64  `json:"size"`
		Height int    `json:"height"`
	}
	if err := json.Unmarshal(e.Data["screenshot"], &shot); err != nil || shot.URL == "" || shot.Size <= 0 {
		return fmt.Errorf("the answer has no usable screenshot object: %.200s", e.Data["screenshot"])
	}
	return nil
}

// webPagesFor is the web-like version of each of list.
func (b *bench) webPagesFor(list []pages.Page) []pages.Page {
	byPath := map[string]pages.Page{}
	for _, p := range b.site.WebPages() {
		byPath[p.Path] = p
	}
	var out []pages.Page
	for _, p := range list {
		if wp, ok := byPath["/web"+p.Path]; ok {
			out = append(out, wp)
		}
	}
	return out
}

// webSteps are the rows against the model, and the rows of the full
// browser's baseline on today's pages.
func (b *bench) webSteps() []step {
	if b.web == nil {
		return nil
	}
	meta, pdf := b.webPagesFor(b.metaPages), b.webPagesFor(b.pdfPages)
	// A full-page screenshot of the longest pages (the gallery, the blog)
	// is a PNG of 1280×16384 that holds the browser's main thread for
	// seconds; on a loaded machine the sidecar then takes Chromium for
	// hung. The rows measure the third parties, not that.
	var shot []pages.Page
	for _, p := range pdf {
		if p.Name != "web gallery" && p.Name != "web blog" {
			shot = append(shot, p)
		}
	}
	var steps []step
	for _, s := range []struct {
		k    kind
		list []pages.Page
	}{{kindWebMetadata, meta}, {kindWebMarkdown, meta}, {kindWebPDF, pdf}, {kindWebShot, shot}} {
		for _, conc := range []int{1, 4} {
			steps = append(steps, step{fmt.Sprintf("%s c%d", s.k.name, conc), 1.2, 0, func(ctx context.Context, d time.Duration) error {
				_, err := b.pair(ctx, s.k, s.list, conc, d)
				return err
			}})
		}
	}
	steps = append(steps,
		step{"web baselines without third parties", 1, 0, func(ctx context.Context, d time.Duration) error {
			if err := b.baselineOnly(ctx, kindBareMetadata, b.metaPages, 1, kindWebMetadata, d/2); err != nil {
				return err
			}
			return b.baselineOnly(ctx, kindBarePDF, b.pdfPages, 1, kindWebPDF, d/2)
		}})
	return steps
}

// baselineOnly is a baseline row with no glimpse beside it, printed with
// its ratio to the baseline row of ref at the same concurrency.
func (b *bench) baselineOnly(ctx context.Context, k kind, list []pages.Page, conc int, ref kind, budget time.Duration) error {
	rw := &row{label: k.name, side: "baseline", conc: conc, base: b.findRow(ref.name, "baseline", conc)}
	plan := load.Plan{Concurrency: conc, Requests: len(list) * b.o.rounds, Duration: budget}
	b.step("baseline %s at concurrency %d", k.name, conc)
	cpu := b.cpuNow()
	res, err := load.Run(ctx, plan, b.baselineJob(k, list, &rw.rawPhase))
	rw.cpu.add(cpu, b.cpuNow(), res.Requests)
	rw.sum = b.finish("baseline "+k.name, []load.Result{res})
	rw.note = "the same pages without the model's third parties; its ratios are to the baseline with them"
	if cut := cutNote(plan, []load.Result{res}); cut != "" {
		rw.note += "; " + cut
	}
	b.rows = append(b.rows, rw)
	return err
}

// startFullBrowser starts a second sidecar on the full browser, whose
// baseline the shell's rows are compared with.
func (b *bench) startFullBrowser(ctx context.Context, token string) error {
	if b.o.compareChrome == "" {
		return nil
	}
	addr, err := freeAddr()
	if err != nil {
		return err
	}
	b.full, err = startProc("sidecar on the full browser", filepath.Join(b.o.binDir, "sidecar"), []string{
		"GLIMPSE_SIDECAR_ADDR=" + addr,
		"GLIMPSE_SIDECAR_TOKEN=" + token,
		"GLIMPSE_ALLOW_TARGETS=127.0.0.0/8",
		"GLIMPSE_RECYCLE_AFTER=0",
		"GLIMPSE_CHROME_PATH=" + b.o.compareChrome,
	}, filepath.Join(b.dir, "sidecar-full.log"))
	if err != nil {
		return err
	}
	if err := waitReady(ctx, b.full, "http://"+addr+"/healthz"); err != nil {
		return err
	}
	b.rawFull, err = rawcdp.Dial(ctx, "ws://"+addr+"/devtools/browser", token)
	if err != nil {
		return fmt.Errorf("the baseline could not connect to the sidecar on the full browser: %w", err)
	}
	b.fullBrowser = b.healthOf(ctx, addr).Browser
	return nil
}

// fullBrowserSteps measure the baseline on the full browser, on today's
// pages at concurrency 4, beside the rows of the same name.
func (b *bench) fullBrowserSteps() []step {
	if b.o.compareChrome == "" {
		return nil
	}
	run := func(k kind, list []pages.Page) func(context.Context, time.Duration) error {
		return func(ctx context.Context, d time.Duration) error {
			label := k.name + ", baseline on the full browser"
			rw := &row{label: label, side: "baseline", conc: 4, base: b.findRow(k.name, "baseline", 4)}
			plan := load.Plan{Concurrency: 4, Requests: 2 * len(list), Duration: d}
			var pdf *rawcdp.PDF
			if k.name == kindPDF.name {
				pdf = &rawcdp.DefaultPDF
			}
			b.step("baseline %s on the full browser at concurrency 4", k.name)
			before, _ := procmem.TreeCPU(b.full.pid())
			self, _ := procmem.CPU(b.full.pid())
			res, err := load.Run(ctx, plan, func(ctx context.Context, i int) (time.Duration, error) {
				rctx, cancel := context.WithTimeout(ctx, requestTimeout)
				defer cancel()
				start := time.Now()
				var took time.Duration
				_, err := b.rawFull.Visit(rctx, b.site.URL(list[i%len(list)], int(b.seq.Add(1))), pdf, func() { took = time.Since(start) })
				if err != nil {
					return time.Since(start), aborted(ctx, err)
				}
				return took, nil
			})
			after, _ := procmem.TreeCPU(b.full.pid())
			selfAfter, _ := procmem.CPU(b.full.pid())
			rw.cpu = cpuUse{browser: (after - before) - (selfAfter - self), sidecar: selfAfter - self, n: res.Requests}
			rw.sum = b.finish("baseline "+label, []load.Result{res})
			rw.note = "the baseline on " + b.fullBrowser + ", today's full browser in headless mode; its ratios are to the baseline on the sidecar's browser"
			b.rows = append(b.rows, rw)
			return err
		}
	}
	return []step{
		{"metadata c4 on the full browser", 2, 0, run(kindMetadata, b.metaPages)},
		{"PDF c4 on the full browser", 2, 0, run(kindPDF, b.pdfPages)},
	}
}

func (b *bench) healthOf(ctx context.Context, addr string) sidecarHealth {
	var h sidecarHealth
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/healthz", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return h
	}
	defer resp.Body.Close()
	_ = json.NewDecoder(resp.Body).Decode(&h)
	return h
}

// webBudgets are the budgets of the model's rows and of the browser choice.
func (b *bench) webBudgets() []budget {
	var out []budget
	notMeasured := func(name string) { out = append(out, budget{name: name, measured: "not measured", missing: true}) }
	p50 := func(k kind, conc int, limit float64) {
		name := fmt.Sprintf("%s p50 at c%d ≤ %.1f × baseline", k.name, conc, limit)
		g := b.findRow(k.name, "glimpse", conc)
		if g == nil || g.base == nil || g.sum.Requests == 0 || g.base.sum.Requests == 0 {
			notMeasured(name)
			return
		}
		r := ratioOf(g.sum.P50, g.base.sum.P50)
		out = append(out, budget{name: name, measured: fmt.Sprintf("%.2f× (%s vs %s)", r, ms(g.sum.P50), ms(g.base.sum.P50)), pass: r <= limit})
	}
	cpu := func(k kind, conc int, limit float64) {
		name := fmt.Sprintf("%s Chromium CPU per request at c%d ≤ %.1f × baseline", k.name, conc, limit)
		g := b.findRow(k.name, "glimpse", conc)
		if g == nil || g.base == nil || g.cpu.n == 0 || g.base.cpu.n == 0 {
			notMeasured(name)
			return
		}
		gc, bc := g.cpu.browser/time.Duration(g.cpu.n), g.base.cpu.browser/time.Duration(g.base.cpu.n)
		r := ratioOf(gc, bc)
		out = append(out, budget{name: name, measured: fmt.Sprintf("%.2f× (%s vs %s)", r, ms(gc), ms(bc)), pass: r <= limit})
	}
	if b.web != nil {
		for _, conc := range []int{1, 4} {
			p50(kindWebMetadata, conc, maxWebReadP50Ratio)
			p50(kindWebMarkdown, conc, maxWebReadP50Ratio)
			cpu(kindWebMetadata, conc, maxWebReadCPURatio)
			cpu(kindWebMarkdown, conc, maxWebReadCPURatio)
			p50(kindWebPDF, conc, maxWebPaintP50)
			p50(kindWebShot, conc, maxWebPaintP50)
		}
	}
	if b.o.compareChrome != "" {
		rps := func(k kind, limit float64) {
			name := fmt.Sprintf("%s req/s at c4 on the shell ≥ %.1f × the baseline on the full browser", k.name, limit)
			g, full := b.findRow(k.name, "glimpse", 4), b.findRow(k.name+", baseline on the full browser", "baseline", 4)
			if g == nil || full == nil || g.sum.Requests == 0 || full.sum.Requests == 0 {
				notMeasured(name)
				return
			}
			r := g.sum.RPS / full.sum.RPS
			out = append(out, budget{name: name, measured: fmt.Sprintf("%.2f× (%.1f vs %.1f req/s)", r, g.sum.RPS, full.sum.RPS), pass: r >= limit})
		}
		rps(kindMetadata, minShellMetadataRPS)
		rps(kindPDF, minShellPDFRPS)
	}
	return out
}

// webNote describes the model for the report.
func (b *bench) webNote() string {
	if b.web == nil {
		return ""
	}
	return "Web-like page model (seed " + fmt.Sprint(b.o.webSeed) + "): " + b.web.Describe()
}

// unfilteredBaseline is the baseline's connection with nothing blocked.
func (b *bench) unfilteredBaseline(ctx context.Context) (*rawcdp.Browser, error) {
	var h struct {
		UnfilteredProxy string `json:"unfiltered_proxy"`
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+b.sidecar+"/healthz", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil || h.UnfilteredProxy == "" {
		return nil, fmt.Errorf("the sidecar's /healthz names no unfiltered proxy (%v)", err)
	}
	return b.raw.Through(h.UnfilteredProxy), nil
}

// sidecarEnv is what the sidecar needs for the model: the stand-in names
// sent to loopback and their certificate taken.
func (b *bench) webSidecarEnv() []string {
	var env []string
	if b.o.chromePath != "" {
		env = append(env, "GLIMPSE_CHROME_PATH="+b.o.chromePath)
	}
	if b.web != nil {
		env = append(env, "GLIMPSE_DEV_HOSTS="+b.web.Hosts(), "GLIMPSE_CHROME_FLAGS=--ignore-certificate-errors")
	}
	return env
}
