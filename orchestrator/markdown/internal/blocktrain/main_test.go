package main

import (
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/glimpse/glimpse/orchestrator/markdown"
	"github.com/glimpse/glimpse/orchestrator/markdown/internal/boost"
	metric "github.com/glimpse/glimpse/orchestrator/markdown/internal/score"
)

func TestReferenceShareCountsWordsInTheirOrder(t *testing.T) {
	ref := newReference("The kettle boils in two minutes.\n\nDescale it monthly.")
	for _, tc := range []struct {
		name, text string
		want       float64
	}{
		{"a sentence of the reference", "the kettle boils in two minutes", 1},
		{"the same words in another order", "minutes two in boils kettle the", 0},
		{"a short block found", "descale it", 1},
		{"a short block not found", "sign up", 0},
		{"nothing", "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ref.share(metric.WCXBTokens(tc.text)); got != tc.want {
				t.Errorf("share(%q) = %v, want %v", tc.text, got, tc.want)
			}
		})
	}
}

// writeCase writes a case folder as the WCXB set lays it out.
func writeCase(t *testing.T, dir, name, kind, domain, page, reference string) {
	t.Helper()
	d := filepath.Join(dir, name)
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(d, "page.html.gz"))
	if err != nil {
		t.Fatal(err)
	}
	z := gzip.NewWriter(f)
	z.Write([]byte(page))
	z.Close()
	f.Close()
	c := fmt.Sprintf(`{"url":"https://%s/a","page_type":%q,"domain":%q,"with":[],"without":["Copyright"]}`, domain, kind, domain)
	os.WriteFile(filepath.Join(d, "case.json"), []byte(c), 0o644)
	os.WriteFile(filepath.Join(d, "main_content.txt"), []byte(reference), 0o644)
}

func TestRunTrainsScoresTheFoldsAndWritesAModelThePackageReads(t *testing.T) {
	dir := t.TempDir()
	for i := range 6 {
		story := fmt.Sprintf("Story %d tells how the river rose by two metres in one night and how the village moved its animals uphill before dawn.", i)
		page := `<html><head><title>River</title></head><body><header><nav><ul><li><a href="/">Home</a></li><li><a href="/news">News</a></li></ul></nav></header>` +
			`<main><p>` + story + `</p><p>Second paragraph of story ` + fmt.Sprint(i) + ` says the water fell again by Sunday.</p></main>` +
			`<footer><p>Copyright 2026 The Valley Paper, all rights reserved.</p></footer></body></html>`
		reference := story + "\n\nSecond paragraph of story " + fmt.Sprint(i) + " says the water fell again by Sunday.\n"
		writeCase(t, dir, fmt.Sprintf("%04d-article-site%d", i+1, i), "article", fmt.Sprintf("site%d.example", i), page, reference)
	}
	out := filepath.Join(t.TempDir(), "model.json.gz")
	p := boost.DefaultParams()
	p.Trees = 5
	cfg := config{cases: dir, out: out, folds: 2, threshold: 0.5, params: p, tsv: filepath.Join(t.TempDir(), "scores.tsv")}
	if err := run(cfg); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := markdown.ParseBlockModel(data); err != nil {
		t.Errorf("the package refuses the model the command wrote: %v", err)
	}
	tsv, _ := os.ReadFile(cfg.tsv)
	if lines := strings.Count(string(tsv), "\n"); lines != 6 {
		t.Errorf("the scores file has %d lines for 6 pages", lines)
	}
}

func TestRunRefusesWhatItCannotUse(t *testing.T) {
	empty := t.TempDir()
	for _, tc := range []struct {
		name string
		cfg  config
		want string
	}{
		{"no cases folder named", config{}, "-cases"},
		{"a folder without cases", config{cases: empty}, "no cases"},
		{"a folder that is not there", config{cases: filepath.Join(empty, "none")}, "cannot list"},
		{"another threshold that is no probability", config{cases: empty, also: "2"}, "-also"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := run(tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want one naming %q", err, tc.want)
			}
		})
	}
}
