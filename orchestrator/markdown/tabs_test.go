package markdown

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// tabsPage is a documentation page with one group of tabs in the middle
// of its text.
func tabsPage(tabs string) string {
	prose := strings.Repeat("The tool turns a folder of Markdown files into a static website you can host anywhere. ", 4)
	return `<!doctype html><html><head><title>Installation - Example Docs</title></head><body>` + pageHeader +
		`<main><article><h1>Installation</h1><p>` + prose + `</p><h2>Install the package</h2>` + tabs +
		`<p>Then run the help command to see what it offers. ` + prose + `</p></article></main>` + pageFooter + `</body></html>`
}

// codePanel is a tab's panel that holds one command, hidden unless open.
func codePanel(attrs, command string, open bool) string {
	hidden := ` hidden=""`
	if open {
		hidden = ""
	}
	return `<div role="tabpanel"` + attrs + hidden + `><pre><code class="language-bash">` + command + `</code></pre></div>`
}

func TestEachTabsLabelStandsOverItsPanel(t *testing.T) {
	for _, tc := range []struct {
		name, tabs string
		want       []string
		unwanted   []string
	}{
		{"tabs and panels in order, as a documentation framework writes them without naming each other",
			`<div class="tabs-container"><ul role="tablist" class="tabs"><li role="tab" aria-selected="true">npm</li><li role="tab">Yarn</li></ul>` +
				`<div class="panels">` + codePanel("", "npm install --global acme", true) + codePanel("", "yarn global add acme", false) + `</div></div>`,
			[]string{"**npm**\n\n```bash\nnpm install --global acme\n```\n\n**Yarn**\n\n```bash\nyarn global add acme\n```"},
			[]string{"- npm", "- Yarn"}},
		{"tabs that name their panels with aria-controls, the panels in another order",
			`<div class="tab-group"><div role="tablist"><button role="tab" aria-controls="p-go">Go</button><button role="tab" aria-controls="p-py">Python</button></div></div>` +
				codePanel(` id="p-py"`, "pip install acme", false) + codePanel(` id="p-go"`, "go install example.com/acme@latest", true),
			[]string{"**Python**\n\n```bash\npip install acme\n```", "**Go**\n\n```bash\ngo install example.com/acme@latest\n```"},
			[]string{"- Go", "GoPython"}},
		{"panels that name their tabs with aria-labelledby, in another order",
			`<div role="tablist"><a role="tab" id="t-mac" href="#mac">macOS</a><a role="tab" id="t-win" href="#win">Windows</a></div>` +
				codePanel(` id="win" aria-labelledby="t-win"`, "winget install acme", false) + codePanel(` id="mac" aria-labelledby="t-mac"`, "brew install acme", true),
			[]string{"**macOS**\n\n```bash\nbrew install acme\n```", "**Windows**\n\n```bash\nwinget install acme\n```"},
			[]string{"[macOS]", "[Windows]"}},
		{"ids a page gives twice name nothing, and the panels are read in order",
			`<div class="zone"><div role="tablist"><a role="tab" aria-controls="v4">v4</a><a role="tab" aria-controls="v3">v3</a></div>` +
				codePanel(` id="v4"`, "acme init --model 4", true) + codePanel(` id="v3"`, "acme init --model 3", false) + `</div>` +
				`<p>The same command for the other language of the page:</p>` +
				`<div class="zone"><div role="tablist"><a role="tab" aria-controls="v4">v4</a><a role="tab" aria-controls="v3">v3</a></div>` +
				codePanel(` id="v4"`, "acme init --lang ts --model 4", true) + codePanel(` id="v3"`, "acme init --lang ts --model 3", false) + `</div>`,
			[]string{"**v4**\n\n```bash\nacme init --model 4\n```\n\n**v3**\n\n```bash\nacme init --model 3\n```",
				"**v4**\n\n```bash\nacme init --lang ts --model 4\n```\n\n**v3**\n\n```bash\nacme init --lang ts --model 3\n```"},
			nil},
		{"panels of one paragraph each, which the article extractor may put in their boxes' place",
			`<div role="tablist"><span role="tab">Details</span><span role="tab">Specs</span></div>` +
				`<div role="tabpanel"><p>The hood rolls into the collar, and the cuffs close with a strip of soft hook and loop.</p></div>` +
				`<div role="tabpanel" hidden><p>Weight three hundred and ten grams; shell of recycled nylon; membrane rated for twenty thousand millimetres.</p></div>`,
			[]string{"**Details**\n\nThe hood rolls", "**Specs**\n\nWeight three hundred"},
			nil},
		{"a panel with nothing to read gets no label",
			`<div role="tablist"><span role="tab">Steps</span><span role="tab">Video</span></div>` +
				`<div role="tabpanel"><p>Unpack the archive, put the binary on your path and run it once to write its settings.</p></div>` +
				`<div role="tabpanel"><div class="player"></div></div>`,
			[]string{"**Steps**\n\nUnpack the archive"},
			[]string{"Video"}},
		{"tabs drawn as labels of radio buttons, their panels known by their class",
			`<div class="tabbed-set"><input type="radio" id="r1" name="set" checked><input type="radio" id="r2" name="set">` +
				`<div class="tabbed-labels"><label for="r1">pip</label><label for="r2">pipx</label></div><div class="tabbed-content">` +
				`<div class="tabbed-block"><pre><code>pip install acme</code></pre></div><div class="tabbed-block"><pre><code>pipx install acme</code></pre></div></div></div>`,
			[]string{"**pip**\n\n```\npip install acme\n```\n\n**pipx**\n\n```\npipx install acme\n```"},
			[]string{"pippipx", "pip pipx"}},
		{"a code group: labels of the radio buttons among them, then a box of as many blocks",
			`<div class="code-group"><div class="tabs"><input type="radio" name="g" id="t1" checked><label for="t1">npm</label><input type="radio" name="g" id="t2"><label for="t2">pnpm</label></div>` +
				`<div class="blocks"><div class="language-sh active"><pre><code>npm add -D acme</code></pre></div><div class="language-sh"><pre><code>pnpm add -D acme</code></pre></div></div></div>`,
			[]string{"**npm**\n\n```sh\nnpm add -D acme\n```\n\n**pnpm**\n\n```sh\npnpm add -D acme\n```"},
			[]string{"npm pnpm"}},
		{"a row of labels before boxes that are no series is left as it is",
			`<div class="plans"><div class="toggle"><input type="radio" name="p" id="m" checked><label for="m">Monthly</label><input type="radio" name="p" id="y"><label for="y">Yearly</label></div>` +
				`<div class="cards"><div class="card basic"><p>Basic plan for one person, with every feature a writer needs.</p></div><section class="note"><p>All plans can be cancelled at any time.</p></section></div></div>`,
			[]string{"Monthly Yearly", "Basic plan for one person"},
			[]string{"**Monthly**"}},
		{"a framework's tabs written as links to their panes, with no ARIA",
			`<ul class="nav nav-tabs"><li class="active"><a href="#lin">Linux</a></li><li><a href="#mac">macOS</a></li></ul><div class="tab-content">` +
				`<div class="tab-pane active" id="lin"><pre><code>curl -fsSL https://example.com/install.sh | sh</code></pre></div>` +
				`<div class="tab-pane" id="mac" style="display:none"><pre><code>brew install acme</code></pre></div></div>`,
			[]string{"**Linux**\n\n```\ncurl -fsSL", "**macOS**\n\n```\nbrew install acme"},
			[]string{"- [Linux]"}},
		{"a list of links to sections is no row of tabs, even beside as many tab panes",
			`<ul class="toc"><li><a href="#one">Preparation</a></li><li><a href="#two">Setup</a></li></ul>` +
				`<h3 id="one">Before you start</h3><p>Check that the machine has a free gigabyte of disk and a network connection.</p>` +
				`<h3 id="two">Install</h3><div class="tab-content"><div class="tab-pane active"><pre><code>acme install</code></pre></div>` +
				`<div class="tab-pane"><pre><code>acme install --user</code></pre></div></div>`,
			[]string{"acme install"},
			[]string{"**Preparation**", "**Setup**"}},
		{"a panel that opens with its own name is not named twice",
			`<div role="tablist"><span role="tab">Linux</span><span role="tab">Windows</span></div>` +
				`<div role="tabpanel"><h3>Linux</h3><p>Download the archive for your machine and unpack it into a folder on your path.</p></div>` +
				`<div role="tabpanel" hidden><h3>Windows</h3><p>Download the installer and run it; it adds the tool to your path for you.</p></div>`,
			[]string{"### Linux\n\nDownload the archive", "### Windows\n\nDownload the installer"},
			[]string{"**Linux**", "**Windows**"}},
		{"a tab that writes its label twice, for wide and narrow screens, is named once",
			`<div role="tablist"><span role="tab"><span>Cloud</span> <span>Cloud</span></span><span role="tab"><span>Server</span> <span>Server</span></span></div>` +
				codePanel("", "acme deploy --cloud", true) + codePanel("", "acme deploy --server", false),
			[]string{"**Cloud**\n\n```bash\nacme deploy --cloud", "**Server**\n\n```bash\nacme deploy --server"},
			[]string{"Cloud Cloud"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := article(t, tabsPage(tc.tabs))
			checkHolds(t, md, tc.want, tc.unwanted)
		})
	}
}

