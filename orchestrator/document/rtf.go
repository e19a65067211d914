package document

import (
	"context"
	"strconv"
	"strings"
	"time"

	"golang.org/x/text/encoding/charmap"
)

// readRTF reads a Rich Text Format file with a small tokenizer: text in
// its code page or as Unicode escapes, paragraphs, headings by outline
// level, tables by their rows and cells; pictures, fonts, styles and
// other destinations skipped; properties from the info group.
func readRTF(ctx context.Context, body []byte, lim Limits) (*Document, error) {
	if !strings.HasPrefix(string(body[:min(len(body), 5)]), `{\rtf`) {
		return nil, malformed("it does not start as an RTF file does ({\\rtf)")
	}
	r := &rtf{ctx: ctx, src: body, lim: lim, w: &writer{bud: &budget{ctx: ctx, lim: lim}}, d: &Document{}}
	if err := r.run(); err != nil {
		return nil, err
	}
	r.endPara()
	if len(r.rows) > 0 {
		r.flushTable()
	}
	r.d.HTML, r.d.Cut = r.w.b.String(), r.w.cut
	return r.d, nil
}

// rtfState is what a group inherits and may change.
type rtfState struct {
	skip    bool   // a destination whose text is not content
	info    string // the info field the text goes to ("title", "author", …)
	uc      int    // bytes to skip after \uN
	outline int    // heading level from \outlinelevel, 1-based; 0 for none
	intbl   bool
}

type rtf struct {
	ctx   context.Context
	src   []byte
	pos   int
	lim   Limits
	w     *writer
	d     *Document
	stack []rtfState
	st    rtfState
	para  inline
	row   []string
	rows  [][]string
	info  map[string]*strings.Builder
	date  *time.Time
	dt    [5]int // yr mo dy hr min of the date being read
	skipN int    // fallback bytes still to skip after \u
}

// skipped are destinations whose text is not the document's content.
var skipped = map[string]bool{
	"fonttbl": true, "colortbl": true, "stylesheet": true, "pict": true, "header": true, "footer": true,
	"headerl": true, "headerr": true, "headerf": true, "footerl": true, "footerr": true, "footerf": true,
	"listtable": true, "listoverridetable": true, "rsidtbl": true, "generator": true, "xmlnstbl": true,
	"themedata": true, "colorschememapping": true, "datastore": true, "latentstyles": true, "object": true,
	"fldinst": true, "pntext": false, "footnote": true, "annotation": true, "bkmkstart": true, "bkmkend": true,
	"filetbl": true, "revtbl": true, "pgdsctbl": true, "shp": true, "nonshppict": true,
}

func (r *rtf) run() error {
	r.st.uc = 1
	steps := 0
	for r.pos < len(r.src) {
		steps++
		if steps&4095 == 0 {
			if err := r.ctx.Err(); err != nil {
				return err
			}
		}
		c := r.src[r.pos]
		switch c {
		case '{':
			r.pos++
			if len(r.stack) >= r.lim.MaxDepth {
				return bound("its groups nest deeper than %d", r.lim.MaxDepth)
			}
			r.stack = append(r.stack, r.st)
			if r.pos+1 < len(r.src) && r.src[r.pos] == '\\' && r.src[r.pos+1] == '*' {
				// An optional destination glimpse does not know.
				r.st.skip = true
			}
		case '}':
			r.pos++
			if len(r.stack) == 0 {
				return nil // the document's group is closed: anything after is not RTF
			}
			r.endGroup()
			r.st = r.stack[len(r.stack)-1]
			r.stack = r.stack[:len(r.stack)-1]
		case '\\':
			r.control()
		case '\r', '\n':
			r.pos++
		default:
			r.pos++
			r.char(string(rune(c)))
		}
		if r.w.full() {
			return nil
		}
	}
	return nil
}

