package meta

import (
	"strings"

	"golang.org/x/text/language"
)

// lang returns the page's language as a lower-case ISO 639-1 code. Sources,
// most specific first:
//   - <html lang> (or xml:lang): what the browser itself goes by;
//   - og:locale;
//   - Content-Language (meta http-equiv) and <meta name=language>;
//   - the main JSON-LD item's inLanguage, microdata inLanguage;
//   - Dublin Core language.
func (p *page) lang() string {
	html := p.doc.Find("html").First()
	sources := []func() string{
		func() string { return html.AttrOr("lang", "") },
		func() string { return html.AttrOr("xml:lang", "") },
		func() string { return p.meta("og:locale") },
		func() string { return p.meta("content-language", "language") },
		func() string { return p.ldProp(kindPage, "inLanguage") },
		func() string { return p.microdata("inLanguage") },
		func() string { return p.meta("dc.language", "dcterms.language") },
	}
	for _, source := range sources {
		if l := normLang(source()); l != "" {
			return l
		}
	}
	return ""
}

// normLang reduces a language tag (en-US, en_GB, "eng", "fr-FR, en") to its
// ISO 639-1 code; "" for tags that name no language (und, x-default) or a
// language without a two-letter code.
func normLang(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, ",; "); i >= 0 {
		s = s[:i]
	}
	s = strings.ReplaceAll(s, "_", "-")
	if s == "" || len(s) > 35 {
		return ""
	}
	tag, err := language.Parse(s)
	if err != nil {
		// Keep what parses of "en-XX-garbage".
		base, _, _ := strings.Cut(s, "-")
		if tag, err = language.Parse(base); err != nil {
			return ""
		}
	}
	base, conf := tag.Base()
	if conf != language.Exact {
		return "" // "und", "und-US": the base language is only guessed
	}
	code := base.String()
	if len(code) != 2 {
		return ""
	}
	return code
}
