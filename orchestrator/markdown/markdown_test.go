package markdown

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/glimpse/glimpse/orchestrator/meta"
)

const testPageURL = "https://example.com/blog/post.html"

func parse(t *testing.T, page string) *goquery.Document {
	t.Helper()
	doc, err := meta.ParseDocument(strings.NewReader(page))
	if err != nil {
		t.Fatalf("the page does not parse: %v", err)
	}
	return doc
}

func pageURL(t *testing.T) *url.URL {
	t.Helper()
	u, err := url.Parse(testPageURL)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// convertBody converts the body of a page made of the given markup.
func convertBody(t *testing.T, body string) string {
	t.Helper()
	doc := parse(t, "<!doctype html><html><head><title>T</title></head><body>"+body+"</body></html>")
	md, err := Convert(context.Background(), doc.Find("body"), pageURL(t), Options{})
	if err != nil {
		t.Fatalf("Convert: %v", err)
	}
	return md
}

// conversion is a body of a page and the Markdown Convert writes of it.
type conversion struct{ name, html, want string }

// checkConversions converts each case's body and compares the Markdown
// with the case's.
func checkConversions(t *testing.T, cases []conversion) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := convertBody(t, c.html); got != c.want {
				t.Errorf("for %q\n got %q\nwant %q", c.html, got, c.want)
			}
		})
	}
}