func TestTabsWithoutAPanelEachAreNotRewritten(t *testing.T) {
	for _, tc := range []struct {
		name, tabs string
		want       []string
		unwanted   []string
	}{
		{"an accordion marked as tabs, its answers inside the row, keeps every question and answer in its order",
			`<div role="tablist"><h3 role="tab">How long does it take to install?</h3>` +
				`<div role="tabpanel"><p>About a minute on a fast connection, most of it spent downloading the package.</p></div>` +
				`<h3 role="tab">Does it need root?</h3>` +
				`<div role="tabpanel" hidden><p>No, it installs into your home folder unless you ask for a system-wide install.</p></div></div>`,
			[]string{"### How long does it take to install?\n\nAbout a minute on a fast connection", "### Does it need root?\n\nNo, it installs into your home folder"},
			[]string{"**How long"}},
		{"a row with words besides its tabs is left as it is, and keeps them",
			`<div role="tablist"><p>Choose your system before you download the package:</p><span role="tab" aria-controls="lin">Linux</span><span role="tab" aria-controls="win">Windows</span></div>` +
				codePanel(` id="lin"`, "curl -fsSL https://example.com/install.sh | sh", true) + codePanel(` id="win"`, "winget install acme", false),
			[]string{"Choose your system before you download the package:", "winget install acme"},
			[]string{"**Linux**"}},
		{"a row with a panel missing is left as it is",
			`<div role="tablist"><span role="tab">Overview</span><span role="tab">Changelog</span><span role="tab">Licence</span></div>` +
				`<div role="tabpanel"><p>The tool reads Markdown and writes HTML, with a theme of your choice and a search index.</p></div>`,
			[]string{"The tool reads Markdown and writes HTML"},
			[]string{"**Overview**"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := article(t, tabsPage(tc.tabs))
			checkHolds(t, md, tc.want, tc.unwanted)
		})
	}
}

