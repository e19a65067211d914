package meta

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// earliestDate is the oldest date accepted: the web had few pages before
// 1995, and older values are almost always placeholders (1970-01-01) or
// dates a text speaks of rather than its own.
var earliestDate = time.Date(1995, 1, 1, 0, 0, 0, 0, time.UTC)

// ParseDate reads a date in any common form: ISO 8601 with or without a zone,
// RFC 1123 and its kin, Unix seconds or milliseconds, written dates such as
// "November 20, 2026", "20 November 2026" or "20 de noviembre de 2026" (month
// names in English and the main European languages, CJK 年月日), numeric
// dates (2026/11/20, 20.11.2026, 11/20/2026), a date inside a sentence
// ("Published May 3, 2016, 2:58 p.m. EDT") and recent relative dates ("3
// hours ago"). A date without a zone is taken as UTC; a written date without a
// time is placed at noon UTC, so that it stays on the same calendar day in
// nearly every time zone. Dates in the future (after now plus one day) and
// before 1995 are refused.
func ParseDate(s string, now time.Time) (time.Time, bool) {
	d, ok := parseDateInfo(s, now)
	return d.t, ok
}

// dateInfo is a date read from text, with what the text said of its
// precision: rules that find several copies of a date keep the most precise.
type dateInfo struct {
	t time.Time // in UTC
	// wall is the date and time as written, in the zone written (UTC when
	// none was), for telling copies of one date apart from other dates.
	wall time.Time
	// dayOnly marks a date without a time of day.
	dayOnly bool
	// zoned marks a value that fixes an instant: it names its zone or
	// offset, or counts from the Unix epoch.
	zoned bool
}

// parseDateInfo is ParseDate with the precision of what it read.
func parseDateInfo(s string, now time.Time) (dateInfo, bool) {
	return parseDateInfoIn(s, now, nil)
}

// dateLocale is what a page's dates are read by: its region (an ISO 3166
// country code, "" when unknown), which tells zone abbreviations that
// several countries use apart (see zoneOffset), and whether it writes a
// numeric date with slashes day first (05/11/2025 for 5 November).
type dateLocale struct {
	region   string
	dayFirst bool
}

// parseDateInfoIn is parseDateInfo for a page of a locale. loc is asked
// only for a date that needs it (a numeric date with slashes, a zone's
// abbreviation), since finding a page's locale reads the page; nil is
// the zero locale.
func parseDateInfoIn(s string, now time.Time, loc func() dateLocale) (dateInfo, bool) {
	d, ok := parseAnyDate(s, now, loc)
	if !ok {
		return dateInfo{}, false
	}
	d.wall, d.t = d.t, d.t.UTC()
	if d.t.Before(earliestDate) || d.t.After(now.Add(24*time.Hour)) {
		return dateInfo{}, false
	}
	return d, true
}

// FormatDate renders t the way the API returns dates: ISO 8601 in UTC with
// milliseconds.
func FormatDate(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}

func parseAnyDate(s string, now time.Time, loc func() dateLocale) (dateInfo, bool) {
	s = cleanText(s)
	if s == "" {
		return dateInfo{}, false
	}
	if len(s) > 400 {
		s = s[:400]
	}
	if t, ok := parseEpoch(s); ok {
		return dateInfo{t: t, zoned: true}, true
	}

	if d, ok := parseISO(s); ok {
		return d, true
	}
	for _, layout := range rfcLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return dateInfo{t: t, zoned: true}, true
		}
	}
	if t, dayOnly, ok := parseRelative(s, now); ok {
		return dateInfo{t: t, dayOnly: dayOnly, zoned: !dayOnly}, true
	}
	return parseWritten(s, loc)
}

var epochRe = regexp.MustCompile(`^\d{9,13}(\.\d+)?$`)

