package meta

import (
	"net/url"
	"path"
	"strings"
)

// The normalisers of the metadata fields, for values read by other rules
// (a caller's `data.*` rules with a metadata `type`): the same cleaning
// as the field of that name, "" when what is left is not such a value.

// NormalizeTitle cleans a title as the title field is cleaned.
func NormalizeTitle(s string) string { return normTitle(s) }

// NormalizeDescription cleans and bounds a description as the
// description field is.
func NormalizeDescription(s string) string { return normDescription(s) }

// maxByline bounds the text NormalizeAuthor reads. Its cleaning runs a
// dozen patterns over the text, about 1.5 s a megabyte, and a rule may
// hand it megabytes of a page; a longer text is no byline.
const maxByline = 2 << 10

// NormalizeAuthor turns a byline into a name as the author field does.
// visible says the text was shown on the page, which may carry clauses
// after the name (" in Science"); the page's host is never an author.
func NormalizeAuthor(s string, pageURL *url.URL, visible bool) string {
	if len(s) > maxByline {
		return ""
	}
	host := ""
	if pageURL != nil {
		host = pageURL.Hostname()
	}
	return cleanAuthor(s, host, visible)
}

// NormalizePublisher cleans a publisher's name as the publisher field does.
func NormalizePublisher(s string) string { return cleanPublisher(s) }

// NormalizeLang reduces a language tag to its ISO 639-1 code as the lang
// field does.
func NormalizeLang(s string) string { return normLang(s) }

// MediaTypeOfURL is the short type of an audio or video file named by its
// URL's extension ("mp4", "webm", "mp3"), or "" when it names none.
func MediaTypeOfURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	switch ext := strings.TrimPrefix(strings.ToLower(path.Ext(u.Path)), "."); ext {
	case "mp4", "m4v":
		return "mp4"
	case "webm", "mov", "ogv", "mp3", "ogg", "oga", "wav", "m4a", "aac", "flac", "opus":
		return ext
	}
	return ""
}
