package markdown

import (
	"fmt"
	"strings"
	"testing"
)

// cardThread is a thread of posts, each beside its member's card drawn by
// card(i); declared says the page declares itself a forum posting.
func cardThread(posts int, declared bool, card func(i int) string) string {
	var sb strings.Builder
	sb.WriteString(`<!doctype html><html><head><title>Squeaky bearings - Bike Forum</title>`)
	if declared {
		sb.WriteString(`<script type="application/ld+json">{"@type":"DiscussionForumPosting","headline":"Squeaky bearings"}</script>`)
	}
	sb.WriteString(`</head><body>` + pageHeader + `<main><h1>Squeaky bearings</h1>`)
	for i := range posts {
		fmt.Fprintf(&sb, `<article class="message"><div class="message-user">%s</div><div class="message-main">`+
			`<time>March %d, 2024</time><p>Reply %d: take the wheel off, clean the cones and the cups with a rag, repack them `+
			`with fresh grease and set the play so the axle turns freely without knocking.</p></div></article>`, card(i), i+1, i)
	}
	sb.WriteString(`</main>` + pageFooter + `</body></html>`)
	return sb.String()
}

func TestMembersCardsLeaveThreads(t *testing.T) {
	names := []string{"wheelie", "spokes", "chainring", "derailleur"}
	ranks := []string{"Well-known member", "New member", "Senior Member", "Moderator"}
	for _, tc := range []struct {
		name           string
		page           string
		want, unwanted []string
	}{
		{"ranks and a definition list of fields go; names, post dates and texts stay",
			cardThread(4, true, func(i int) string {
				return fmt.Sprintf(`<h4><a href="/members/%s.%d/">%s</a></h4><h5 class="userTitle">%s</h5>`+
					`<dl class="pairs"><dt>Joined</dt><dd>Oct %d, 2017</dd></dl><dl class="pairs"><dt>Location</dt><dd>Leeds</dd></dl>`,
					names[i], i, names[i], ranks[i], i+20)
			}),
			[]string{"wheelie", "derailleur", "March 1, 2024", "March 4, 2024", "Reply 0: take the wheel off", "Reply 3: take"},
			[]string{"Well-known member", "New member", "Senior Member", "Moderator", "Oct 20, 2017", "Joined", "Leeds", "Location"}},
		{"a field whose label is an icon's tooltip goes with its value",
			cardThread(3, true, func(i int) string {
				return fmt.Sprintf(`<a href="/members/%s/">%s</a><dl class="pairs"><dt><span title="Joined"><i class="icon-calendar"></i></span></dt>`+
					`<dd>Oct %d, 2017</dd></dl><dl class="pairs"><dt><span data-original-title="Location"><i class="icon-pin"></i></span></dt><dd>Portland, OR</dd></dl>`,
					names[i], names[i], i+20)
			}),
			[]string{"wheelie", "chainring", "Reply 2: take"},
			[]string{"Oct 21, 2017", "Portland, OR"}},
		{"fields on lines of their own, label and value, go",
			cardThread(3, true, func(i int) string {
				return fmt.Sprintf(`<a href="/memberlist.php?mode=viewprofile&u=%d">%s</a><ul><li><strong>Joined:</strong> %d. Jul 2012, 16:09</li>`+
					`<li>Location: Leeds</li><li>Registered: 2024-01-2%d</li></ul>`, i, names[i], i+4, i)
			}),
			[]string{"wheelie", "chainring", "Reply 1: take"},
			[]string{"Joined:", "Jul 2012", "Leeds", "Registered:"}},
		{"a thread that declares nothing shows itself by its members' cards",
			cardThread(3, false, func(i int) string {
				return fmt.Sprintf(`<a href="/u/%s">%s</a><dl><dt>Join Date</dt><dd>Nov 2024</dd><dt>Location</dt><dd>Leeds</dd></dl>`,
					names[i], names[i])
			}),
			[]string{"wheelie", "chainring", "Reply 1: take"},
			[]string{"Join Date", "Nov 2024", "Leeds"}},
		{"a title the member chose or earned goes, known by its markup",
			cardThread(4, true, func(i int) string {
				titles := []string{
					`<h5 class="userTitle message-userTitle" itemprop="jobTitle">Hall of Famer</h5>`,
					`<span class="usertitle">Happy to be here</span>`,
					`<div class="h-member-title">Dulce et decorum</div>`,
					`<span itemprop="jobTitle">Headphoneus Supremus</span>`,
				}
				return fmt.Sprintf(`<h4><a href="/members/%s.%d/">%s</a></h4>%s`, names[i], i, names[i], titles[i])
			}),
			[]string{"wheelie", "derailleur", "Reply 0: take", "Reply 3: take"},
			[]string{"Hall of Famer", "Happy to be here", "Dulce et decorum", "Headphoneus Supremus"}},
		{"the badge of the member who started the thread goes",
			cardThread(4, true, func(i int) string {
				badge := []string{`<div class="badge">OP</div>`, `<div>Original Poster</div>`, `<p class="starter">Thread starter</p>`, ""}[i]
				return fmt.Sprintf(`<h4><a href="/members/%s.%d/">%s</a></h4>%s`, names[i], i, names[i], badge)
			}),
			[]string{"wheelie", "chainring", "Reply 0: take", "Reply 2: take"},
			[]string{"OP", "Original Poster", "Thread starter"}},
		{"what a member writes in a post stays, however it begins",
			cardThread(3, true, func(i int) string {
				return fmt.Sprintf(`<a href="/u/%s">%s</a>`, names[i], names[i])
			}) + "",
			[]string{"Reply 0: take"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkHolds(t, article(t, tc.page), tc.want, tc.unwanted)
		})
	}
}

