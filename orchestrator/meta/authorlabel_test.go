package meta

import "testing"

// TestLabelledAndCreditedBylines covers names a page labels as its author
// in the head's link-preview pairs, names read off microdata text with the
// role printed beside them, and the credits of whoever revised a piece,
// which never name its author.
func TestLabelledAndCreditedBylines(t *testing.T) {
	tests := []authorCase{
		{"a preview pair labelled as the writer names the author",
			`<meta name="twitter:label1" content="Written by"><meta name="twitter:data1" content="Oren Castillo">` +
				`<meta name="twitter:label2" content="Est. reading time"><meta name="twitter:data2" content="4 minutes"><h1>Moving tips</h1>`,
			"Oren Castillo"},
		{"a preview pair in another language and another place names the author",
			`<meta name="twitter:label1" content="Temps de lecture"><meta name="twitter:data1" content="3 minutes">` +
				`<meta name="twitter:label2" content="Écrit par"><meta name="twitter:data2" content="Inès Moreau"><h1>Un guide</h1>`,
			"Inès Moreau"},
		{"a preview pair labelled as the interviewer names the author over an organisation",
			`<meta name="author" content="Five Shelves"><meta property="og:site_name" content="Five Shelves">` +
				`<meta name="twitter:label1" content="Interview by"><meta name="twitter:data1" content="Mara Quint"><h1>The best sea novels</h1>`,
			"Mara Quint"},
		{"a preview pair labelled as the reviewer names nobody",
			`<meta name="twitter:label1" content="Reviewed by"><meta name="twitter:data1" content="Dr. Sam Ruiz"><h1>Roof costs</h1>`, ""},
		{"a preview pair about something else names nobody",
			`<meta name="twitter:label1" content="Price"><meta name="twitter:data1" content="Gold Plan"><h1>Plans</h1>`, ""},
		{"a label without its value names nobody",
			`<meta name="twitter:label1" content="Written by"><h1>Plans</h1>`, ""},
		{"the markup's author wins over a preview pair",
			`<meta name="author" content="Ada Ferris"><meta name="twitter:label1" content="Written by"><meta name="twitter:data1" content="Site Admin Team"><h1>A</h1>`,
			"Ada Ferris"},
		{"a role printed after a microdata name is cut",
			`<h1>Buying guide</h1><p>Intro.</p><div itemprop="author">By Tomas Reyes
				Senior Autos Reporter</div>`,
			"Tomas Reyes"},
		{"a role in a microdata name's content attribute is the name the markup gives",
			`<h1>Buying guide</h1><meta itemprop="author" content="Harbor Consulting Group">`,
			"Harbor Consulting Group"},
		{"whoever updated a piece is not among its microdata authors",
			`<h1>Checklist</h1><div class="bylines"><span itemprop="author">By Lena Ortiz</span> <span itemprop="author">Updated by Marco Vial</span></div>`,
			"Lena Ortiz"},
		{"a reviewer's linked credit in the byline is not the author",
			`<h1>Renovation costs</h1><div class="byline"><div class="author-text">Written by <a href="/author/ivy-chen">Ivy Chen</a></div>` +
				`<div class="author-text">Reviewed by <a href="/author/sam-ruiz">Sam Ruiz</a></div></div>`,
			"Ivy Chen"},
		{"a fact-checker's credit alone names no author",
			`<h1>Renovation costs</h1><div class="author-reviewed">Fact checked by <a href="/r/about-dana-holt/">Dana Holt</a></div>`,
			""},
		{"a role printed where the name should be is no author",
			`<meta property="og:site_name" content="Fixit"><h1>Roof costs</h1><div class="author-info"><div class="author-text">Written by <span>Fixit</span></div><div class="role">Staff Writer</div></div>`,
			"Fixit"},
		{"a bare role in the markup is no author",
			`<meta name="author" content="Expert Reviewer"><h1>Roof costs</h1>`, ""},
	}
	checkAuthors(t, tests)
}
