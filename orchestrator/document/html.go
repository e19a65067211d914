package document

import (
	"html"
	"strings"
)

// writer builds the document's HTML within the budget's byte and cell
// bounds; past either it records the cut and writes nothing more.
type writer struct {
	b     strings.Builder
	bud   *budget
	cells int
	cut   bool
}

func (w *writer) full() bool {
	if w.cut {
		return true
	}
	if w.b.Len() > w.bud.lim.MaxHTMLBytes {
		w.cut = true
	}
	return w.cut
}

// raw writes markup glimpse made itself.
func (w *writer) raw(s string) {
	if !w.full() {
		w.b.WriteString(s)
	}
}

// block writes <tag>inner</tag>, inner being inline HTML already escaped;
// an empty block is left out.
func (w *writer) block(tag, inner string) {
	if strings.TrimSpace(inner) == "" || w.full() {
		return
	}
	w.b.WriteString("<" + tag + ">" + strings.TrimSpace(inner) + "</" + tag + ">\n")
}

// table writes rows as one table, the first row its header, within
// the cell and column bounds. It reports whether the whole table fit.
func (w *writer) table(rows [][]string) bool {
	if len(rows) == 0 || w.full() {
		return !w.cut
	}
	cols := 0
	for _, r := range rows {
		cols = max(cols, len(r))
	}
	cols = min(cols, w.bud.lim.MaxColumns)
	if cols == 0 {
		return true
	}
	whole := true
	w.b.WriteString("<table>\n")
	for i, r := range rows {
		if w.cells+cols > w.bud.lim.MaxCells || w.full() {
			w.cut, whole = true, false
			break
		}
		w.cells += cols
		cell := "td"
		if i == 0 {
			cell = "th"
			w.b.WriteString("<thead>")
		}
		w.b.WriteString("<tr>")
		for c := range cols {
			v := ""
			if c < len(r) {
				v = r[c]
			}
			w.b.WriteString("<" + cell + ">" + strings.TrimSpace(v) + "</" + cell + ">")
		}
		w.b.WriteString("</tr>")
		if i == 0 {
			w.b.WriteString("</thead>\n<tbody>")
		}
		w.b.WriteString("\n")
	}
	w.b.WriteString("</tbody></table>\n")
	return whole
}

// pageBreak marks where one page, slide or sheet ends and the next begins.
func (w *writer) pageBreak(n int) {
	w.raw("<hr data-page=\"" + itoa(n) + "\">\n")
}

// inline is a run of escaped inline HTML: text, links, line breaks.
type inline struct{ b strings.Builder }

func (in *inline) text(s string) { in.b.WriteString(html.EscapeString(s)) }

func (in *inline) br() { in.b.WriteString("<br>") }

// link wraps text in a link to href when href is a web or mail address;
// anything else (javascript:, file:) stays text.
func (in *inline) link(href, text string) {
	if !safeHref(href) {
		in.b.WriteString(text)
		return
	}
	in.b.WriteString(`<a href="` + html.EscapeString(href) + `">` + text + `</a>`)
}

func (in *inline) String() string { return in.b.String() }

func safeHref(href string) bool {
	h := strings.ToLower(strings.TrimSpace(href))
	return strings.HasPrefix(h, "http://") || strings.HasPrefix(h, "https://") || strings.HasPrefix(h, "mailto:")
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	neg := n < 0
	if neg {
		n = -n
	}
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

// lists writes nested lists from items that each name their level.
type lists struct {
	w    *writer
	open []string // the tag of each open list, outermost first
}

// item writes one list item at level (0 outermost) of an ordered or
// bulleted list.
func (l *lists) item(level int, ordered bool, inner string) {
	level = min(max(level, 0), 8)
	tag := "ul"
	if ordered {
		tag = "ol"
	}
	for len(l.open) > level+1 {
		l.pop()
	}
	if len(l.open) == level+1 && l.open[level] != tag {
		l.pop()
	}
	if len(l.open) == level+1 {
		l.w.raw("</li>\n")
	}
	for len(l.open) < level+1 {
		l.open = append(l.open, tag)
		l.w.raw("<" + tag + ">\n")
	}
	l.w.raw("<li>" + strings.TrimSpace(inner))
}

func (l *lists) pop() {
	l.w.raw("</li>\n</" + l.open[len(l.open)-1] + ">\n")
	l.open = l.open[:len(l.open)-1]
}

// end closes every open list.
func (l *lists) end() {
	for len(l.open) > 0 {
		l.pop()
	}
}
