package meta

import (
	"strconv"
	"strings"
)

// Labelled bylines in the head. Link previews in chat apps show two
// label/value pairs under a card (twitter:label1 "Written by",
// twitter:data1 "Jane Doe"), and blogging software fills them with the
// post's author, so a page whose other markup names nobody often names
// its writer there.

// writtenByLabels are the labels of such a pair that announce an author,
// folded to lower case, in the main European languages.
var writtenByLabels = map[string]bool{
	"written by": true, "author": true, "authors": true, "by": true, "posted by": true, "published by": true,
	"words by": true, "story by": true, "article by": true, "interview by": true, "interviewed by": true, "writer": true,
	"geschrieben von": true, "verfasst von": true, "autor": true, "autorin": true, "von": true,
	"écrit par": true, "ecrit par": true, "rédigé par": true, "auteur": true, "par": true,
	"escrito por": true, "scritto da": true, "autore": true, "geschreven door": true, "door": true,
	"skrevet af": true, "skrevet av": true, "skriven av": true, "napisane przez": true,
}

// maxCardLabels bounds the numbered pairs read: cards show two, a few
// pages declare more.
const maxCardLabels = 8

// cardLabelAuthors returns the values of the head's twitter:dataN whose
// twitter:labelN announces an author.
func (p *page) cardLabelAuthors() []authorValue {
	var out []authorValue
	for i := 1; i <= maxCardLabels; i++ {
		n := strconv.Itoa(i)
		label := strings.ToLower(strings.Trim(cleanText(p.meta("twitter:label"+n)), " :"))
		if !writtenByLabels[label] {
			continue
		}
		if v := p.meta("twitter:data" + n); v != "" {
			out = append(out, authorValue{text: v})
		}
	}
	return out
}
