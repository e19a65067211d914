package markdown

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/glimpse/glimpse/internal/testtool"
	"github.com/glimpse/glimpse/orchestrator/meta"
)

// The Markdown corpus (shared/eval/markdown) holds saved pages with the
// plain text of their main content. This test scores Article on it the way
// the corpus's scorer (score.py) scores the running service: the Markdown
// reduced to text, then word-level precision, recall and F1 against the
// expected text, averaged over the cases. Each page is given the URL its
// case.json states.
//
// The corpus has 94 real articles and 36 small synthetic pages (page.html
// under 5 kB) that each test one feature; the targets are stated on the
// real ones.

// corpusEnv names the corpus's cases folder when it is not in its usual
// place.
const corpusEnv = "GLIMPSE_EVAL_MARKDOWN_DIR"

// saveEnv names a folder to keep each case's answer in, as <name>.md, with
// this test's figures for each case in scores.tsv: score.py --answers
// reads the same folder, and the two must agree.
const saveEnv = "GLIMPSE_EVAL_MARKDOWN_SAVE"

// syntheticBytes is the size under which a case is a synthetic one.
const syntheticBytes = 5000

// The floors each mean must keep, a little under the figures reached, so
// that a regression shows. Recall's is lower than the others because some
// of these references keep what glimpse leaves out of every page as
// furniture: picture credits and a closing list of the site's other
// stories.
const (
	floorRealF1        = 0.99
	floorRealPrecision = 0.99
	floorRealRecall    = 0.985
	floorAllF1         = 0.99
)

type corpusScore struct {
	name         string
	synthetic    bool
	p, r, f1     float64
	expectedToks int
	gotToks      int
	// flaws are the ways the answer breaks the package's promises on
	// white space and determinism.
	flaws []string
}

func corpusDir(t *testing.T) string {
	dir := os.Getenv(corpusEnv)
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "eval", "markdown", "cases")
	}
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("the Markdown corpus is not at %s (set %s to its cases folder to score against it)", dir, corpusEnv)
	}
	return dir
}

func scoreCorpus(t *testing.T) []corpusScore {
	dir := corpusDir(t)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("cannot list the Markdown corpus at %s: %v", dir, err)
	}
	var out []corpusScore
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		caseDir := filepath.Join(dir, e.Name())
		expected, err := os.ReadFile(filepath.Join(caseDir, "expected.txt"))
		if err != nil {
			continue
		}
		var c struct {
			URL string `json:"url"`
		}
		raw, err := os.ReadFile(filepath.Join(caseDir, "case.json"))
		if err == nil {
			err = json.Unmarshal(raw, &c)
		}
		pageURL, perr := url.Parse(c.URL)
		if err != nil || perr != nil || c.URL == "" {
			t.Fatalf("case %s: case.json gives no page URL (%v, %v)", e.Name(), err, perr)
		}
		page, err := os.ReadFile(filepath.Join(caseDir, "page.html"))
		if err != nil {
			t.Fatalf("case %s: %v", e.Name(), err)
		}
		doc, err := meta.ParseDocument(bytes.NewReader(page))
		if err != nil {
			t.Fatalf("case %s: page.html does not parse: %v", e.Name(), err)
		}
		md, err := Article(context.Background(), doc, pageURL, Options{})
		if err != nil {
			t.Errorf("case %s: %v", e.Name(), err)
		}
		flaws := whitespaceFlaws(md)
		if again, _ := Article(context.Background(), doc, pageURL, Options{}); again != md {
			flaws = append(flaws, "a second extraction of the same document gave other bytes")
		}
		if save := os.Getenv(saveEnv); save != "" {
			if err := os.WriteFile(filepath.Join(save, e.Name()+".md"), []byte(md), 0o644); err != nil {
				t.Fatalf("cannot keep the answer: %v", err)
			}
		}
		text := scoreText(md)
		p, r, f1 := scoreCompare(string(expected), text)
		out = append(out, corpusScore{name: e.Name(), synthetic: len(page) < syntheticBytes, p: p, r: r, f1: f1,
			expectedToks: len(scoreTokens(string(expected))), gotToks: len(scoreTokens(text)), flaws: flaws})
	}
	if len(out) == 0 {
		t.Skipf("the Markdown corpus at %s has no cases", dir)
	}
	if save := os.Getenv(saveEnv); save != "" {
		var tsv strings.Builder
		for _, s := range out {
			fmt.Fprintf(&tsv, "%s\t%.6f\t%.6f\t%.6f\n", s.name, s.p, s.r, s.f1)
		}
		if err := os.WriteFile(filepath.Join(save, "scores.tsv"), []byte(tsv.String()), 0o644); err != nil {
			t.Fatalf("cannot keep the scores: %v", err)
		}
	}
	return out
}

