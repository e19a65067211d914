// Package score is the markdown package's measure of an answer against a
// reference text: the Markdown corpus's scorer (Markdown reduced to the
// text a reader sees, then words compared as the corpus's score.py does)
// and WCXB's metric (evaluate.py's lower-cased \w+ words, precision,
// recall and F1 of the clipped word bags, and the share of snippets found).
// The package's tests and the block model's trainer score with it, so the
// two agree.
package score

import (
	"html"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// The first part is the Markdown corpus's scorer (score.py) in Go, so that
// the corpus test measures what the scorer measures: the Markdown reduced to
// plain text, then word tokens compared with the expected text as bags. The
// scorer is Python; its \s, \w and \d are Unicode classes and some of its
// patterns look around or refer back, which Go's regexp does not, so those
// steps are written out by hand.

// pyS is Python's \s for text: every character str.isspace() accepts.
const pyS = `\t\n\v\f\r\x1c-\x1f \x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}`

// pyRe compiles a pattern written with {S} for Python's white space inside
// a character class, \s and \S outside one, and \d for any decimal digit.
func pyRe(expr string) *regexp.Regexp {
	expr = strings.NewReplacer(`{S}`, pyS, `\s`, `[`+pyS+`]`, `\S`, `[^`+pyS+`]`, `\d`, `\p{Nd}`).Replace(expr)
	return regexp.MustCompile(expr)
}

const (
	scoreBr    = `(?:[^\[\]]|\[[^\[\]]*\])*`
	scoreURL   = `(?:[^(){S}]|\([^(){S}]*\))*`
	scoreTitle = `(?:\s+(?:"[^"]*"|'[^']*'|\([^)]*\)))?`
)

var (
	scoreFence      = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})")
	scoreRefDef     = pyRe(`^ {0,3}\[[^\]]+\]:\s*\S+`)
	scoreRule       = regexp.MustCompile(`^ {0,3}(?:-(?:[ \t]*-){2,}|\*(?:[ \t]*\*){2,}|_(?:[ \t]*_){2,}|=(?:[ \t]*=){2,})[ \t]*$`)
	scoreTableDelim = pyRe(`^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)+\|?\s*$`)
	scoreQuote      = pyRe(`^\s*(?:>\s?)+`)
	scoreHeading    = pyRe(`^\s*#{1,6}(?:\s+|$)`)
	scoreHeadingEnd = pyRe(`\s+#+\s*$`)
	scoreList       = pyRe(`^\s*(?:[-*+\x{2022}]|\d{1,9}[.)])\s+(?:\[[ xX]\]\s+)?`)
	scoreImage      = pyRe(`!\[` + scoreBr + `\]\(\s*<?` + scoreURL + `>?` + scoreTitle + `\s*\)`)
	scoreImageRef   = pyRe(`!\[` + scoreBr + `\]\[[^\]]*\]`)
	scoreLink       = pyRe(`\[(` + scoreBr + `)\]\(\s*<?` + scoreURL + `>?` + scoreTitle + `\s*\)`)
	scoreLinkRef    = pyRe(`\[(` + scoreBr + `)\]\[[^\]]*\]`)
	scoreAutolink   = pyRe(`(?i)<((?:https?|ftp|mailto):[^<>{S}]+|[^<>{S}@]+@[^<>{S}@]+)>`)
	scoreTag        = pyRe(`</?[A-Za-z][A-Za-z0-9:-]*(?:\s[^<>]*)?/?>`)
	scoreBlockTag   = regexp.MustCompile(`(?i)</?(?:br|p|div|li|tr|td|th|h[1-6]|blockquote|pre|table|ul|ol|hr)\b[^<>]*>`)
	scoreEscape     = regexp.MustCompile("\\\\([!-/:-@\\[-`{-~])")
	scoreComment    = regexp.MustCompile(`(?s)<!--.*?-->`)
	scoreCodeRef    = regexp.MustCompile("\ue100(\\d+)\ue101")
)

var scoreInvisible = strings.NewReplacer("\u00ad", "", "\u200b", "", "\u2060", "", "\ufeff", "")

var pySpaceRe = regexp.MustCompile(`^[` + pyS + `]$`)

func pySpace(r rune) bool {
	if r < 0x80 {
		return r == ' ' || r >= '\t' && r <= '\r' || r >= 0x1c && r <= 0x1f
	}
	return pySpaceRe.MatchString(string(r))
}

// pyWord is Python's \w for text: letters, numbers and the underscore
// (not combining marks).
func pyWord(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r) }

// pyFields is Python's str.split() without arguments.
func pyFields(s string) []string { return strings.FieldsFunc(s, pySpace) }

