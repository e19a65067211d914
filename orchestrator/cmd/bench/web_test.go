package main

import (
	"strings"
	"testing"
	"time"

	"github.com/glimpse/glimpse/orchestrator/cmd/bench/load"
	"github.com/glimpse/glimpse/orchestrator/cmd/bench/pages"
)

// webMeasured is a bench whose web rows came out at p50 ratio p and
// Chromium CPU ratio c to their baselines, and whose shell served rps
// times the full browser's baseline at c4.
func webMeasured(p, c, rps float64) *bench {
	b := &bench{web: &pages.Web{}, o: options{compareChrome: "/usr/lib/chromium/chromium"}}
	for _, k := range []kind{kindWebMetadata, kindWebMarkdown, kindWebPDF, kindWebShot} {
		for _, conc := range []int{1, 4} {
			base := &row{label: k.name, side: "baseline", conc: conc, sum: load.Summary{Requests: 8, P50: 2 * time.Second},
				cpu: cpuUse{browser: 8 * time.Second, n: 8}}
			gl := &row{label: k.name, side: "glimpse", conc: conc, base: base, sum: load.Summary{Requests: 8, P50: time.Duration(p * float64(2*time.Second))},
				cpu: cpuUse{browser: time.Duration(c * float64(8*time.Second)), n: 8}}
			b.rows = append(b.rows, base, gl)
		}
	}
	for _, k := range []kind{kindMetadata, kindPDF} {
		full := &row{label: k.name + ", baseline on the full browser", side: "baseline", conc: 4, sum: load.Summary{Requests: 8, RPS: 2}}
		gl := &row{label: k.name, side: "glimpse", conc: 4, sum: load.Summary{Requests: 8, RPS: 2 * rps}}
		b.rows = append(b.rows, full, gl)
	}
	return b
}

func TestWebBudgets(t *testing.T) {
	tests := []struct {
		name       string
		b          *bench
		wantFailed []string
	}{
		{name: "renders at a third of the baseline's time and CPU, with the shell 1.5 times as fast, pass everything", b: webMeasured(0.33, 0.33, 1.5)},
		{name: "renders at 0.7 of the baseline's time fail the read budgets but not the painted ones", b: webMeasured(0.7, 0.33, 1.5),
			wantFailed: []string{"web metadata p50 at c1", "web Markdown p50 at c1", "web metadata p50 at c4", "web Markdown p50 at c4"}},
		{name: "renders at 0.9 fail every p50 budget", b: webMeasured(0.9, 0.33, 1.5),
			wantFailed: []string{"web metadata p50 at c1", "web Markdown p50 at c1", "web PDF p50 at c1", "web full-page screenshot p50 at c1",
				"web metadata p50 at c4", "web Markdown p50 at c4", "web PDF p50 at c4", "web full-page screenshot p50 at c4"}},
		{name: "renders that cost 0.7 of the baseline's CPU fail the CPU budgets", b: webMeasured(0.33, 0.7, 1.5),
			wantFailed: []string{"web metadata Chromium CPU per request at c1", "web Markdown Chromium CPU per request at c1",
				"web metadata Chromium CPU per request at c4", "web Markdown Chromium CPU per request at c4"}},
		{name: "a shell only 1.25 times as fast fails the metadata budget and passes the PDF one", b: webMeasured(0.33, 0.33, 1.25),
			wantFailed: []string{"metadata req/s at c4 on the shell"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var failed []string
			for _, bg := range tt.b.webBudgets() {
				if bg.missing {
					t.Errorf("%s was not measured", bg.name)
				}
				if !bg.pass {
					failed = append(failed, bg.name)
				}
			}
			if len(failed) != len(tt.wantFailed) {
				t.Fatalf("failed %q, want %q", failed, tt.wantFailed)
			}
			for i, w := range tt.wantFailed {
				if !strings.HasPrefix(failed[i], w) {
					t.Errorf("failed %q, want %q", failed, tt.wantFailed)
				}
			}
		})
	}
	t.Run("without the model and the second browser nothing of theirs is listed", func(t *testing.T) {
		if got := (&bench{}).webBudgets(); len(got) != 0 {
			t.Errorf("webBudgets = %+v", got)
		}
	})
	t.Run("a row that did not run is not measured", func(t *testing.T) {
		b := webMeasured(0.3, 0.3, 1.5)
		b.rows = b.rows[2:]
		if got := b.webBudgets(); !got[0].missing {
			t.Errorf("the first budget is %+v", got[0])
		}
	})
}
