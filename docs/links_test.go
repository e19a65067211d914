package docs

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// repoRoot is the repository, one folder above this package.
const repoRoot = ".."

func TestEveryLinkInTheDocsResolves(t *testing.T) {
	problems, err := checkMarkdown(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

func TestNoCodeCommentCitesAFileThatIsNotInTheTree(t *testing.T) {
	problems, err := checkComments(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

func TestTheReadmeLinksEveryPageOfTheDocs(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	linked := map[string]bool{}
	for _, l := range parsePage(string(b)).links {
		path, _, _ := strings.Cut(l.target, "#")
		linked[path] = true
	}
	pages, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) == 0 {
		t.Fatal("docs/ has no pages")
	}
	for _, p := range pages {
		if !linked["docs/"+p] {
			t.Errorf("README.md does not link docs/%s; a newcomer finds the docs from the README", p)
		}
	}
}

func TestTheReadmeStaysShort(t *testing.T) {
	const limit = 12 << 10
	b, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > limit {
		t.Errorf("README.md is %d bytes; keep it under %d (a newcomer's ten minutes) and move details into docs/", len(b), limit)
	}
}

// writeTree makes a folder of files from a map of relative path → content.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// problemsIn runs check on a tree and returns its problems as strings.
func problemsIn(t *testing.T, files map[string]string, check func(string) ([]problem, error)) []string {
	t.Helper()
	ps, err := check(writeTree(t, files))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range ps {
		out = append(out, p.String())
	}
	return out
}

const guide = `# Guide

## Getting started

## The ` + "`data`" + ` object, and [its rules](#getting-started)

## Errors — and retries

## FAQ

## FAQ

### GLIMPSE_SOAK=full

Setext heading
--------------

<a id="custom-spot"></a>
`

func TestLinkCheckFindsBrokenLinks(t *testing.T) {
	cases := []struct {
		name string
		page string   // the page under test, beside the guide and main.go
		want []string // substrings of the problems, in order; none: clean
	}{
		{name: "a link to a page and a heading that exist passes",
			page: "[guide](guide.md#getting-started) and [top](#top)\n\n# Top\n"},
		{name: "a link to a file that is not in the tree fails",
			page: "see [the API](api.md)\n", want: []string{`docs/page.md:1: link "api.md": docs/api.md is not in the tree`}},
		{name: "a link to a heading another page does not have fails",
			page: "[x](guide.md#getting-startd)\n", want: []string{"docs/guide.md has no heading with the anchor #getting-startd"}},
		{name: "a link to a heading of its own page that does not exist fails",
			page: "# One\n\n[x](#two)\n", want: []string{`docs/page.md:3: link "#two"`}},
		{name: "anchors follow GitHub: code and links keep their text, punctuation goes, spaces become hyphens",
			page: "[a](guide.md#the-data-object-and-its-rules) [b](guide.md#errors--and-retries) [c](guide.md#glimpse_soakfull)\n"},
		{name: "a repeated heading gets -1 and there is no -2",
			page: "[a](guide.md#faq) [b](guide.md#faq-1) [c](guide.md#faq-2)\n", want: []string{"no heading with the anchor #faq-2"}},
		{name: "setext headings and explicit ids are anchors",
			page: "[a](guide.md#setext-heading) [b](guide.md#custom-spot)\n"},
		{name: "links inside code blocks and code spans are not links",
			page: "```md\n[x](missing.md)\n```\n\n`[y](missing.md)` and ``[z](gone.md)``\n"},
		{name: "a link in a table cell, an image and a reference definition are all checked",
			page: "| a | [b](nope.md) |\n|---|---|\n\n![logo](logo.png)\n\n[ref]: ../gone.md\n",
			want: []string{"docs/nope.md is not in the tree", "docs/logo.png is not in the tree", "gone.md is not in the tree"}},
		{name: "a link that leaves the repository fails",
			page: "[x](../../etc/passwd)\n", want: []string{"leads out of the repository"}},
		{name: "a path from the root fails, since it breaks outside GitHub",
			page: "[x](/docs/guide.md)\n", want: []string{"relative to this file"}},
		{name: "a folder is a valid target and a source file takes line anchors only",
			page: "[code](../main.go#L3) [folder](../docs) [bad](../main.go#func)\n", want: []string{"only a Markdown page has headings"}},
		{name: "external links are checked for form only",
			page: "[ok](https://example.com/a?b=c#d) [mail](mailto:team@example.com) <https://example.org>\n" +
				"[no host](https:///path) [js](javascript:alert(1)) [bad](http://[::1)\n",
			want: []string{`"https:///path" has no host`, `scheme "javascript"`, `"http://[::1" is not a valid URL`}},
		{name: "a percent-encoded path is decoded before it is looked up",
			page: "[x](guide%2Emd#faq)\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := problemsIn(t, map[string]string{
				"docs/guide.md": guide,
				"docs/page.md":  tc.page,
				"main.go":       "package main\n\nfunc main() {}\n",
			}, checkMarkdown)
			if len(got) != len(tc.want) {
				t.Fatalf("got %d problems, want %d:\n%s", len(got), len(tc.want), strings.Join(got, "\n"))
			}
			for i, w := range tc.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("problem %d is %q, want it to say %q", i, got[i], w)
				}
			}
		})
	}
}

