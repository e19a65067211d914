package meta

import (
	"regexp"
	"strings"

	"github.com/PuerkitoBio/goquery"
)

// Telling organisations from people, for the author rule: sites put their
// company, their own name or a news agency in author fields, where Microlink
// users expect the journalist.

var (
	// orgSuffixRe matches the words a company or an institution's name ends
	// with: legal forms, and words no person's name ends with.
	orgSuffixRe = regexp.MustCompile(`(?i)(?:^|[\s,])(?:inc|incorporated|llc|l\.l\.c|ltd|limited|plc|gmbh|mbh|corp|corporation|` +
		`company|co|llp|pty|holdings?|group|media|press|publishing|publishers|publications|news|newspapers?|network|` +
		`networks|studios?|magazines?|foundation|association|institute|university|agency|associates|partners|` +
		`team|staff|editors|desk|newsroom|board)\.?$`)
	// orgFormRe matches legal forms written in capitals or with dots, which
	// as plain words could be part of a name (AG, SA, AB).
	orgFormRe = regexp.MustCompile(`(?:^|[\s,])(?:AG|SA|S\.A\.|SL|S\.L\.|SAS|SRL|S\.r\.l\.|BV|B\.V\.|NV|N\.V\.|AB|ASA|OY|Oy|KK|K\.K\.|SE|SpA|S\.p\.A\.|GbR|KG|e\.V\.)$`)
	// orgWordRe matches words that make a byline a newsroom's, wherever they
	// stand: "Editorial Board", "Redaktion Politik".
	orgWordRe = regexp.MustCompile(`(?i)(?:^|\s)(?:editorial|newsroom|redaktion|rédaction|redaction|redacción|redaccion|redação|redacao|redazione|redactie|редакция)(?:\s|$)`)
	// orgScriptRe matches company markers in Chinese, Japanese and Korean.
	orgScriptRe = regexp.MustCompile(`株式会社|有限会社|合同会社|合資会社|有限公司|股份|公司|주식회사|\(株\)|（株）`)
)

// newsAgencies are wire services, whose name stands in bylines of stories
// they supplied; folded as foldKey does.
var newsAgencies = map[string]bool{
	"reuters": true, "associatedpress": true, "ap": true, "afp": true, "agencefrancepresse": true, "dpa": true,
	"efe": true, "ansa": true, "xinhua": true, "upi": true, "bloomberg": true, "kyodo": true, "kyodonews": true,
	"yonhap": true, "pressassociation": true, "pamedia": true, "anp": true, "apa": true, "tass": true,
	"ians": true, "pti": true, "aap": true, "epa": true,
}

// isOrganization reports a name that is no person's: the publisher or the
// site again, a company by its legal form or its wording, a news agency, or
// the holder of the page's copyright.
func (p *page) isOrganization(name, publisher string) bool {
	k := foldKey(name)
	if k == "" {
		return false
	}
	for _, site := range p.siteNames(publisher) {
		if k == site {
			return true
		}
	}
	if newsAgencies[k] || orgSuffixRe.MatchString(name) || orgFormRe.MatchString(name) ||
		orgWordRe.MatchString(name) || orgScriptRe.MatchString(name) || strings.Contains(name, "©") {
		return true
	}
	for _, name := range p.copyrightHolders() {
		if holder := foldKey(name); k == holder || len(k) >= 4 && strings.HasPrefix(holder, k) {
			return true
		}
	}
	return false
}

// siteNames are the names the site goes by, folded: the publisher, the
// declared site and app names, and the registrable domain with and without
// its suffix.
func (p *page) siteNames(publisher string) []string {
	var out []string
	for _, s := range []string{publisher, p.meta("og:site_name"), p.meta("application-name"),
		p.meta("apple-mobile-web-app-title"), p.ldPartyName("publisher")} {
		if k := foldKey(s); k != "" {
			out = append(out, k)
		}
	}
	if h := registrableHost(p.url); h != "" {
		d := registrableDomain(h)
		out = append(out, foldKey(d))
		if label, _, ok := strings.Cut(d, "."); ok {
			out = append(out, foldKey(label))
		}
	}
	return out
}

var (
	// copyrightRe finds a copyright notice and the holder it names:
	// "© 2012–2024 Acme Media Inc. All rights reserved."
	copyrightRe = regexp.MustCompile(`(?i)(?:©|\(c\)|copyright)(?:\s*(?:©|\(c\)))?\s*` +
		`(?:(?:19|20)\d{2}(?:\s*[-–—]\s*(?:(?:19|20)\d{2}|present))?\s*,?\s*)?(?:by\s+)?([^\n|•·©]{2,80})`)
	trailingYearRe = regexp.MustCompile(`[\s,]*(?:19|20)\d{2}(?:\s*[-–—]\s*(?:19|20)\d{2})?\s*$`)
	reservedRe     = regexp.MustCompile(`(?i)[.,;]?\s*(?:all rights reserved|alle rechte vorbehalten|tous droits réservés|todos los derechos reservados|tutti i diritti riservati|todos os direitos reservados|alle rechten voorbehouden)\b.*$`)
)

// copyrightHolders returns the names, as printed, of whoever the page says
// holds its copyright: <meta name=copyright>, Dublin Core rights, and
// notices in the footer.
func (p *page) copyrightHolders() []string {
	if p.holdersDone {
		return p.holders
	}
	p.holdersDone = true
	texts := p.metaEach("copyright", "dc.rights", "dcterms.rights", "rights")
	p.doc.Find(`footer, [role=contentinfo], [class*="copyright" i], [id*="copyright" i], [class*="footer" i], [id*="footer" i]`).Each(func(_ int, s *goquery.Selection) {
		if len(texts) < 20 {
			texts = append(texts, s.Text())
		}
	})
	for _, t := range texts {
		for _, m := range copyrightRe.FindAllStringSubmatch(cleanText(t), 4) {
			holder := reservedRe.ReplaceAllString(m[1], "")
			// A sentence after the holder ("Acme Inc. Terms of use") is not
			// part of it; neither is a trailing year.
			if i := strings.Index(holder, ". "); i > 0 {
				holder = holder[:i]
			}
			holder = trailingYearRe.ReplaceAllString(holder, "")
			holder = strings.Trim(strings.TrimSpace(holder), ".,;:-–— ")
			if k := foldKey(holder); len(k) >= 2 && len(k) <= 60 {
				p.holders = append(p.holders, holder)
			}
		}
	}
	return p.holders
}