// whitespaceFlaws lists where md breaks the white-space promises: no line
// ends in white space, no two blank lines in a row outside code, one final
// newline.
func whitespaceFlaws(md string) []string {
	if md == "" {
		return nil
	}
	var flaws []string
	if !strings.HasSuffix(md, "\n") || strings.HasSuffix(md, "\n\n") || strings.HasPrefix(md, "\n") {
		flaws = append(flaws, "it does not end with exactly one newline, or starts with a blank line")
	}
	blank, fence := 0, ""
	for i, line := range strings.Split(strings.TrimSuffix(md, "\n"), "\n") {
		if strings.TrimRight(line, " \t\u00a0") != line {
			flaws = append(flaws, fmt.Sprintf("line %d ends in white space", i+1))
		}
		if m := fenceRe.FindStringSubmatch(line); m != nil && (fence == "" || strings.HasPrefix(m[1], fence)) {
			if fence == "" {
				fence = m[1]
			} else {
				fence = ""
			}
		}
		if line == "" && fence == "" {
			blank++
			if blank == 2 {
				flaws = append(flaws, fmt.Sprintf("line %d is a second blank line in a row", i+1))
			}
		} else {
			blank = 0
		}
	}
	return flaws
}

type means struct {
	n        int
	p, r, f1 float64
	good     int // cases with F1 ≥ 0.9
}

func meanOf(scores []corpusScore, keep func(corpusScore) bool) means {
	var m means
	for _, s := range scores {
		if !keep(s) {
			continue
		}
		m.n++
		m.p += s.p
		m.r += s.r
		m.f1 += s.f1
		if s.f1 >= 0.9 {
			m.good++
		}
	}
	if m.n > 0 {
		m.p, m.r, m.f1 = m.p/float64(m.n), m.r/float64(m.n), m.f1/float64(m.n)
	}
	return m
}

func (m means) String() string {
	return fmt.Sprintf("n=%d P=%.4f R=%.4f F1=%.4f F1>=0.9: %d", m.n, m.p, m.r, m.f1, m.good)
}

func TestCorpusMainContentMatchesTheExpectedText(t *testing.T) {
	testtool.WithoutRace(t)
	if testing.Short() {
		t.Skip("scoring the corpus takes seconds; skipped with -short")
	}
	scores := scoreCorpus(t)
	real := meanOf(scores, func(s corpusScore) bool { return !s.synthetic })
	all := meanOf(scores, func(corpusScore) bool { return true })
	synthetic := meanOf(scores, func(s corpusScore) bool { return s.synthetic })
	t.Logf("real pages:      %v", real)
	t.Logf("synthetic pages: %v", synthetic)
	t.Logf("all pages:       %v", all)

	worst := append([]corpusScore(nil), scores...)
	sort.Slice(worst, func(i, j int) bool { return worst[i].f1 < worst[j].f1 })
	var lines []string
	for _, s := range worst[:min(12, len(worst))] {
		lines = append(lines, fmt.Sprintf("  %-32s P=%.3f R=%.3f F1=%.3f expected=%d got=%d", s.name, s.p, s.r, s.f1, s.expectedToks, s.gotToks))
	}
	t.Logf("lowest F1:\n%s", strings.Join(lines, "\n"))

	if real.n != 94 || all.n != 130 {
		t.Logf("the corpus has %d real and %d cases in all, not 94 and 130; the floors were set on those", real.n, all.n)
	}
	for _, s := range scores {
		for _, f := range s.flaws {
			t.Errorf("case %s: %s", s.name, f)
		}
	}
	check := func(what string, got, floor float64) {
		if got < floor {
			t.Errorf("%s is %.4f, under its floor %.4f", what, got, floor)
		}
	}
	check("mean F1 on the real pages", real.f1, floorRealF1)
	check("mean precision on the real pages", real.p, floorRealPrecision)
	check("mean recall on the real pages", real.r, floorRealRecall)
	check("mean F1 on all pages", all.f1, floorAllF1)
}
