package meta

import (
	"net/url"
	"strings"

	"golang.org/x/text/language"
)

// Zone abbreviations that several countries print for different zones:
// "10.34PM IST" is India's +05:30 on an Indian page, Ireland's +01:00 on an
// Irish one and Israel's +02:00 on a Hebrew one. The page's region (see
// dateRegion) picks the reading; without one the reading of zoneOffsets
// stands.

// regionalZones are the readings of ambiguous zone abbreviations by region,
// in seconds east of UTC.
var regionalZones = map[string]map[string]int{
	"ist": {"IE": 3600, "IL": 2 * 3600},
	"bst": {"BD": 6 * 3600},
	"cst": {"CN": 8 * 3600, "TW": 8 * 3600, "HK": 8 * 3600, "MO": 8 * 3600, "CU": -5 * 3600},
	"pst": {"PH": 8 * 3600, "PK": 5 * 3600},
	"ast": {"SA": 3 * 3600, "IQ": 3 * 3600, "KW": 3 * 3600, "QA": 3 * 3600, "BH": 3 * 3600, "YE": 3 * 3600},
	"sst": {"SG": 8 * 3600},
}

// moreZones are zone abbreviations, in seconds east of UTC, that pages of
// the regions they belong to print, read the same everywhere.
var moreZones = map[string]int{
	"idt": 3 * 3600, "ast": -4 * 3600, "adt": -3 * 3600, "gst": 4 * 3600, "pkt": 5 * 3600,
	"wat": 3600, "cat": 2 * 3600, "eat": 3 * 3600, "sast": 2 * 3600, "wib": 7 * 3600,
	"ict": 7 * 3600, "pht": 8 * 3600, "myt": 8 * 3600, "npt": 20700, "aest": 10 * 3600,
}

// zoneOffset is the offset of a lower-case zone abbreviation as pages of
// region (an ISO 3166 code, "" when unknown) print it.
func zoneOffset(zone, region string) (int, bool) {
	if off, ok := regionalZones[zone][region]; ok {
		return off, true
	}
	if off, ok := zoneOffsets[zone]; ok {
		return off, true
	}
	off, ok := moreZones[zone]
	return off, ok
}

// languageRegions are the regions whose zone abbreviations a page in one
// of these languages uses, when its language tag names no region.
var languageRegions = map[string]string{
	"he": "IL", "iw": "IL", "ga": "IE", "bn": "BD", "zh": "CN", "ar": "SA", "ur": "PK", "fil": "PH", "tl": "PH",
}

// dateRegion is the country a page's dates are written for, as an
// upper-case ISO 3166 code, "" when unknown: the region of its language
// tag (en-IN, en_IE), else the region its language stands for (see
// languageRegions), else the country-code domain of its canonical or final
// address (.ie, .in).
func (p *page) dateRegion() string {
	html := p.doc.Find("html").First()
	tags := []string{html.AttrOr("lang", ""), html.AttrOr("xml:lang", ""), p.meta("og:locale"), p.meta("content-language", "language")}
	for _, raw := range tags {
		raw = strings.ReplaceAll(strings.TrimSpace(raw), "_", "-")
		if raw == "" || len(raw) > 35 {
			continue
		}
		tag, err := language.Parse(raw)
		if err != nil {
			continue
		}
		if r, conf := tag.Region(); conf == language.Exact {
			return r.String()
		}
		if base, conf := tag.Base(); conf == language.Exact {
			if r, ok := languageRegions[base.String()]; ok {
				return r
			}
		}
	}
	for _, raw := range []string{p.canonicalURL(), p.url.String()} {
		u, err := url.Parse(strings.TrimSpace(raw))
		if err != nil || u.Hostname() == "" {
			continue
		}
		host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
		if i := strings.LastIndex(host, "."); i >= 0 && len(host)-i == 3 && host[i+1] >= 'a' {
			if tld := strings.ToUpper(host[i+1:]); tld != "UK" {
				return tld
			}
			return "GB"
		}
	}
	return ""
}

// dateLocale is what the page's dates are read by: its region (see
// dateRegion), and whether its slash dates are day first, as the page
// writes its dates in words ("3 October 2023" against "October 3, 2023").
// A page that writes none, or as many one way as the other, reads a slash
// date month first unless it cannot be.
func (p *page) dateLocale() dateLocale {
	if p.locale != nil {
		return *p.locale
	}
	loc := dateLocale{region: p.dateRegion()}
	dayFirst, monthFirst := 0, 0
	for _, raw := range p.visibleDates("body") {
		for _, part := range splitDateLabels(raw) {
			switch w, _ := findWrittenDate(part.text); w.order {
			case dayFirstOrder:
				dayFirst++
			case monthFirstOrder:
				monthFirst++
			}
		}
	}
	loc.dayFirst = dayFirst > monthFirst
	p.locale = &loc
	return loc
}

// parseDate reads a date of the page (see parseDateInfo) as the page
// writes its dates (see dateLocale).
func (p *page) parseDate(raw string) (dateInfo, bool) {
	return parseDateInfoIn(raw, p.now, p.dateLocale)
}