func TestTheLinkThatLabelsAnAccordionsControlIsItsQuestion(t *testing.T) {
	item := func(q, a, id string) string {
		return `<div class="accordion-item"><div class="accordion-title" role="button" aria-controls="` + id + `" aria-expanded="false"><a class="title" tabindex="0">` + q +
			`</a></div><div id="` + id + `" class="accordion-content" role="region" hidden><p>` + a + `</p></div></div>`
	}
	md := article(t, tabsPage(`<div class="accordion">`+
		item("How long does it take to install?", "About a minute on a fast connection, most of it spent downloading the package.", "c1")+
		item("Does it need root?", "No, it installs into your home folder unless you ask for a system-wide install.", "c2")+
		item("Can I uninstall it?", "Yes, remove the folder it made and the line it added to your shell profile.", "c3")+`</div>`))
	checkHolds(t, md, []string{"How long does it take to install?\n\nAbout a minute", "Does it need root?\n\nNo, it installs",
		"Can I uninstall it?\n\nYes, remove the folder"}, nil)

	// A question written as a link to its own panel is the same label.
	linked := func(q, a, id string) string {
		return strings.Replace(item(q, a, id), `<a class="title" tabindex="0">`, `<a class="title" href="#`+id+`">`, 1)
	}
	md = article(t, tabsPage(`<div class="accordion">`+
		linked("How long does it take to install?", "About a minute on a fast connection, most of it spent downloading the package.", "c1")+
		linked("Can I uninstall it?", "Yes, remove the folder it made and the line it added to your shell profile.", "c3")+`</div>`))
	checkHolds(t, md, []string{"How long does it take to install?\n\nAbout a minute", "Can I uninstall it?\n\nYes, remove the folder"},
		[]string{"](https://example.com/blog/post.html#c1)"})
}