func TestConvertWritesEachConstruct(t *testing.T) {
	cases := []struct {
		name, html, want string
	}{
		{"headings keep their levels",
			`<h1>Title</h1><h2>Sub <em>part</em></h2><h3>Three</h3><h6>Six</h6>`,
			"# Title\n\n## Sub *part*\n\n### Three\n\n###### Six\n"},
		{"paragraphs are blocks and their white space collapses",
			"<p>One.</p><p>Two   spans\nlines.</p>",
			"One.\n\nTwo spans lines.\n"},
		{"links are absolute against the page",
			`<p><a href="/docs?a=1&amp;b=2#x">docs</a> <a href="other.html">rel</a> <a href="//cdn.example.org/f">proto</a> <a href="https://other.org/">abs</a></p>`,
			"[docs](https://example.com/docs?a=1&b=2#x) [rel](https://example.com/blog/other.html) [proto](https://cdn.example.org/f) [abs](https://other.org/)\n"},
		{"links that are not http, or lead to \"#\" alone, give way to their text",
			`<p><a href="javascript:alert(1)">js</a>, <a href="data:text/html,hi">data</a>, <a href="mailto:a@example.com">mail</a>, <a>bare</a>, <a href="vbscript:x">vb</a>, <a href="#">hash</a>.</p>`,
			"js, data, mail, bare, vb, hash.\n"},
		{"a link's title is left out",
			`<p><a href="/a" title="The A page">A</a></p>`,
			"[A](https://example.com/a)\n"},
		{"a bulleted list whose items the page numbers by style is numbered",
			`<ul><li style="list-style-type: decimal;">Heat the oven.</li><li style="list-style-type: decimal;">Mash the bananas.</li></ul>`,
			"1. Heat the oven.\n2. Mash the bananas.\n"},
		{"so is one whose own style numbers it",
			`<ul style="list-style: upper-roman inside"><li>One</li><li>Two</li></ul>`,
			"1. One\n2. Two\n"},
		{"a list with one item styled apart keeps its bullets",
			`<ul><li style="list-style-type: decimal">One</li><li>Two</li></ul>`,
			"- One\n- Two\n"},
		{"bullets by style stay bullets",
			`<ul style="list-style-type: disc"><li>One</li><li>Two</li></ul>`,
			"- One\n- Two\n"},
		{"lists nest and ordered lists keep their start",
			`<ul><li>one<ul><li>nested <b>two</b><ol><li>deep</li></ol></li></ul></li><li>three</li></ul><ol start="3"><li>c</li><li>d</li></ol>`,
			"- one\n\n  - nested **two**\n\n    1. deep\n- three\n\n3. c\n4. d\n"},
		{"data tables become GitHub tables",
			`<table><thead><tr><th>Name</th><th>Value</th></tr></thead><tbody><tr><td>a | b</td><td>1<br>2</td></tr><tr><td><a href="/x">link</a></td><td><code>x</code></td></tr></tbody></table>`,
			"| Name | Value |\n|---|---|\n| a \\| b | 1 2 |\n| [link](https://example.com/x) | `x` |\n"},
		{"layout tables become the blocks they hold",
			`<table><tr><td><p>Column one.</p></td><td><p>Column two.</p></td></tr></table>`,
			"Column one.\n\nColumn two.\n"},
		{"a table whose role says it presents nothing is layout, header cells or not",
			`<table role="none"><tr><th>Column one.</th><th>Column two.</th></tr><tr><td>a</td><td>b</td></tr></table>`,
			"Column one.\n\nColumn two.\n\na\n\nb\n"},
		{"a table in a data table makes the outer one layout",
			`<table><tr><th>H</th><th>I</th></tr><tr><td><table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table></td><td>x</td></tr></table>`,
			"H\n\nI\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nx\n"},
		{"block quotes nest",
			`<blockquote><p>One.</p><p>Two.</p><blockquote>Inner.</blockquote></blockquote>`,
			"> One.\n>\n> Two.\n>\n> > Inner.\n"},
		{"code blocks name the language the page gives",
			"<pre><code class=\"language-go\">func main() {\n\tprintln(1)\n}</code></pre>",
			"```go\nfunc main() {\n\tprintln(1)\n}\n```\n"},
		{"lang- classes name the language too",
			`<pre class="lang-python">print(1)</pre>`,
			"```python\nprint(1)\n```\n"},
		{"a highlighter's wrapper names the language",
			`<div class="highlight highlight-source-rust"><pre>let x = 1;</pre></div>`,
			"```rust\nlet x = 1;\n```\n"},
		{"a documentation generator's wrapper two boxes up names it too",
			`<div class="highlight-toml notranslate"><div class="highlight"><pre><span></span><span class="k">[server]</span></pre></div></div>`,
			"```toml\n[server]\n```\n"},
		{"a wrapper that names the generator's default names no language",
			`<div class="highlight-default notranslate"><div class="highlight"><pre>x = 1</pre></div></div>`,
			"```\nx = 1\n```\n"},
		{"code without a language gets a bare fence",
			`<pre><code class="hljs">plain</code></pre>`,
			"```\nplain\n```\n"},
		{"code holding a fence gets a longer one",
			"<pre><code class=\"language-md\">```\nx\n```</code></pre>",
			"````md\n```\nx\n```\n````\n"},
		{"inline code, emphasis and strikethrough",
			`<p><code>a</code> <strong>b</strong> <em>c</em> <del>d</del></p>`,
			"`a` **b** *c* ~~d~~\n"},
		{"images are absolute with their alt text",
			`<p><img src="/a.png" alt="A  picture"></p>`,
			"![A picture](https://example.com/a.png)\n"},
		{"a lazy image shows the picture, not the placeholder",
			`<p><img src="data:image/gif;base64,R0lGOD" data-src="/photos/cat.jpg" alt="cat"></p>`,
			"![cat](https://example.com/photos/cat.jpg)\n"},
		{"a lazy loader's attribute of its own name holds the picture, a preview's does not",
			`<p><img src="data:image/svg+xml;base64,PHN2Zz4=" data-blursrc="/tiny/cat.jpg" nitro-lazy-src="/photos/cat.jpg" alt="cat"></p>` +
				`<p><img src="/themes/icons/spinners/spinner2.gif" ta-srcset="/photos/dog-300.jpg 300w, /photos/dog-768.jpg 768w" alt="dog"></p>`,
			"![cat](https://example.com/photos/cat.jpg)\n\n![dog](https://example.com/photos/dog-300.jpg)\n"},
		{"a template's binding is no address",
			`<p><img :src="item.image" ng-src="{{item.image}}" src="/img/lazy_placeholder.gif" alt="an item"></p><p>Text.</p>`,
			"Text.\n"},
		{"stand-ins named for what they are show nothing",
			`<p><img src="/img/placeholder.60f9b1840c.svg" alt="a"><img src="/img/ajax-loader.gif" alt="b"><img src="/img/loading_icon.svg" alt="c">` +
				`<img src="/photos/front-loader.jpg" alt="Front loader"><img src="/photos/fidget-spinner.jpg" alt="Spinner"></p>`,
			"![Front loader](https://example.com/photos/front-loader.jpg)![Spinner](https://example.com/photos/fidget-spinner.jpg)\n"},
		{"a lazy loader's address comes before the stand-in in src, whatever its name",
			`<p><img src="/img/s_1x2.gif" data-src="/photos/cat.jpg" alt="cat"></p>` +
				`<p><img class="lazyload" src="/up/dog-20x15.jpg" data-src="/up/dog.jpg" alt="dog"></p>` +
				`<p><img src="/photos/shared-teaser.cms" data-lazy-src="https://cdn.example.com/fetch/w_800/https://example.com/owl.jpg" alt="owl"></p>`,
			"![cat](https://example.com/photos/cat.jpg)\n\n![dog](https://example.com/up/dog.jpg)\n\n![owl](https://cdn.example.com/fetch/w_800/https://example.com/owl.jpg)\n"},
		{"a loader's attribute holding no address, or two run together, leaves src as it is",
			`<p><img src="/photos/cat.jpg" data-src="false" alt="cat"><img src="/photos/dog.jpg" data-src="{{ item.image }}" alt="dog">` +
				`<img src="/photos/owl.png" data-src="/photos/owl.png+https://example.com/photos/owl@2x.png" alt="owl"></p>`,
			"![cat](https://example.com/photos/cat.jpg)![dog](https://example.com/photos/dog.jpg)![owl](https://example.com/photos/owl.png)\n"},
		{"a placeholder's lazy attributes are read past one holding a script's leftover",
			`<p><img src="/img/spacer.gif" data-url="null" data-full-src="/photos/cat.jpg" alt="cat"></p>`,
			"![cat](https://example.com/photos/cat.jpg)\n"},
		{"a blank is known by the words of its name, past its numbers and hashes",
			`<p><img src="/img/grey-pixel.gif" alt="a"><img src="/g/transparent-pixel._V192234675_.gif" alt="b"><img src="/img/clear_dot.gif" alt="c">` +
				`<img src="/img/no-image_100_70.png" alt="d"><img src="/photos/polka-dot.jpg" alt="Dress"><img src="/photos/pixel-art-cat.png" alt="Art">` +
				`<img src="/photos/photo-123456.jpg" alt="Photo"></p>`,
			"![Dress](https://example.com/photos/polka-dot.jpg)![Art](https://example.com/photos/pixel-art-cat.png)![Photo](https://example.com/photos/photo-123456.jpg)\n"},
		{"an alt text escaped twice by the page's templates is read once more",
			`<p><img src="/a.jpg" alt="Source &amp;amp; Photography: Margot"><img src="/b.jpg" alt="the room she&amp;#039;s in"></p>`,
			"![Source & Photography: Margot](https://example.com/a.jpg)![the room she's in](https://example.com/b.jpg)\n"},
		{"an image from a srcset when it has no src",
			`<p><img srcset="/s.jpg 1x, /l.jpg 2x" alt="s"></p>`,
			"![s](https://example.com/s.jpg)\n"},
		{"figures keep their captions",
			`<figure><img src="/f.jpg" alt="fig"><figcaption>The caption.</figcaption></figure>`,
			"![fig](https://example.com/f.jpg)\n\nThe caption.\n"},
		{"a line break is a backslash at the end of the line",
			`<p>Line one<br>line two</p>`,
			"Line one\\\nline two\n"},
		{"a card's blocks inside a link are a line apart, never a line of a lone backslash",
			`<a href="/calc"><img src="/c.jpg" alt="Calculator"><p><strong>Seating calculator</strong></p><p>How many seats fit a round table?</p></a>`,
			"[![Calculator](https://example.com/c.jpg)\\\n**Seating calculator**\\\nHow many seats fit a round table?](https://example.com/calc)\n"},
		{"text that looks like markup is escaped",
			`<p>*stars* _under_ [brackets] back\slash</p>`,
			"\\*stars* \\_under_ \\[brackets] back\\\\slash\n"},
		{"a formula with its TeX source is written as TeX",
			`<p>Area <math alttext="{\displaystyle \pi r^{2}}"><mi>π</mi><msup><mi>r</mi><mn>2</mn></msup></math> here.</p>`,
			"Area $\\pi r^{2}$ here.\n"},
		{"a TeX group a site opens and closes around each post draws nothing; the words in a sentence stay",
			`<div class="post"><span class="d-none">\$\begingroup\$</span><p>The resistor drops the voltage.</p><p>Wrap macros in \begingroup to keep them local.</p>` +
				`<span class="d-none">$\endgroup$</span></div>`,
			"The resistor drops the voltage.\n\nWrap macros in \\\\begingroup to keep them local.\n"},
		{"a formula without source keeps its symbols apart",
			`<p>Sum <math><mi>a</mi><mo>+</mo><mi>b</mi></math> here.</p>`,
			"Sum a + b here.\n"},
		{"a formula hidden behind its picture is still written",
			`<p>So <span style="display:none"><math alttext="x^2"><mi>x</mi></math></span><img src="/x2.svg" aria-hidden="true" alt="x^2"> holds.</p>`,
			"So $x^2$ holds.\n"},
		{"a heading's permalink is left out",
			`<h2 id="intro">Intro <a href="#intro">¶</a></h2><h3>More <a href="` + testPageURL + `#more">#</a></h3><p>x</p>`,
			"## Intro\n\n### More\n\nx\n"},
		{"a heading's permalink named after its anchor is left out too",
			`<h3 id="section4">Critics get it wrong<a href="#section4">#section4</a></h3><p>x</p>`,
			"### Critics get it wrong\n\nx\n"},
		{"a heading that is its anchor's link, and a reference to an anchor in a sentence, keep their words",
			`<h3 id="gap"><a href="#gap">gap</a></h3><p>See <a href="#Configuration">#Configuration</a>.</p>`,
			"### [gap](https://example.com/blog/post.html#gap)\n\nSee [#Configuration](https://example.com/blog/post.html#Configuration).\n"},
		{"a post's number linked to the post goes, with the separator after it",
			`<div class="meta"><a href="#post-12">#12</a> <span class="dot">·</span> <a href="#post-12"><time>Jan 4, 2024</time></a></div>` +
				`<div class="meta"><a href="#post-13">#13</a> | <a href="#post-13">Jan 5, 2024</a></div>`,
			"[Jan 4, 2024](https://example.com/blog/post.html#post-12)\n\n[Jan 5, 2024](https://example.com/blog/post.html#post-13)\n"},
		{"a post cited by its number in a sentence, a number linked elsewhere and an option after an anchor keep their words",
			`<p>As <a href="#post-12">#12</a> said, it works.</p><p><a href="https://example.com/issues/12">#12</a> · Jan 4</p>` +
				`<dl><dt><a class="anchor" href="#opt-end"></a><code>--</code></dt><dd>No more options.</dd>` +
				`<dt><a class="anchor" href="#opt-verbose"></a>--verbose</dt><dd>Say more.</dd>` +
				`<dt><a class="anchor" href="#op-pipe"></a><code>|</code></dt><dd>A pipe.</dd></dl>`,
			"As [#12](https://example.com/blog/post.html#post-12) said, it works.\n\n[#12](https://example.com/issues/12) · Jan 4\n\n`--`\n\nNo more options.\n\n" +
				"--verbose\n\nSay more.\n\n`|`\n\nA pipe.\n"},
		{"a link's tracking parameters are left out, its others kept in their order",
			`<p><a href="https://shop.example/p/42?size=m&utm_source=news&UTM_Medium=mail&color=red&gclid=abc#reviews">jacket</a>, ` +
				`<a href="https://forum.example/viewtopic.php?t=7&sid=e1852c74950c6b5cca1c90497254a5f2">thread</a>, ` +
				`<a href="https://radio.example/play?sid=12">station</a>, <a href="https://example.com/a?fbclid=x">story</a></p>`,
			"[jacket](https://shop.example/p/42?size=m&color=red#reviews), [thread](https://forum.example/viewtopic.php?t=7), " +
				"[station](https://radio.example/play?sid=12), [story](https://example.com/a)\n"},
		{"a card's picture says its title once, the title link after it says it",
			`<div class="card"><a href="/movers/mayzlin"><img src="/logos/m.png" alt="Mayzlin  Movers"></a><h3><a href="/movers/mayzlin">Mayzlin Movers</a></h3></div>` +
				`<div class="card"><a href="/movers/atlas"><img src="/logos/a.png" alt="Atlas logo"></a><h3><a href="/movers/atlas">Atlas</a></h3></div>` +
				`<div class="card"><a href="/movers/bell"><img src="/logos/b.png" alt="Bell"></a><h3><a href="/movers/bell-reviews">Bell</a></h3></div>`,
			"[![](https://example.com/logos/m.png)](https://example.com/movers/mayzlin)\n\n### [Mayzlin Movers](https://example.com/movers/mayzlin)\n\n" +
				"[![Atlas logo](https://example.com/logos/a.png)](https://example.com/movers/atlas)\n\n### [Atlas](https://example.com/movers/atlas)\n\n" +
				"[![Bell](https://example.com/logos/b.png)](https://example.com/movers/bell)\n\n### [Bell](https://example.com/movers/bell-reviews)\n"},
		{"a link whose text is its own address is an autolink; a picture named by its address, other links and code stay",
			`<p>See <a href="https://example.org/docs/">https://example.org/docs/</a> and <a href="https://example.org/a">https://example.org/b</a>.</p>` +
				`<p><a href="/post"><img src="https://example.org/p.jpg" alt="https://example.org/p.jpg"></a></p>` +
				`<p>Run <code>curl</code> on <a href="https://example.org/api">https://example.org/api</a>.</p>`,
			"See <https://example.org/docs/> and [https://example.org/b](https://example.org/a).\n\n" +
				"[![https://example.org/p.jpg](https://example.org/p.jpg)](https://example.com/post)\n\n" +
				"Run `curl` on [https://example.org/api](https://example.org/api).\n"},
		{"a \">\" that opens a quotation's or a list item's text is no quotation of its own",
			`<blockquote><p>&gt; not a quote</p></blockquote><ul><li>&gt; x</li><li>a &gt; b</li></ul>`,
			"> &gt; not a quote\n\n- &gt; x\n- a > b\n"},
		{"a link to a place on the page with words stays",
			`<p><a href="#notes">see notes</a></p>`,
			"[see notes](https://example.com/blog/post.html#notes)\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := convertBody(t, c.html); got != c.want {
				t.Errorf("for %s\n got %q\nwant %q", c.html, got, c.want)
			}
		})
	}
}

