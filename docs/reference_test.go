package docs

import (
	"bytes"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/glimpse/glimpse/orchestrator"
	"github.com/glimpse/glimpse/orchestrator/apierr"
	"github.com/glimpse/glimpse/sidecar"
)

func readDoc(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// codeRowRE is a row of the codes table of api.md: | [`ECODE`](#ecode) | 400 | …
var codeRowRE = regexp.MustCompile("(?m)^\\| \\[`(E[A-Z]+)`\\]\\(#[a-z]+\\) \\| (\\d{3}) \\|")

// Every error's `more` link ends in #<code in lower case>, so each code
// needs a section of that name, and the table must give the status the code
// really has.
func TestEveryErrorCodeHasItsSectionAndStatusInTheAPIReference(t *testing.T) {
	text := readDoc(t, "api.md")
	anchors := parsePage(text).anchors
	table := map[string]int{}
	for _, m := range codeRowRE.FindAllStringSubmatch(text, -1) {
		table[m[1]], _ = strconv.Atoi(m[2])
	}
	for _, code := range apierr.Codes() {
		if !anchors[strings.ToLower(code)] {
			t.Errorf("api.md has no section #%s; an error's `more` link points there", strings.ToLower(code))
		}
		got, ok := table[code]
		switch {
		case !ok:
			t.Errorf("the codes table of api.md does not list %s", code)
		case got != apierr.Status(code):
			t.Errorf("the codes table of api.md gives %s the status %d; glimpse answers %d", code, got, apierr.Status(code))
		}
	}
	for code := range table {
		if !slices.Contains(apierr.Codes(), code) {
			t.Errorf("the codes table of api.md lists %s, which glimpse does not have", code)
		}
	}
}

// usageRE is a line of --help: the flag, its variable, and the default if
// the flag has one in quotes.
var usageRE = regexp.MustCompile(`(?m)^\s+--([a-z0-9-]+)\s+(GLIMPSE_[A-Z0-9_]+)\s.*?(?:\(default "([^"]*)"\))?$`)

// sectionOf is the text of a page from a `## title` heading to the next
// heading of that level.
func sectionOf(t *testing.T, page, title string) string {
	t.Helper()
	start := strings.Index(page, "\n## "+title+"\n")
	if start < 0 {
		t.Fatalf("configuration.md has no section %q", title)
	}
	rest := page[start+1:]
	if end := strings.Index(rest[3:], "\n## "); end >= 0 {
		return rest[:end+3]
	}
	return rest
}

// Every flag a binary's --help lists is in configuration.md, in a table row
// that names its variable and its flag and, when the flag has a default,
// shows that default.
func TestEveryFlagIsDocumentedWithItsDefault(t *testing.T) {
	page := readDoc(t, "configuration.md")
	var orch, side bytes.Buffer
	_, _ = orchestrator.LoadConfig([]string{"--help"}, func(string) string { return "" }, &orch)
	_, _ = sidecar.ParseFlags([]string{"--help"}, func(string) (string, bool) { return "", false }, &side)
	for _, bin := range []struct {
		name, usage string
		sections    []string
	}{
		{"orchestrator", orch.String(), []string{"The orchestrator", "Storage"}},
		{"sidecar", side.String(), []string{"The sidecar"}},
	} {
		var rows []string
		for _, s := range bin.sections {
			for _, line := range strings.Split(sectionOf(t, page, s), "\n") {
				if strings.HasPrefix(line, "| `GLIMPSE_") {
					rows = append(rows, line)
				}
			}
		}
		flags := usageRE.FindAllStringSubmatch(bin.usage, -1)
		if len(flags) < 5 {
			t.Fatalf("%s --help lists %d flags; the usage format changed:\n%s", bin.name, len(flags), bin.usage)
		}
		for _, f := range flags {
			flag, env, def := f[1], f[2], f[3]
			t.Run(bin.name+" "+env, func(t *testing.T) {
				var row string
				for _, r := range rows {
					if strings.Contains(r, "`"+env+"`") {
						row = r
						break
					}
				}
				if row == "" {
					t.Fatalf("configuration.md has no row for %s in its %s table", env, bin.name)
				}
				if !strings.Contains(row, "`--"+flag+"`") {
					t.Errorf("the row of %s does not name its flag --%s: %s", env, flag, row)
				}
				cells := strings.Split(strings.Trim(row, "| "), " | ")
				if def != "" && !strings.Contains(cells[len(cells)-1], "`"+def+"`") {
					t.Errorf("the row of %s gives the default %q; %s --help says %q", env, cells[len(cells)-1], bin.name, def)
				}
			})
		}
	}
}