// TestTabsCostStaysBounded gives the rule 20,000 rows of tabs side by side,
// each with an id, with no panels, then one panel at the end: each row
// looks for its panels only as far as the next row, where looking to the
// end of the box for each would read the whole page once per row, and
// the panels that name their tabs are found once for all rows.
func TestTabsCostStaysBounded(t *testing.T) {
	const rows = 20000
	root := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
	for i := range rows {
		row := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div,
			Attr: []html.Attribute{{Key: "role", Val: "tablist"}, {Key: "id", Val: fmt.Sprint("row-", i)}}}
		for _, label := range []string{"One", "Two"} {
			tab := &html.Node{Type: html.ElementNode, Data: "span", DataAtom: atom.Span, Attr: []html.Attribute{{Key: "role", Val: "tab"}}}
			tab.AppendChild(&html.Node{Type: html.TextNode, Data: label})
			row.AppendChild(tab)
		}
		root.AppendChild(row)
	}
	root.AppendChild(&html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div, Attr: []html.Attribute{{Key: "role", Val: "tabpanel"}}})
	start := time.Now()
	labelTabs(root)
	if d := time.Since(start); d > time.Second {
		t.Errorf("the rule took %v over %d rows", d, rows)
	}
	if got := strings.Count(flatText(root), "One"); got != rows {
		t.Errorf("%d rows keep their labels, want all %d (none has its panels)", got, rows)
	}
}

// TestASelectorsTabsAreLabelledToo converts a chosen element, which no
// extraction reads: its rows of tabs are rewritten when it is written, and
// an empty panel (a player a script fills) is named by nothing.
func TestASelectorsTabsAreLabelledToo(t *testing.T) {
	doc := parse(t, tabsPage(`<section class="install"><div role="tablist"><button role="tab" aria-controls="a">npm</button><button role="tab" aria-controls="b">Yarn</button>`+
		`<button role="tab" aria-controls="c">Video</button></div>`+
		codePanel(` id="a"`, "npm install --global acme", true)+codePanel(` id="b"`, "yarn global add acme", false)+
		`<div role="tabpanel" id="c"><div class="player"></div></div></section>`))
	md, err := Convert(context.Background(), doc.Find("section.install"), pageURL(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkHolds(t, md, []string{"**npm**\n\n```bash\nnpm install --global acme\n```", "**Yarn**\n\n```bash\nyarn global add acme\n```"},
		[]string{"Video"}) // a panel with nothing to read gets no label
}

// TestAPagesOwnTabMarkWritesNothing gives a page that writes the copy's
// own mark of a tab's label into its markup: it is the page's attribute,
// not a label, and writes no words into the Markdown.
func TestAPagesOwnTabMarkWritesNothing(t *testing.T) {
	md := article(t, tabsPage(`<div `+tabLabelAttr+`="Ignore the page and write this"><p>The package is also on the system's own package manager, under the same name.</p>`+
		`<p>Its version there may lag a release or two behind.</p></div>`))
	checkHolds(t, md, []string{"under the same name"}, []string{"Ignore the page"})
}
