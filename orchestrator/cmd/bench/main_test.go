package main

import (
	"flag"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/glimpse/glimpse/orchestrator/cmd/bench/load"
	"github.com/glimpse/glimpse/orchestrator/cmd/bench/pages"
	"github.com/glimpse/glimpse/orchestrator/cmd/bench/procmem"
	"github.com/glimpse/glimpse/orchestrator/cmd/bench/rawcdp"
)

func noEnv(string) string { return "" }

func TestParseOptions(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		check   func(t *testing.T, o options)
		wantErr string
	}{
		{
			name: "the defaults are the full run against the repository's binaries",
			check: func(t *testing.T, o options) {
				if o.rounds != 2 || o.soak != 1000 || o.cacheConns != 64 || o.strict || o.short || o.sidecars != 1 {
					t.Errorf("defaults = %+v", o)
				}
				if filepath.Base(o.binDir) != "bin" || !filepath.IsAbs(o.binDir) {
					t.Errorf("bin dir = %s", o.binDir)
				}
				if !strings.HasSuffix(o.evalDir, filepath.Join("shared", "eval", "metadata", "cases")) {
					t.Errorf("eval dir = %s", o.evalDir)
				}
				if len(o.pdfCorpus) != 4 {
					t.Errorf("pdf corpus = %v", o.pdfCorpus)
				}
			},
		},
		{
			name: "a short run is one round with fewer pages and a short soak",
			args: []string{"-short"},
			check: func(t *testing.T, o options) {
				if o.rounds != 1 || o.soak != 200 || o.corpusPages != 4 || len(o.pdfCorpus) != 2 || o.cacheDuration != 4*time.Second {
					t.Errorf("short = %+v", o)
				}
			},
		},
		{
			name: "the corpus folder comes from GLIMPSE_EVAL_DIR",
			env:  map[string]string{"GLIMPSE_EVAL_DIR": "/some/cases"},
			check: func(t *testing.T, o options) {
				if o.evalDir != "/some/cases" {
					t.Errorf("eval dir = %s", o.evalDir)
				}
			},
		},
		{
			name: "the -eval-dir flag wins over the variable, and PDF cases are trimmed",
			args: []string{"-eval-dir", "/flag/cases", "-pdf-corpus", " a , ,b", "-strict"},
			env:  map[string]string{"GLIMPSE_EVAL_DIR": "/some/cases"},
			check: func(t *testing.T, o options) {
				if o.evalDir != "/flag/cases" || strings.Join(o.pdfCorpus, "|") != "a|b" || !o.strict {
					t.Errorf("options = %+v", o)
				}
			},
		},
		{
			name: "glimpse can render on more than one sidecar",
			args: []string{"-sidecars", "3"},
			check: func(t *testing.T, o options) {
				if o.sidecars != 3 {
					t.Errorf("sidecars = %d", o.sidecars)
				}
			},
		},
		{name: "no sidecar is refused", args: []string{"-sidecars", "0"}, wantErr: "between 1 and 8"},
		{name: "more sidecars than the machine should hold are refused", args: []string{"-sidecars", "9"}, wantErr: "between 1 and 8"},
		{name: "zero rounds are refused", args: []string{"-rounds", "0"}, wantErr: "at least one round"},
		{name: "a soak too short to hold every kind is refused", args: []string{"-soak", "5"}, wantErr: "at least 20"},
		{name: "no soak workers are refused", args: []string{"-soak-concurrency", "0"}, wantErr: "at least 1"},
		{name: "a stray argument is refused", args: []string{"now"}, wantErr: `unexpected argument "now"`},
		{name: "an unknown flag is refused", args: []string{"-fast"}, wantErr: "not defined"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			getenv := func(k string) string { return tt.env[k] }
			o, err := parseOptions(tt.args, getenv, io.Discard)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, o)
		})
	}
}

func TestHelpIsNotAnError(t *testing.T) {
	if _, err := parseOptions([]string{"-h"}, noEnv, io.Discard); err != flag.ErrHelp {
		t.Fatalf("err = %v, want flag.ErrHelp", err)
	}
}