func TestMembersLinesInPostsAndOtherPagesStay(t *testing.T) {
	// Replies that begin as a field's label does.
	replies := cardThread(3, true, func(i int) string { return `<a href="/u/x">x</a>` })
	replies = strings.Replace(replies, `<p>Reply 0:`, `<p>Joined the club in 2019.</p><p>Location is everything.</p><p>Member of the local club.</p>`+
		`<p>OP, did the cones look pitted?</p><p>op</p><p>Reply 0:`, 1)
	checkHolds(t, article(t, replies), []string{"Joined the club in 2019.", "Location is everything.", "Member of the local club.",
		"OP, did the cones look pitted?", "\nop\n"}, nil)

	// A listing of jobs prints locations, and no member's card.
	var sb strings.Builder
	sb.WriteString(`<!doctype html><html><head><title>Jobs - Example</title></head><body>` + pageHeader + `<main><h1>Open positions</h1>`)
	for i, city := range []string{"Leeds", "Remote", "Berlin", "Lisbon"} {
		fmt.Fprintf(&sb, `<div class="job"><h2><a href="/jobs/%d">Mechanic %d</a></h2><p>Location: %s</p>`+
			`<p>Service and repair bicycles of every kind in our workshop, from wheels to hydraulic brakes, with a team of six.</p></div>`, i, i, city)
	}
	sb.WriteString(`</main>` + pageFooter + `</body></html>`)
	checkHolds(t, article(t, sb.String()), []string{"Location: Leeds", "Location: Remote"}, nil)

	// A team's page names each person's job in the same markup as a
	// member's title, and is no thread.
	sb.Reset()
	sb.WriteString(`<!doctype html><html><head><title>Our team - Example</title></head><body>` + pageHeader + `<main><h1>Our team</h1>`)
	for i, job := range []string{"Head mechanic", "Wheel builder", "Shop manager"} {
		fmt.Fprintf(&sb, `<div class="person" itemscope itemtype="https://schema.org/Person"><h2 itemprop="name">Person %d</h2>`+
			`<p itemprop="jobTitle">%s</p><p>Has built and serviced bicycles of every kind in our workshop for over ten years, from wheels to brakes.</p></div>`, i, job)
	}
	sb.WriteString(`</main>` + pageFooter + `</body></html>`)
	checkHolds(t, article(t, sb.String()), []string{"Head mechanic", "Wheel builder", "Shop manager"}, nil)

}

func TestMemberFieldLine(t *testing.T) {
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"Joined Oct 25, 2017", true},
		{"Joined:", true},
		{"Join Date: Nov 2024", true},
		{"Member since 2019", true},
		{"Registered: 2024-01-27", true},
		{"Location: Leeds", true},
		{"Mitglied seit 12.03.2015", true},
		{"Location", false},
		{"Location is everything", false},
		{"Joined the club in 2019", false},
		{"From what I saw, no", false},
	} {
		if got := memberFieldLine(tc.text); got != tc.want {
			t.Errorf("memberFieldLine(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

// TestMembersCardsInALayoutOfTables drops the cards of a thread that older
// forum software lays out in tables, the card in one cell and the post in
// the next, known by their ranks and fields even with two posts and no
// declaration; a table of figures about members is data and stays.
func TestMembersCardsInALayoutOfTables(t *testing.T) {
	var sb strings.Builder
	for i, rank := range []string{"Junior Member", "Senior Member"} {
		fmt.Fprintf(&sb, `<table class="tborder" id="post%d"><tr><td class="thead">March %d, 2024</td><td class="thead">#%d</td></tr>`+
			`<tr><td class="alt2"><div><a class="bigusername" href="member.php?u=%d">rider%d</a></div><div class="smallfont">%s</div>`+
			`<div class="smallfont"><div>Join Date: Mar 201%d</div><div>Posts: %d</div></div></td>`+
			`<td class="alt1"><div id="post_message_%d">Reply %d: take the wheel off, clean the cones and the cups with a rag.</div></td></tr></table>`,
			i, i+1, i+1, i, i, rank, i, i+1, i, i)
	}
	root := parseBody(t, sb.String())
	dropMemberCards(root, false)
	checkHolds(t, flatText(root), []string{"rider0", "rider1", "Reply 0: take", "Reply 1: take", "March 2, 2024"},
		[]string{"Junior Member", "Senior Member", "Join Date", "Mar 2010"})

	var table strings.Builder
	table.WriteString(`<table><tr><th>Rider</th><th>Rank</th><th>Joined</th></tr>`)
	for i, name := range []string{"Ann", "Bo", "Cy", "Di"} {
		fmt.Fprintf(&table, `<tr><td>%s</td><td>Senior Member</td><td>Joined: May 201%d</td></tr>`, name, i)
	}
	table.WriteString(`</table>`)
	root = parseBody(t, `<p>The club's ride leaders this year.</p>`+table.String())
	dropMemberCards(root, false)
	checkHolds(t, flatText(root), []string{"Senior Member", "Joined: May 2012"}, nil)
}
