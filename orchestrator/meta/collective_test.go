package meta

import "testing"

// TestCollectiveAndSiteSignedBylines covers bylines that sign for a group
// ("Team Acme", "Acme Staff"), which give way to a person the same byline
// names, and bylines that end with the site's name.
func TestCollectiveAndSiteSignedBylines(t *testing.T) {
	tests := []authorCase{
		{"a person after the team in the same byline is the author",
			`<h1>Query tuning</h1><div class="authors"><div class="author">Team Birchdata</div><div class="author">Rosa Lindqvist</div></div>`,
			"Rosa Lindqvist"},
		{"a team alone signs the page",
			`<h1>Query tuning</h1><div class="author">Team Birchdata</div>`, "Team Birchdata"},
		{"the news desk gives way to the reporter",
			`<h1>Council vote</h1><div class="byline"><span class="author">News Desk</span> <span class="author">Omar Haddad</span></div>`,
			"Omar Haddad"},
		{"the site's name after the writers is cut",
			`<meta property="og:site_name" content="The Riverside Ledger"><meta name="author" content="Ana Ruiz and Ben Cole, The Riverside Ledger"><h1>Meditation</h1>`,
			"Ana Ruiz and Ben Cole"},
		{"a place after a comma that is not the site stays",
			`<meta property="og:site_name" content="The Riverside Ledger"><meta name="author" content="Ana Ruiz, Lisbon"><h1>Meditation</h1>`,
			"Ana Ruiz, Lisbon"},
	}
	checkAuthors(t, tests)
}
