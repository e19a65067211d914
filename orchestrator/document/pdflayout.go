package document

import (
	"html"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// headingRatio is how much taller than the body's lines a line must be
// to be a heading; shortHeading bounds the words of one.
const (
	headingRatio = 1.15
	shortHeading = 20
)

// layoutPDF writes the pages' lines as HTML: a run of lines of one block
// and one size is a paragraph, or a heading when its size is a heading's;
// aligned cells are tables; pages are apart by page breaks.
func layoutPDF(pages []*pdfPage, w *writer) {
	dropRunningLines(pages)
	body := bodyHeight(pages)
	levels := headingLevels(pages, body)
	for i, p := range pages {
		if i > 0 {
			w.pageBreak(i + 1)
		}
		tables, inTable := findTables(p.lines, body)
		written := map[int]bool{}
		var para []string
		paraTag := ""
		var last *pdfLine
		flush := func() {
			if len(para) > 0 {
				w.block(paraTag, joinLines(para))
			}
			para = nil
		}
		for _, l := range p.lines {
			if t, ok := inTable[l]; ok {
				flush()
				if !written[t] {
					w.table(tables[t])
					written[t] = true
				}
				last = nil
				continue
			}
			tag := "p"
			if lvl := levels[heightKey(l.height())]; lvl > 0 && len(l.words) <= shortHeading {
				tag = "h" + strconv.Itoa(lvl)
			}
			if last == nil || tag != paraTag || l.block != last.block || l.y0()-last.y0() > 2.2*last.height() || l.y0() < last.y0() {
				flush()
				paraTag = tag
			}
			var in inline
			in.text(l.text())
			para = append(para, in.String())
			last = l
		}
		flush()
	}
}

// joinLines joins a paragraph's lines, mending words hyphenated across
// them.
func joinLines(lines []string) string {
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			prev := lines[i-1]
			r := []rune(l)
			if strings.HasSuffix(prev, "-") && len(r) > 0 && r[0] >= 'a' && r[0] <= 'z' {
				s := b.String()
				b.Reset()
				b.WriteString(strings.TrimSuffix(s, "-"))
			} else {
				b.WriteByte(' ')
			}
		}
		b.WriteString(l)
	}
	return b.String()
}

// heightKey buckets a line height to half a point.
func heightKey(h float64) int { return int(math.Round(h * 2)) }

// bodyHeight is the height most words are set in.
func bodyHeight(pages []*pdfPage) float64 {
	count := map[int]int{}
	for _, p := range pages {
		for _, l := range p.lines {
			count[heightKey(l.height())] += len(l.words)
		}
	}
	best, n := 0, -1
	for k, c := range count {
		if c > n || c == n && k < best {
			best, n = k, c
		}
	}
	return float64(best) / 2
}