func TestCommentCheckFindsCitationsOfMissingFiles(t *testing.T) {
	cases := []struct {
		name    string
		comment string
		want    []string
	}{
		{name: "a page of docs/ that exists, with a heading it has, passes",
			comment: "// The codes of the API (docs/api.md#errors)."},
		{name: "a README beside the code, or in a folder above it, passes",
			comment: "// See README.md and NOTES.md."},
		{name: "a file outside the tree fails",
			comment: "// The limits of API.md: a 28s timeout.", want: []string{"cites API.md, which is not in the tree"}},
		{name: "a heading the cited page does not have fails",
			comment: "// As docs/api.md#nowhere says.", want: []string{"docs/api.md has no heading with that anchor"}},
		{name: "a possessive or a full stop after the name still counts",
			comment: "// DESIGN.md's table.\n// Read DESIGN.md.", want: []string{"cites DESIGN.md", "cites DESIGN.md"}},
		{name: "a field path that merely contains .md is no citation",
			comment: "// data.md.attr=markdown reads the rule named md."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := problemsIn(t, map[string]string{
				"docs/api.md":         "# API\n\n## Errors\n",
				"README.md":           "# top\n",
				"pkg/sub/NOTES.md":    "# notes\n",
				"pkg/sub/code.go":     "package sub\n\n" + tc.comment + "\nvar X = 1\n",
				"pkg/sub/strings.go":  "package sub\n\nconst y = \"API.md is in a string, not a comment\"\n",
				"testdata/fixture.go": "package fixture\n\n// Cites GONE.md on purpose.\n",
			}, checkComments)
			if len(got) != len(tc.want) {
				t.Fatalf("got %d problems, want %d:\n%s", len(got), len(tc.want), strings.Join(got, "\n"))
			}
			for i, w := range tc.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("problem %d is %q, want it to say %q", i, got[i], w)
				}
			}
		})
	}
}

func TestSlugFollowsGitHub(t *testing.T) {
	cases := map[string]string{
		"Which failures are worth a retry":         "which-failures-are-worth-a-retry",
		"How `evaluate` runs":                      "how-evaluate-runs",
		"Callers, plans and quotas":                "callers-plans-and-quotas",
		"GlimpseNoHealthySidecars":                 "glimpsenohealthysidecars",
		"EINVALURL":                                "einvalurl",
		"What glimpse guarantees when things fail": "what-glimpse-guarantees-when-things-fail",
		"Ünïcödé headings stay":                    "ünïcödé-headings-stay",
		"[Linked](x.md) <em>and</em> tagged":       "linked-and-tagged",
	}
	names := make([]string, 0, len(cases))
	for h := range cases {
		names = append(names, h)
	}
	slices.Sort(names)
	for _, h := range names {
		if got := slug(h); got != cases[h] {
			t.Errorf("slug(%q) = %q, want %q", h, got, cases[h])
		}
	}
}
