package markdown

import (
	"strings"
	"testing"
)

// vscodeStyle is the inline style a code editor's copy carries into a
// page's rich text.
const vscodeStyle = `color: #3b3b3b; background-color: #ffffff; font-family: Menlo, Monaco, &quot;Courier New&quot;, monospace; ` +
	`font-weight: normal; font-size: 12px; line-height: 18px; white-space: pre;`

func TestCodeSetByInlineStyleIsACodeBlock(t *testing.T) {
	checkConversions(t, []conversion{
		{
			name: "a code editor's copy, a line per box",
			html: `<p>Here's my code.</p><div style="` + vscodeStyle + `"><div><span style="color: #267f99;">ollama</span>.<span>create</span>(</div>` +
				`<div><span>    </span><span style="color: #001080;">from_</span><span>=</span><span>'llama3.2'</span>,</div><div><br></div>` +
				`<div><span>    </span>stream=True<span style="display:none">hidden note</span>,</div><div>)</div></div><p>That is all.</p>`,
			want: "Here's my code.\n\n```\nollama.create(\n    from_='llama3.2',\n\n    stream=True,\n)\n```\n\nThat is all.\n",
		},
		{
			name: "a paragraph in a monospace face that keeps its white space, a line per break",
			html: `<p style="font-family: 'Courier New', Courier; white-space: pre-wrap">SELECT *<br>  FROM tides<br>  WHERE height &gt; 2;</p>`,
			want: "```\nSELECT *\n  FROM tides\n  WHERE height > 2;\n```\n",
		},
		{
			name: "verse that keeps its white space in a proportional face stays text, the last font named winning",
			html: `<div style="font-family: monospace; font-family: Georgia, serif; white-space: pre">The tide comes in,<br>the tide goes out.</div>`,
			want: "The tide comes in,\\\nthe tide goes out.\n",
		},
		{
			name: "prose in a typewriter's face that wraps stays text",
			html: `<p style="font-family: Courier, monospace">The harbour_master logs the tide.</p>`,
			want: "The harbour_master logs the tide.\n",
		},
		{
			name: "a box of code with nothing in it is nothing",
			html: `<p>Before.</p><div style="` + vscodeStyle + `"><div><br></div></div><p>After.</p>`,
			want: "Before.\n\nAfter.\n",
		},
	})
}

func TestArticleKeepsCodeSetByInlineStyle(t *testing.T) {
	body := strings.Repeat("A small model runs on a laptop and answers the same nine questions of every article. ", 5)
	md := article(t, `<!doctype html><html><head><title>Small models - Example</title></head><body>`+pageHeader+
		`<main><article><h1>Small models</h1><p>`+body+`</p><div style="`+vscodeStyle+`"><div>response = ollama.generate(</div>`+
		`<div><span>    </span>model=<span>'breach_analyzer'</span>,</div><div>)</div></div><p>`+body+`</p></article></main>`+pageFooter+`</body></html>`)
	checkHolds(t, md, []string{"```\nresponse = ollama.generate(\n    model='breach_analyzer',\n)\n```"}, []string{`breach\_analyzer`})
}