// TestScreenReaderClasses tells the class names of text left for screen
// readers from those that only mention such text or hide it at one width.
func TestScreenReaderClasses(t *testing.T) {
	cases := []struct {
		class  string
		hidden bool
	}{
		{"sr-only", true},
		{"screen-reader-text", true},
		{"element-invisible", true},
		{"u-srOnly", true},
		{"wt-screen-reader-only", true},
		{"a-offscreen", true},
		{"sr-only-focusable", true},
		{"visually-hidden--inline", true},
		{"styles_srOnly__6UPQx", true},
		{"screenreader", true},
		{"selected-assistive-text", true},
		{"field--label-visually_hidden", false}, // a field whose label is hidden
		{"lg:sr-only", false},                   // hidden on wide screens only
		{"not-sr-only", false},
		{"sr-only-mobile", false}, // hidden on phones only
		{"md:not-sr-only", false},
		{"a11y-toolbar", false},
		{"clipped", false},
		{"screen", false},
		{"only", false},
	}
	for _, c := range cases {
		if got := screenReaderOnly(c.class); got != c.hidden {
			t.Errorf("screenReaderOnly(%q) = %v, want %v", c.class, got, c.hidden)
		}
	}
	t.Run("a field whose label is hidden keeps its text", func(t *testing.T) {
		html := `<div class="field field--label-visually_hidden"><div class="field__label visually-hidden">Body</div><div class="field__item"><p>The field's text.</p></div></div>`
		if got := convertBody(t, html); got != "The field's text.\n" {
			t.Errorf("got %q", got)
		}
	})
}

