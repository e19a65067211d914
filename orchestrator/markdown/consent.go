package markdown

import (
	"regexp"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/glimpse/glimpse/orchestrator/meta"
)

// Consent notices: the banner a site shows over every page to say that it
// sets cookies ("This site uses cookies to help personalise content … By
// continuing to use this site, you are consenting to our use of
// cookies"), and the controls that go with it ("Cookie settings",
// "Manage consent", "Do not sell my personal information"). The rules
// that know furniture by its class names miss the banners whose classes
// say nothing ("fixed bottom-6 z-50"), and a page short of other text
// brings them in with its body. The words tell them: the site speaks of
// its own cookies and of the reader's consent in one short paragraph. A
// sentence about cookies as a subject ("sites that use cookies must let
// you opt out") has no site of its own for a subject and stays, and so
// does code that sets them.

// siteCookiesRe finds a site saying that it sets cookies: "we use
// cookies", "this website uses cookies", "our platform uses various types
// of cookies", or a name opening the note ("iFixit uses cookies"); and
// the same in German, French, Spanish, Italian, Portuguese and Dutch
// ("Wir verwenden Cookies", "Ce site utilise des cookies", "Utilizamos
// cookies propias").
var siteCookiesRe = regexp.MustCompile(`(?i)(?:(?:\bwe(?:\s+and\s+our\s+(?:\w+\s+)?partners)?|\b(?:this|our)\s+(?:web\s?)?(?:site|platform|app|store|shop|portal|service)|^\W*[\p{L}\p{N}][\p{L}\p{N}.&'’-]*)` +
	`\s+(?:also\s+)?(?:uses?|sets?|places?|stores?)|` +
	`\bwir\s+(?:verwenden|nutzen|setzen)|\b(?:diese|unsere)\s+(?:web)?(?:seite|site|website)\s+(?:verwendet|nutzt|benutzt)|` +
	`\bnous\s+utilisons|\bce\s+site(?:\s+web)?\s+utilise|\b(?:este|nuestro)\s+sitio(?:\s+web)?\s+(?:utiliza|usa)|\b(?:utilizamos|usamos)|` +
	`\bquesto\s+sito(?:\s+web)?\s+(?:utilizza|usa)|\butilizziamo|\b(?:este|o\s+nosso)\s+site\s+(?:utiliza|usa)|` +
	`\b(?:deze|onze)\s+(?:web)?site\s+gebruikt|\bwij\s+gebruiken|\bwe\s+gebruiken)` +
	`\s+(?:(?:[\p{L}\p{N}]+\s+){0,3})cookies?\b`)

// readerConsentRe finds the reader's side of the notice: agreeing by
// going on, a setting to change, the policy it points to; in the same
// languages.
var readerConsentRe = regexp.MustCompile(`(?i)\bby\s+(?:clicking|continuing|using|browsing|staying|closing)\b|\byou\s+(?:agree|consent|accept)\b|` +
	`\b(?:are\s+)?consenting\b|\bcookies?\s+(?:policy|notice|statement|settings|preferences)\b|` +
	`\bmanage\s+(?:your\s+)?(?:preferences|consent|cookies|settings)\b|\bopt[\s-]+(?:in|out)\b|` +
	`\bdurch\s+die\s+(?:weitere\s+)?nutzung\b|\b(?:stimmen|erklären)\s+sie\s+sich\b|\beinverstanden\b|\bcookie-?(?:richtlinie|einstellungen|hinweis)|` +
	`\ben\s+(?:poursuivant|continuant)\b|\bvous\s+(?:acceptez|consentez)\b|\bpolitique\s+(?:de|relative\s+aux)\s+cookies\b|` +
	`\bal\s+(?:continuar|seguir)\s+navegando\b|\bpol[ií]tica\s+de\s+cookies\b|\b(?:usted\s+)?(?:acepta|aceptas|consiente)\b|` +
	`\bproseguendo\b|\bacconsenti\b|\baccetti\b|\binformativa\s+(?:sui\s+)?cookie\b|\bao\s+continuar\b|\bconcorda\b|` +
	`\bdoor\s+verder\s+te\s+gaan\b|\bga(?:at)?\s+(?:je|u)\s+akkoord\b|\bcookiebeleid\b`)