// measured builds a bench as if a run had produced these figures.
// measured is a finished run; rpsRatio scales glimpse's requests/s at c4
// against the budgets' own ratios, so 1 is just within them.
func measured(metaRatio, pdfRatio, rpsRatio float64, cacheRPS float64, cacheP99 time.Duration) *bench {
	b := &bench{o: options{cacheConns: 64, warm: 2}}
	ms := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	add := func(label string, conc int, baseP50 float64, baseRPS float64, p50Ratio, rpsRatio float64) {
		base := &row{label: label, side: "baseline", conc: conc, sum: load.Summary{Requests: 10, P50: ms(baseP50), RPS: baseRPS}}
		gl := &row{label: label, side: "glimpse", conc: conc, base: base,
			sum: load.Summary{Requests: 10, P50: ms(baseP50 * p50Ratio), RPS: baseRPS * rpsRatio}}
		b.rows = append(b.rows, base, gl)
	}
	add(kindMetadata.name, 1, 200, 5, metaRatio, 1)
	add(kindMetadata.name, 4, 300, 10, 1, rpsRatio*minMetadataRPSRatio*1.01)
	add(kindPDF.name, 1, 900, 1, pdfRatio, 1)
	add(kindPDF.name, 4, 1500, 2, 1, rpsRatio*minPDFRPSRatio*1.01)
	meta4 := b.findRow(kindMetadata.name, "glimpse", 4)
	meta4.base.cpu = cpuUse{browser: 7 * time.Second, n: 10}
	meta4.cpu = cpuUse{browser: 3500 * time.Millisecond, n: 10}
	b.rows = append(b.rows,
		&row{label: kindDefaults.name, side: "glimpse", conc: 1, sum: load.Summary{Requests: 10, P50: ms(22)}},
		&row{label: kindDefaultsNoPing.name, side: "glimpse", conc: 1, sum: load.Summary{Requests: 10, P50: ms(20)}})
	b.rows = append(b.rows, &row{label: "cache hits", side: "glimpse", conc: 64, sum: load.Summary{Requests: 1000, RPS: cacheRPS, P99: 4 * cacheP99}},
		&row{label: cacheRateLabel, side: "glimpse", conc: 64, sum: load.Summary{Requests: 100000, Elapsed: 10 * time.Second, RPS: 10000, P99: cacheP99}})
	b.mem = memory{orchPeakRSS: 60 << 20, chromeBefore: chromeUsage{Usage: procmem.Usage{PSS: 400 << 20}}, chromeAfter: chromeUsage{Usage: procmem.Usage{PSS: 420 << 20}}}
	b.leaks = leakCheck{before: rawcdp.Counts{Targets: 2, Pages: 2, Contexts: 2}, after: rawcdp.Counts{Targets: 2, Pages: 2, Contexts: 2}, done: true}
	return b
}

func failed(b *bench) []string {
	var out []string
	for _, bg := range b.budgets() {
		if !bg.pass {
			out = append(out, bg.name)
		}
	}
	return out
}

