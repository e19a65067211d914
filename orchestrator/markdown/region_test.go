package markdown

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// pageHeader and pageFooter surround the content on every page of a
// made-up site.
const pageHeader = `<header class="site-header"><a href="/">Example Site</a>
<nav><ul><li><a href="/a">Products menu</a></li><li><a href="/b">Pricing menu</a></li><li><a href="/c">Support menu</a></li></ul></nav></header>`

const pageFooter = `<footer><p>Copyright Example Site. Terms of use apply to every visitor.</p>
<ul><li><a href="/privacy">Privacy policy</a></li><li><a href="/careers">Careers page</a></li></ul></footer>`

// thread is a discussion: an opening post and replies of equal standing,
// marked up as sibling blocks, none declared.
func thread(posts int) string {
	var sb strings.Builder
	sb.WriteString(`<!doctype html><html><head><title>How do I descale a kettle? - Example Forum</title></head><body>` + pageHeader +
		`<main><h1>How do I descale a kettle?</h1><div class="topic">`)
	for i := range posts {
		fmt.Fprintf(&sb, `<article class="post"><div class="author"><a href="/u/%d">member%d</a> <time>2 days ago</time></div>`+
			`<div class="body"><p>Reply number %d says that white vinegar diluted with an equal part of water, left to stand `+
			`for an hour, lifts most of the limescale.</p><p>A second rinse with clean water removes the smell before the next brew.</p>`+
			`</div><div class="actions"><a href="/like">Like</a> <a href="/reply">Reply</a></div></article>`, i, i, i)
	}
	sb.WriteString(`</div></main>` + pageFooter + `</body></html>`)
	return sb.String()
}

// servicePage is a product's page: sections of equal standing, each a
// heading and a short text, under a menu of the product's parts that is
// not marked as navigation.
const servicePage = `<!doctype html><html><head><title>Ledger - Example</title></head><body>` + pageHeader + `<main>
<ul class="tabs"><li><a href="#invoices">Invoices</a></li><li><a href="#bank">Bank feeds</a></li><li><a href="#reports">Reports</a></li>
<li><a href="#plans">Plans</a></li><li><a href="/integrations">Integrations</a></li><li><a href="/api">Developer API</a></li></ul>
<section><h2>Invoices in a minute</h2><p>Create an invoice from a template, send it by e-mail and see when it was opened.</p></section>
<section><h2>Reconcile your bank</h2><p>Connect your bank account and match every payment to its invoice without typing a figure.</p></section>
<section><h2>Reports your accountant reads</h2><p>Profit and loss, balance sheet and tax returns are ready at the end of each quarter.</p></section>
<section><h2>Plans for every size</h2><p>Start free for one user and add colleagues as the business grows, each with their own access.</p></section>
<section><h2>Help when you need it</h2><p>Our support team answers by chat and telephone on working days, in under five minutes.</p></section>
</main>` + pageFooter + `</body></html>`

// questionAndAnswers is a question with a long text and three answers in a
// list of their own, none declared.
const questionAndAnswers = `<!doctype html><html><head><title>Why does my sourdough collapse?</title></head><body>` + pageHeader + `
<div id="content"><div class="question"><h1>Why does my sourdough collapse?</h1><div class="post-text">
<p>My loaves rise well in the basket overnight in the fridge, but they spread flat as soon as I turn them out onto the peel.</p>
<p>The starter doubles in four hours at room temperature, and I use seventy-five per cent water with a strong white flour.</p>
<p>I have tried shorter proofs and a hotter oven without any change. What else could make the dough lose its shape?</p>
</div></div>
<div class="answers"><h2>3 Answers</h2>
<div class="answer"><div class="post-text"><p>At seventy-five per cent water your flour may not hold the dough; drop to seventy and see whether it keeps its shape.</p></div></div>
<div class="answer"><div class="post-text"><p>Build more tension when you shape it: drag the ball towards you on an unfloured bench until the skin is tight.</p></div></div>
<div class="answer"><div class="post-text"><p>An over-proofed dough collapses too; press it with a finger and bake when the dent springs back slowly.</p></div></div>
</div></div>` + pageFooter + `</body></html>`

func article(t *testing.T, page string) string {
	t.Helper()
	md, err := Article(context.Background(), parse(t, page), pageURL(t), Options{})
	if err != nil {
		t.Fatalf("Article: %v", err)
	}
	return md
}

// checkHolds fails t for each of want the Markdown md lost and each of
// unwanted it holds.
func checkHolds(t *testing.T, md string, want, unwanted []string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(md, w) {
			t.Errorf("the answer lost %q:\n%s", w, md)
		}
	}
	for _, u := range unwanted {
		if strings.Contains(md, u) {
			t.Errorf("the answer holds %q:\n%s", u, md)
		}
	}
}

