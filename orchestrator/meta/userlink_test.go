package meta

import "testing"

// TestForumPosterLinks covers threads that sign each post with a link to
// the poster's member page: the first post's user name is the author, as
// the site prints it, whether or not it reads like a person's name.
func TestForumPosterLinks(t *testing.T) {
	post := func(href, user, rank string) string {
		return `<div class="post"><div class="author-info"><a href="` + href + `">` + user + `</a> <span class="rank">` + rank + `</span></div><div class="content">Text.</div></div>`
	}
	tests := []struct {
		name, html, want string
	}{
		{"a lower-case poster before a capitalised replier",
			`<h1>Release notes thread</h1><div class="post"><p class="author">by <strong><a href="./memberlist.php?mode=viewprofile&amp;u=7" class="username">vexmoor</a></strong> » 11 Sep 2024</p></div>` +
				`<div class="post"><p class="author">by <strong><a href="./memberlist.php?mode=viewprofile&amp;u=9" class="username">Quillon</a></strong> » 12 Sep 2024</p></div>`,
			"vexmoor"},
		{"the poster's link beats the rank printed beside it",
			`<h1>Which board software?</h1>` + post("/user-1267.html", "SilverFinch", "Big Board Owner") + post("/user-88.html", "Corvid", "Senior Member"),
			"SilverFinch"},
		{"a one-word user name on a profile link",
			`<h1>Beginning woodworking</h1><div class="copy"><a class="author" href="/profile/Tamsk" rel="nofollow">Tamsk</a> | Posted in <a href="/forum/general">General</a></div>`,
			"Tamsk"},
		{"a member link to another site is no poster",
			`<h1>Which board software?</h1>` + post("https://elsewhere.example/members/bob.5/", "bobcat", "Guest"), ""},
		{"a reviewer's member link is no poster",
			`<h1>Which board software?</h1><div class="author-info">Reviewed by <a href="/members/kit.4/">kitfox</a></div>`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := value(extractHTML(t, tt.html).Author); got != tt.want {
				t.Errorf("author = %q, want %q", got, tt.want)
			}
		})
	}
}