// TestCarouselClones knows a carousel's copies of its slides from the
// slides themselves.
func TestCarouselClones(t *testing.T) {
	cases := []struct {
		class string
		clone bool
	}{
		{"slick-slide slick-cloned", true},
		{"swiper-slide swiper-slide-duplicate", true},
		{"splide__slide splide__slide--clone", true},
		{"owl-item cloned", true},
		{"slick-slide slick-current", false},
		{"owl-item active", false},
		{"swiper-slide", false},
		{"cloned", false}, // a word of the site's own
	}
	for _, c := range cases {
		if got := carouselClone(c.class); got != c.clone {
			t.Errorf("carouselClone(%q) = %v, want %v", c.class, got, c.clone)
		}
	}
	got := convertBody(t, `<div class="slick-track"><div class="slick-slide slick-cloned"><p>Slide three.</p></div>`+
		`<div class="slick-slide"><p>Slide one.</p></div><div class="slick-slide"><p>Slide two.</p></div>`+
		`<div class="slick-slide"><p>Slide three.</p></div><div class="slick-slide slick-cloned"><p>Slide one.</p></div></div>`)
	if want := "Slide one.\n\nSlide two.\n\nSlide three.\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestZeroWidthParagraphsAreEmpty converts the paragraphs some editors
// leave with a zero-width character in them: they are empty, and such
// characters within words stay.
func TestZeroWidthParagraphsAreEmpty(t *testing.T) {
	checkConversions(t, []conversion{
		{"a joiner alone", "<p>One.</p><p>&zwj;</p><p>Two.</p>", "One.\n\nTwo.\n"},
		{"a space and a mark", "<p>One.</p><p> &#8203;&#xFEFF; </p><p>Two.</p>", "One.\n\nTwo.\n"},
		{"between words", "<p>One<span>&#8203;</span>word and <b>two</b><span> &#8203; </span>words.</p>", "Oneword and **two** words.\n"},
		{"an emoji of several", "<p>A coder: \U0001F469\u200d\U0001F4BB.</p>", "A coder: \U0001F469\u200d\U0001F4BB.\n"},
	})
}

// TestSoftHyphensAreLeftOut converts words a justified column marks
// where a line may break: the reader sees each word whole.
func TestSoftHyphensAreLeftOut(t *testing.T) {
	checkConversions(t, []conversion{
		{"in a paragraph", "<p>Appli&shy;cants must be 65 to be eli&shy;gi&shy;ble.</p>", "Applicants must be 65 to be eligible.\n"},
		{"in a heading and a link", "<h2>Home re&#173;pair</h2><p><a href=\"https://example.com/a\">Appli\u00adcation</a></p>",
			"## Home repair\n\n[Application](https://example.com/a)\n"},
		{"alone between words", "<p>One <span>&shy;</span> word.</p>", "One word.\n"},
	})
}

// TestAPageCannotWriteMarkdownOfItsOwn: the element the converter writes
// a formula's Markdown from is the copy's own; a page's element of that
// name is its text, so no script link or raw HTML reaches the answer.
func TestAPageCannotWriteMarkdownOfItsOwn(t *testing.T) {
	for _, page := range []string{
		`<p>Hi <glimpse-formula data-markdown="[click](javascript:alert(1)) <script>x</script>">x</glimpse-formula> there.</p>`,
		`<p>Hi <GLIMPSE-FORMULA data-markdown="<img src=x onerror=alert(1)>">x</GLIMPSE-FORMULA> there.</p>`,
	} {
		if got := convertBody(t, page); got != "Hi x there.\n" {
			t.Errorf("for %s\n got %q", page, got)
		}
		md := article(t, `<!doctype html><html><head><title>Forged - Example</title></head><body><main><article><h1>Forged</h1><p>`+
			strings.Repeat("A paragraph of the page's own words. ", 8)+`</p>`+page+`</article></main></body></html>`)
		if strings.Contains(md, "javascript:") || strings.Contains(md, "<script") || strings.Contains(md, "onerror") {
			t.Errorf("the page wrote Markdown of its own:\n%s", md)
		}
	}
}

// TestAPicturesAltTextIsText: an alt text's "<", brackets and backslashes
// are escaped as text is, so the description opens no raw HTML, and an
// address's closing parenthesis cannot end it early.
func TestAPicturesAltTextIsText(t *testing.T) {
	checkConversions(t, []conversion{
		{"raw HTML", `<p><img alt='<b x="a" onload=alert(1)>' src="https://x.example/p.png"></p>`, "![\\<b x=\"a\" onload=alert(1)>](https://x.example/p.png)\n"},
		{"brackets and backslashes", `<p><img alt="a\[b] c\d_e" src="https://x.example/p.png"></p>`, "![a\\\\\\[b\\] c\\d_e](https://x.example/p.png)\n"},
		{"an address that would end early", `<p><img src="https://x.example/a)![x](javascript:y" alt="q"></p>`, "![q](https://x.example/a%29!%5Bx%5D%28javascript:y)\n"},
		{"a script's missing value", `<p><img alt="null" src="https://x.example/a.png"> <img alt=" undefined " src="https://x.example/b.png"> ` +
			`<img alt="[object Object]" src="https://x.example/c.png"> <img alt="NaN" src="https://x.example/d.png"></p>`,
			"![](https://x.example/a.png) ![](https://x.example/b.png) ![](https://x.example/c.png) ![](https://x.example/d.png)\n"},
		{"a word that only starts like one", `<p><img alt="null hypothesis" src="https://x.example/p.png"></p>`, "![null hypothesis](https://x.example/p.png)\n"},
	})
}

func TestConvertLeavesOutWhatReadersDoNotSee(t *testing.T) {
	cases := []struct{ name, html string }{
		{"scripts", `<script>var secret = 1;</script>`},
		{"styles", `<style>p { color: secret }</style>`},
		{"noscript fallbacks", `<noscript>secret</noscript>`},
		{"templates", `<template><p>secret</p></template>`},
		{"the hidden attribute", `<p hidden>secret</p>`},
		{"aria-hidden", `<div aria-hidden="true">secret</div>`},
		{"display none", `<p style="color: red; display : none !important">secret</p>`},
		{"visibility hidden", `<p style="visibility:hidden">secret</p>`},
		{"screen-reader text", `<span class="visually-hidden">secret</span>`},
		{"screen-reader text under a site's own class", `<span class="u-text-sr-only">secret</span>`},
		{"a price's copy for screen readers", `<span class="a-price"><span class="a-offscreen">secret</span></span>`},
		{"screen-reader text of a CSS module", `<span class="styles_visuallyHidden__x1Y2z">secret</span>`},
		{"a carousel's copies of its slides", `<div class="slick-slide slick-cloned"><p>secret</p></div>` +
			`<div class="swiper-slide swiper-slide-duplicate">secret</div><div class="owl-item cloned">secret</div>`},
		{"an icon beside its words for screen readers", `<i class="icon" aria-hidden="true">secret</i><span class="sr-only">secret</span>`},
		{"a sign beside its words for screen readers", `<a href="/x"><span aria-hidden="true">&times;</span><span class="sr-only">secret</span></a>`},
		{"form controls", `<button>secret</button><select><option>secret</option></select><textarea>secret</textarea><input value="secret">`},
		{"frames and embeds", `<iframe src="/secret"></iframe><object data="/secret">secret</object><video src="/secret.mp4">secret</video>`},
		{"drawings", `<svg><text>secret</text></svg>`},
		{"closed dialogs", `<dialog><p>secret</p></dialog>`},
		{"comments", `<!-- secret -->`},
		{"a one-pixel image", `<img src="/secret.gif" width="1" height="1" alt="secret">`},
		{"an image a pixel high", `<img src="/secret.png" width="600" height="1" alt="secret">`},
		{"an image styled to a pixel", `<img src="/secret.png" style="width:1px;height:1px" alt="secret">`},
		{"an analytics beacon", `<img src="https://www.google-analytics.com/collect?v=1&tid=UA-1" alt="secret">`},
		{"a pixel host", `<img src="https://pixel.example.net/p?id=1" alt="secret">`},
		{"a beacon path", `<img src="https://example.com/wp-content/plugins/stats/pixel.gif" alt="secret">`},
		{"a spacer", `<img src="/img/spacer.gif" alt="secret">`},
		{"an inline data image", `<img src="data:image/png;base64,iVBORw0KGgo=" alt="secret">`},
	}
	for _, c := range cases {
		t.Run(c.name+" are left out", func(t *testing.T) {
			got := convertBody(t, "<p>Shown.</p>"+c.html)
			if got != "Shown.\n" {
				t.Errorf("for %s got %q, want only %q", c.html, got, "Shown.\n")
			}
		})
	}
	t.Run("event handlers go and their element's text stays", func(t *testing.T) {
		doc := parse(t, `<body><p onclick="steal()" onmouseover="steal()">Click <a href="/a" onclick="steal()">here</a></p></body>`)
		md, err := Convert(context.Background(), doc.Find("p"), pageURL(t), Options{})
		if err != nil || md != "Click [here](https://example.com/a)\n" || strings.Contains(md, "steal") {
			t.Errorf("got %q, %v", md, err)
		}
	})
}

func TestWhatIsShownBesideItsWordsForScreenReadersStays(t *testing.T) {
	checkConversions(t, []conversion{
		{"a sale price shown struck through beside the new one, each read out in words",
			`<p><span class="price"><del aria-hidden="true">$38.00</del> <span class="screen-reader-text">Original price was: $38.00.</span>` +
				`<ins aria-hidden="true">$30.00</ins><span class="screen-reader-text">Current price is: $30.00.</span></span></p>`,
			"~~$38.00~~ $30.00\n"},
		{"an abbreviation spelled out for screen readers",
			`<p>3 <span aria-hidden="true">min</span><span class="sr-only">minutes</span> read</p>`,
			"3 min read\n"},
		{"a rating drawn in stars, its twin a little further on",
			`<p><span aria-hidden="true">4.5 out of 5 stars</span> <b>Great</b> <i>value</i> <span class="visually-hidden">Rated 4.5 of 5</span></p>`,
			"4.5 out of 5 stars **Great** *value*\n"},
		{"a rating's figures beside its stars drawn as a picture that names them",
			`<div class="rating" role="img" aria-label="4.9 out of 5.0 stars"><span class="rating-star" aria-hidden="true"></span></div>` +
				`<p class="rating-text"><span aria-hidden="true">4.9 / 5.0</span></p>`,
			"4.9 / 5.0\n"},
		{"a named picture beside a line is the twin of no part of the line",
			`<div role="img" aria-label="Chart of sales by month"></div><p>Sales rose <span aria-hidden="true">12 percent up</span> <b>this</b> year.</p>`,
			"Sales rose **this** year.\n"},
		{"a picture without a name is no twin",
			`<p>Shown.</p><div class="rating" role="img"></div><p class="rating-text"><span aria-hidden="true">4.9 / 5.0</span></p>`,
			"Shown.\n"},
		{"text hidden from screen readers with no twin for them is left out",
			`<p>Shown.</p><p><span aria-hidden="true">Decoration</span></p>`,
			"Shown.\n"},
	})
}

func TestURLsResolveAgainstTheBase(t *testing.T) {
	cases := []struct{ name, head, want string }{
		{"without a base, against the page", ``,
			"[rel](https://example.com/blog/rel/page) ![i](https://example.com/blog/img.png)\n"},
		{"against an absolute base", `<base href="https://cdn.example.net/root/">`,
			"[rel](https://cdn.example.net/root/rel/page) ![i](https://cdn.example.net/root/img.png)\n"},
		{"against a relative base, itself against the page", `<base href="/assets/">`,
			"[rel](https://example.com/assets/rel/page) ![i](https://example.com/assets/img.png)\n"},
		{"a base that is not http is ignored", `<base href="javascript:void(0)/">`,
			"[rel](https://example.com/blog/rel/page) ![i](https://example.com/blog/img.png)\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc := parse(t, `<html><head>`+c.head+`</head><body><p><a href="rel/page">rel</a> <img src="img.png" alt="i"></p></body></html>`)
			got, err := Convert(context.Background(), doc.Find("p"), pageURL(t), Options{})
			if err != nil || got != c.want {
				t.Errorf("got %q (%v), want %q", got, err, c.want)
			}
		})
	}
}