// parseEpoch reads Unix time: up to 11 digits are seconds, 12 or 13 are
// milliseconds.
func parseEpoch(s string) (time.Time, bool) {
	if !epochRe.MatchString(s) {
		return time.Time{}, false
	}
	intPart, frac, _ := strings.Cut(s, ".")
	n, err := strconv.ParseInt(intPart, 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	if len(intPart) >= 12 {
		return time.UnixMilli(n).UTC(), true
	}
	var nsec int64
	if frac != "" {
		frac = (frac + "000000000")[:9]
		nsec, _ = strconv.ParseInt(frac, 10, 64)
	}
	return time.Unix(n, nsec).UTC(), true
}

var isoRe = regexp.MustCompile(`^(\d{4})-?(\d{2})(?:-?(\d{2}))?` +
	`(?:[T\s]+(\d{1,2}):?(\d{2})(?::?(\d{2})(?:[.,](\d{1,9}))?)?)?` +
	`\s*(Z|z|UTC|GMT|[+-]\d{2}(?::?\d{2})?)?(?:\s*(?:UTC|GMT))?$`)

// parseISO reads ISO 8601 and RFC 3339 dates, including the common
// deviations: a space for the T, no zone, a zone without colon, compact
// 20260520, and year-month only.
func parseISO(s string) (dateInfo, bool) {
	m := isoRe.FindStringSubmatch(s)
	if m == nil {
		return dateInfo{}, false
	}
	if m[3] == "" && (m[4] != "" || !strings.Contains(s, "-")) {
		return dateInfo{}, false // "202605" or "2026-05T10:00" are not dates
	}
	atoi := func(x string) int { n, _ := strconv.Atoi(x); return n }
	y, mo, d := atoi(m[1]), atoi(m[2]), 1
	if m[3] != "" {
		d = atoi(m[3])
	}
	hh, mm, ss := atoi(m[4]), atoi(m[5]), atoi(m[6])
	nsec := 0
	if m[7] != "" {
		nsec = atoi((m[7] + "000000000")[:9])
	}
	loc := time.UTC
	if z := m[8]; z != "" && z != "Z" && z != "z" && z != "UTC" && z != "GMT" {
		off, ok := parseOffset(z)
		if !ok {
			return dateInfo{}, false
		}
		loc = time.FixedZone("", off)
	}
	t, ok := validDate(y, mo, d, hh, mm, ss, nsec, loc)
	zoned := m[8] != "" || strings.HasSuffix(s, "UTC") || strings.HasSuffix(s, "GMT")
	return dateInfo{t: t, dayOnly: m[4] == "", zoned: zoned}, ok
}

// parseOffset reads +05, +0530 or +05:30 into seconds east of UTC.
func parseOffset(z string) (int, bool) {
	sign := 1
	switch z[0] {
	case '-':
		sign = -1
	case '+':
	default:
		return 0, false
	}
	digits := strings.ReplaceAll(z[1:], ":", "")
	if len(digits) != 2 && len(digits) != 4 {
		return 0, false
	}
	h, _ := strconv.Atoi(digits[:2])
	m := 0
	if len(digits) == 4 {
		m, _ = strconv.Atoi(digits[2:])
	}
	if h > 14 || m > 59 {
		return 0, false
	}
	return sign * (h*3600 + m*60), true
}

func validDate(y, mo, d, hh, mm, ss, nsec int, loc *time.Location) (time.Time, bool) {
	if mo < 1 || mo > 12 || d < 1 || d > 31 || hh > 23 || mm > 59 || ss > 60 {
		return time.Time{}, false
	}
	if ss == 60 {
		ss = 59 // leap second
	}
	t := time.Date(y, time.Month(mo), d, hh, mm, ss, nsec, loc)
	if t.Day() != d || int(t.Month()) != mo {
		return time.Time{}, false // 31 June
	}
	return t, true
}

// rfcLayouts are the fixed layouts with numeric zones. Layouts with zone
// names (EST, PDT) are left to parseWritten, which knows their offsets;
// time.Parse would silently read them as UTC.
var rfcLayouts = []string{
	time.RFC1123Z,
	"Mon, 2 Jan 2006 15:04:05 -0700",
	"Mon, 2 Jan 2006 15:04 -0700",
	"2 Jan 2006 15:04:05 -0700",
	time.RFC822Z,
	time.ANSIC,
}

var relativeRe = regexp.MustCompile(`^(?:about |around )?(\d{1,3}|an?|one) (sec(?:ond)?|min(?:ute)?|h(?:ou)?r|day|week)s? ago$`)

// parseRelative reads the relative dates pages print for recent content. Only
// units up to a week are read: "3 years ago" is too vague to be a date.
func parseRelative(s string, now time.Time) (t time.Time, dayOnly, ok bool) {
	l := strings.ToLower(strings.TrimSpace(s))
	switch l {
	case "just now", "now":
		return now, false, true
	case "today":
		return time.Date(now.Year(), now.Month(), now.Day(), 12, 0, 0, 0, time.UTC), true, true
	case "yesterday":
		y := now.AddDate(0, 0, -1)
		return time.Date(y.Year(), y.Month(), y.Day(), 12, 0, 0, 0, time.UTC), true, true
	}
	m := relativeRe.FindStringSubmatch(l)
	if m == nil {
		return time.Time{}, false, false
	}
	n, err := strconv.Atoi(m[1])
	if err != nil {
		n = 1 // "an hour ago"
	}
	unit := map[byte]time.Duration{'s': time.Second, 'm': time.Minute, 'h': time.Hour, 'd': 24 * time.Hour, 'w': 7 * 24 * time.Hour}[m[2][0]]
	return now.Add(-time.Duration(n) * unit).Truncate(time.Second), false, true
}

// monthNames maps month names and abbreviations, in English and the main
// European languages, to month numbers. Genitive forms (Slavic "мая",
// "października") are listed as they appear in dates.
var monthNames = func() map[string]int {
	m := map[string]int{}
	add := func(month int, names ...string) {
		for _, n := range names {
			m[n] = month
		}
	}
	add(1, "january", "jan", "janvier", "janv", "januar", "jänner", "jän", "enero", "ene", "janeiro", "gennaio", "gen", "januari", "styczeń", "stycznia", "sty", "январь", "января", "янв", "січень", "січня", "січ", "ocak", "leden", "ledna", "tammikuuta", "tammikuu", "ianuarie")
	add(2, "february", "feb", "février", "fevrier", "févr", "fevr", "februar", "febrero", "fevereiro", "fev", "febbraio", "februari", "luty", "lutego", "lut", "февраль", "февраля", "фев", "лютий", "лютого", "лют", "şubat", "únor", "února", "helmikuuta", "februarie")
	add(3, "march", "mar", "mars", "märz", "maerz", "mär", "marzo", "março", "marco", "maart", "mrt", "marzec", "marca", "март", "марта", "мар", "березень", "березня", "бер", "mart", "březen", "března", "maaliskuuta", "martie")
	add(4, "april", "apr", "avril", "avr", "abril", "abr", "aprile", "kwiecień", "kwietnia", "kwi", "апрель", "апреля", "апр", "квітень", "квітня", "квіт", "nisan", "duben", "dubna", "huhtikuuta", "aprilie")
	add(5, "may", "mai", "mayo", "maio", "maggio", "mag", "mei", "maj", "maja", "май", "мая", "травень", "травня", "трав", "mayıs", "květen", "května", "toukokuuta", "mai")
	add(6, "june", "jun", "juin", "juni", "junio", "junho", "giugno", "giu", "czerwiec", "czerwca", "cze", "июнь", "июня", "июн", "червень", "червня", "черв", "haziran", "červen", "června", "kesäkuuta", "iunie")
	add(7, "july", "jul", "juillet", "juil", "juli", "julio", "julho", "luglio", "lug", "lipiec", "lipca", "lip", "июль", "июля", "июл", "липень", "липня", "лип", "temmuz", "červenec", "července", "heinäkuuta", "iulie")
	add(8, "august", "aug", "août", "aout", "agosto", "ago", "augustus", "sierpień", "sierpnia", "sie", "август", "августа", "авг", "серпень", "серпня", "серп", "ağustos", "srpen", "srpna", "elokuuta", "augusti")
	add(9, "september", "sep", "sept", "septembre", "septiembre", "setiembre", "setembro", "set", "settembre", "wrzesień", "września", "wrz", "сентябрь", "сентября", "сен", "сент", "вересень", "вересня", "вер", "eylül", "září", "syyskuuta", "septembrie")
	add(10, "october", "oct", "octobre", "oktober", "okt", "octubre", "outubro", "out", "ottobre", "ott", "październik", "października", "paź", "октябрь", "октября", "окт", "жовтень", "жовтня", "жовт", "ekim", "říjen", "října", "lokakuuta", "octombrie")
	add(11, "november", "nov", "novembre", "noviembre", "novembro", "listopad", "listopada", "lis", "ноябрь", "ноября", "ноя", "листопада", "лист", "kasım", "listopadu", "marraskuuta", "noiembrie")
	add(12, "december", "dec", "décembre", "decembre", "déc", "dezember", "dez", "diciembre", "dic", "dezembro", "dicembre", "grudzień", "grudnia", "gru", "декабрь", "декабря", "дек", "грудень", "грудня", "груд", "aralık", "prosinec", "prosince", "joulukuuta", "decembrie", "desember", "desembre")
	return m
}()

// fillers may sit between the parts of a written date.
var fillers = map[string]bool{"de": true, "del": true, "of": true, "the": true, "di": true, "du": true, "den": true, "le": true, "el": true}

type dateToken struct {
	word       string // lower-case letters; "" for numbers
	num        int
	digits     int
	start, end int // byte offsets
}

func tokenizeDate(s string) []dateToken {
	var toks []dateToken
	rs := []rune(s)
	offsets := make([]int, len(rs)+1)
	o := 0
	for i, r := range rs {
		offsets[i] = o
		o += len(string(r))
	}
	offsets[len(rs)] = o
	for i := 0; i < len(rs); {
		r := rs[i]
		switch {
		case unicode.IsDigit(r):
			j, n := i, 0
			for j < len(rs) && unicode.IsDigit(rs[j]) && j-i < 9 {
				n = n*10 + int(rs[j]-'0')
				j++
			}
			t := dateToken{num: n, digits: j - i, start: offsets[i]}
			// Ordinal suffixes belong to the number: 3rd, 1st, 1er, 1º.
			k := j
			for k < len(rs) && unicode.IsLetter(rs[k]) && k-j < 3 {
				k++
			}
			switch strings.ToLower(string(rs[j:k])) {
			case "st", "nd", "rd", "th", "er", "e", "º", "ª", "o", "a":
				j = k
			}
			t.end = offsets[j]
			toks = append(toks, t)
			i = j
		case unicode.IsLetter(r):
			j := i
			for j < len(rs) && unicode.IsLetter(rs[j]) {
				j++
				// Each CJK date character is a token of its own: 2026年11月20日.
				if isCJKDateRune(rs[j-1]) {
					break
				}
			}
			toks = append(toks, dateToken{word: strings.ToLower(string(rs[i:j])), start: offsets[i], end: offsets[j]})
			i = j
		default:
			i++
		}
	}
	return toks
}

func isCJKDateRune(r rune) bool { return strings.ContainsRune("年月日년월일", r) }

// writtenMatch is a date found in text: where it ends, and its parts.
type writtenMatch struct {
	start, end int
	y, m, d    int
	// order is how the date was written (see dateOrder).
	order dateOrder
}

// dateOrder is how a date was written: which part comes first matters
// where a numeric date could be read both ways.
type dateOrder int

const (
	otherOrder      dateOrder = iota
	monthFirstOrder           // November 20, 2026
	dayFirstOrder             // 20 November 2026
	slashOrder                // 11/20/2026 or 20/11/2026, month first when both could be
)

var (
	ymdRe = regexp.MustCompile(`(\d{4})[/.\-](\d{1,2})[/.\-](\d{1,2})`)
	dmyRe = regexp.MustCompile(`(\d{1,2})([/.\-])(\d{1,2})([/.\-])(\d{4})`)
)

// findWrittenDate finds the first date in s, written or numeric.
func findWrittenDate(s string) (writtenMatch, bool) {
	best := writtenMatch{start: -1}
	// Every form has a day or a year in digits: text without a digit,
	// most of what a page's elements hold, is not tokenized.
	if strings.IndexFunc(s, unicode.IsDigit) < 0 {
		return best, false
	}
	consider := func(w writtenMatch) {
		if best.start < 0 || w.start < best.start {
			best = w
		}
	}
	toks := tokenizeDate(s)
	next := func(i int) int { // index of the next token that is not a filler word
		for j := i + 1; j < len(toks) && j <= i+2; j++ {
			if !fillers[toks[j].word] {
				return j
			}
		}
		return -1
	}
	isDay := func(t dateToken) bool { return t.word == "" && t.digits <= 2 && t.num >= 1 && t.num <= 31 }
	isYear := func(t dateToken) bool { return t.word == "" && t.digits == 4 }
	for i, t := range toks {
		if m, ok := monthNames[t.word]; ok {
			// November 20, 2026
			if j := next(i); j > 0 && isDay(toks[j]) {
				if k := next(j); k > 0 && isYear(toks[k]) {
					consider(writtenMatch{start: t.start, end: toks[k].end, y: toks[k].num, m: m, d: toks[j].num, order: monthFirstOrder})
				}
			}
		}
		if isDay(t) {
			// 20 November 2026, 20. November 2026, 20 de noviembre de 2026
			if j := next(i); j > 0 {
				if m, ok := monthNames[toks[j].word]; ok {
					if k := next(j); k > 0 && isYear(toks[k]) {
						consider(writtenMatch{start: t.start, end: toks[k].end, y: toks[k].num, m: m, d: t.num, order: dayFirstOrder})
					}
				}
			}
		}
		if isYear(t) {
			// 2023 Jan 7, as journals and their indexes write it
			if j := next(i); j > 0 {
				if m, ok := monthNames[toks[j].word]; ok {
					if k := next(j); k > 0 && isDay(toks[k]) {
						consider(writtenMatch{start: t.start, end: toks[k].end, y: t.num, m: m, d: toks[k].num})
					}
				}
			}
		}
		if isYear(t) && i+5 < len(toks) && (toks[i+1].word == "年" || toks[i+1].word == "년") &&
			(toks[i+3].word == "月" || toks[i+3].word == "월") && (toks[i+5].word == "日" || toks[i+5].word == "일") &&
			toks[i+2].word == "" && toks[i+4].word == "" {
			consider(writtenMatch{start: t.start, end: toks[i+5].end, y: t.num, m: toks[i+2].num, d: toks[i+4].num})
		}
	}
	if m := ymdRe.FindStringSubmatchIndex(s); m != nil {
		consider(writtenMatch{start: m[0], end: m[1], y: atoiAt(s, m[2], m[3]), m: atoiAt(s, m[4], m[5]), d: atoiAt(s, m[6], m[7])})
	}
	if m := dmyRe.FindStringSubmatchIndex(s); m != nil && s[m[4]:m[5]] == s[m[8]:m[9]] {
		a, b := atoiAt(s, m[2], m[3]), atoiAt(s, m[6], m[7])
		day, month := a, b
		// A slash date is month first unless that cannot be (the US
		// convention); dots and dashes put the day first (the European one).
		if s[m[4]:m[5]] == "/" && a <= 12 && b <= 31 {
			day, month = b, a
		}
		if month > 12 && day <= 12 {
			day, month = month, day
		}
		order := otherOrder
		if s[m[4]:m[5]] == "/" && a <= 12 && b <= 12 {
			order = slashOrder
		}
		consider(writtenMatch{start: m[0], end: m[1], y: atoiAt(s, m[10], m[11]), m: month, d: day, order: order})
	}
	return best, best.start >= 0
}

// monthOnly reads a value that names a month and nothing finer, "June
// 2022", "2023 Jan", and gives its first day in ISO 8601. It is read only
// where the whole value is a date (a declared date, the date of a labelled
// statement): in running text, "June 2022" is more often an archive's
// heading than a page's date.
func monthOnly(s string) (string, bool) {
	var y, m int
	for _, t := range tokenizeDate(s) {
		switch month, isMonth := monthNames[t.word]; {
		case t.word == "" && t.digits == 4 && y == 0:
			y = t.num
		case isMonth && m == 0:
			m = month
		case fillers[t.word]:
		default:
			return "", false
		}
	}
	if y == 0 || m == 0 {
		return "", false
	}
	return fmt.Sprintf("%04d-%02d-01", y, m), true
}

func atoiAt(s string, from, to int) int {
	n, _ := strconv.Atoi(s[from:to])
	return n
}

var timeRe = regexp.MustCompile(`(?i)(\d{1,2})[:h](\d{2})(?::(\d{2}))?(?:[.,]\d+)?\s*(a\.?\s?m\.?|p\.?\s?m\.?)?` +
	`(?:\s*\(?((?:utc|gmt)?\s?[+-]\d{1,2}(?::?\d{2})?|[a-z]{1,5}\b))?`)

// dotTimeRe matches a time written with a dot, which only a.m. or p.m.
// after it tells from a decimal number: "10.34PM IST". Its groups are
// timeRe's, seconds always empty.
var dotTimeRe = regexp.MustCompile(`(?i)(\d{1,2})\.(\d{2})()\s*(a\.?\s?m\.?|p\.?\s?m\.?)` +
	`(?:\s*\(?((?:utc|gmt)?\s?[+-]\d{1,2}(?::?\d{2})?|[a-z]{1,5}\b))?`)

// findTime finds the first time of day in s, written with a colon (or h)
// or with a dot and a.m. or p.m.
func findTime(s string) []string {
	tm := timeRe.FindStringSubmatchIndex(s)
	dm := dotTimeRe.FindStringSubmatchIndex(s)
	switch {
	case dm != nil && (tm == nil || dm[0] < tm[0]):
		return submatches(s, dm)
	case tm != nil:
		return submatches(s, tm)
	}
	return nil
}

func submatches(s string, idx []int) []string {
	out := make([]string, len(idx)/2)
	for i := range out {
		if idx[2*i] >= 0 {
			out[i] = s[idx[2*i]:idx[2*i+1]]
		}
	}
	return out
}

// zoneOffsets are the zone abbreviations pages print, in seconds east of
// UTC. ET, CT, MT and PT follow US daylight saving time (see usOffset).
var zoneOffsets = map[string]int{
	"utc": 0, "gmt": 0, "z": 0, "wet": 0, "bst": 3600, "ist": 19800, "cet": 3600, "cest": 7200,
	"eet": 7200, "eest": 10800, "msk": 10800, "est": -5 * 3600, "edt": -4 * 3600,
	"cst": -6 * 3600, "cdt": -5 * 3600, "mst": -7 * 3600, "mdt": -6 * 3600, "pst": -8 * 3600,
	"pdt": -7 * 3600, "akst": -9 * 3600, "akdt": -8 * 3600, "hst": -10 * 3600, "jst": 9 * 3600,
	"kst": 9 * 3600, "aest": 10 * 3600, "aedt": 11 * 3600, "acst": 34200, "awst": 8 * 3600,
	"nzst": 12 * 3600, "nzdt": 13 * 3600, "sgt": 8 * 3600, "hkt": 8 * 3600,
}

var usStandardOffsets = map[string]int{"et": -5, "ct": -6, "mt": -7, "pt": -8}

// parseWritten finds a written or numeric date in s and the time of day next
// to it, read as the locale writes them (see parseDateInfoIn).
func parseWritten(s string, localeOf func() dateLocale) (dateInfo, bool) {
	w, ok := findWrittenDate(s)
	if !ok {
		return dateInfo{}, false
	}
	locale := func() dateLocale {
		if localeOf == nil {
			return dateLocale{}
		}
		return localeOf()
	}
	if w.order == slashOrder && locale().dayFirst {
		w.d, w.m = w.m, w.d
	}
	// A date without a time of day is placed at noon UTC (see ParseDate).
	day := func() (dateInfo, bool) {
		t, ok := validDate(w.y, w.m, w.d, 12, 0, 0, 0, time.UTC)
		return dateInfo{t: t, dayOnly: true}, ok
	}
	lower := strings.ToLower(s)
	tm := findTime(lower[w.end:])
	if tm == nil || strings.Index(lower[w.end:], tm[0]) > 24 {
		tm = findTime(lower[:w.start])
	}
	if tm == nil {
		return day()
	}
	hh, _ := strconv.Atoi(tm[1])
	mm, _ := strconv.Atoi(tm[2])
	ss, _ := strconv.Atoi(tm[3])
	if ampm := strings.ReplaceAll(strings.ReplaceAll(tm[4], ".", ""), " ", ""); ampm != "" {
		if hh < 1 || hh > 12 {
			return day()
		}
		hh %= 12
		if ampm == "pm" {
			hh += 12
		}
	}
	loc, zoned := time.UTC, false
	zone := strings.TrimSpace(tm[5])
	region := ""
	if _, ok := regionalZones[zone]; ok {
		region = locale().region
	}
	if off, ok := zoneOffset(zone, region); ok {
		loc, zoned = time.FixedZone(zone, off), true
	} else if std, ok := usStandardOffsets[zone]; ok {
		loc, zoned = time.FixedZone(zone, usOffset(w.y, w.m, w.d, std)*3600), true
	} else if zone != "" && (strings.ContainsAny(zone, "+-")) {
		z := strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(zone, "utc"), "gmt"))
		if len(z) == 2 || len(z) == 3 && z[2] >= '0' && z[2] <= '9' { // +2, -05
			z = z[:1] + strings.Repeat("0", 3-len(z)) + z[1:]
		}
		if off, ok := parseOffset(z); ok {
			loc, zoned = time.FixedZone("", off), true
		}
	}
	t, ok := validDate(w.y, w.m, w.d, hh, mm, ss, 0, loc)
	if !ok {
		return day()
	}
	return dateInfo{t: t, zoned: zoned}, true
}

// usOffset returns the UTC offset in hours of a US zone on a day, daylight
// saving time running from the second Sunday of March to the first Sunday of
// November.
func usOffset(y, m, d, standard int) int {
	start := nthSunday(y, time.March, 2)
	end := nthSunday(y, time.November, 1)
	day := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	if !day.Before(start) && day.Before(end) {
		return standard + 1
	}
	return standard
}

func nthSunday(y int, m time.Month, n int) time.Time {
	t := time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
	for t.Weekday() != time.Sunday {
		t = t.AddDate(0, 0, 1)
	}
	return t.AddDate(0, 0, 7*(n-1))
}
