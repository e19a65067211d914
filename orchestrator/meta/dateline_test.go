package meta

import "testing"

// TestDatelineBylines covers the writer printed in the line beside the
// headline with nothing to mark it but a date or the section the piece is
// filed in, and the lines beside a headline that name nobody.
func TestDatelineBylines(t *testing.T) {
	tests := []authorCase{
		{"a name between the date and the section",
			`<h1>Pricing guide for teams</h1><p>Mar 4, 2025 <span>&bull;</span> <img src="/a.png"> Priya Natarajan in <a href="/blog/pricing">Pricing</a></p><p>Body text.</p>`,
			"Priya Natarajan"},
		{"a name, a role and a date split by bars",
			`<header><h1>How clinics use scheduling</h1><p>Tomasz Wilk | Senior Writer | July 2, 2025</p></header><p>Body.</p>`,
			"Tomasz Wilk"},
		{"a time element, then by and a name with an appointment",
			`<h1>Notes from the committee</h1><div class="meta"><time datetime="2017-03-01">03/01/2017</time> by Odile Marchetti, Representative to the Review Panel</div>`,
			"Odile Marchetti"},
		{"a name in its own element filed in a section, with no date",
			`<h1>Why cheap hosting costs more</h1><div><img src="/face.jpg" alt=""><p><span class="bold">Rafael Ong</span> in <a href="/blog/?cat=hosting">hosting</a></p></div>`,
			"Rafael Ong"},
		{"a dateline naming a section, not a person, names nobody",
			`<h1>Quarterly results</h1><p>Company News | June 3, 2025</p>`, ""},
		{"a reading time beside the date names nobody",
			`<h1>Quarterly results</h1><p>June 3, 2025 · Reading Time 5 min</p>`, ""},
		{"a role beside the date names nobody",
			`<h1>Quarterly results</h1><p>Associate Editor, Example Weekly · June 3, 2025</p>`, ""},
		{"a linked section beside the date names nobody",
			`<h1>Quarterly results</h1><p>June 3, 2025 in <a href="/c/product-updates">Product Updates</a></p>`, ""},
		{"a title-case subtitle without a date names nobody",
			`<h1>Quarterly results</h1><p>Better Sleep Ahead</p>`, ""},
		{"a line far below the headline names nobody",
			`<h1>Quarterly results</h1><div><p>` + longText(400) + `</p><p>Hana Sato | June 3, 2025</p></div>`, ""},
		{"an organisation the markup names beats a dateline",
			`<script type="application/ld+json">{"@type":"Article","headline":"Quarterly results","author":{"@type":"Organization","name":"Northwind Labs"}}</script>` +
				`<h1>Quarterly results</h1><p>June 3, 2025 | Growth Desk Lead</p><p>Jonas Berg | June 3, 2025</p>`,
			"Northwind Labs"},
		{"a byline the page marks wins over a dateline",
			`<h1>Quarterly results</h1><p>Jonas Berg | June 3, 2025</p><div class="byline">By <a href="/author/mia-lund">Mia Lund</a></div>`,
			"Mia Lund"},
	}
	checkAuthors(t, tests)
}

// longText is filler prose of about n characters.
func longText(n int) string {
	s := ""
	for len(s) < n {
		s += "Sales rose in every region as the new plans took hold. "
	}
	return s
}