func TestWhitespaceIsStable(t *testing.T) {
	page := "<p>  Lead   text.  </p>\n\n\n<div>\n\n</div><p></p><p>&nbsp;</p><ul><li>a</li></ul><ul><li>b</li></ul>" +
		"<p>Line<br><br><br>after</p><pre><code>keep   inner  \n\n\n  spacing</code></pre><p>End.   </p>"
	first := convertBody(t, page)
	t.Run("the same page gives the same bytes", func(t *testing.T) {
		for range 5 {
			if again := convertBody(t, page); again != first {
				t.Fatalf("a second conversion differs:\n%q\n%q", first, again)
			}
		}
	})
	t.Run("no line ends in white space", func(t *testing.T) {
		for i, line := range strings.Split(first, "\n") {
			if strings.TrimRight(line, " \t\u00a0") != line {
				t.Errorf("line %d ends in white space: %q", i+1, line)
			}
		}
	})
	t.Run("outside code there is at most one blank line in a row", func(t *testing.T) {
		outside := strings.Split(first, "```")
		for i := 0; i < len(outside); i += 2 {
			if strings.Contains(outside[i], "\n\n\n") {
				t.Errorf("two blank lines in a row in %q", outside[i])
			}
		}
	})
	t.Run("it ends with exactly one newline and starts with text", func(t *testing.T) {
		if !strings.HasSuffix(first, "\n") || strings.HasSuffix(first, "\n\n") || strings.HasPrefix(first, "\n") {
			t.Errorf("got %q", first)
		}
	})
	t.Run("code keeps its inner spacing", func(t *testing.T) {
		if !strings.Contains(first, "keep   inner\n\n\n  spacing") {
			t.Errorf("the code block lost its spacing: %q", first)
		}
	})
	t.Run("two lists in a row carry no marker comment", func(t *testing.T) {
		if strings.Contains(first, "<!--") {
			t.Errorf("got %q", first)
		}
	})
	t.Run("nor do two lists in a row inside an item", func(t *testing.T) {
		got := convertBody(t, `<ul><li>A reply<ul><li>first answer</li></ul><ul><li>second answer</li></ul></li></ul>`)
		if strings.Contains(got, "<!--") || !strings.Contains(got, "first answer") || !strings.Contains(got, "second answer") {
			t.Errorf("got %q", got)
		}
	})
	t.Run("nor does a list left empty before another", func(t *testing.T) {
		// A menu's columns whose links went: an empty list, then a list.
		for _, body := range []string{
			`<ul><li>Partners</li><li><ul></ul><ul><li>Featured articles</li></ul><ul><li><svg></svg></li></ul></li></ul>`,
			`<ol><li>Step one</li><li><ol><li><input type="checkbox"></li></ol><ol><li>Step two</li></ol></li></ol>`,
		} {
			got := convertBody(t, body)
			if strings.Contains(got, "<!--") || !strings.Contains(got, "Featured articles") && !strings.Contains(got, "Step two") {
				t.Errorf("got %q", got)
			}
		}
	})
	t.Run("nothing to convert gives an empty answer", func(t *testing.T) {
		if got := convertBody(t, "<p> </p><div></div>"); got != "" {
			t.Errorf("got %q", got)
		}
	})
}