// Text is score.py's markdown_to_text: the plain text of a Markdown
// answer, one block per line.
func Text(md string) string {
	md = strings.ReplaceAll(strings.ReplaceAll(md, "\r\n", "\n"), "\r", "\n")
	var out, text []string
	fence, comment := "", false
	for _, line := range strings.Split(md, "\n") {
		m := scoreFence.FindStringSubmatch(line)
		if fence != "" {
			if m != nil && m[1][0] == fence[0] && len(m[1]) >= len(fence) &&
				strings.Trim(strings.TrimFunc(line, pySpace), fence[:1]) == "" {
				fence = ""
			} else {
				out = append(out, line)
			}
			continue
		}
		if comment {
			_, after, found := strings.Cut(line, "-->")
			if !found {
				continue
			}
			line, comment = after, false
		}
		line = scoreComment.ReplaceAllString(line, " ")
		if before, _, found := strings.Cut(line, "<!--"); found {
			line, comment = before, true
		}
		if m := scoreFence.FindStringSubmatch(line); m != nil {
			fence = m[1]
			out = append(out, scoreBlock(strings.Join(text, "\n"))...)
			text = nil
			continue
		}
		text = append(text, line)
	}
	out = append(out, scoreBlock(strings.Join(text, "\n"))...)
	var lines []string
	for _, x := range out {
		if s := strings.Join(pyFields(scoreInvisible.Replace(x)), " "); s != "" {
			lines = append(lines, s)
		}
	}
	return strings.Join(lines, "\n")
}

// scoreBlock is score.py's _text_block, for Markdown without fenced code.
func scoreBlock(block string) []string {
	s := scoreEscape.ReplaceAllStringFunc(block, func(m string) string {
		return string(rune(0xE000 + int(m[1])))
	})
	var codes []string
	s = strings.ReplaceAll(replaceCodeSpans(s, func(code string) string {
		codes = append(codes, code)
		return "\ue100" + strconv.Itoa(len(codes)-1) + "\ue101"
	}), "`", "")
	for range 3 {
		t := scoreImageRef.ReplaceAllString(scoreImage.ReplaceAllString(s, ""), "")
		t = scoreLinkRef.ReplaceAllString(scoreLink.ReplaceAllString(t, "${1}"), "${1}")
		if t == s {
			break
		}
		s = t
	}
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if scoreRefDef.MatchString(line) || scoreRule.MatchString(line) || scoreTableDelim.MatchString(line) {
			continue
		}
		line = scoreQuote.ReplaceAllString(line, "")
		if scoreHeading.MatchString(line) {
			line = scoreHeadingEnd.ReplaceAllString(scoreHeading.ReplaceAllString(line, ""), "")
		}
		line = scoreList.ReplaceAllString(line, "")
		line = scoreAutolink.ReplaceAllString(line, "${1}")
		line = scoreTag.ReplaceAllString(scoreBlockTag.ReplaceAllString(line, " "), "")
		line = strings.ReplaceAll(emphClose(emphOpen(line)), "|", " ")
		line = html.UnescapeString(line)
		line = scoreCodeRef.ReplaceAllStringFunc(line, func(m string) string {
			i, _ := strconv.Atoi(m[len("\ue100") : len(m)-len("\ue101")])
			return codes[i]
		})
		out = append(out, strings.Map(func(r rune) rune {
			if r > 0xE000+32 && r < 0xE000+127 && !unicode.IsLetter(r-0xE000) && !unicode.IsDigit(r-0xE000) {
				return r - 0xE000
			}
			return r
		}, line))
	}
	return out
}

// replaceCodeSpans is re.sub(r'(`+)(.+?)(?<!`)\1(?!`)', ...): a run of
// backticks (the longest first, then shorter), the shortest content on the
// same line that does not end with a backtick, then as many backticks and
// no more.
func replaceCodeSpans(s string, repl func(string) string) string {
	var sb strings.Builder
	i := 0
	for i < len(s) {
		if s[i] != '`' {
			sb.WriteByte(s[i])
			i++
			continue
		}
		run := 0
		for i+run < len(s) && s[i+run] == '`' {
			run++
		}
		matched := false
		for l := run; l >= 1 && !matched; l-- {
			ticks := s[i : i+l]
			for k := i + l + 1; k <= len(s); k++ {
				if s[k-1] == '\n' {
					break
				}
				if s[k-1] == '`' || !strings.HasPrefix(s[k:], ticks) || (k+l < len(s) && s[k+l] == '`') {
					continue
				}
				sb.WriteString(repl(s[i+l : k]))
				i = k + l
				matched = true
				break
			}
		}
		if !matched {
			sb.WriteByte('`')
			i++
		}
	}
	return sb.String()
}

// emphOpen is re.sub(r'(?<![\w\\])(?:[*_]{1,3}|~~)(?=\S)', ”, s).
func emphOpen(s string) string {
	rs := []rune(s)
	var out []rune
	for i := 0; i < len(rs); {
		if i == 0 || !(pyWord(rs[i-1]) || rs[i-1] == '\\') {
			if l := emphRun(rs, i, func(next rune, ok bool) bool { return ok && !pySpace(next) }); l > 0 {
				i += l
				continue
			}
		}
		out = append(out, rs[i])
		i++
	}
	return string(out)
}

