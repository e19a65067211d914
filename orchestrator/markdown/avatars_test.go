package markdown

import "testing"

// TestAvatarsAreLeftOut knows a person's avatar by its address or its
// description, and leaves the pictures of the content alone.
func TestAvatarsAreLeftOut(t *testing.T) {
	cases := []struct {
		src, alt string
		avatar   bool
	}{
		{"https://www.gravatar.com/avatar/03dccc46?s=64&d=identicon", "", true},
		{"https://secure.gravatar.com/avatar/b432?s=28", "Alex's Author Page", true},
		{"https://avatars.githubusercontent.com/u/124599?s=40&v=4", "@shadcn", true},
		{"https://forum.example.com/data/avatars/m/89/89774.jpg?1577474369", "360Youth", true},
		{"https://example.com/wp-content/uploads/2025/05/mike-marshall-avatar.jpg", "", true},
		{"https://static.example.org/styles/avatar_male_m.png", "Safiro", true},
		{"https://pbs.example.com/profile_images/123/jane_400x400.jpg", "", true},
		{"https://i.example.net/wftMn.jpg?s=64", "Aaron Hall's user avatar", true},
		{"https://cdn.example.com/a/b.png", "Avatar for Gazpacho.", true},
		{"https://cdn.example.com/a/b.png", "Avatar of Camille Cunningham", true},
		{"https://cdn.example.com/a/b.png", "User avatar", true},
		{"https://cdn.example.com/team/jane.png", "Jane Roe's profile picture", true},
		// The pictures of the content.
		{"https://example.com/img/poster.jpg", "Avatar: The Way of Water", false},
		{"https://example.com/img/chart.png", "Sales by quarter", false},
		{"https://example.com/uploads/avataria-resort.jpg", "The resort", false},
		{"https://example.com/img/profile-of-the-coast.jpg", "A profile of the coast", false},
	}
	for _, c := range cases {
		if got := avatarImage(c.src, c.alt); got != c.avatar {
			t.Errorf("avatarImage(%q, %q) = %v, want %v", c.src, c.alt, got, c.avatar)
		}
	}
	got := convertBody(t, `<div class="post"><a href="/members/jane.1/"><img src="https://forum.example.com/data/avatars/m/1/1.jpg" alt="jane"></a>`+
		`<a href="/members/jane.1/">jane</a><p>Try the second port.</p><img src="/img/ports.jpg" alt="The ports"></div>`)
	if want := "[jane](https://example.com/members/jane.1/)\n\nTry the second port.\n\n![The ports](https://example.com/img/ports.jpg)\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestAPictureOfInitialsIsLeftOut leaves out the letters a forum draws as
// a member's picture when it has no photo, and keeps an emoji or a
// drawing in characters that a page sets as an image, and letters that
// are no image.
func TestAPictureOfInitialsIsLeftOut(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`<div class="post"><a href="/members/jane.1/" class="avatar"><span role="img" aria-label="jane">J</span></a>` +
			`<h4><a href="/members/jane.1/">jane</a></h4><p>Try the second port.</p></div>`,
			"#### [jane](https://example.com/members/jane.1/)\n\nTry the second port.\n"},
		{`<div class="review"><div role="img" class="avatar" aria-hidden="false">JD</div><p>Fits well.</p></div>`, "Fits well.\n"},
		{`<p><span role="img" aria-label="laptop">💻</span> Bring a laptop.</p>`, "💻 Bring a laptop.\n"},
		{`<p><span role="img" aria-label="bear">ʕ•ᴥ•ʔ</span></p>`, "ʕ•ᴥ•ʔ\n"},
		{`<p>Plan <span class="badge">B</span> is cheaper.</p>`, "Plan B is cheaper.\n"},
	} {
		if got := convertBody(t, tc.body); got != tc.want {
			t.Errorf("%s:\ngot  %q\nwant %q", tc.body, got, tc.want)
		}
	}
}

// TestSiteIconsAreLeftOut knows the icon a link preview shows beside the
// name of the site it leads to, also behind an image proxy, and leaves
// pictures that only mention the word alone.
func TestSiteIconsAreLeftOut(t *testing.T) {
	for src, icon := range map[string]bool{
		"https://support.example.com/favicon.ico":                                                  true,
		"https://www.example.com/public/assets/favicons/apple-touch-icon-192x192.png?v=2023-11":    true,
		"https://blog.example.com/content/images/icon/favicon-5.ico":                               true,
		"https://forum.example.org/proxy.php?image=https%3A%2F%2Fen.example.org%2Ffavicon.ico&h=1": true,
		"https://example.com/img/favicon-design-guide-cover.jpg":                                   false,
		"https://example.com/img/chart.png":                                                        false,
		"https://example.com/posts/how-to-make-a-favicon/":                                         false,
		"https://example.com/img/favicons-compared.jpg":                                            false,
	} {
		if got := siteIconImage(src); got != icon {
			t.Errorf("siteIconImage(%q) = %v, want %v", src, got, icon)
		}
	}
	got := convertBody(t, `<p><a href="https://example.org/guide"><img src="https://example.org/favicon.ico" alt="example.org">A practical guide</a></p>`)
	if want := "[A practical guide](https://example.org/guide)\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