func TestConvertTakesTheSelectionAsItIs(t *testing.T) {
	page := `<html><head><title>Head title</title></head><body><nav><a href="/">Home</a></nav>` +
		`<article><h1>Headline</h1><p>Body text.</p></article><footer>Footer text</footer></body></html>`
	t.Run("the whole page keeps its furniture but not its head", func(t *testing.T) {
		doc := parse(t, page)
		md, err := Convert(context.Background(), doc.Find("html"), pageURL(t), Options{})
		want := "[Home](https://example.com/)\n\n# Headline\n\nBody text.\n\nFooter text\n"
		if err != nil || md != want {
			t.Errorf("got %q (%v), want %q", md, err, want)
		}
	})
	t.Run("several elements are converted in order, a blank line apart", func(t *testing.T) {
		doc := parse(t, page)
		md, err := Convert(context.Background(), doc.Find("nav, footer"), pageURL(t), Options{})
		if err != nil || md != "[Home](https://example.com/)\n\nFooter text\n" {
			t.Errorf("got %q (%v)", md, err)
		}
	})
	t.Run("an empty selection gives an empty answer", func(t *testing.T) {
		doc := parse(t, page)
		md, err := Convert(context.Background(), doc.Find("aside"), pageURL(t), Options{})
		if err != nil || md != "" {
			t.Errorf("got %q (%v)", md, err)
		}
	})
	t.Run("the document is left as it was", func(t *testing.T) {
		doc := parse(t, page+`<script>x()</script><img src="/p.gif" width="1" height="1">`)
		before, _ := goquery.OuterHtml(doc.Selection)
		if _, err := Convert(context.Background(), doc.Find("html"), pageURL(t), Options{}); err != nil {
			t.Fatal(err)
		}
		if _, err := Article(context.Background(), doc, pageURL(t), Options{}); err != nil {
			t.Fatal(err)
		}
		if after, _ := goquery.OuterHtml(doc.Selection); after != before {
			t.Error("converting changed the caller's document")
		}
	})
	t.Run("nil inputs are refused", func(t *testing.T) {
		if _, err := Convert(context.Background(), nil, pageURL(t), Options{}); !errors.Is(err, ErrNoDocument) {
			t.Errorf("nil selection: %v", err)
		}
		if _, err := Article(context.Background(), nil, pageURL(t), Options{}); !errors.Is(err, ErrNoDocument) {
			t.Errorf("nil document: %v", err)
		}
		if _, err := Article(context.Background(), parse(t, page), nil, Options{}); !errors.Is(err, ErrNoDocument) {
			t.Errorf("nil URL: %v", err)
		}
	})
}

