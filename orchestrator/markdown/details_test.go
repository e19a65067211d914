package markdown

import (
	"testing"
)

func TestConvertLeavesOutWhatAModelWouldTripOver(t *testing.T) {
	for _, tc := range []struct {
		name, html     string
		want, unwanted []string
	}{
		{
			name:     "a wiki's edit link leaves the heading",
			html:     `<h2>History<span class="section-tools"><span>[</span><a href="/w?action=edit&section=1">edit</a><span>]</span></span></h2><p>Founded long ago.</p>`,
			want:     []string{"## History\n"},
			unwanted: []string{"edit", "["},
		},
		{
			name:     "a bare edit link in brackets leaves the heading too",
			html:     `<h3>Usage [<a href="/w?action=edit&section=2">edit source</a>]</h3><p>Run it.</p>`,
			want:     []string{"### Usage\n"},
			unwanted: []string{"edit", "[]"},
		},
		{
			name: "a heading that says edit keeps its word",
			html: `<h2>How to edit a photo</h2><p>Crop it first.</p>`,
			want: []string{"## How to edit a photo"},
		},
		{
			name:     "a link with no text and no picture leaves no empty brackets",
			html:     `<p>See <a href="/a"></a>the <a href="/b"> </a>notes.</p>`,
			want:     []string{"See the notes."},
			unwanted: []string{"[]"},
		},
		{
			name:     "a link whose only picture is inline data or a tracking pixel leaves no empty brackets",
			html:     `<p>Share: <a href="/share?fb"><img src="data:image/svg+xml,%3csvg%3e%3c/svg%3e"></a><a href="/share?x"><img src="/pixel.gif" width="1" height="1"></a> or read on.</p>`,
			want:     []string{"Share: or read on."},
			unwanted: []string{"[]", "]("},
		},
		{
			name: "a picture shown before every entry is an icon, and goes; one shown twice, or one address described three ways, stays",
			html: `<ul><li><img src="/check.svg" alt="Check"> Fast</li><li><img src="/check.svg" alt="Check"> Quiet</li><li><img src="/check.svg" alt="Check"> Cheap</li></ul>` +
				`<p><a href="/u/ann"><img src="/ann.png" alt="ann"></a> Ann wrote</p><p><a href="/u/ann"><img src="/ann.png" alt="ann"></a> Ann again</p><p><a href="/u/ann"><img src="/ann.png" alt="ann"></a> Ann last</p>` +
				`<p><img src="/chart.png" alt="Chart"></p><p>As the chart shows.</p><p><img src="/chart.png" alt="Chart"></p>` +
				`<p><img src="/wait.png" alt="Hybrid apps"> <img src="/wait.png" alt="Native apps"> <img src="/wait.png" alt="Web apps"></p>` +
				`<p><img src="/map.png" alt="Map"> The harbour.</p><p><img src="/map.png" alt="Map"> The wall.</p><p><a href="#main">Skip to main content <img src="/map.png" alt="Map"></a></p>`,
			want: []string{"- Fast\n- Quiet\n- Cheap", "Ann wrote", "![Chart](https://example.com/chart.png)\n\nAs the chart shows.\n\n![Chart](https://example.com/chart.png)",
				"![Hybrid apps](https://example.com/wait.png) ![Native apps](https://example.com/wait.png) ![Web apps](https://example.com/wait.png)",
				"![Map](https://example.com/map.png) The harbour.", "![Map](https://example.com/map.png) The wall."},
			unwanted: []string{"check.svg", "ann.png", "[]"},
		},
		{
			name: "a caption and its credit are two phrases",
			html: `<figure><img src="/r.jpg" alt="River"><figcaption>The river at dawn.<span class="credit">Credit: A. Photographer</span></figcaption></figure>`,
			want: []string{"The river at dawn. Credit: A. Photographer"},
		},
		{
			name:     "the same picture twice in a row is shown once",
			html:     `<p><img src="/r.jpg" alt="River"> <img src="/r.jpg" alt="River"></p>`,
			want:     []string{"![River](https://example.com/r.jpg)"},
			unwanted: []string{"![River](https://example.com/r.jpg) ![River]", "![River](https://example.com/r.jpg)![River]"},
		},
		{
			name: "the same picture in a box per screen size, or linked and then not, is shown once, with the text one of them gives",
			html: `<div class="hero"><div class="media-mobile"><img src="/hall.jpg" alt=""></div><div class="media-desktop"><img src="/hall.jpg" alt="The museum hall"></div></div>` +
				`<p>The hall opened in 1926.</p><p><a href="/zoom"><img src="/bread.jpg" alt="A loaf"></a></p><p><img src="/bread.jpg" alt="A loaf"></p><p>Bake it for forty minutes.</p>` +
				`<p><img src="/chart.png" alt="Chart"></p><p>As the chart shows.</p><p><img src="/chart.png" alt="Chart"></p>`,
			want: []string{"![The museum hall](https://example.com/hall.jpg)\n\nThe hall opened in 1926.", "[![A loaf](https://example.com/bread.jpg)](https://example.com/zoom)\n\nBake it for forty minutes.",
				"![Chart](https://example.com/chart.png)\n\nAs the chart shows.\n\n![Chart](https://example.com/chart.png)"},
			unwanted: []string{"![](https://example.com/hall.jpg)"},
		},
		{
			name:     "a line break inside a table cell is a space",
			html:     `<table><tr><th>Size</th><th>Weight</th></tr><tr><td>Large<br>boxed</td><td>2 kg</td></tr></table>`,
			want:     []string{"| Large boxed | 2 kg |"},
			unwanted: []string{"<br"},
		},
		{
			name: "a table without header cells takes its first row as header",
			html: `<table><tr><td>Colour</td><td>Red</td><td>Blue</td></tr><tr><td>Price</td><td>10</td><td>12</td></tr>` +
				`<tr><td>Stock</td><td>3</td><td>0</td></tr><tr><td>Rating</td><td>4</td><td>5</td></tr></table>`,
			want:     []string{"| Colour | Red | Blue |\n|---|---|---|\n| Price | 10 | 12 |"},
			unwanted: []string{"|  |  |"},
		},
		{
			name: "a literal less-than sign is written as itself",
			html: `<p>If 5 &lt; 6 and 7 &gt; 3, then a &lt;= b; the tag &lt;div&gt; stays escaped.</p>`,
			want: []string{`If 5 < 6 and 7 > 3, then a <= b; the tag \<div> stays escaped.`},
		},
		{
			name: "a less-than sign that opens no tag is itself, in code words and comparisons",
			html: `<p>It returns Result&lt;bool, Error&gt; or List&lt;Map&lt;String, Int&gt;&gt;, when x &lt;y + 1.</p>`,
			want: []string{"It returns Result<bool, Error> or List<Map<String, Int>>, when x <y + 1."},
		},
		{
			name: "a less-than sign that would open a tag, a closing tag, an autolink or a comment is escaped as Markdown escapes it",
			html: `<p>Type man &lt;subject&gt; or &lt;a href="x"&gt;, close with &lt;/div &gt;, mail &lt;me@example.com&gt;, see &lt;https://example.com&gt; and &lt;!-- this.</p>`,
			want: []string{`man \<subject>`, `\<a href="x">`, `\</div >`, `\<me@example.com>`, `\<https://example.com>`, `\<!-- this`},
		},
		{
			name:     "the paragraphs of a table cell are one line break apart",
			html:     `<table><tr><th>Plan</th><th>Price</th></tr><tr><td>Basic</td><td><p>Student: $80</p><p></p><p>Member: $130</p></td></tr></table>`,
			want:     []string{"| Basic | Student: $80<br>Member: $130 |"},
			unwanted: []string{"<br />", "<br><br>"},
		},
		{
			name: "an underscore inside a word is not escaped, one that opens emphasis is",
			html: `<p>Set max_connections and _private_ names, in <code>a_b</code>.</p>`,
			want: []string{"Set max_connections and \\_private_ names, in `a_b`."},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := convertBody(t, tc.html)
			checkHolds(t, md, tc.want, tc.unwanted)
		})
	}
}