func TestArticleKeepsEveryBlockOfAPageMadeOfMany(t *testing.T) {
	for _, tc := range []struct {
		name     string
		page     string
		want     []string
		unwanted []string
	}{
		{
			name:     "a question keeps every answer",
			page:     questionAndAnswers,
			want:     []string{"spread flat", "drop to seventy", "Build more tension", "An over-proofed dough"},
			unwanted: []string{"Products menu", "Privacy policy", "Terms of use"},
		},
		{
			name:     "a story keeps its text and not the readers' comments under it",
			page:     storyWithComments(false),
			want:     []string{"old stone bridge", "ferry that ran"},
			unwanted: []string{"Comment 3", "industrial estate", "Products menu"},
		},
		{
			name:     "a page that declares itself a discussion keeps every reply",
			page:     storyWithComments(true),
			want:     []string{"Comment 0", "Comment 9"},
			unwanted: []string{"Products menu"},
		},
		{
			name:     "a thread keeps its opening post and every reply",
			page:     thread(8),
			want:     []string{"Reply number 0 says", "Reply number 3 says", "Reply number 7 says"},
			unwanted: []string{"Products menu", "Privacy policy", "Terms of use"},
		},
		{
			name:     "a service page keeps each of its sections",
			page:     servicePage,
			want:     []string{"## Invoices in a minute", "match every payment", "## Plans for every size", "in under five minutes"},
			unwanted: []string{"Pricing menu", "Careers page", "Bank feeds", "Developer API"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := article(t, tc.page)
			checkHolds(t, md, tc.want, tc.unwanted)
		})
	}
}

// storyWithComments is a short story under a long discussion of readers'
// comments, each a reply of equal standing, declaring nothing; with
// asThread it declares itself a discussion, whose replies are content.
func storyWithComments(asThread bool) string {
	var sb strings.Builder
	sb.WriteString(`<!doctype html><html><head><title>Bridge reopens</title>`)
	if asThread {
		sb.WriteString(`<script type="application/ld+json">{"@type":"DiscussionForumPosting","headline":"Bridge reopens"}</script>`)
	}
	sb.WriteString(`</head><body>` + pageHeader + `<article><h1>Bridge reopens</h1>
<p>The old stone bridge over the river reopened to cars on Friday, after eight months of repairs to two of its arches, which
had cracked in the frost of the winter before last. Engineers replaced the worn mortar, reset the loose stones of the parapet and
laid a new surface, and the weight limit that kept lorries away for a decade has been lifted for vehicles up to eighteen tonnes.</p>
<p>Buses return to their old route next week, the council said, and the ferry that ran while the bridge was shut stops on Sunday,
though its operator hopes to keep a summer service for visitors who come to walk the river path between the two villages.</p></article>
<div id="comments"><h2>Comments</h2><ul class="comment-tree">`)
	for i := range 10 {
		fmt.Fprintf(&sb, `<li class="comment"><div class="comment-body"><p>Comment %d: about time too, the detour through the `+
			`industrial estate added twenty minutes to every trip.</p></div></li>`, i)
	}
	sb.WriteString(`</ul></div>` + pageFooter + `</body></html>`)
	return sb.String()
}

// noscriptPage is a page that shows a loading screen to browsers and keeps
// its content in <noscript> for clients without script.
const noscriptPage = `<!doctype html><html><head><title>Which tent for a windy coast?</title></head><body>
<div id="app"><div class="spinner">Loading</div></div>
<noscript><div id="main-outlet" role="main"><h1>Which tent for a windy coast?</h1>
<div class="post"><p>I am camping on the north coast in May and the forecast says gusts of fifty kilometres an hour. Which tent shape copes best?</p></div>
<div class="post"><p>A tunnel tent pitched tail to the wind is the steadiest; guy out every point and use longer pegs in sand.</p></div>
<div class="post"><p>Geodesic domes shrug off wind from any side, at the price of weight. Mine survived a night on an exposed headland.</p></div>
</div></noscript></body></html>`

// pixelPage keeps only a tracking pixel and a plea in <noscript>.
const pixelPage = `<!doctype html><html><head><title>Bread</title></head><body>
<article><h1>Bread</h1><p>Knead the dough for ten minutes, until it springs back when pressed, then leave it to rise in a warm place for an hour.</p>
<p>Shape it, let it rise again, and bake it for forty minutes at two hundred and twenty degrees until the crust sounds hollow.</p></article>
<noscript><p>Please enable JavaScript to see the comments.</p><img src="https://example.com/pixel.gif" width="1" height="1"></noscript>
</body></html>`

func TestArticleReadsContentKeptForClientsWithoutScript(t *testing.T) {
	t.Run("a page that keeps its content in noscript gives that content", func(t *testing.T) {
		md := article(t, noscriptPage)
		for _, w := range []string{"gusts of fifty kilometres", "tunnel tent pitched tail", "Geodesic domes"} {
			if !strings.Contains(md, w) {
				t.Errorf("the answer lost %q:\n%s", w, md)
			}
		}
	})
	t.Run("a page that shows its content keeps what it shows", func(t *testing.T) {
		md := article(t, pixelPage)
		if !strings.Contains(md, "Knead the dough") || strings.Contains(md, "enable JavaScript") {
			t.Errorf("the answer is not the article alone:\n%s", md)
		}
	})
}