// control reads one control word or symbol at pos.
func (r *rtf) control() {
	r.pos++
	if r.pos >= len(r.src) {
		return
	}
	c := r.src[r.pos]
	if !isLetter(c) {
		r.pos++
		switch c {
		case '\'':
			if r.pos+2 <= len(r.src) {
				if v, err := strconv.ParseUint(string(r.src[r.pos:r.pos+2]), 16, 8); err == nil {
					if r.skipN > 0 {
						r.skipN--
					} else {
						r.char(string(charmap.Windows1252.DecodeByte(byte(v))))
					}
				}
				r.pos += 2
			}
		case '~':
			r.char("\u00a0")
		case '-', '_':
		case '\\', '{', '}':
			r.char(string(rune(c)))
		case '\n', '\r':
			r.word("par", 0, false)
		}
		return
	}
	start := r.pos
	for r.pos < len(r.src) && isLetter(r.src[r.pos]) && r.pos-start < 32 {
		r.pos++
	}
	name := string(r.src[start:r.pos])
	num, hasNum := 0, false
	nstart := r.pos
	if r.pos < len(r.src) && r.src[r.pos] == '-' {
		r.pos++
	}
	for r.pos < len(r.src) && r.src[r.pos] >= '0' && r.src[r.pos] <= '9' && r.pos-nstart < 11 {
		r.pos++
	}
	if r.pos > nstart {
		if n, err := strconv.Atoi(string(r.src[nstart:r.pos])); err == nil {
			num, hasNum = n, true
		}
	}
	if r.pos < len(r.src) && r.src[r.pos] == ' ' {
		r.pos++
	}
	r.word(name, num, hasNum)
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func (r *rtf) word(name string, num int, hasNum bool) {
	if skipped[name] {
		r.st.skip = true
		return
	}
	switch name {
	case "info":
		r.st.skip = true
	case "title", "author", "subject":
		if r.info == nil {
			r.info = map[string]*strings.Builder{}
		}
		r.info[name] = &strings.Builder{}
		r.st.info = name
	case "creatim", "revtim":
		r.date = &r.d.Created
		if name == "revtim" {
			r.date = &r.d.Modified
		}
		r.dt = [5]int{}
		r.st.info = name
	case "yr", "mo", "dy", "hr", "min":
		if r.st.info == "creatim" || r.st.info == "revtim" {
			r.dt[map[string]int{"yr": 0, "mo": 1, "dy": 2, "hr": 3, "min": 4}[name]] = num
		}
	case "uc":
		if hasNum && num >= 0 && num < 10 {
			r.st.uc = num
		}
	case "u":
		if hasNum {
			if num < 0 {
				num += 65536
			}
			r.char(string(rune(num)))
			r.skipN = r.st.uc
		}
	case "par", "sect", "page":
		if r.st.intbl {
			r.para.br()
		} else {
			r.endPara()
		}
	case "line":
		r.para.br()
	case "tab":
		r.char(" ")
	case "pard":
		r.st.outline, r.st.intbl = 0, false
	case "outlinelevel":
		if hasNum && num >= 0 && num < 9 {
			r.st.outline = min(num+1, 6)
		}
	case "intbl":
		r.st.intbl = true
	case "cell":
		r.row = append(r.row, strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(r.para.String()), "<br>")))
		r.para = inline{}
	case "row":
		if len(r.row) > 0 {
			r.rows = append(r.rows, r.row)
		}
		r.row = nil
	case "lang", "deflang":
		if hasNum && r.d.Lang == "" {
			r.d.Lang = lcidLang[num]
		}
	case "bullet":
		r.char("•")
	case "emdash":
		r.char("—")
	case "endash":
		r.char("–")
	case "lquote":
		r.char("‘")
	case "rquote":
		r.char("’")
	case "ldblquote":
		r.char("“")
	case "rdblquote":
		r.char("”")
	}
}

// char is text: content, an info field, or nothing in a skipped group.
func (r *rtf) char(s string) {
	if r.skipN > 0 {
		r.skipN--
		return
	}
	if r.st.info != "" {
		if b := r.info[r.st.info]; b != nil && b.Len() < maxProperty*4 {
			b.WriteString(s)
		}
		return
	}
	if r.st.skip {
		return
	}
	if len(r.rows) > 0 && !r.st.intbl {
		r.flushTable()
	}
	r.para.text(s)
}

func (r *rtf) endGroup() {
	switch r.st.info {
	case "title":
		r.d.Title = r.info["title"].String()
	case "author":
		r.d.Author = r.info["author"].String()
	case "creatim", "revtim":
		if r.dt[0] > 0 && r.date != nil {
			*r.date = time.Date(r.dt[0], time.Month(max(r.dt[1], 1)), max(r.dt[2], 1), r.dt[3], r.dt[4], 0, 0, time.UTC)
		}
	}
}

func (r *rtf) endPara() {
	text := r.para.String()
	r.para = inline{}
	if strings.TrimSpace(text) == "" {
		return
	}
	if len(r.rows) > 0 {
		r.flushTable()
	}
	tag := "p"
	if r.st.outline > 0 {
		tag = "h" + strconv.Itoa(r.st.outline)
	}
	r.w.block(tag, text)
}

func (r *rtf) flushTable() {
	r.w.table(r.rows)
	r.rows = nil
}

// lcidLang names the languages RTF files most often declare by Windows
// locale id.
var lcidLang = map[int]string{
	1033: "en", 2057: "en", 3081: "en", 4105: "en", 1031: "de", 1036: "fr", 3082: "es", 1034: "es", 1040: "it",
	1043: "nl", 1046: "pt", 2070: "pt", 1049: "ru", 1041: "ja", 2052: "zh", 1028: "zh", 1042: "ko", 1045: "pl",
	1053: "sv", 1030: "da", 1044: "no", 1035: "fi", 1055: "tr", 1032: "el", 1037: "he", 1025: "ar", 1029: "cs",
}