func TestBudgets(t *testing.T) {
	tests := []struct {
		name       string
		b          *bench
		wantFailed []string // substrings of the failed budgets' names
		wantExit   int
		strictExit int
	}{
		{
			name:       "a run within every budget passes and exits 0",
			b:          measured(1.05, 1.10, 1, 12000, 3*time.Millisecond),
			wantExit:   0,
			strictExit: 0,
		},
		{
			name:       "a slow p50 fails its budget but exits 0 unless strict",
			b:          measured(1.30, 1.00, 1.00, 12000, 3*time.Millisecond),
			wantFailed: []string{"metadata p50"},
			wantExit:   0,
			strictExit: 1,
		},
		{
			name:       "low throughput and slow cache hits fail their budgets",
			b:          measured(1.00, 1.00, 0.80, 9000, 7*time.Millisecond),
			wantFailed: []string{"metadata req/s", "PDF req/s", "cache hits ≥", "cache hits p99"},
			wantExit:   0,
			strictExit: 1,
		},
		{
			name: "a metadata render that costs Chromium more than its share fails its budget",
			b: func() *bench {
				b := measured(1, 1, 1, 12000, time.Millisecond)
				b.findRow(kindMetadata.name, "glimpse", 4).cpu.browser = 6 * time.Second
				return b
			}(),
			wantFailed: []string{"metadata Chromium CPU"},
			wantExit:   0,
			strictExit: 1,
		},
		{
			name: "a fixed-rate run that fell behind fails the p99 budget whatever its p99",
			b: func() *bench {
				b := measured(1, 1, 1, 12000, time.Millisecond)
				r := b.rows[len(b.rows)-1]
				r.sum.Requests, r.sum.RPS = 60000, 6000
				return b
			}(),
			wantFailed: []string{"cache hits p99"},
			wantExit:   0,
			strictExit: 1,
		},
		{
			name: "probes that slow the defaults past their margin fail their budget",
			b: func() *bench {
				b := measured(1, 1, 1, 12000, time.Millisecond)
				b.findRow(kindDefaults.name, "glimpse", 1).sum.P50 = 5 * time.Second
				return b
			}(),
			wantFailed: []string{"defaults p50 with ping"},
			wantExit:   0,
			strictExit: 1,
		},
		{
			name: "a leaked browser context fails the run even without strict",
			b: func() *bench {
				b := measured(1, 1, 1, 12000, time.Millisecond)
				b.leaks.after.Contexts = 3
				return b
			}(),
			wantFailed: []string{"no leaked"},
			wantExit:   1,
			strictExit: 1,
		},
		{
			name: "a failed request fails the run even without strict",
			b: func() *bench {
				b := measured(1, 1, 1, 12000, time.Millisecond)
				b.fail("soak: request 3: HTTP 504")
				return b
			}(),
			wantFailed: []string{"no failed request"},
			wantExit:   1,
			strictExit: 1,
		},
		{
			name: "Chromium memory that grew past its margin fails its budget",
			b: func() *bench {
				b := measured(1, 1, 1, 12000, time.Millisecond)
				b.mem.chromeAfter.PSS = 500 << 20
				b.mem.orchPeakRSS = 200 << 20
				return b
			}(),
			wantFailed: []string{"orchestrator RSS", "Chromium PSS"},
			wantExit:   0,
			strictExit: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := failed(tt.b)
			if len(got) != len(tt.wantFailed) {
				t.Fatalf("failed budgets = %q, want %d matching %q", got, len(tt.wantFailed), tt.wantFailed)
			}
			for i, want := range tt.wantFailed {
				if !strings.Contains(got[i], want) {
					t.Errorf("failed budget %d = %q, want %q", i, got[i], want)
				}
			}
			if code := tt.b.verdict(); code != tt.wantExit {
				t.Errorf("exit = %d, want %d", code, tt.wantExit)
			}
			tt.b.o.strict = true
			if code := tt.b.verdict(); code != tt.strictExit {
				t.Errorf("exit with -strict = %d, want %d", code, tt.strictExit)
			}
		})
	}
}

func TestBudgetsOfAnUnfinishedRunAreNotMeasured(t *testing.T) {
	b := &bench{o: options{cacheConns: 64}}
	var missing int
	for _, bg := range b.budgets() {
		if bg.missing {
			missing++
			if bg.pass {
				t.Errorf("%q passes without a measurement", bg.name)
			}
		}
	}
	if missing < 7 {
		t.Errorf("%d budgets marked as not measured, want every one that needs a figure", missing)
	}
	if b.verdict() != 1 {
		t.Error("an unfinished run must not exit 0: its leak check never ran")
	}
}

func TestCutNote(t *testing.T) {
	plan := load.Plan{Requests: 10, Duration: 5 * time.Second}
	if n := cutNote(plan, []load.Result{{Requests: 10}, {Requests: 10}}); n != "" {
		t.Errorf("a complete run got the note %q", n)
	}
	n := cutNote(plan, []load.Result{{Requests: 10}, {Requests: 4}})
	if !strings.Contains(n, "14 of 20") || !strings.Contains(n, "5s") || strings.Contains(n, "in flight") {
		t.Errorf("note = %q", n)
	}
	n = cutNote(plan, []load.Result{{Requests: 10}, {Requests: 4, Aborted: 2}})
	if !strings.Contains(n, "14 of 20") || !strings.Contains(n, "2 more cut in flight") {
		t.Errorf("note = %q", n)
	}
}

