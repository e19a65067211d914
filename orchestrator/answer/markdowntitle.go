package answer

import (
	"strings"

	"github.com/PuerkitoBio/goquery"

	"github.com/glimpse/glimpse/orchestrator/markdown"
)

// maxTitleHeadings bounds the <h1> elements looked at for the page's title.
const maxTitleHeadings = 16

// withTitle puts the page's title heading, its <h1>, at the start of the
// whole-page Markdown when the main content left it out: the extraction
// keeps the article, and a title outside the article's element (in a page
// header, above the columns) would otherwise appear nowhere in an answer
// without metadata. Microlink's Markdown starts with it too.
//
// The <h1> chosen is the one that says most of the document's <title> or
// og:title, else the first visible one. Nothing is
// added when the Markdown already starts with a first-level heading, or
// has the title as a heading anywhere.
func (run *dataRun) withTitle(md string, opts markdown.Options) string {
	if md == "" || strings.HasPrefix(md, "# ") {
		return md
	}
	titles := []string{
		collapse(run.doc.Find("head title").First().Text()),
		collapse(run.doc.Find(`meta[property="og:title"]`).First().AttrOr("content", "")),
	}
	var heading, first string
	best := 0
	run.doc.Find("h1").EachWithBreak(func(i int, h *goquery.Selection) bool {
		if i >= maxTitleHeadings {
			return false
		}
		h1, err := markdown.Convert(run.ctx, h, run.base, opts)
		h1 = strings.TrimSpace(h1)
		if err != nil || !strings.HasPrefix(h1, "# ") || strings.Contains(h1, "\n") {
			return true // hidden, empty, or more than a title
		}
		if first == "" {
			first = h1
		}
		// The heading that says most of the title wins: a site's name in
		// an <h1> logo is in "Story – Site" too, but says less of it.
		text := strings.ToLower(collapse(h.Text()))
		for _, t := range titles {
			t = strings.ToLower(t)
			score := 0
			switch {
			case t == "":
			case strings.Contains(text, t):
				score = len(t) + 1
			case strings.Contains(t, text):
				score = len(text)
			}
			if score > best {
				best, heading = score, h1
			}
		}
		return true
	})
	if heading == "" {
		heading = first
	}
	if heading == "" || hasHeading(md, strings.TrimPrefix(heading, "# ")) || !run.spend(0, len(heading)+2) {
		return md
	}
	return heading + "\n\n" + md
}

// hasHeading reports whether md has a heading, of any level, reading text.
func hasHeading(md, text string) bool {
	for line := range strings.SplitSeq(md, "\n") {
		if strings.HasPrefix(line, "#") && strings.TrimSpace(strings.TrimLeft(line, "#")) == text {
			return true
		}
	}
	return false
}

func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }
