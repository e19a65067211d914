package meta

import "testing"

// TestPersonalSiteOwner covers pages that name no author on a site named
// after a person on that person's domain, and sites whose name only looks
// like one.
func TestPersonalSiteOwner(t *testing.T) {
	tests := []struct {
		name, url, html, want string
	}{
		{"the site's name is the person the domain is named after",
			"https://www.noraquill.com/blog/zero-waste", `<meta property="og:site_name" content="Nora Quill"><h1>Zero waste at home</h1><p>Text.</p>`,
			"Nora Quill"},
		{"the person's name opens the site's name",
			"https://hollisvane.com/best-mats/", `<title>Best mats – Hollis Vane Yoga</title><h1>Best mats</h1>`,
			"Hollis Vane"},
		{"the home link names the owner",
			"https://dariusokafor.dev/notes/postgres", `<header><a href="/">Darius Okafor</a></header><h1>Self-host Postgres</h1>`,
			"Darius Okafor"},
		{"a first name the blog signs with becomes the owner's full name",
			"https://hollisvane.com/best-mats/", `<title>Best mats – Hollis Vane Yoga</title><meta name="author" content="Hollis"><h1>Best mats</h1>`,
			"Hollis Vane"},
		{"a first name of someone else stays as it is",
			"https://hollisvane.com/best-mats/", `<title>Best mats – Hollis Vane Yoga</title><meta name="author" content="Marta"><h1>Best mats</h1>`,
			"Marta"},
		{"a site name that is not the domain names nobody",
			"https://news.example.com/a", `<meta property="og:site_name" content="Nora Quill"><h1>Zero waste at home</h1>`, ""},
		{"a company named like its domain with a word no name holds names nobody",
			"https://thegreenhome.com/a", `<meta property="og:site_name" content="The Green Home"><h1>Zero waste at home</h1>`, ""},
		{"the footer's copyright holder names the owner",
			"https://tobyquill.com/posts/vibes", `<h1>Notes on vibes</h1><p>Text.</p><footer>&copy; 2025 Toby Quill. All rights reserved.</footer>`,
			"Toby Quill"},
		{"a company holding the copyright names nobody",
			"https://quillworks.com/posts/vibes", `<h1>Notes on vibes</h1><footer>&copy; 2025 Quillworks Media Ltd. All rights reserved.</footer>`, ""},
		{"a domain of the owner's first name",
			"https://pierce.dev/notes/postgres", `<title>Go ahead, self-host Postgres | Pierce Wren</title><h1>Go ahead, self-host Postgres</h1>`,
			"Pierce Wren"},
		{"a blog host that gives each blog a domain of its own",
			"https://owain.bearblog.dev/tinybox/", `<meta property="og:site_name" content="Owain Marsh"><h1>A tinybox at home</h1>`,
			"Owain Marsh"},
		{"a domain of the owner's surname",
			"https://lindqvist.co/blog/mobx", `<header><a href="/">Ebba Lindqvist</a></header><h1>Why MobX</h1>`,
			"Ebba Lindqvist"},
		{"a headline that starts with the domain's name names nobody",
			"https://www.orchard.com/newsroom/vision", `<title>Orchard Unveils Vision | Newsroom</title><h1>Orchard Unveils Vision</h1>`, ""},
		{"a first-name domain whose site is named otherwise names nobody",
			"https://pierce.dev/notes/postgres", `<title>Self-host Postgres | Wren Notes Weekly</title><h1>Self-host Postgres</h1>`, ""},
		{"a site that signs with its own domain is the author when no person is named",
			"https://www.ledgerworks.com/gaap", `<meta name="author" content="LedgerWorks.com"><h1>GAAP basics</h1>`, "LedgerWorks.com"},
		{"another site's domain names nobody",
			"https://www.ledgerworks.com/gaap", `<meta name="author" content="OtherBooks.com"><h1>GAAP basics</h1>`, ""},
		{"a bare lower-case host names nobody",
			"https://www.ledgerworks.com/gaap", `<meta name="author" content="ledgerworks.com"><h1>GAAP basics</h1>`, ""},
		{"a person the byline names wins over the site's domain",
			"https://www.ledgerworks.com/gaap", `<meta name="author" content="LedgerWorks.com"><h1>GAAP basics</h1><div class="byline">By Amara Diallo</div>`,
			"Amara Diallo"},
		{"a named author wins over the owner",
			"https://www.noraquill.com/blog/zero-waste", `<meta property="og:site_name" content="Nora Quill"><meta name="author" content="Guest Writer Ana Lind"><h1>Zero waste</h1>`,
			"Guest Writer Ana Lind"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := extract(parseHTML(t, tt.html), mustURL(t, tt.url), testNow)
			if got := value(r.Author); got != tt.want {
				t.Errorf("author = %q, want %q", got, tt.want)
			}
		})
	}
}