// articlePage is a news page with the furniture that surrounds articles.
const articlePage = `<!doctype html><html lang="en"><head><title>Rivers rise in the valley | Daily Example</title>
<meta property="og:title" content="Rivers rise in the valley">
<script type="application/ld+json">{"@type":"NewsArticle","headline":"Rivers rise in the valley"}</script>
</head><body>
<div id="cookie-banner" class="consent-bar"><p>We use cookies to improve your experience. By continuing to browse you agree to our cookie policy and the use of cookies on this site.</p><button>Accept</button></div>
<header class="site-header"><a href="/">Daily Example</a><nav class="main-menu"><ul><li><a href="/news">News</a></li><li><a href="/sport">Sport</a></li><li><a href="/weather">Weather</a></li></ul></nav></header>
<main><article>
<h1>Rivers rise in the valley</h1>
<p class="byline">By Ann Writer</p>
<p>The rivers of the valley rose by two metres overnight after three days of heavy rain, and the town council opened its emergency shelters for families living near the banks.</p>
<p>Engineers said the old stone bridge held, but they closed it to traffic until divers can inspect its piers. Schools in the lower town will stay shut on Monday while the water recedes.</p>
<h2>What comes next</h2>
<p>Forecasters expect drier weather from Tuesday. The council asked residents to report blocked drains and to keep away from the flooded meadows, where currents remain strong and unpredictable.</p>
<figure><img src="/img/river.jpg" alt="The flooded river"><figcaption>The river at noon on Sunday.</figcaption></figure>
<p>Volunteers filled more than four thousand sandbags over the weekend, working in shifts through the night at the fire station and the school gym.</p>
<div class="share-tools"><a href="https://twitter.example/share">Share on Twitter</a> <a href="https://facebook.example/share">Share on Facebook</a></div>
</article>
<aside class="related-stories"><h2>Related stories</h2><ul><li><a href="/a">Storm closes the coast road for a second day</a></li><li><a href="/b">Farmers count the cost of the wettest spring in decades</a></li></ul></aside>
<section id="comments" class="comments"><h2>12 comments</h2><div class="comment"><p>Reader One: Stay safe everyone, the water came up so quickly on our street last night and we had to move the car twice.</p></div><div class="comment"><p>Reader Two: The council should have dredged the river years ago, this happens every single spring now.</p></div></section>
</main>
<div class="newsletter-signup"><h3>Get the morning briefing</h3><p>Sign up for our newsletter and get the day's top stories in your inbox every morning before breakfast.</p><form><input type="email"><button>Subscribe</button></form></div>
<footer class="site-footer"><p>© 2026 Daily Example. All rights reserved.</p><ul><li><a href="/privacy">Privacy</a></li><li><a href="/terms">Terms</a></li></ul></footer>
<img src="https://pixel.example-analytics.com/t.gif?page=1" width="1" height="1" alt="">
</body></html>`

