package markdown

import (
	"context"
	"net/url"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	h2mbase "github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/strikethrough"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"
)

// render converts a tree the package owns to Markdown: prepare rewrites
// it, html-to-markdown writes CommonMark with GitHub tables and
// strikethrough, and tidy settles the white space. For a page's main
// content (mainContent), the headings left at its end go too (see
// dropClosingHeadings).
func render(ctx context.Context, root *html.Node, pageURL, base *url.URL, opts Options, mainContent bool) (string, error) {
	prepare(root, pageURL, base)
	if mainContent {
		dropClosingHeadings(root)
	}
	conv := converter.NewConverter(converter.WithPlugins(
		h2mbase.NewBasePlugin(),
		commonmark.NewCommonmarkPlugin(),
		table.NewTablePlugin(
			// Cells that hold several lines keep them as <br>, rather than
			// the table falling apart into run-on text.
			table.WithNewlineBehavior(table.NewlineBehaviorPreserve),
			// Padding every cell to its column's widest would let one long
			// cell multiply the size of the whole table.
			table.WithCellPaddingBehavior(table.CellPaddingBehaviorMinimal),
			table.WithSkipEmptyRows(true),
			// A table without header cells takes its first row as the
			// header, rather than a header row of empty cells.
			table.WithHeaderPromotion(true),
		),
		strikethrough.NewStrikethroughPlugin(),
		&guard{},
	))
	out, err := conv.ConvertNode(root, converter.WithContext(ctx))
	if err != nil {
		return "", err
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	md := tidy(string(out))
	if len(md) > opts.maxBytes() {
		return "", &TooLargeError{Limit: opts.maxBytes(), Unit: UnitMarkdownBytes}
	}
	return md, nil
}

// guard is the converter plugin that stops the conversion once its context
// ends (the converter itself never looks) and writes formulas.
type guard struct {
	seen    int
	stopped bool
}

func (g *guard) Name() string { return "glimpse-guard" }

func (g *guard) Init(conv *converter.Converter) error {
	conv.Register.Renderer(g.check, converter.PriorityEarly-50)
	conv.Register.RendererFor(formulaTag, converter.TagTypeInline, renderFormula, converter.PriorityEarly)
	conv.Register.RendererFor("img", converter.TagTypeInline, renderImage, converter.PriorityEarly)
	return nil
}

// check runs before every element's own renderer. Once the context has
// ended, every element renders as nothing, so the converter unwinds at
// once; render then reports the context's error.
func (g *guard) check(ctx converter.Context, _ converter.Writer, _ *html.Node) converter.RenderStatus {
	if g.stopped {
		return converter.RenderSuccess
	}
	g.seen++
	if g.seen%checkEvery == 0 && ctx.Err() != nil {
		g.stopped = true
		return converter.RenderSuccess
	}
	return converter.RenderTryNext
}

// formulaTag is the element prepare puts in place of a formula: it holds
// one placeholder character, so that the converter's white-space rules see
// a word and keep the spaces around it, and a data-markdown attribute with
// the formula as it is to be written.
const formulaTag = "glimpse-formula"

// renderFormula writes a formula as prepare settled it, unescaped: TeX
// must reach the reader as it is.
func renderFormula(_ converter.Context, w converter.Writer, n *html.Node) converter.RenderStatus {
	w.WriteString(attr(n, "data-markdown"))
	return converter.RenderSuccess
}

// renderImage writes a picture as ![alt](src), its alt text escaped as
// text is: a bracket, a backslash and a "<" of the page's alt text are
// characters, never markup. (The converter's own escapes only brackets,
// so a page's alt text could open raw HTML inside the description, which
// some renderers copy into the alt attribute as it is.) prepare has left
// out the title.
func renderImage(ctx converter.Context, w converter.Writer, n *html.Node) converter.RenderStatus {
	src := strings.TrimSpace(attr(n, "src"))
	if src == "" {
		return converter.RenderTryNext
	}
	// As the converter does: an address is written with the characters
	// that would end it (a space, a parenthesis) escaped.
	src = ctx.AssembleAbsoluteURL(ctx, "img", src)
	w.WriteString("![")
	w.WriteString(escapeAlt(strings.ReplaceAll(attr(n, "alt"), "\n", " ")))
	w.WriteString("](")
	w.WriteString(src)
	w.WriteString(")")
	return converter.RenderSuccess
}

// escapeAlt escapes what an image's description would read as markup:
// brackets, "<", and a backslash before a punctuation mark (elsewhere a
// backslash is read as itself).
func escapeAlt(alt string) string {
	if !strings.ContainsAny(alt, `\[]<`) {
		return alt
	}
	var b strings.Builder
	for i, r := range alt {
		switch {
		case r == '[' || r == ']' || r == '<':
			b.WriteByte('\\')
		case r == '\\' && i+1 < len(alt) && alt[i+1] < utf8.RuneSelf &&
			(unicode.IsPunct(rune(alt[i+1])) || unicode.IsSymbol(rune(alt[i+1]))):
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// formulaMarkdown is how a MathML formula is written: as TeX between
// dollars when the page gives its source (alttext), which models read
// best; otherwise as its symbols separated by spaces, so that they do not
// run together.
func formulaMarkdown(n *html.Node) string {
	if tex := texOf(attr(n, "alttext")); tex != "" && !strings.Contains(tex, "$") {
		return "$" + tex + "$"
	}
	var parts []string
	walk(n, func(k *html.Node) bool {
		if k.Type == html.TextNode {
			if t := strings.TrimSpace(k.Data); t != "" {
				parts = append(parts, t)
			}
		}
		// Annotations repeat the formula in another notation.
		return k.Data != "annotation" && k.Data != "annotation-xml"
	})
	return escapeText(strings.Join(parts, " "))
}

// texOf is a formula's TeX source on one line, without the style wrapper
// ({\displaystyle …}) that only sets its size.
func texOf(alt string) string {
	tex := strings.Join(strings.Fields(alt), " ")
	for _, style := range []string{`{\displaystyle `, `{\textstyle `} {
		if inner, ok := strings.CutPrefix(tex, style); ok && strings.HasSuffix(inner, "}") {
			tex = strings.TrimSpace(strings.TrimSuffix(inner, "}"))
		}
	}
	return tex
}

// escapeText escapes what Markdown would otherwise read as markup.
var escapeText = strings.NewReplacer(`\`, `\\`, "*", `\*`, "_", `\_`, "`", "\\`", "[", `\[`, "]", `\]`, "<", `\<`).Replace

// fenceRe matches the line that opens or closes a fenced code block.
var fenceRe = regexp.MustCompile("^[ \t]*(`{3,}|~{3,})")

// listSeparator is the comment the converter writes between two lists in a
// row so that CommonMark does not merge them; a model reading the text has
// no use for it, and merged lists lose nothing it needs.
const listSeparator = "<!--THE END-->"

// tidy settles white space so that the same content always gives the same
// bytes: no trailing spaces (a hard line break becomes a backslash, its
// other CommonMark form), at most one blank line in a row and one line
// break in a row, no blank lines at either end, and one final newline.
// Inside code blocks, lines only lose their trailing spaces.
func tidy(md string) string {
	md = strings.ReplaceAll(md, "\r\n", "\n")
	lines := strings.Split(md, "\n")
	out := make([]string, 0, len(lines))
	fence := ""
	for i, line := range lines {
		trimmed := strings.TrimRight(line, " \t\u00a0")
		if fence != "" {
			out = append(out, trimmed)
			if m := fenceRe.FindStringSubmatch(trimmed); m != nil && m[1][0] == fence[0] &&
				len(m[1]) >= len(fence) && strings.TrimSpace(strings.Trim(trimmed, fence[:1])) == "" {
				fence = ""
			}
			continue
		}
		if m := fenceRe.FindStringSubmatch(trimmed); m != nil {
			fence = m[1]
		}
		if strings.TrimSpace(trimmed) == "" || strings.TrimSpace(trimmed) == listSeparator {
			if len(out) > 0 && out[len(out)-1] != "" {
				out = append(out, "")
			}
			continue
		}
		// A cell of several lines or paragraphs is written with a
		// "<br />" for each line break, blank lines too; one break
		// between its parts is enough.
		if strings.HasPrefix(trimmed, "|") {
			trimmed = cellBreaksRe.ReplaceAllString(trimmed, "<br>")
		}
		trimmed = unescapeProse(trimmed)
		trimmed = autolinkBareURLs(trimmed)
		if strings.HasSuffix(line, "  ") && fence == "" && i+1 < len(lines) && strings.TrimSpace(lines[i+1]) != "" {
			trimmed += `\`
		}
		// Blocks inside a link (a card's picture, title and line) are
		// set apart by line breaks, two where a blank line would be:
		// one is enough, and a line of a lone backslash says nothing.
		if trimmed == `\` && len(out) > 0 && strings.HasSuffix(out[len(out)-1], `\`) {
			continue
		}
		out = append(out, trimmed)
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	if len(out) == 0 {
		return ""
	}
	return strings.ReplaceAll(strings.Join(out, "\n"), literalAmp, "&amp;") + "\n"
}

// urlLinkRe is a link whose text is a web address: [text](address).
var urlLinkRe = regexp.MustCompile(`\[(https?://[^\s\[\]()<>\\]+)\]\((https?://[^\s()<>]+)\)`)

// autolinkBareURLs writes a link whose text is its own address as
// CommonMark's autolink, "<https://…>": the same link, its address once.
// A picture whose alt text is its address ("![https://…](https://…)")
// is no link, and a line with code in it is left as it is.
func autolinkBareURLs(line string) string {
	if !strings.Contains(line, "](http") || strings.Contains(line, "`") {
		return line
	}
	var b strings.Builder
	last := 0
	for _, m := range urlLinkRe.FindAllStringSubmatchIndex(line, -1) {
		if line[m[2]:m[3]] != line[m[4]:m[5]] || m[0] > 0 && line[m[0]-1] == '!' {
			continue
		}
		b.WriteString(line[last:m[0]])
		b.WriteString("<" + line[m[4]:m[5]] + ">")
		last = m[1]
	}
	if last == 0 {
		return line
	}
	b.WriteString(line[last:])
	return b.String()
}

// cellBreaksRe is a run of line breaks in a table cell.
var cellBreaksRe = regexp.MustCompile(`(?:[ \t]*<br />)+[ \t]*`)

// unescapeProse undoes the escapes the converter writes where Markdown
// needs none, outside code spans: "&lt;" before what cannot start a tag
// ("5 &lt; 6" is "5 < 6"; one that can is written "\<", as a reader of
// Markdown expects), "&gt;" anywhere but the start of a block's line (in
// a quotation or a list item too, where it would open a quotation), and
// "\_" inside a word (snake\_case), where CommonMark never reads an
// underscore as emphasis. A model reads the plain character; the
// Markdown means the same.
func unescapeProse(line string) string {
	if !strings.Contains(line, "&lt;") && !strings.Contains(line, "&gt;") && !strings.Contains(line, `\_`) {
		return line
	}
	var sb strings.Builder
	inCode := ""
	for i := 0; i < len(line); {
		if line[i] == '`' {
			j := i
			for j < len(line) && line[j] == '`' {
				j++
			}
			run := line[i:j]
			switch {
			case inCode == "":
				if strings.Contains(line[j:], run) {
					inCode = run
				}
			case run == inCode:
				inCode = ""
			}
			sb.WriteString(run)
			i = j
			continue
		}
		if inCode == "" {
			rest := line[i:]
			switch {
			case strings.HasPrefix(rest, "&lt;"):
				if startsTag(rest[4:]) || blockStart(line[:i]) && startsBlockTag(rest[4:]) {
					sb.WriteByte('\\') // Markdown's own escape: "\<commit>"
				}
				sb.WriteByte('<')
				i += 4
				continue
			case strings.HasPrefix(rest, "&gt;") && !blockStart(line[:i]):
				sb.WriteByte('>')
				i += 4
				continue
			case strings.HasPrefix(rest, `\_`) && intraword(line[:i], rest[2:]):
				sb.WriteByte('_')
				i += 2
				continue
			}
		}
		sb.WriteByte(line[i])
		i++
	}
	return sb.String()
}

// startsTag reports whether a "<" before s would be read by CommonMark as
// markup: an opening or closing tag written whole, an autolink, or what
// may open a comment, a declaration or a processing instruction. Only then
// does the "<" need its escape; "Result<bool, Error>" and "a <= b" are
// text as they stand. s is the rest of the line as the converter wrote it,
// its own "&gt;" and "\_" escapes still in. A tag whose line ends before
// it closes may go on in the next line, and counts as one, and so does
// one longer than maxTagScan: a line of a thousand "<" costs a thousand
// short looks, not a thousand reads of the line.
func startsTag(s string) bool {
	s = tagTextReplacer.Replace(s[:min(len(s), maxTagScan)])
	if s == "" {
		return false
	}
	if autolink(s) {
		return true // an address may start with a digit or a sign
	}
	switch c := s[0]; {
	case c == '!' || c == '?':
		return true
	case c == '/':
		name := tagName(s[1:])
		if name == 0 {
			return false
		}
		rest := strings.TrimLeft(s[1+name:], " \t")
		return rest == "" || rest[0] == '>'
	case asciiLetter(c):
		return openTag(s)
	}
	return false
}

// blockStart reports whether text before a position on a line is only
// what may come before a block's first character: indentation, quote
// marks and list markers. There a "<" may open an HTML block.
func blockStart(prefix string) bool {
	for {
		prefix = strings.TrimLeft(prefix, " \t>")
		if prefix == "" {
			return true
		}
		switch {
		case len(prefix) >= 2 && strings.ContainsRune("-*+", rune(prefix[0])) && (prefix[1] == ' ' || prefix[1] == '\t'):
			prefix = prefix[2:]
			continue
		}
		digits := 0
		for digits < len(prefix) && digits < 10 && prefix[digits] >= '0' && prefix[digits] <= '9' {
			digits++
		}
		if digits == 0 || digits+1 >= len(prefix) || prefix[digits] != '.' && prefix[digits] != ')' || prefix[digits+1] != ' ' && prefix[digits+1] != '\t' {
			return false
		}
		prefix = prefix[digits+2:]
	}
}

// startsBlockTag reports text that, after a "<" where a block begins,
// CommonMark reads as the start of an HTML block even before the tag is
// whole ("<div", "<DD 0"): a letter, or "/" and a letter. Some readers
// allow spaces between the "/" and the letter ("</ p"), and the escape
// costs the others nothing.
func startsBlockTag(s string) bool {
	if rest, ok := strings.CutPrefix(s, "/"); ok {
		s = strings.TrimLeft(rest, " ")
	}
	return s != "" && asciiLetter(s[0])
}

// maxTagScan is how much of the line after a "<" startsTag reads.
const maxTagScan = 256

// tagTextReplacer undoes the escapes in the text after a "<" that this
// pass may take away, for reading it the way CommonMark will: a "&gt;" may
// become ">", a "\_" "_". A later "&lt;" is read as it stands, as the
// characters it is if it keeps its escape: read so, the text is a tag more
// often, and an escape where none is needed costs nothing.
var tagTextReplacer = strings.NewReplacer("&gt;", ">", `\_`, "_")

// tagName is the length of the tag name at the start of s: a letter, then
// letters, digits and hyphens; 0 when there is none.
func tagName(s string) int {
	if s == "" || !asciiLetter(s[0]) {
		return 0
	}
	i := 1
	for i < len(s) && (asciiLetter(s[i]) || s[i] >= '0' && s[i] <= '9' || s[i] == '-') {
		i++
	}
	return i
}

// openTag reports an opening tag at the start of s (after its "<"): a
// name, attributes each after white space, then "/>" or ">".
func openTag(s string) bool {
	i := tagName(s)
	for {
		j := i
		for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
			j++
		}
		if j == len(s) {
			return true // the tag may go on in the next line
		}
		switch {
		case s[j] == '>' || strings.HasPrefix(s[j:], "/>"):
			return true
		case j == i:
			return false // an attribute needs white space before it
		}
		k := j
		for k < len(s) && (asciiLetter(s[k]) || s[k] == '_' || s[k] == ':' || k > j && (s[k] >= '0' && s[k] <= '9' || s[k] == '.' || s[k] == '-')) {
			k++
		}
		if k == j {
			return false
		}
		i = k
		// An optional value: = and an unquoted or quoted value.
		v := i
		for v < len(s) && (s[v] == ' ' || s[v] == '\t') {
			v++
		}
		if v == len(s) || s[v] != '=' {
			continue
		}
		v++
		for v < len(s) && (s[v] == ' ' || s[v] == '\t') {
			v++
		}
		if v == len(s) {
			return true
		}
		switch q := s[v]; q {
		case '"', '\'':
			end := strings.IndexByte(s[v+1:], q)
			if end < 0 {
				return true // the value may go on in the next line
			}
			i = v + 1 + end + 1
		default:
			end := v
			for end < len(s) && !strings.ContainsRune(" \t\"'=<>`", rune(s[end])) {
				end++
			}
			if end == v {
				return false
			}
			i = end
		}
	}
}

// autolink reports a URI or e-mail autolink at the start of s (after its
// "<"): a scheme of 2 characters or more and a colon (CommonMark allows
// 32, and some readers one more: an escape too many costs nothing), or an
// address, then no white space or "<" up to a ">".
func autolink(s string) bool {
	end := strings.IndexByte(s, '>')
	if end < 0 {
		return false
	}
	body := s[:end]
	if strings.ContainsAny(body, " \t<") {
		return false
	}
	if colon := strings.IndexByte(body, ':'); colon >= 2 {
		scheme := body[:colon]
		ok := true
		for i := 0; i < len(scheme); i++ {
			c := scheme[i]
			ok = ok && (asciiLetter(c) || i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '.' || c == '-'))
		}
		if ok {
			return true
		}
	}
	at := strings.IndexByte(body, '@')
	return at > 0 && at < len(body)-1
}

func asciiLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// intraword reports an underscore between before and after that stands
// inside a word: a letter or digit on each side, of any script. Beside a
// mark of punctuation or a space CommonMark may read it as emphasis.
func intraword(before, after string) bool {
	b, _ := utf8.DecodeLastRuneInString(before)
	a, _ := utf8.DecodeRuneInString(after)
	return before != "" && after != "" && (unicode.IsLetter(b) || unicode.IsDigit(b)) && (unicode.IsLetter(a) || unicode.IsDigit(a))
}
