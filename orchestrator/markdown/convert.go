package markdown

import (
	"context"
	"net/url"
	"regexp"
	"strings"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	h2mbase "github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/strikethrough"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"
)

// render converts a tree the package owns to Markdown: prepare rewrites
// it, html-to-markdown writes CommonMark with GitHub tables and
// strikethrough, and tidy settles the white space.
func render(ctx context.Context, root *html.Node, pageURL, base *url.URL, opts Options) (string, error) {
	prepare(root, pageURL, base)
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
// other CommonMark form), at most one blank line in a row, no blank lines
// at either end, and one final newline. Inside code blocks, lines only
// lose their trailing spaces.
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
		if strings.TrimSpace(trimmed) == "" || trimmed == listSeparator {
			if len(out) > 0 && out[len(out)-1] != "" {
				out = append(out, "")
			}
			continue
		}
		// A line break inside a table cell is written "  <br />".
		trimmed = strings.ReplaceAll(trimmed, "  <br />", "<br>")
		trimmed = unescapeProse(trimmed)
		if strings.HasSuffix(line, "  ") && fence == "" && i+1 < len(lines) && strings.TrimSpace(lines[i+1]) != "" {
			trimmed += `\`
		}
		out = append(out, trimmed)
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	if len(out) == 0 {
		return ""
	}
	return strings.Join(out, "\n") + "\n"
}

// unescapeProse undoes the escapes the converter writes where Markdown
// needs none, outside code spans: "&lt;" before what cannot start a tag
// ("5 &lt; 6" is "5 < 6"), "&gt;" anywhere but the start of a line, and
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
			case strings.HasPrefix(rest, "&lt;") && !startsTag(rest[4:]):
				sb.WriteByte('<')
				i += 4
				continue
			case strings.HasPrefix(rest, "&gt;") && strings.TrimSpace(line[:i]) != "":
				sb.WriteByte('>')
				i += 4
				continue
			case strings.HasPrefix(rest, `\_`) && i > 0 && wordByte(line[i-1]) && len(rest) > 2 && wordByte(rest[2]):
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

// startsTag reports text that would start an HTML tag, comment or
// declaration after a "<".
func startsTag(s string) bool {
	if s == "" {
		return false
	}
	c := s[0]
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '/' || c == '!' || c == '?'
}

// wordByte reports an ASCII letter or digit, or a byte of a multi-byte
// character (a letter of another script, as far as an underscore goes).
func wordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}