func TestDeclaredKindReadsJSONLDAndOpenGraph(t *testing.T) {
	for _, tc := range []struct {
		name, head, body string
		want             pageKind
	}{
		{"a WordPress page that calls itself an article is of no known kind",
			`<meta property="og:type" content="article">`, `<article class="post-12 page type-page status-publish">`, kindUnknown},
		{"a WordPress post that calls itself an article and gives its date is one",
			`<meta property="og:type" content="article"><meta property="article:published_time" content="2024-03-05T10:00:00Z">`,
			`<article class="post-12 post type-post status-publish">`, kindArticle},
		{"a page that declares nothing is of no known kind", ``, "", kindUnknown},
		{"a news article is an article", `<script type="application/ld+json">{"@type":"NewsArticle"}</script>`, "", kindArticle},
		{"og:type article with an article's date is an article",
			`<meta property="og:type" content="article"><meta property="article:modified_time" content="2024-03-05T10:00:00Z">`, "", kindArticle},
		{"og:type article alone is an article too",
			`<meta property="og:type" content="article">`, "", kindArticle},
		{"og:type article beside a JSON-LD article is one",
			`<meta property="og:type" content="article"><script type="application/ld+json">{"@type":"BlogPosting"}</script>`, "", kindArticle},
		{"a question page is many blocks", `<script type="application/ld+json">{"@type":"QAPage","mainEntity":{"@type":"Question"}}</script>`, "", kindMany},
		{"a product in a graph is many blocks, though the page also says article",
			`<meta property="og:type" content="article"><script type="application/ld+json">{"@graph":[{"@type":["Product"]}]}</script>`, "", kindMany},
		{"an article's questions declared as a FAQPage are a section of the article",
			`<script type="application/ld+json">{"@graph":[{"@type":"BlogPosting"},{"@type":"FAQPage","mainEntity":[{"@type":"Question","acceptedAnswer":{"@type":"Answer"}}]}]}</script>`, "", kindArticle},
		{"so are those of a page that says article by its og:type",
			`<meta property="og:type" content="article"><script type="application/ld+json">{"@type":"FAQPage","mainEntity":[{"@type":"Question"}]}</script>`, "", kindArticle},
		{"a FAQPage that is no article's is many blocks",
			`<meta property="og:type" content="website"><script type="application/ld+json">{"@type":"FAQPage","mainEntity":[{"@type":"Question"}]}</script>`, "", kindMany},
		{"an article that declares questions without a FAQPage is a thread's",
			`<script type="application/ld+json">[{"@type":"Article"},{"@type":"Question","answerCount":3}]</script>`, "", kindMany},
		{"an article with a FAQPage and a question page is many blocks",
			`<script type="application/ld+json">[{"@type":"Article"},{"@type":"FAQPage"},{"@type":"QAPage"}]</script>`, "", kindMany},
		{"a service's stars, declared as a Product with a rating alone, make no list",
			`<script type="application/ld+json">[{"@type":"WebPage"},{"@type":"Product","name":"Moving Services","aggregateRating":{"@type":"AggregateRating","ratingValue":"5"}}]</script>`, "", kindUnknown},
		{"an article's stars leave it an article",
			`<script type="application/ld+json">{"@type":"Article","about":{"@type":"Product","name":"Kettle","review":{"@type":"Review"}}}</script>`, "", kindArticle},
		{"a rated product on offer is many blocks",
			`<script type="application/ld+json">{"@type":"Product","offers":{"@type":"Offer","price":"35"},"aggregateRating":{"@type":"AggregateRating","ratingValue":"4"}}</script>`, "", kindMany},
		{"a set of products is many blocks", `<script type="application/ld+json">{"@type":"SomeProducts"}</script>`, "", kindMany},
		{"a full schema.org type URL counts", `<script type="application/ld+json">{"@type":"https://schema.org/ItemList"}</script>`, "", kindMany},
		{"broken JSON-LD is ignored", `<script type="application/ld+json">{"@type": "Product",</script>`, "", kindUnknown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := tc.body
			if body == "" {
				body = "<div>"
			}
			doc := parse(t, "<!doctype html><html><head>"+tc.head+"</head><body>"+body+"<p>x</p></div></body></html>")
			if got, _ := declaredKind(doc.Nodes[0]); got != tc.want {
				t.Errorf("declaredKind = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestAGridOfProductsWithColourLinksIsNoMenu(t *testing.T) {
	colours := []string{"Amber", "Slate", "Butter", "Flax", "Lilac", "Indigo", "Ruby", "Sand"}
	var grid, tiles strings.Builder
	for i := range 8 {
		fmt.Fprintf(&grid, `<li class="product"><a href="/p/%d"><img src="/i/%d.png" alt=""><h2>Cup %doz</h2></a><div class="swatches">`, i, i, 4+2*i)
		for _, c := range colours {
			fmt.Fprintf(&grid, `<a href="/p/%d?colour=%s">%s</a>`, i, c, c)
		}
		fmt.Fprintf(&grid, `</div><span class="price"><span>$</span>%d.95</span></li>`, 29+i)
		fmt.Fprintf(&tiles, `<li><a href="/c/%d"><img src="/t/%d.png" alt=""> Range %d</a></li>`, i, i, i)
	}
	page := `<!doctype html><html><head><title>Shop - Example</title></head><body>` + pageHeader +
		`<div class="content"><h1>Shop</h1><p>Showing all 8 results</p><ul class="products">` + grid.String() + `</ul>` +
		`<ul class="ranges">` + tiles.String() + `</ul></div>` + pageFooter + `</body></html>`
	md := article(t, page)
	checkHolds(t, md, []string{"Cup 4oz", "Cup 18oz", "$36.95"}, []string{"Range 3"})
}

func TestDeclaredKindTellsABareOGArticle(t *testing.T) {
	for _, tc := range []struct {
		name, head string
		bare       bool
	}{
		{"og:type article alone", `<meta property="og:type" content="article">`, true},
		{"og:type article with its date", `<meta property="og:type" content="article"><meta property="article:published_time" content="2024-03-05T10:00:00Z">`, false},
		{"og:type article with a JSON-LD article", `<meta property="og:type" content="article"><script type="application/ld+json">{"@type":"NewsArticle"}</script>`, false},
		{"a JSON-LD article alone", `<script type="application/ld+json">{"@type":"Recipe"}</script>`, false},
		{"og:type website", `<meta property="og:type" content="website">`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := parse(t, "<!doctype html><html><head>"+tc.head+"</head><body><p>x</p></body></html>")
			if _, bare := declaredKind(doc.Nodes[0]); bare != tc.bare {
				t.Errorf("bare = %v, want %v", bare, tc.bare)
			}
		})
	}
}

// A list's filters are menus whose items say what they are: links with
// the role of a menu's item or a list box's option. Their container says
// nothing, and the list of choices may be longer than the list itself.
func TestAFilterMenuOfAListIsNotItsContent(t *testing.T) {
	languages := []string{"Afrikaans", "Basque", "Catalan", "Danish", "Estonian", "Finnish", "Galician", "Hungarian",
		"Icelandic", "Japanese", "Korean", "Latvian", "Maltese", "Norwegian", "Occitan", "Polish", "Quechua", "Romanian",
		"Slovak", "Turkish", "Ukrainian", "Vietnamese", "Welsh", "Yoruba", "Zulu"}
	for _, role := range []string{"menuitemradio", "menuitem", "option"} {
		t.Run(role, func(t *testing.T) {
			var sb strings.Builder
			sb.WriteString(`<!doctype html><html><head><title>Trending repositories - Example</title>` +
				`<script type="application/ld+json">{"@type":"CollectionPage","name":"Trending repositories"}</script></head><body>` + pageHeader +
				`<main><h1>Trending repositories</h1><div class="rows"><div class="picker"><button>Spoken language</button><div class="picker-list">`)
			for _, l := range languages {
				fmt.Fprintf(&sb, `<a role="%s" href="/trending?lang=%s"><span>%s language</span></a>`, role, strings.ToLower(l), l)
			}
			sb.WriteString(`</div></div>`)
			for i := range 12 {
				fmt.Fprintf(&sb, `<article class="row"><h2><a href="/owner/tool%d">owner / tool%d</a></h2>`+
					`<span>Tool number %d turns notes into a site</span></article>`, i, i, i)
			}
			sb.WriteString(`</div></main>` + pageFooter + `</body></html>`)
			md := article(t, sb.String())
			checkHolds(t, md, []string{"owner / tool0", "Tool number 5 turns"}, []string{"Afrikaans language", "Zulu language"})
		})
	}
}

func TestASidebarBesideTheContentGoesHoweverLongItsLists(t *testing.T) {
	post := func(i int) string {
		return fmt.Sprintf(`<article class="message"><div class="user"><a href="/members/m%d">member%d</a></div>`+
			`<div class="body"><p>Reply %d: the card runs cooler once the fan curve is raised, and the case needs a second intake fan `+
			`to keep the memory below its limit during long renders in the summer.</p></div></article>`, i, i, i)
	}
	var sidebar strings.Builder
	for i := range 10 {
		fmt.Fprintf(&sidebar, `<li><a href="/threads/t%d">Which power supply suits a build with two cards, number %d?</a><span>Started by someone %d</span></li>`, i, i, i)
	}
	for _, tc := range []struct {
		name, wrapper string
	}{
		{"the content's box says nothing", `<div class="p-body-main">%s</div>`},
		{"the content's box is named for the layout with a sidebar", `<div class="content-sidebar-wrap has-sidebar"><div class="p-body-main">%s</div></div>`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var posts strings.Builder
			for i := range 5 {
				posts.WriteString(post(i))
			}
			page := `<!doctype html><html><head><title>Fan curves - Example</title></head><body>` + pageHeader +
				fmt.Sprintf(tc.wrapper, `<h1>Fan curves</h1>`+posts.String()) +
				`<div class="p-body-sidebar"><h3>Trending threads</h3><ul>` + sidebar.String() + `</ul></div>` + pageFooter + `</body></html>`
			md := article(t, page)
			checkHolds(t, md, []string{"Reply 0: the card runs cooler", "Reply 4: the card runs cooler"},
				[]string{"Which power supply", "Trending threads"})
		})
	}
}

func TestChromeTellsASidebarFromTheBoxAroundIt(t *testing.T) {
	for class, want := range map[string]int{
		"p-body-sidebar":              chromeSidebar,
		"fx-content-product__sidebar": chromeSidebar,
		"leftSidebar widget-area":     chromeSidebar,
		// A box around the content and its sidebar is held to the tenth
		// of the region other class words are.
		"content-sidebar-wrap":           chromeByWords,
		"layout has-sidebar":             chromeByWords,
		"sidebar-layout":                 chromeByWords,
		"page-with-sidebar main-content": chromeByWords,
		"site-header":                    chromeByWords,
		// A link past the header is chrome; "skip" elsewhere is not.
		"skip-link":                          chromeByWords,
		"skip-to-content screen-reader-text": chromeByWords,
		"skipNav":                            chromeByWords,
		"skip-item":                          notChrome,
		"featured-hero skip-lazy":            notChrome,
		"underline decoration-skip-ink":      notChrome,
	} {
		n := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div, Attr: []html.Attribute{{Key: "class", Val: class}}}
		if got := chrome(n); got != want {
			t.Errorf("chrome(class=%q) = %d, want %d", class, got, want)
		}
	}
	// A heading heads a part of the page whatever its class calls it.
	for _, class := range []string{"accordion-header", "thread-header", "section-header", "menu-title"} {
		n := &html.Node{Type: html.ElementNode, Data: "h2", DataAtom: atom.H2, Attr: []html.Attribute{{Key: "class", Val: class}}}
		if got := chrome(n); got != notChrome {
			t.Errorf("chrome(<h2 class=%q>) = %d, want notChrome", class, got)
		}
	}
}

func TestAMenuDrawnInBoxesOfOneLinkGoes(t *testing.T) {
	story := strings.Repeat("<p>The engineers moved the queue to a new store, and the tail latency fell by half in a week.</p>", 4)
	boxes := func(format string) string {
		var sb strings.Builder
		for _, name := range []string{"Help", "Status", "About", "Careers", "Press", "Privacy"} {
			fmt.Fprintf(&sb, format, strings.ToLower(name), name)
		}
		return sb.String()
	}
	for _, tc := range []struct {
		name, box      string
		want, unwanted []string
	}{
		{"links in boxes of their own, words only", `<div>` + boxes(`<div><a href="/%s"><p>%s</p></a></div>`) + `</div>`,
			nil, []string{"Help", "Careers", "Privacy"}},
		{"a catalogue's tiles, a picture and a name each, stay", `<div>` + boxes(`<div><a href="/%[1]s"><img src="/t/%[1]s.jpg" alt=""><h3>%[2]s</h3></a></div>`) + `</div>`,
			[]string{"Help", "Status", "Careers"}, nil},
		{"boxes with words beside their link stay", `<div>` + boxes(`<div><a href="/%s">%s</a> pages of the blog</div>`) + `</div>`,
			[]string{"Help", "Careers", "Privacy"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page := `<!doctype html><html><head><title>Queues - Example</title></head><body>` + pageHeader +
				`<main><h1>Queues</h1>` + story + tc.box + `</main>` + pageFooter + `</body></html>`
			checkHolds(t, article(t, page), append([]string{"tail latency fell"}, tc.want...), tc.unwanted)
		})
	}
}

// TestASitesMegaMenuGoesHoweverLarge reads pages whose navigation holds
// more text than their content: a directory of hundreds of links in the
// site's <nav>. A block that says it is navigation and is all links goes
// whatever its size, and so does one whose only words outside its links
// are the heads of its columns; one that holds prose (a page that wraps
// its content in a <nav>, in any script) is judged by its size as before.
func TestASitesMegaMenuGoesHoweverLarge(t *testing.T) {
	var menu strings.Builder
	menu.WriteString(`<nav class="app-bar">`)
	for _, region := range []string{"North America", "South America", "Europe", "Asia", "Oceania", "Africa"} {
		menu.WriteString(`<div><p>` + region + `</p><div>`)
		for i := range 12 {
			fmt.Fprintf(&menu, `<a href="/remote-jobs/%s-%d"><span>Remote developer jobs in country number %d</span></a>`, strings.ReplaceAll(region, " ", "-"), i, i)
		}
		menu.WriteString(`</div></div>`)
	}
	menu.WriteString(`</nav>`)
	// A mega-menu's column heads stand outside its links, in every column;
	// its links are short, so the heads are more than a sixth of its text.
	var heads strings.Builder
	heads.WriteString(`<header><nav class="site"><ul>`)
	for _, section := range []string{"Smartwatches", "Sports & Fitness", "Outdoor Recreation", "Marine", "Aviation"} {
		heads.WriteString(`<li><span tabindex="0">` + section + `</span><div>`)
		for _, column := range []string{"Products", "Maps", "Accessories & Plans", "Discover"} {
			heads.WriteString(`<div><span>` + column + `</span>`)
			for i := range 3 {
				fmt.Fprintf(&heads, `<a href="/c/%d">Golf %d</a> `, i, i)
			}
			heads.WriteString(`</div>`)
		}
		heads.WriteString(`</div></li>`)
	}
	heads.WriteString(`</ul></nav></header>`)
	intro := `<p>Discover remote software engineering jobs, matched to your skills and time zone, at companies and startups worldwide.</p>`
	for _, tc := range []struct {
		name     string
		page     string
		want     []string
		unwanted []string
	}{
		{"a mega-menu of links", `<html><body>` + menu.String() + `<div class="content"><h1>Remote Software Engineer Jobs</h1>` + intro + `</div></body></html>`,
			[]string{"Discover remote software engineering jobs"}, []string{"country number", "South America"}},
		{"a nav that wraps the content", `<html><body><nav class="page"><h1>Remote Software Engineer Jobs</h1>` + strings.Repeat(intro, 6) +
			`<a href="/jobs">All jobs</a></nav></body></html>`, []string{"Discover remote software engineering jobs"}, nil},
		{"a mega-menu whose column heads stand outside its links", `<html><body>` + heads.String() + `<div class="content"><h1>Remote Software Engineer Jobs</h1>` + intro + `</div></body></html>`,
			[]string{"Discover remote software engineering jobs"}, []string{"Golf", "Accessories", "Outdoor Recreation"}},
		{"a nav that wraps the content in words without spaces", `<html><body><nav class="page"><h1>远程软件工程师职位</h1>` +
			strings.Repeat(`<p>发现与你的技能和时区相匹配的远程软件工程职位，来自世界各地的公司和初创企业。</p>`, 6) +
			`<a href="/jobs">全部职位</a></nav></body></html>`, []string{"发现与你的技能和时区相匹配的远程软件工程职位"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkHolds(t, article(t, tc.page), tc.want, tc.unwanted)
			// Each pass that prunes the page on its own: the furniture
			// before the choice, and the chrome of the main region.
			page := parseBody(t, tc.page)
			pruneBoilerplate(page)
			checkHolds(t, flatText(page), tc.want, tc.unwanted)
			page = parseBody(t, tc.page)
			pruneChrome(page, textLengths(page))
			checkHolds(t, flatText(page), tc.want, tc.unwanted)
		})
	}
}

// TestTheHeaderOfEachItemIsNoPageHeader keeps the header of each item of a
// series, which holds its title, while the page's own header goes, and a
// header that only one block of the page has is held to the rule for
// class words.
func TestTheHeaderOfEachItemIsNoPageHeader(t *testing.T) {
	jobs := func(headerClass string, heading bool) string {
		var sb strings.Builder
		for i, title := range []string{"Senior Go engineer", "Support lead for Europe", "Data analyst, payments", "Designer for the mobile app"} {
			name := title
			if heading {
				name = `<h3>` + title + `</h3>`
			}
			fmt.Fprintf(&sb, `<div class="listing"><div class="%s">%s</div><p>Job %d: work from anywhere with a team of twelve that ships `+
				`every week, with a budget for books, courses and a yearly meeting in person.</p></div>`, headerClass, name, i)
		}
		return sb.String()
	}
	var faq strings.Builder
	for i, q := range []string{"Can I work from another country?", "Is the salary paid in euros?", "How long does the hiring take?"} {
		fmt.Fprintf(&faq, `<div class="accordion-item"><div class="accordion-item-header"><div class="accordion-item-header-title">%s `+
			`<i class="material-icons">chevron_right</i></div></div><div class="accordion-item-description"><p>Answer %d: yes, and the team `+
			`meets in person once a year, travel paid.</p></div></div>`, q, i)
	}
	for _, tc := range []struct {
		name, body     string
		want, unwanted []string
	}{
		{"each listing's header holds its title", jobs("listing__header", true),
			[]string{"Senior Go engineer", "Designer for the mobile app", "Job 0: work from anywhere"}, nil},
		{"cards' headers named card-header hold their questions", jobs("card-header", true),
			[]string{"Support lead for Europe", "Data analyst, payments"}, nil},
		{"a header the page names its own goes, however many", jobs("site-header", true) + jobs("site-header", true),
			[]string{"Job 0: work from anywhere"}, []string{"Senior Go engineer"}},
		{"an item's header without a heading is held to the rule for class words", jobs("listing__header", false),
			[]string{"Job 3: work from anywhere"}, []string{"Senior Go engineer", "Designer for the mobile app"}},
		{"an FAQ item's header without a heading stays when it asks, beside its icon", faq.String(),
			[]string{"Can I work from another country?", "Is the salary paid in euros?"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkHolds(t, prunedMain(t, `<!doctype html><html><head><title>Remote jobs - Example</title></head><body>`+
				`<main><h1>Remote jobs</h1><p>Every job below is open to people anywhere in the world, and each pays in the currency you choose.</p>`+
				tc.body+`</main></body></html>`), tc.want, tc.unwanted)
		})
	}
}

func TestPartHeaderClass(t *testing.T) {
	for class, want := range map[string]bool{
		"new-listing__header":      true,
		"card-header":              true,
		"faqItemHeader":            true,
		"header":                   false,
		"site-header":              false,
		"page-header title":        false,
		"header-main":              false,
		"sticky-header":            false,
		"box listing__header--big": true,
	} {
		if got := partHeaderClass(class); got != want {
			t.Errorf("partHeaderClass(%q) = %v, want %v", class, got, want)
		}
	}
}

// TestAListOfSourcesIsNoMenu keeps a list of links named by their web
// addresses, a piece's sources, and still takes a list of short named
// links for a menu.
func TestAListOfSourcesIsNoMenu(t *testing.T) {
	list := func(items ...string) *html.Node {
		var sb strings.Builder
		sb.WriteString(`<ul>`)
		for i, it := range items {
			fmt.Fprintf(&sb, `<li><a href="https://example.org/%d">%s</a></li>`, i, it)
		}
		sb.WriteString(`</ul>`)
		doc, err := html.Parse(strings.NewReader(sb.String()))
		if err != nil {
			t.Fatal(err)
		}
		return findFirst(doc, func(n *html.Node) bool { return n.DataAtom == atom.Ul })
	}
	if menu(list("https://www.ncbi.nlm.nih.gov/pmc/articles/PMC3662288/", "https://www.jacc.org/doi/10.1016/j.jacc.2019", "www.sciencedirect.com/science/article/pii/B97801",
		"https://pubmed.ncbi.nlm.nih.gov/2829117/", "https://www.heart.org/en/healthy-living")) {
		t.Error("a list of sources named by their addresses was taken for a menu")
	}
	if !menu(list("Home", "Training", "Nutrition", "Recovery", "About us", "Contact")) {
		t.Error("a list of short named links was not taken for a menu")
	}
}

// TestAMenuOfSentencesIsContent keeps the parts of a widget its class
// names a menu when they hold sentences (an FAQ's tabs, each a question
// and its answer), and still takes a menu of labels, linked or not, and a
// short menu for the page's chrome.
func TestAMenuOfSentencesIsContent(t *testing.T) {
	faq := func(class string) string {
		var sb strings.Builder
		for i, q := range []string{"Is the plan worth its price?", "What does the cover include?", "Can I cancel at any time?"} {
			fmt.Fprintf(&sb, `<div class="%s"><h3>%s</h3><div class="answer"><p>Answer %d: the plan watches your accounts, your `+
				`credit and the dark web for your name, and a team helps you when something goes wrong, day or night.</p>`+
				`<p>Families share one plan, and every member has the same cover, the same alerts and the same help.</p></div></div>`, class, q, i)
		}
		return sb.String()
	}
	labels := `<div class="filter-menu"><h3>Graphics card</h3><ul>` + strings.Repeat(`<li><label><input type="checkbox"> Radeon RX 9070 XT</label></li>`+
		`<li><label><input type="checkbox"> Radeon RX 580</label></li><li><label><input type="checkbox"> Arc B580</label></li>`, 4) + `</ul></div>`
	for _, tc := range []struct {
		name, body     string
		want, unwanted []string
	}{
		{"the tabs of an FAQ named a menu keep their answers", faq("faq_tabs-menu-link"),
			[]string{"Answer 0: the plan watches", "Answer 2: the plan watches"}, nil},
		{"a menu of a filter's labels goes", labels + faq("faq-item"),
			[]string{"Answer 1: the plan watches"}, []string{"Radeon RX 580", "Graphics card"}},
		{"a short menu goes", `<div class="nav-menu"><p>Menu</p><button>Open</button></div>` + faq("faq-item"),
			[]string{"Answer 1: the plan watches"}, []string{"Open"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkHolds(t, prunedMain(t, `<!doctype html><html><head><title>Identity protection - Example</title></head><body>`+
				`<main><h1>Identity protection</h1><p>One plan watches your identity, your credit and your accounts, and helps you when fraud strikes.</p>`+
				strings.Repeat(`<p>We look for your name, your number and your address in places criminals trade them, every hour of every day.</p>`, 30)+
				tc.body+`</main></body></html>`), tc.want, tc.unwanted)
		})
	}
}

// TestABlockTheRulesEmptyGivesWayToTheRegion takes the main region when
// the block Readability chose is, once the rules have removed what they
// know, a remnant of a box asking the reader to join, beside a short post
// it passed over.
func TestABlockTheRulesEmptyGivesWayToTheRegion(t *testing.T) {
	page := func(box string) string {
		return `<!doctype html><html><head><title>FCC chair warns Europe over satellites : r/technology</title></head><body>` +
			`<header><a href="/">Home</a> <a href="/popular">Popular</a></header>` +
			`<main><div class="post"><a href="/r/technology">r/technology</a> <a href="/user/ControlCAD">ControlCAD</a>` +
			`<h1>FCC chair to Europe: if you restrict US satellite providers, we will ban you here</h1>` +
			`<a href="https://www.pcmag.com/news/fcc">pcmag.com</a><span>New barriers are emerging that constrain US businesses ` +
			`operating abroad, the chair says.</span></div></main><aside><div class="signup">` + box + `</div></aside></body></html>`
	}
	joinBox := `<h2>New to the forum?</h2><p>Create your account and connect with a world of communities.</p>` +
		`<p>By continuing, you agree to our User Agreement and acknowledge that you understand the Privacy Policy and the rules of every community you join.</p>`
	md := article(t, page(joinBox))
	checkHolds(t, md, []string{"we will ban you here", "New barriers are emerging"}, []string{"Create your account"})
}

// TestAListingsFiltersAreNoContent removes a listing's panel of filters,
// named for its facets or filters, from the main region, and keeps a box
// the same word names when its text is sentences (an FAQ drawn as the
// page's "filters" accordion).
func TestAListingsFiltersAreNoContent(t *testing.T) {
	var grid strings.Builder
	for i := range 30 {
		fmt.Fprintf(&grid, `<div class="card"><a href="/p/%d"><h3>Walnut side table model %d</h3></a><p>Oiled walnut, made by hand, %d cm tall.</p></div>`, i, i, 40+i)
	}
	facets := func(class string) string {
		return `<div class="` + class + `"><h4>Category</h4><ul><li><label><input type="checkbox"> Tables (25)</label></li><li><label>` +
			`<input type="checkbox"> Chairs (36)</label></li></ul><h4>Price</h4><ul><li>$50 to $75 (12)</li><li>$75 to $100 (9)</li></ul></div>`
	}
	for _, tc := range []struct {
		name, body     string
		want, unwanted []string
	}{
		{"a panel named for its facets", facets("search-facets"), []string{"Walnut side table model 3"}, []string{"Tables (25)", "$50 to $75"}},
		{"a panel named for its filters", facets("collection-filters"), []string{"Walnut side table model 3"}, []string{"Chairs (36)"}},
		{"an FAQ the same word names", `<div class="expandable-section filters"><h4>Should I start with a small table?</h4><p>It depends on the room: ` +
			`a small table fits beside a chair, while a larger one can hold a lamp, books and a cup of tea at once.</p></div>`,
			[]string{"Walnut side table model 3", "It depends on the room"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkHolds(t, prunedMain(t, `<!doctype html><html><head><title>Side tables - Example</title></head><body>`+
				`<main><h1>Side tables</h1>`+tc.body+grid.String()+`</main></body></html>`), tc.want, tc.unwanted)
		})
	}
}

// prunedMain is the text of page's <main> once pruneChrome has pruned it,
// white space collapsed.
func prunedMain(t *testing.T, page string) string {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	region := findFirst(doc, func(n *html.Node) bool { return n.DataAtom == atom.Main })
	pruneChrome(region, textLengths(region))
	return strings.Join(strings.Fields(flatText(region)), " ")
}

// TestASeriesStraightUnderTheMainRegionIsWeighed keeps a thread's replies
// when its posts are the main region's own children and the opening post
// outweighs them: the extractor takes the opening post, and the replies
// it leaves out are a series like any nested deeper.
func TestASeriesStraightUnderTheMainRegionIsWeighed(t *testing.T) {
	opening := "<p>The arm hums on the left channel only, louder as the stylus nears the label, and the cartridge is new.</p>" +
		"<p>I have tried a second cable and a second phono box, and the hum stays the same at every volume.</p>" +
		"<p>The deck sits on a wall shelf, a metre from the amplifier, with the router on the shelf below it.</p>" +
		"<p>Is this the arm's wiring, or something in the room that the cartridge picks up as it moves inwards?</p>"
	page := strings.Replace(signedThread(func(int) string { return "" }), `<p>Reply 0:`, opening+opening+opening+`<p>Reply 0:`, 1)
	checkHolds(t, article(t, page), []string{"hums on the left channel", "Reply 1:", "Reply 3:"}, nil)
}

// TestReadersCommentsGoByTheirBoxsName reads the names a box of readers'
// comments goes by, alone or as the one word with its kind of box
// ("comment-list", "comment_section", "commentArea"), and the names that
// stay: one comment's, or a post's of a thread ("comment", "comment-body"),
// and words that only begin alike ("commentary").
func TestReadersCommentsGoByTheirBoxsName(t *testing.T) {
	for _, tc := range []struct {
		attrs string
		gone  bool
	}{
		{`class="comments"`, true},
		{`id="commentlist"`, true},
		{`id="comment_list"`, true},
		{`class="comment-list clearfix"`, true},
		{`class="post-comment-section"`, true},
		{`class="commentArea"`, true},
		{`id="comment-thread"`, true},
		{`id="disqus_thread"`, true},
		{`class="comment"`, false},
		{`class="comment-body"`, false},
		{`class="comment-meta list"`, false},
		{`class="commentary-list"`, false},
		{`class="list comment"`, false},
	} {
		t.Run(tc.attrs, func(t *testing.T) {
			region := parseBody(t, `<html><body><main><p>The story, in full.</p><div `+tc.attrs+`><p>First! Great story.</p></div></main></body></html>`)
			removed := pruneComments(region)
			text := flatText(region)
			if gone := !strings.Contains(text, "First!"); gone != tc.gone || len(removed) > 0 != tc.gone {
				t.Errorf("comment gone = %v (removed %d), want %v", gone, len(removed), tc.gone)
			}
			if !strings.Contains(text, "The story, in full.") {
				t.Errorf("the story went: %q", text)
			}
		})
	}
}