// emphClose is re.sub(r'(?<=\S)(?:[*_]{1,3}|~~)(?!\w)', ”, s).
func emphClose(s string) string {
	rs := []rune(s)
	var out []rune
	for i := 0; i < len(rs); {
		if i > 0 && !pySpace(rs[i-1]) {
			if l := emphRun(rs, i, func(next rune, ok bool) bool { return !ok || !pyWord(next) }); l > 0 {
				i += l
				continue
			}
		}
		out = append(out, rs[i])
		i++
	}
	return string(out)
}

// emphRun is the length of the emphasis marker at rs[i] that the scorer's
// pattern takes: [*_]{1,3}, longest first, else ~~, such that after(the
// next rune, whether there is one) holds; 0 for none.
func emphRun(rs []rune, i int, after func(rune, bool) bool) int {
	next := func(j int) (rune, bool) {
		if j < len(rs) {
			return rs[j], true
		}
		return 0, false
	}
	run := 0
	for i+run < len(rs) && run < 3 && (rs[i+run] == '*' || rs[i+run] == '_') {
		run++
	}
	for l := run; l >= 1; l-- {
		if after(next(i + l)) {
			return l
		}
	}
	if run == 0 && i+1 < len(rs) && rs[i] == '~' && rs[i+1] == '~' && after(next(i+2)) {
		return 2
	}
	return 0
}

// scoreCJK reports the characters the scorer counts one by one: kana and
// Han, written without spaces between words.
func scoreCJK(r rune) bool {
	return r >= 0x3040 && r <= 0x30ff || r >= 0x3400 && r <= 0x4dbf || r >= 0x4e00 && r <= 0x9fff || r >= 0xf900 && r <= 0xfaff
}

// Tokens is score.py's tokens: NFKC, lower case, runs of letters and
// digits, each Han or kana character a token of its own.
func Tokens(text string) []string {
	text = strings.ToLower(norm.NFKC.String(scoreInvisible.Replace(text)))
	var toks []string
	var word []rune
	flush := func() {
		if len(word) > 0 {
			toks = append(toks, string(word))
			word = word[:0]
		}
	}
	for _, r := range text {
		switch {
		case scoreCJK(r):
			flush()
			toks = append(toks, string(r))
		case r != '_' && pyWord(r):
			word = append(word, r)
		default:
			flush()
		}
	}
	flush()
	return toks
}

// Compare is score.py's compare with words: precision, recall and F1
// of the answer's tokens against the expected ones, counts clipped.
func Compare(expected, answerText string) (p, r, f1 float64) {
	exp, got := map[string]int{}, map[string]int{}
	for _, t := range Tokens(expected) {
		exp[t]++
	}
	ng := 0
	for _, t := range Tokens(answerText) {
		got[t]++
		ng++
	}
	ne, tp := 0, 0
	for t, n := range exp {
		ne += n
		tp += min(n, got[t])
	}
	if ng > 0 {
		p = float64(tp) / float64(ng)
	}
	switch {
	case ne > 0:
		r = float64(tp) / float64(ne)
	case ng == 0:
		r = 1
	}
	if p+r > 0 {
		f1 = 2 * p * r / (p + r)
	}
	return p, r, f1
}

// WCXBTokens is evaluate.py's tokenize: re.findall(r'\w+', text.lower()).
func WCXBTokens(text string) []string {
	text = strings.ToLower(text)
	var toks []string
	start := -1
	for i, r := range text {
		if r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			toks = append(toks, text[start:i])
			start = -1
		}
	}
	if start >= 0 {
		toks = append(toks, text[start:])
	}
	return toks
}

// WCXBF1 is evaluate.py's word_f1.
func WCXBF1(predicted, reference string) (p, r, f1 float64) {
	pred, ref := WCXBTokens(predicted), WCXBTokens(reference)
	if len(ref) == 0 {
		if len(pred) == 0 {
			return 1, 1, 1
		}
		return 0, 0, 0
	}
	if len(pred) == 0 {
		return 0, 0, 0
	}
	counts := map[string]int{}
	for _, w := range ref {
		counts[w]++
	}
	overlap := 0
	for _, w := range pred {
		if counts[w] > 0 {
			counts[w]--
			overlap++
		}
	}
	p, r = float64(overlap)/float64(len(pred)), float64(overlap)/float64(len(ref))
	if p+r > 0 {
		f1 = 2 * p * r / (p + r)
	}
	return p, r, f1
}

// SnippetRate is evaluate.py's snippet_check: the share of snippets found
// in text, case-insensitively; 1 when there are none.
func SnippetRate(text string, snippets []string) float64 {
	if len(snippets) == 0 {
		return 1
	}
	lower := strings.ToLower(text)
	found := 0
	for _, s := range snippets {
		if strings.Contains(lower, strings.ToLower(s)) {
			found++
		}
	}
	return float64(found) / float64(len(snippets))
}
