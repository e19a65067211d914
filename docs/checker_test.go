package docs

import (
	"bufio"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// problem is one link or citation that does not resolve.
type problem struct {
	File string // relative to the root, with forward slashes
	Line int
	Msg  string
}

func (p problem) String() string { return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Msg) }

// skipDirs are folders whose files are not the project's own pages or
// code: fixtures and installed dependencies.
var skipDirs = map[string]bool{".git": true, "testdata": true, "node_modules": true}

// walk calls fn with the root-relative path of every file under root whose
// name ends in ext, skipping skipDirs.
func walk(root, ext string, fn func(rel string) error) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && skipDirs[d.Name()] {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(d.Name(), ext) {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		return fn(filepath.ToSlash(rel))
	})
}

// page is what the checks need of one Markdown file.
type page struct {
	anchors map[string]bool
	links   []link
}

type link struct {
	line   int
	target string
}

// checkMarkdown checks every link of every Markdown file under root.
func checkMarkdown(root string) ([]problem, error) {
	pages := map[string]*page{}
	if err := walk(root, ".md", func(rel string) error {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			return err
		}
		pages[rel] = parsePage(string(b))
		return nil
	}); err != nil {
		return nil, err
	}
	names := make([]string, 0, len(pages))
	for n := range pages {
		names = append(names, n)
	}
	slices.Sort(names)
	var out []problem
	anchorsOf := func(rel string) (map[string]bool, error) {
		if p, ok := pages[rel]; ok {
			return p.anchors, nil
		}
		// A Markdown file under a skipped folder, linked to on purpose.
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			return nil, err
		}
		return parsePage(string(b)).anchors, nil
	}
	for _, name := range names {
		for _, l := range pages[name].links {
			if msg := checkLink(root, name, l.target, anchorsOf); msg != "" {
				out = append(out, problem{File: name, Line: l.line, Msg: msg})
			}
		}
	}
	return out, nil
}

// schemeRE is a URL scheme, as in `https:` or `mailto:`.
var schemeRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)

// lineAnchorRE is GitHub's anchor of a line or lines of a source file.
var lineAnchorRE = regexp.MustCompile(`^L\d+(-L\d+)?$`)

// checkLink returns what is wrong with target, a link in the page from, or
// "" when it resolves.
func checkLink(root, from, target string, anchorsOf func(string) (map[string]bool, error)) string {
	if schemeRE.MatchString(target) {
		return checkExternal(target)
	}
	rawPath, frag, _ := strings.Cut(target, "#")
	rawPath, _, _ = strings.Cut(rawPath, "?")
	p, err := url.PathUnescape(rawPath)
	if err != nil {
		return fmt.Sprintf("link %q: the path is not valid percent-encoding", target)
	}
	if strings.HasPrefix(p, "/") {
		return fmt.Sprintf("link %q: write the path relative to this file, not from the root", target)
	}
	rel := from
	if p != "" {
		rel = filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(from), p)))
		if rel == ".." || strings.HasPrefix(rel, "../") {
			return fmt.Sprintf("link %q leads out of the repository", target)
		}
		info, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			return fmt.Sprintf("link %q: %s is not in the tree", target, rel)
		}
		if info.IsDir() {
			if frag != "" {
				return fmt.Sprintf("link %q: a folder has no #%s", target, frag)
			}
			return ""
		}
	}
	if frag == "" {
		return ""
	}
	if !strings.HasSuffix(rel, ".md") {
		if lineAnchorRE.MatchString(frag) {
			return ""
		}
		return fmt.Sprintf("link %q: only a Markdown page has headings to link to; for lines of %s use #L<n>", target, rel)
	}
	anchors, err := anchorsOf(rel)
	if err != nil {
		return fmt.Sprintf("link %q: %v", target, err)
	}
	if !anchors[frag] {
		return fmt.Sprintf("link %q: %s has no heading with the anchor #%s", target, rel, frag)
	}
	return ""
}

// checkExternal checks only the form of a link outside the repository:
// tests do not reach the internet.
func checkExternal(target string) string {
	u, err := url.Parse(target)
	if err != nil {
		return fmt.Sprintf("link %q is not a valid URL: %v", target, err)
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
		if u.Hostname() == "" || strings.HasPrefix(u.Hostname(), ".") {
			return fmt.Sprintf("link %q has no host", target)
		}
	case "mailto":
		if u.Opaque == "" || !strings.Contains(u.Opaque, "@") {
			return fmt.Sprintf("link %q is not a mail address", target)
		}
	default:
		return fmt.Sprintf("link %q: the scheme %q is not one a reader can follow (http, https or mailto)", target, u.Scheme)
	}
	return ""
}

var (
	fenceRE    = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})")
	atxRE      = regexp.MustCompile(`^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$`)
	setextRE   = regexp.MustCompile(`^ {0,3}(=+|-+)[ \t]*$`)
	refDefRE   = regexp.MustCompile(`^ {0,3}\[[^\]]+\]:[ \t]*<?([^\s>]+)>?`)
	autolinkRE = regexp.MustCompile(`<([A-Za-z][A-Za-z0-9+.-]*:[^\s<>]*)>`)
	htmlIDRE   = regexp.MustCompile(`<[A-Za-z][^>]*?\s(?:id|name)\s*=\s*["']([^"']+)["']`)
	htmlTagRE  = regexp.MustCompile(`</?[A-Za-z][^>]*>`)
	imageRE    = regexp.MustCompile(`!\[([^\]]*)\]\([^)]*\)`)
	inlineRE   = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	refLinkRE  = regexp.MustCompile(`\[([^\]]*)\]\[[^\]]*\]`)
)

