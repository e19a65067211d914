package meta

import (
	"strings"
	"testing"
)

// TestHeadlineOverDeclaredTitle covers when the visible headline replaces
// the title a page declares, and when the declared title stands.
func TestHeadlineOverDeclaredTitle(t *testing.T) {
	const article = `<meta property="og:type" content="article">`
	tests := []struct {
		name, html, want string
	}{
		{"the headline of the page's one JSON-LD article confirms the visible headline over a share title",
			`<meta property="og:title" content="You Will Not Believe These Kettle Facts">
			<script type="application/ld+json">{"@type":"BlogPosting","headline":"Seven Facts About Kettles"}</script>
			<body><article><h1>Seven Facts About Kettles</h1><p>Text.</p></article></body>`,
			"Seven Facts About Kettles"},
		{"a JSON-LD list of several articles confirms nothing: a reworded share title stands",
			`<meta property="og:title" content="Seven Kettle Facts">
			<script type="application/ld+json">[{"@type":"Article","headline":"Seven Facts About Kettles"},
			{"@type":"Article","headline":"Teapots of the North"}]</script>
			<body><h1>Seven Facts About Kettles</h1></body>`,
			"Seven Kettle Facts"},
		{"a microdata headline confirms the visible headline",
			`<meta property="og:title" content="Garden Tips For Busy People">
			<body><div itemscope itemtype="https://schema.org/Article"><h1 itemprop="headline">How to Prune Roses in Winter</h1></div></body>`,
			"How to Prune Roses in Winter"},
		{"an article whose declared titles disagree takes the headline readers see",
			article + `<meta property="og:title" content="Nobody Tells You This About Moving House">
			<title>Moving Checklist 2026: Costs, Tips and Timeline | Boxes Weekly</title>
			<body><article><h1>A Practical Guide to Moving House Without Stress</h1></article></body>`,
			"A Practical Guide to Moving House Without Stress"},
		{"an article that declares one title everywhere keeps it",
			article + `<meta property="og:title" content="Council Approves the New Bridge">
			<title>Council Approves the New Bridge</title>
			<body><article><h1>After Ten Years of Debate the River Finally Gets Its Crossing</h1></article></body>`,
			"Council Approves the New Bridge"},
		{"a site name after one copy of the declared title does not make it a second title",
			article + `<meta property="og:site_name" content="Money Pages"><meta property="og:title" content="Best Index Funds of 2026 | Money Pages">
			<title>Best Index Funds of 2026 | Money Pages</title><meta name="twitter:title" content="Best Index Funds of 2026">
			<body><article><h1>Why Index Funds Beat Most Managers Over Time</h1></article></body>`,
			"Best Index Funds of 2026 | Money Pages"},
		{"a heading that ends in a colon introduces something and is no headline",
			article + `<meta property="og:title" content="How Ports Are Automating Their Cranes">
			<meta name="twitter:title" content="Ports and the automated crane">
			<body><article><h1>A note from the founder of this publication:</h1></article></body>`,
			"How Ports Are Automating Their Cranes"},
		{"a headline that only rewords the declared title leaves it standing",
			article + `<meta property="og:title" content="Group or Private Lessons - Which Is Best for You">
			<title>Group lessons or private lessons: which is best for you</title>
			<body><article><h1>Group Lessons vs. Private Lessons: Which Is Best for You?</h1></article></body>`,
			"Group or Private Lessons - Which Is Best for You"},
		{"an article whose headline names the subject of its one declared title in other words takes the headline",
			article + `<meta property="og:title" content="Moving Costs Explained: What You Will Pay in 2026">
			<title>Moving Costs Explained: What You Will Pay in 2026</title>
			<body><article><h1>Moving Costs, Item by Item</h1></article></body>`,
			"Moving Costs, Item by Item"},
		{"a heading that shares one word with the declared title is a section's, not the headline",
			article + `<meta property="og:title" content="Minecraft 1.8 - The Bountiful Update">
			<body><article><h1>Minecraft News</h1></article></body>`,
			"Minecraft 1.8 - The Bountiful Update"},
		{"a page that is not an article keeps its declared title over a headline on its subject",
			`<meta property="og:title" content="Barbecue Grills for Every Garden">
			<body><main><h1>Gas and Charcoal Barbecue Grills</h1></main></body>`,
			"Barbecue Grills for Every Garden"},
		{"a page that does not say it is an article keeps its declared title",
			`<meta property="og:title" content="Accounting Software for Small Teams">
			<title>Invoices, Payroll and Taxes in One Place | Ledgerly</title>
			<body><main><h1>Spend less time on your books every single month</h1></main></body>`,
			"Accounting Software for Small Teams"},
		{"a declared title that carries the headline with a site name stays as declared",
			`<meta property="og:title" content="Seven Facts About Kettles | Kitchen Notes">
			<script type="application/ld+json">{"@type":"Article","headline":"Seven Facts About Kettles"}</script>
			<body><h1>Seven Facts About Kettles</h1></body>`,
			"Seven Facts About Kettles | Kitchen Notes"},
		{"search keywords after a comma are cut by the headline",
			`<meta property="og:title" content="Best Folding Chairs of 2026, Tested &amp; Reviewed | Chair Lab">
			<body><h1>Best Folding Chairs of 2026</h1></body>`,
			"Best Folding Chairs of 2026"},
		{"a bracketed year and a keyword list after the headline are cut",
			`<title>Average Cost of a Bathroom Remodel [2025]: Prices + Labor</title>
			<body><h1>Average Cost of a Bathroom Remodel</h1></body>`,
			"Average Cost of a Bathroom Remodel"},
		{"the Archives a blog adds to a category name is cut by the headline",
			`<title>Soup Recipes Archives</title><body><h1>Soup Recipes</h1></body>`,
			"Soup Recipes"},
		{"a headline that is a longer sentence than a prefix of the title is not a keyword tail",
			`<meta property="og:title" content="Winter Boots for Hiking">
			<body><h1>Winter Boots</h1></body>`,
			"Winter Boots for Hiking"},
		{"a site-logo heading linking home is not the headline",
			article + `<meta property="og:title" content="Why Cities Plant Trees">
			<meta name="twitter:title" content="Cities and their trees, explained">
			<body><header><h1><a href="/">Urban Daily</a></h1></header>
			<article><h1>The Quiet Economics of Shade in Growing Cities</h1></article></body>`,
			"The Quiet Economics of Shade in Growing Cities"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := value(extractHTML(t, tt.html).Title); got != tt.want {
				t.Errorf("title = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestDeclaredTitleThatNamesNoPage covers declared titles passed over
// because they name no page, and marks a title carries that are no words.
func TestDeclaredTitleThatNamesNoPage(t *testing.T) {
	tests := []struct {
		name, html, want string
	}{
		{"an og:title of Home gives way to the document title with the site's name",
			`<meta property="og:site_name" content="Harbour Notes"><meta property="og:title" content="Home">
			<title>Home - Harbour Notes</title>`,
			"Home - Harbour Notes"},
		{"a document title whose first part a template left empty gives way to the heading",
			`<meta property="og:site_name" content="Volts Monthly"><title>| Volts Monthly</title>
			<body><h1>Soldering Kits</h1></body>`,
			"Soldering Kits"},
		{"a title that starts with a hyphenated number is a title",
			`<title>-40 Degrees and Rising</title>`, "-40 Degrees and Rising"},
		{"the marks of a Markdown heading are dropped",
			`<meta property="og:title" content="## Notes on Tidal Power">`, "Notes on Tidal Power"},
		{"a lone star at the end is decoration",
			`<meta property="og:title" content="Ten Quiet Beaches ⋆">`, "Ten Quiet Beaches"},
		{"empty brackets a template left are dropped",
			`<meta property="og:title" content="Cable Clips, 40 Pack () - Parts Bin">`, "Cable Clips, 40 Pack - Parts Bin"},
		{"emoji are words of a title, not decoration",
			`<meta property="og:title" content="🚀 Release 3 is out 🚀">`, "🚀 Release 3 is out 🚀"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := value(extractHTML(t, tt.html).Title); got != tt.want {
				t.Errorf("title = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestHeadingText covers the text read from a heading: what a reader sees,
// not the drawings, anchors and buttons inside it.
func TestHeadingText(t *testing.T) {
	tests := []struct {
		name, html, want string
	}{
		{"a permalink mark is no part of the heading", `<h1>Installing<a class="headerlink" href="#installing">¶</a></h1>`, "Installing"},
		{"a trailing pilcrow written as text is dropped", `<h1>Data Structures¶</h1>`, "Data Structures"},
		{"the title of an inline drawing is not read", `<h1><svg><title>Artboard 1</title></svg>Forum Rules</h1>`, "Forum Rules"},
		{"a line break separates words", `<h1>Weekend<br>Project</h1>`, "Weekend Project"},
		{"a copy button is not read", `<h1>Module runtime<button>Copy item path</button></h1>`, "Module runtime"},
		{"a link with words is read", `<h1><a href="/guide">The Guide</a> to Knots</h1>`, "The Guide to Knots"},
		{"the date printed in a heading is no part of its words",
			`<h1><a href="/p" rel="bookmark"><time datetime="2025-12-18">Dec <span>18</span> 2025</time> Preparing a Transition</a></h1>`,
			"Preparing a Transition"},
		{"a heading that is only a date is read", `<h1><time datetime="2025-12-18">18 December 2025</time></h1>`, "18 December 2025"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := parseHTML(t, "<body>"+tt.html+"</body>")
			if got := headingText(doc.Find("h1").First()); got != tt.want {
				t.Errorf("heading text = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestHostileHeadlines checks that headings no page should have never fail
// the title.
func TestHostileHeadlines(t *testing.T) {
	deep := strings.Repeat("<div>", 5000) + "Deep" + strings.Repeat("</div>", 5000)
	for _, html := range []string{
		`<meta property="og:title" content="T"><h1></h1>`,
		`<meta property="og:title" content="T"><h1>` + deep + `</h1>`,
		`<meta property="og:title" content="x"><h1>` + strings.Repeat("word ", 20000) + `</h1>`,
		`<title>| </title><h1>¶</h1>`,
		`<meta property="og:title" content="ÿ, ÿ"><h1>ÿ</h1>`,
	} {
		_ = extractHTML(t, html)
	}
}

// TestHeadlineThatExtendsTheDeclaredTitle covers a declared title that is
// the headline shortened.
func TestHeadlineThatExtendsTheDeclaredTitle(t *testing.T) {
	tests := []struct {
		name, html, want string
	}{
		{"a declared title that is the start of the headline gives way to it",
			`<meta property="og:title" content="Caching"><title>Caching | Widget Docs</title>
			<body><main><h1>Caching in the Widget Server</h1></main></body>`,
			"Caching in the Widget Server"},
		{"the site name after a shortened title does not hide that it is shortened",
			`<meta property="og:site_name" content="Tutor Finder"><meta property="og:title" content="Best Piano Tutors in 2025 | Tutor Finder">
			<body><h1>Best Piano Tutors in 2025, Reviewed by a Parent</h1></body>`,
			"Best Piano Tutors in 2025, Reviewed by a Parent"},
		{"a title cut in the middle of a word gives way to the whole headline",
			`<meta property="og:site_name" content="Desk Shop"><meta property="og:title" content="How to set up your monitor, laptop, and k | Desk Shop">
			<body><h1>How to set up your monitor, laptop, and keyboard</h1></body>`,
			"How to set up your monitor, laptop, and keyboard"},
		{"a title cut with an ellipsis gives way to the headline it was cut from",
			`<meta property="og:title" content="Garden Planning: A Printable…">
			<body><h1>Garden Planning: A Printable Calendar</h1></body>`,
			"Garden Planning: A Printable Calendar"},
		{"a title cut with an ellipsis from something else than the headline stays",
			`<meta property="og:title" content="Garden Planning Checklists Garden…">
			<body><h1>A Printable Calendar for Gardeners</h1></body>`,
			"Garden Planning Checklists Garden…"},
		{"a source and a comment count after the headline do not make it longer",
			`<meta property="og:title" content="Rivers Are Warming Faster Than Expected">
			<body><h1>Rivers Are Warming Faster Than Expected <span>(example.org)</span> <a href="#c">87</a></h1></body>`,
			"Rivers Are Warming Faster Than Expected"},
		{"a headline equal to the declared title changes nothing",
			`<meta property="og:title" content="Caching"><body><h1>Caching</h1></body>`, "Caching"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := value(extractHTML(t, tt.html).Title); got != tt.want {
				t.Errorf("title = %q, want %q", got, tt.want)
			}
		})
	}
}
