package markdown

import "testing"

func TestATextWrittenTwiceSideBySideIsReadOnce(t *testing.T) {
	checkConversions(t, []conversion{
		{"a price and its copy for screen readers", `<p><span class="price">EUR 163.12<span class="clipped">EUR 163.12</span></span></p>`,
			"EUR 163.12\n"},
		{"a date for wide screens and one for phones", `<p>Ezra Laniado • <time class="date">Jan 5, 2026</time> <time class="date-mobile">Jan 5, 2026</time></p>`,
			"Ezra Laniado • Jan 5, 2026\n"},
		{"a button's label twice", `<p><a href="/sales"><span class="cta">Talk to an Expert</span><span class="cta-mobile">Talk to an Expert</span></a></p>`,
			"[Talk to an Expert](https://example.com/sales)\n"},
		{"a copy whose first is hidden is the one shown", `<p><span hidden>Talk to an Expert</span><span>Talk to an Expert</span></p>`,
			"Talk to an Expert\n"},
		{"two texts side by side", `<p><span>Jan 5, 2026</span><span>Jan 6, 2026</span></p>`, "Jan 5, 2026 Jan 6, 2026\n"},
		{"three copies are a ticker's, for its rule", `<p><span>Free shipping</span><span>Free shipping</span><span>Free shipping</span></p>`,
			"Free shipping Free shipping Free shipping\n"},
		{"a word said twice", `<p><span>No</span> <span>No</span></p>`, "No No\n"},
		{"a copy with more text before it", `<p>Price: EUR 5.00<span>EUR 5.00</span></p>`, "Price: EUR 5.00EUR 5.00\n"},
		{"an element of another kind", `<p><b>Sold out</b><span>Sold out</span></p>`, "**Sold out** Sold out\n"},
		{"code repeats what it repeats", `<pre><code><span>print(x)</span><span>print(x)</span></code></pre>`, "```\nprint(x)print(x)\n```\n"},
		{"a key pressed twice", `<p>Press <kbd><span>Ctrl+C</span><span>Ctrl+C</span></kbd> to copy twice.</p>`, "Press `Ctrl+CCtrl+C` to copy twice.\n"},
		{"a copy in a table's cell", `<table><tr><th>Model</th><th>Wi-Fi</th></tr><tr><td>A</td><td><span>Built in</span><span>Built in</span></td></tr></table>`,
			"| Model | Wi-Fi |\n|---|---|\n| A | Built in |\n"},
	})
}