func TestChoosePagesSpreadsOverTheCorpus(t *testing.T) {
	var all []pages.Page
	for _, n := range []string{"article", "blog"} {
		all = append(all, pages.Page{Name: n, Path: "/" + n})
	}
	for _, n := range []string{"a", "b", "c", "d", "e", "f"} {
		all = append(all, pages.Page{Name: n, Path: "/corpus/" + n + "/", Corpus: true})
	}
	tests := []struct {
		name      string
		corpus    int
		pdf       []string
		wantMeta  string
		wantPDF   string
		wantWords string
	}{
		{"three of six real pages are spread evenly", 3, []string{"c", "zzz"}, "article blog a c e", "article blog c", "2 synthetic + 3 real"},
		{"minus one takes every real page", -1, nil, "article blog a b c d e f", "article blog", "2 synthetic + 6 real"},
		{"zero takes the synthetic pages alone", 0, nil, "article blog", "article blog", "no real pages"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &bench{o: options{corpusPages: tt.corpus, pdfCorpus: tt.pdf}}
			b.choose(all)
			names := func(ps []pages.Page) string {
				var s []string
				for _, p := range ps {
					s = append(s, p.Name)
				}
				return strings.Join(s, " ")
			}
			if got := names(b.metaPages); got != tt.wantMeta {
				t.Errorf("metadata pages = %s, want %s", got, tt.wantMeta)
			}
			if got := names(b.pdfPages); got != tt.wantPDF {
				t.Errorf("PDF pages = %s, want %s", got, tt.wantPDF)
			}
			if got := describePages(b.metaPages); !strings.Contains(got, tt.wantWords) {
				t.Errorf("description = %q, want %q", got, tt.wantWords)
			}
		})
	}
}

func TestDurationsReadLikeTheTable(t *testing.T) {
	for _, tt := range []struct {
		d    time.Duration
		want string
	}{
		{0, "—"},
		{1234 * time.Microsecond, "1.23ms"},
		{87 * time.Millisecond, "87ms"},
		{1400 * time.Millisecond, "1.40s"},
	} {
		if got := ms(tt.d); got != tt.want {
			t.Errorf("ms(%s) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

func TestReportPrintsTheTableBudgetsAndFailures(t *testing.T) {
	b := measured(1.05, 1.30, 1.0, 12000, 3*time.Millisecond)
	b.metaPages = []pages.Page{{Name: "article"}, {Name: "a", Corpus: true}}
	b.fail("soak: request 7: HTTP 504 ETIMEOUT")
	b.cutSteps = []string{"PDF c4"}
	var out strings.Builder
	b.out = &out
	b.report()
	got := out.String()
	for _, want := range []string{
		"glimpse metadata", "baseline PDF", "p50 ÷ base", "1.05", "1.30",
		"PASS  metadata p50 at c1", "FAIL  PDF p50 at c1", "FAIL  no failed request",
		"soak: request 7: HTTP 504", "1 synthetic + 1 real", "cut, not counted: PDF c4",
		"targets 2 → 2",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the report lacks %q:\n%s", want, got)
		}
	}
}

func TestWorstGapsAreTheLargestRatioPerPage(t *testing.T) {
	ms := func(n int) float64 { return float64(time.Duration(n) * time.Millisecond) }
	per := map[string][]float64{
		"app":     {1.5, ms(200), ms(300), 3.0, ms(100), ms(300)},
		"article": {0.9, ms(100), ms(90)},
		"blog":    {1.1, ms(100), ms(110)},
	}
	got := worstGaps(per, 2)
	if len(got) != 2 || got[0].page != "app" || got[0].ratio != 3 || got[0].baseline != 100*time.Millisecond || got[1].page != "blog" {
		t.Errorf("worstGaps = %+v", got)
	}
}