func TestArticleKeepsTheArticleAndNothingElse(t *testing.T) {
	doc := parse(t, articlePage)
	md, err := Article(context.Background(), doc, pageURL(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"The rivers of the valley rose by two metres overnight",
		"Engineers said the old stone bridge held",
		"## What comes next",
		"Forecasters expect drier weather from Tuesday.",
		"![The flooded river](https://example.com/img/river.jpg)",
		"Volunteers filled more than four thousand sandbags",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the article lost %q:\n%s", want, md)
		}
	}
	for _, unwanted := range []string{
		"cookies", "Accept", "Sport", "Weather", "Share on", "Related stories", "Storm closes",
		"comments", "Reader One", "morning briefing", "newsletter", "All rights reserved", "Privacy",
		"pixel.example-analytics.com", "Daily Example",
	} {
		if strings.Contains(md, unwanted) {
			t.Errorf("the article holds %q, which is not the article:\n%s", unwanted, md)
		}
	}
	t.Run("the same page gives the same bytes", func(t *testing.T) {
		again, err := Article(context.Background(), parse(t, articlePage), pageURL(t), Options{})
		if err != nil || again != md {
			t.Errorf("a second extraction differs (%v):\n%s\n---\n%s", err, md, again)
		}
	})
	t.Run("a page with no text gives an empty answer", func(t *testing.T) {
		md, err := Article(context.Background(), parse(t, "<html><body><div></div></body></html>"), pageURL(t), Options{})
		if err != nil || md != "" {
			t.Errorf("got %q (%v)", md, err)
		}
	})
}

func TestBoundsGiveAClearError(t *testing.T) {
	page := "<p>" + strings.Repeat("word ", 400) + "</p>"
	t.Run("Markdown past MaxBytes is refused, not truncated", func(t *testing.T) {
		doc := parse(t, "<body>"+page+"</body>")
		md, err := Convert(context.Background(), doc.Find("body"), pageURL(t), Options{MaxBytes: 1000})
		var tooLarge *TooLargeError
		if !errors.As(err, &tooLarge) || tooLarge.Limit != 1000 || tooLarge.Unit != UnitMarkdownBytes || md != "" {
			t.Fatalf("got %q, %v", md, err)
		}
		if !strings.Contains(err.Error(), "1000 bytes of Markdown") {
			t.Errorf("the error does not say the bound: %v", err)
		}
	})
	t.Run("an article past MaxBytes is refused", func(t *testing.T) {
		_, err := Article(context.Background(), parse(t, articlePage), pageURL(t), Options{MaxBytes: 600})
		var tooLarge *TooLargeError
		if !errors.As(err, &tooLarge) || tooLarge.Unit != UnitMarkdownBytes {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("a page far larger than MaxBytes is not searched", func(t *testing.T) {
		_, err := Article(context.Background(), parse(t, articlePage), pageURL(t), Options{MaxBytes: 100})
		var tooLarge *TooLargeError
		if !errors.As(err, &tooLarge) || tooLarge.Unit != UnitTextBytes || tooLarge.Limit != 400 {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("a box of code far larger than MaxBytes is not searched either", func(t *testing.T) {
		code := `<div style="font-family: monospace; white-space: pre">` + strings.Repeat("<div>x := 1 // a line of code</div>", 40) + `</div>`
		_, err := Article(context.Background(), parse(t, "<html><body><main><h1>Code</h1>"+code+"</main></body></html>"), pageURL(t), Options{MaxBytes: 100})
		var tooLarge *TooLargeError
		if !errors.As(err, &tooLarge) || tooLarge.Unit != UnitTextBytes || tooLarge.Limit != 400 {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("Markdown within MaxBytes is returned whole", func(t *testing.T) {
		doc := parse(t, "<body>"+page+"</body>")
		md, err := Convert(context.Background(), doc.Find("body"), pageURL(t), Options{MaxBytes: 2001})
		if err != nil || len(md) != 2000 {
			t.Fatalf("got %d bytes, %v", len(md), err)
		}
	})
	t.Run("more elements than MaxElements are refused before the work", func(t *testing.T) {
		doc := parse(t, "<body>"+strings.Repeat("<p>x</p>", 50)+"</body>")
		_, err := Convert(context.Background(), doc.Find("body"), pageURL(t), Options{MaxElements: 20})
		var tooLarge *TooLargeError
		if !errors.As(err, &tooLarge) || tooLarge.Unit != UnitElements || tooLarge.Limit != 20 {
			t.Fatalf("got %v", err)
		}
		_, err = Article(context.Background(), doc, pageURL(t), Options{MaxElements: 20})
		if !errors.As(err, &tooLarge) || tooLarge.Unit != UnitElements {
			t.Fatalf("Article: got %v", err)
		}
	})
}

func TestAnEndedContextStopsTheWork(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	doc := parse(t, articlePage)
	if _, err := Article(ctx, doc, pageURL(t), Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("Article: got %v, want the context's error", err)
	}
	if _, err := Convert(ctx, doc.Find("html"), pageURL(t), Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("Convert: got %v, want the context's error", err)
	}
}

func TestACalloutMarkedAsAnAlertStays(t *testing.T) {
	prose := `<p>The agent reads its file when it starts, and every key in it has a default, so that the file may be empty or missing.</p>` +
		`<p>Any key can be set in the environment instead, and a variable set there wins over the file on every start of the agent.</p>`
	md := article(t, `<!doctype html><html><head><title>Configure the agent</title></head><body>`+pageHeader+
		`<main><article><h1>Configure the agent</h1>`+
		`<div class="alert alert-info" role="alert">Deal pricing and availability subject to change after publication.</div>`+
		prose+
		`<div class="alert alert-warning" role="alert"><h4 class="alert-heading">Warning</h4><p>Keys are case-sensitive in the file.</p></div>`+
		`<div class="alert alert-info" role="alert"><strong>Note:</strong> the file is read once.</div>`+
		`<div class="alert" role="alert">Reload it with <code>kill -HUP</code> and the agent logs what changed.</div>`+
		prose+`</article></main>`+pageFooter+`</body></html>`)
	checkHolds(t, md, []string{"#### Warning", "Keys are case-sensitive", "**Note:** the file is read once.", "`kill -HUP`"},
		[]string{"Deal pricing"})
}