// parsePage reads the anchors a Markdown page's headings get on GitHub and
// the links it makes, outside code blocks and code spans.
func parsePage(text string) *page {
	pg := &page{anchors: map[string]bool{}}
	seen := map[string]int{}
	addHeading := func(h string) {
		a := slug(h)
		if n, ok := seen[a]; ok {
			seen[a] = n + 1
			a = a + "-" + strconv.Itoa(n+1)
		} else {
			seen[a] = 0
		}
		pg.anchors[a] = true
	}
	var fence string
	prev := "" // the previous line, when it could be a setext heading's text
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if m := fenceRE.FindStringSubmatch(line); m != nil {
			switch {
			case fence == "":
				fence = m[1]
			case m[1][0] == fence[0] && len(m[1]) >= len(fence) && strings.TrimSpace(line) == m[1]:
				fence = ""
			}
			prev = ""
			continue
		}
		if fence != "" {
			continue
		}
		for _, m := range htmlIDRE.FindAllStringSubmatch(line, -1) {
			pg.anchors[m[1]] = true
		}
		if m := atxRE.FindStringSubmatch(line); m != nil {
			addHeading(m[2])
			prev = ""
			continue
		}
		if setextRE.MatchString(line) && prev != "" {
			addHeading(prev)
			prev = ""
			continue
		}
		if m := refDefRE.FindStringSubmatch(line); m != nil {
			pg.links = append(pg.links, link{n, m[1]})
			prev = ""
			continue
		}
		plain := stripCodeSpans(line)
		for _, t := range inlineTargets(plain) {
			pg.links = append(pg.links, link{n, t})
		}
		for _, m := range autolinkRE.FindAllStringSubmatch(plain, -1) {
			pg.links = append(pg.links, link{n, m[1]})
		}
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "", strings.HasPrefix(trimmed, "|"), strings.HasPrefix(trimmed, "-"),
			strings.HasPrefix(trimmed, "*"), strings.HasPrefix(trimmed, ">"):
			// Not a paragraph line that a following === or --- underlines.
			prev = ""
		default:
			prev = trimmed
		}
	}
	return pg
}

// stripCodeSpans blanks out `code spans`, whose brackets are no links.
func stripCodeSpans(line string) string {
	var b strings.Builder
	for i := 0; i < len(line); {
		if line[i] != '`' {
			b.WriteByte(line[i])
			i++
			continue
		}
		j := i
		for j < len(line) && line[j] == '`' {
			j++
		}
		ticks := line[i:j]
		end := strings.Index(line[j:], ticks)
		if end < 0 {
			b.WriteString(ticks)
			i = j
			continue
		}
		i = j + end + len(ticks)
	}
	return b.String()
}

// inlineTargets finds the destinations of inline links and images: the
// text after each `](`, up to its closing parenthesis or a title.
func inlineTargets(line string) []string {
	var out []string
	for i := 0; ; {
		k := strings.Index(line[i:], "](")
		if k < 0 {
			return out
		}
		start := i + k + 2
		for start < len(line) && line[start] == ' ' {
			start++
		}
		depth, end := 0, start
		angle := start < len(line) && line[start] == '<'
	scan:
		for ; end < len(line); end++ {
			switch c := line[end]; {
			case angle && c == '>':
				end++
				break scan
			case angle:
			case c == '(':
				depth++
			case c == ')' && depth == 0, c == ' ', c == '\t':
				break scan
			case c == ')':
				depth--
			}
		}
		if t := strings.Trim(line[start:end], "<>"); t != "" {
			out = append(out, t)
		}
		i = end
	}
}

// slug is the anchor GitHub gives a heading: its text without markup, in
// lower case, with every character but letters, digits, marks, `-` and `_`
// removed and each space turned into `-`.
func slug(heading string) string {
	h := imageRE.ReplaceAllString(heading, "$1")
	h = inlineRE.ReplaceAllString(h, "$1")
	h = refLinkRE.ReplaceAllString(h, "$1")
	h = htmlTagRE.ReplaceAllString(h, "")
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Nd, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// citeRE finds a Markdown file named in a comment, with an optional
// #anchor: `docs/api.md#errors`, `README.md`.
var citeRE = regexp.MustCompile(`(?:^|[^\w./-])((?:[\w.-]+/)*[\w.-]*\w\.md)(#[\w-]+)?(?:[^\w.]|\.(?:\W|$)|$)`)

// checkComments finds the Markdown files that Go comments under root cite
// and reports each one that is not in the tree, and each #anchor it does
// not have. A citation resolves against the comment's folder, then each
// folder above it up to root.
func checkComments(root string) ([]problem, error) {
	var out []problem
	err := walk(root, ".go", func(rel string) error {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, filepath.Join(root, filepath.FromSlash(rel)), nil, parser.ParseComments)
		if err != nil {
			return err
		}
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				for i, line := range strings.Split(c.Text, "\n") {
					for _, m := range citeRE.FindAllStringSubmatch(line, -1) {
						if msg := checkCitation(root, rel, m[1], strings.TrimPrefix(m[2], "#")); msg != "" {
							out = append(out, problem{File: rel, Line: fset.Position(c.Slash).Line + i, Msg: msg})
						}
					}
				}
			}
		}
		return nil
	})
	return out, err
}

func checkCitation(root, from, cited, anchor string) string {
	for dir := filepath.Dir(from); ; dir = filepath.Dir(dir) {
		rel := filepath.ToSlash(filepath.Join(dir, cited))
		if b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel))); err == nil {
			if anchor != "" && !parsePage(string(b)).anchors[anchor] {
				return fmt.Sprintf("a comment cites %s#%s, but %s has no heading with that anchor", cited, anchor, rel)
			}
			return ""
		}
		if dir == "." {
			return fmt.Sprintf("a comment cites %s, which is not in the tree; cite a page of docs/ (such as docs/api.md#errors) instead", cited)
		}
	}
}