// headingLevels maps line heights to heading levels: the tallest that
// is a heading's is level 1, the next 2, up to 6.
func headingLevels(pages []*pdfPage, body float64) map[int]int {
	seen := map[int]bool{}
	for _, p := range pages {
		for _, l := range p.lines {
			if l.height() >= body*headingRatio && len(l.words) <= shortHeading {
				seen[heightKey(l.height())] = true
			}
		}
	}
	keys := make([]int, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	sort.Sort(sort.Reverse(sort.IntSlice(keys)))
	out := map[int]int{}
	for i, k := range keys {
		out[k] = min(i+1, 6)
	}
	return out
}

// segment is a run of words of a visual row with no wide gap inside: a
// table cell when rows of them align.
type segment struct {
	x0, x1 float64
	words  []pdfWord
}

// visualRow is the words at one height across the reader's blocks, which
// split a table's columns apart.
type visualRow struct {
	y, h  float64
	lines []*pdfLine
	segs  []segment
}

// maxCellWords is the most words a cell of a recovered table averages:
// columns of prose (a two-column article) are not a table.
const maxCellWords = 5

// findTables finds runs of rows whose cells align into columns; each
// table's rows of cell HTML, and which table each line belongs to.
func findTables(lines []*pdfLine, body float64) ([][][]string, map[*pdfLine]int) {
	rows := visualRows(lines)
	inTable := map[*pdfLine]int{}
	var tables [][][]string
	for i := 0; i < len(rows); {
		cols := candidateColumns(rows[i])
		if cols == nil {
			i++
			continue
		}
		j := i + 1
		for j < len(rows) && rows[j].y-rows[j-1].y < 2.5*rows[j-1].h && sameSize(rows[j], rows[i]) {
			if next := fitColumns(rows[j], cols); next != nil {
				cols = next
				j++
				continue
			}
			// A row whose narrow cells sit closer than a wide gap still
			// belongs when its words fall into the columns; a row of more
			// cells than found so far redraws the columns when the rows
			// before it fall into its own.
			if more := candidateColumns(rows[j]); len(more) > len(cols) && fitsAll(rows[i:j], more) {
				cols = more
				j++
				continue
			}
			if splitByColumns(rows[j], cols, true) != nil {
				j++
				continue
			}
			break
		}
		if j-i < 2 {
			i++
			continue
		}
		first := i
		var cells [][]string
		// A header set tighter than its cells' gaps is one segment:
		// split by the columns found below it.
		if i > 0 && rows[i].y-rows[i-1].y < 2.5*rows[i-1].h && sameSize(rows[i-1], rows[i]) {
			if h := splitByColumns(rows[i-1], cols, false); h != nil {
				cells = append(cells, h)
				first = i - 1
			}
		}
		for k := i; k < j; k++ {
			if len(rows[k].segs) == len(cols) && fitColumns(rows[k], cols) != nil {
				cells = append(cells, cellsOf(rows[k], cols))
			} else {
				cells = append(cells, splitByColumns(rows[k], cols, true))
			}
		}
		t := len(tables)
		tables = append(tables, cells)
		for k := first; k < j; k++ {
			for _, l := range rows[k].lines {
				inTable[l] = t
			}
		}
		i = j
	}
	return tables, inTable
}

// visualRows groups lines whose vertical middles meet, top to bottom,
// and splits each row's words into segments at gaps wider than a space.
func visualRows(lines []*pdfLine) []*visualRow {
	sorted := slices.Clone(lines)
	slices.SortStableFunc(sorted, func(a, b *pdfLine) int {
		return cmpFloat(a.y0()+a.height()/2, b.y0()+b.height()/2)
	})
	var rows []*visualRow
	for _, l := range sorted {
		mid := l.y0() + l.height()/2
		if n := len(rows); n > 0 && math.Abs(rows[n-1].y+rows[n-1].h/2-mid) < 0.4*l.height() {
			rows[n-1].lines = append(rows[n-1].lines, l)
			continue
		}
		rows = append(rows, &visualRow{y: l.y0(), h: l.height(), lines: []*pdfLine{l}})
	}
	for _, r := range rows {
		var words []pdfWord
		for _, l := range r.lines {
			words = append(words, l.words...)
		}
		slices.SortStableFunc(words, func(a, b pdfWord) int { return cmpFloat(a.x0, b.x0) })
		for k, w := range words {
			if k == 0 || w.x0-words[k-1].x1 > 0.6*r.h {
				r.segs = append(r.segs, segment{x0: w.x0, x1: w.x1})
			}
			s := &r.segs[len(r.segs)-1]
			s.words = append(s.words, w)
			s.x1 = max(s.x1, w.x1)
		}
	}
	return rows
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// column is the horizontal span of a table's column.
type column struct{ x0, x1 float64 }

// candidateColumns are the columns of a row that may start a table: two
// or more short segments.
func candidateColumns(r *visualRow) []column {
	if len(r.segs) < 2 {
		return nil
	}
	words := 0
	for _, s := range r.segs {
		words += len(s.words)
	}
	if float64(words)/float64(len(r.segs)) > maxCellWords {
		return nil
	}
	cols := make([]column, len(r.segs))
	for i, s := range r.segs {
		cols[i] = column{s.x0, s.x1}
	}
	return cols
}

// fitColumns places a row's segments into the columns, widened by them;
// nil when the row is no row of that table: fewer than two cells, long
// cells, or a segment that meets no column or two.
func fitColumns(r *visualRow, cols []column) []column {
	if candidateColumns(r) == nil {
		return nil
	}
	out := slices.Clone(cols)
	used := map[int]bool{}
	for _, s := range r.segs {
		c := columnFor(s.x0, s.x1, cols)
		if c < 0 || used[c] {
			return nil
		}
		used[c] = true
		out[c] = column{min(out[c].x0, s.x0), max(out[c].x1, s.x1)}
	}
	return out
}

// columnFor is the one column the span meets; -1 for none or several.
func columnFor(x0, x1 float64, cols []column) int {
	found := -1
	for i, c := range cols {
		if x0 < c.x1 && x1 > c.x0 {
			if found >= 0 {
				return -1
			}
			found = i
		}
	}
	return found
}

// cellsOf is a row's cells by column, escaped.
func cellsOf(r *visualRow, cols []column) []string {
	out := make([]string, len(cols))
	for _, s := range r.segs {
		if c := columnFor(s.x0, s.x1, cols); c >= 0 {
			out[c] = joinWords(s.words)
		}
	}
	return out
}

// sameSize reports whether two rows are set in about the same size: a
// heading after a table is not its next row.
func sameSize(a, b *visualRow) bool { return math.Abs(a.h-b.h) <= 0.15*b.h }

// fitsAll reports whether every row falls into the columns.
func fitsAll(rows []*visualRow, cols []column) bool {
	for _, r := range rows {
		if fitColumns(r, cols) == nil && splitByColumns(r, cols, true) == nil {
			return false
		}
	}
	return true
}

// splitByColumns splits a row set tighter than the table's gaps by the
// columns' starts: each word goes to the last column starting at or
// before its middle. nil unless every column gets a word (or, with
// gaps, two columns do), and no word lies past the last column.
func splitByColumns(r *visualRow, cols []column, gaps bool) []string {
	var words []pdfWord
	for _, s := range r.segs {
		words = append(words, s.words...)
	}
	if len(words) < len(cols) || len(words) > len(cols)*maxCellWords {
		return nil
	}
	parts := make([][]pdfWord, len(cols))
	for _, w := range words {
		mid := (w.x0 + w.x1) / 2
		c := -1
		for i, col := range cols {
			if col.x0-0.3*r.h <= mid {
				c = i
			}
		}
		if c < 0 || mid > cols[len(cols)-1].x1+r.h {
			return nil
		}
		parts[c] = append(parts[c], w)
	}
	out := make([]string, len(cols))
	filled := 0
	for i, p := range parts {
		if len(p) == 0 {
			if !gaps {
				return nil
			}
			continue
		}
		filled++
		out[i] = joinWords(p)
	}
	if filled < 2 {
		return nil
	}
	return out
}

func joinWords(ws []pdfWord) string {
	parts := make([]string, len(ws))
	for i, w := range ws {
		parts[i] = html.EscapeString(w.text)
	}
	return strings.Join(parts, " ")
}

// dropRunningLines removes running headers and footers: a line that comes
// back at the same height on most pages of a document of three or more,
// its numbers aside ("Page 3 of 12"), in the top or bottom tenth of the
// page, is the page's furniture, not its content.
func dropRunningLines(pages []*pdfPage) {
	if len(pages) < 3 {
		return
	}
	key := func(l *pdfLine) string {
		t := strings.Map(func(r rune) rune {
			if r >= '0' && r <= '9' {
				return '#'
			}
			return r
		}, l.text())
		return strconv.Itoa(int(math.Round(l.y0()/4))) + "|" + t
	}
	seen := map[string]int{}
	for _, p := range pages {
		once := map[string]bool{}
		for _, l := range p.lines {
			if k := key(l); !once[k] {
				once[k] = true
				seen[k]++
			}
		}
	}
	least := max(3, (len(pages)*6+9)/10)
	for _, p := range pages {
		p.lines = slices.DeleteFunc(p.lines, func(l *pdfLine) bool {
			margin := l.y0() < 0.1*p.height || l.y0() > 0.9*p.height
			return margin && seen[key(l)] >= least
		})
	}
}