// agreeToCookiesRe finds a notice that says it in one turn: "By using
// Medium, you agree to our Privacy Policy, including cookie policy".
var agreeToCookiesRe = regexp.MustCompile(`(?i)\bby\s+(?:clicking|continuing|using|browsing)\b[^.]{0,120}\byou\s+(?:agree|consent)\s+to\s+(?:our|the|its)\b[^.]{0,120}\bcookies?\b`)

// cookieWithheldRe finds what an embed shows in place of content the
// reader's consent withholds: "This content isn't visible due to your
// cookie preferences".
var cookieWithheldRe = regexp.MustCompile(`(?i)\bdue\s+to\s+your\s+(?:cookie|privacy|consent)\s+(?:preferences|settings|choices)\b`)

// consentControlRe matches the whole line of a consent banner's control,
// in the same languages.
var consentControlRe = regexp.MustCompile(`(?i)^(?:(?:cookie|privacy|consent)\s+(?:settings|preferences|choices)|` +
	`manage\s+(?:my\s+|your\s+)?(?:consent|cookies|cookie\s+(?:settings|preferences)|privacy\s+preferences)|` +
	`(?:accept|allow|reject|decline|deny)\s+(?:all\s+cookies|all|cookies)|` +
	`do\s+not\s+sell\s+(?:or\s+share\s+)?my\s+(?:personal\s+)?(?:information|info|data)|your\s+privacy\s+choices|` +
	`alle\s+(?:cookies\s+)?(?:akzeptieren|ablehnen|accepteren|weigeren)|cookie-?(?:einstellungen|instellingen)|` +
	`tout\s+(?:accepter|refuser)|param[eè]tres\s+des\s+cookies|(?:aceptar|rechazar)\s+todas?(?:\s+las\s+cookies)?|` +
	`configura(?:r|ci[oó]n\s+de)\s+cookies|(?:accetta|rifiuta)\s+tutti|(?:aceitar|rejeitar)\s+todos?|alles\s+accepteren)` +
	`\W*(?:(?:accept|reject|allow|decline)(?:\s+all)?\W*)?$`)

// maxConsentNote is the most text, in bytes, of a consent notice: a few
// sentences, not a page's paragraph.
const maxConsentNote = 600

// consentNotice reports whether text is a site's notice of its cookies:
// the notice opens the text or one of its sentences, outside quotation
// marks, where a writer quoting one ("the banner read “We use cookies
// …”") leads up to it.
func consentNotice(text string) bool {
	if !strings.Contains(strings.ToLower(text), "cookie") {
		return false
	}
	return opensSentence(text, siteCookiesRe) && readerConsentRe.MatchString(text) || opensSentence(text, agreeToCookiesRe) ||
		cookieWithheldRe.MatchString(text)
}

// opensSentence reports whether re matches text where text or one of its
// sentences begins, outside quotation marks.
func opensSentence(text string, re *regexp.Regexp) bool {
	loc := re.FindStringIndex(text)
	if loc == nil {
		return false
	}
	before := strings.TrimSpace(text[:loc[0]])
	if before == "" {
		return true
	}
	quoted := strings.Count(before, "“") > strings.Count(before, "”") || strings.Count(before, `"`)%2 == 1
	return !quoted && strings.ContainsRune(".!?", rune(before[len(before)-1]))
}

// dropConsentNotices removes under art the paragraphs that are consent
// notices, the lines that are their controls, and the banners that hold
// both and nothing else.
func dropConsentNotices(art *html.Node) {
	dropLines(art, maxConsentNote, []atom.Atom{atom.Table, atom.Blockquote}, func(n *html.Node) bool {
		switch n.DataAtom {
		case atom.P, atom.Div, atom.Li, atom.Span, atom.A, atom.Button, atom.Aside, atom.Section, atom.Small:
			// Its size first: the walk below reads the whole box.
			return textUpTo(n, maxConsentNote) <= maxConsentNote && soleText(n) &&
				findFirst(n, func(k *html.Node) bool { return k.DataAtom == atom.Img }) == nil
		}
		return false
	}, func(n *html.Node, text string) bool {
		// A box of blocks is judged line by line: the banner goes, not a
		// box that holds a notice beside other things.
		if findFirst(n, func(k *html.Node) bool { return k != n && blockTag(k) }) != nil {
			return consentBanner(n)
		}
		return consentNotice(text) || consentControlRe.MatchString(text)
	})
}

// maxBannerLabelWords is the most words of a banner's button label
// ("Accept", "Got it", "Learn more") beside its notice.
const maxBannerLabelWords = 3

// consentBanner reports a box whose every line belongs to a consent
// banner: a notice, one at least, and the controls beside it, named as
// consent controls are or as short as a button's label. The notice's
// paragraph may hold one of the controls in a box of its own ("We use
// cookies … <div>Do not sell my personal information.</div>"). A box
// with a heading is a section, whose short lines are not buttons.
func consentBanner(n *html.Node) bool {
	if findFirst(n, func(k *html.Node) bool { return headingLevel(k) > 0 }) != nil {
		return false
	}
	notices := 0
	for _, line := range blockLines(n) {
		switch {
		case consentNotice(line):
			notices++
		case consentControlRe.MatchString(strings.TrimRight(line, ". ")) || countWords(line) <= maxBannerLabelWords:
		default:
			return false
		}
	}
	return notices > 0
}

// blockLines is the text of n line by line: the words of each block
// under it, each block's own apart from those of the blocks it holds.
func blockLines(n *html.Node) []string {
	var lines []string
	var b strings.Builder
	var read func(p *html.Node)
	flush := func() {
		if t := strings.Join(strings.Fields(b.String()), " "); t != "" {
			lines = append(lines, t)
		}
		b.Reset()
	}
	read = func(p *html.Node) {
		for k := p.FirstChild; k != nil; k = k.NextSibling {
			switch {
			case k.Type == html.TextNode:
				b.WriteString(k.Data)
			case k.Type == html.ElementNode && blockTag(k):
				flush()
				read(k)
				flush()
			case k.Type == html.ElementNode:
				read(k)
			}
		}
	}
	read(n)
	flush()
	return lines
}

// A site's cookie preference centre (the dialog behind "Manage
// preferences": a notice, then a heading and a paragraph for each kind of
// cookie the site sets, and "Accept all") is furniture its class or id
// names, but its paragraphs may hold more than the share of the page that
// furniture may (see maxBoilerplateShare) on a short page: a shop's
// category page brought in five paragraphs on cookies. A box named for
// cookies or consent that opens with, or holds, the site's own notice of
// its cookies is that centre, whatever its share.

// maxConsentCentre is the most text, in bytes, of a preference centre: a
// notice and a paragraph for each of a few kinds of cookies.
const maxConsentCentre = 8000

// consentCentre reports a box whose class or id words name cookies or
// consent, of at most maxConsentCentre bytes of text (length), one of
// whose lines is the site's notice of its cookies (see consentNotice) and
// that speaks of cookies throughout. A section of a guide named for its
// subject ("cookies", "cookie-sessions") speaks of cookies but gives no
// site's notice.
func consentCentre(n *html.Node, length int) bool {
	if length > maxConsentCentre || !namesConsent(n) {
		return false
	}
	lines, notice, cookies, words := blockLines(n), false, 0, 0
	for _, line := range lines {
		notice = notice || len(line) <= maxConsentNote && consentNotice(line)
		cookies += strings.Count(strings.ToLower(line), "cookie")
		words += countWords(line)
	}
	return notice && words <= maxWordsPerCookie*cookies
}

// maxWordsPerCookie is the most words a preference centre has for each
// time it says "cookie": its every paragraph is about them. A wrapper
// that holds a story beside the banner says it far less often.
const maxWordsPerCookie = 40

// namesConsent reports an element, not the page's root, body or main part,
// whose class or id words name cookies or consent ("cookie-consent",
// "modal_cookie-consent", "gdpr", "cookieBanner").
func namesConsent(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Html, atom.Body, atom.Main, atom.Article, atom.Head:
		return false
	}
	words := meta.ClassWords(attr(n, "class"))
	if id := meta.ClassWords(attr(n, "id")); len(id) <= maxIDWords {
		words = append(words, id...)
	}
	for _, w := range words {
		if w == "gdpr" || strings.Contains(w, "cookie") || strings.Contains(w, "consent") {
			return true
		}
	}
	return false
}
