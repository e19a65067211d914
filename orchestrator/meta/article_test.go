package meta

import (
	"reflect"
	"testing"
)

func TestClassTokens(t *testing.T) {
	tests := []struct {
		name, html string
		want       []string
	}{
		{"punctuation splits words", `<div class="nr-applet-nav-item">`, []string{"nr", "applet", "nav", "item"}},
		{"camelCase humps split words", `<div class="relatedStories">`, []string{"related", "stories"}},
		{"a word inside another word is not split off", `<div class="YDC-MainCanvas">`, []string{"ydc", "main", "canvas"}},
		{"the id counts too", `<div class="a" id="site_footer">`, []string{"a", "site", "footer"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := classTokens(parseHTML(t, tt.html).Find("div")); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("classTokens = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestIsFurniture(t *testing.T) {
	tests := []struct {
		name, html string
		want       bool
	}{
		{"nav is furniture", `<nav id="x"></nav>`, true},
		{"aside is furniture", `<aside id="x"></aside>`, true},
		{"an aside inside the main element is the page's, not the site's",
			`<main><article><h1>T</h1></article><aside id="x"><p>Written By Jane</p></aside></main>`, false},
		{"an aside beside the main element is the site's", `<main><h1>T</h1></main><aside id="x"></aside>`, true},
		{"a role of navigation is furniture", `<div id="x" role="navigation"></div>`, true},
		{"a menu class is furniture", `<ul id="x" class="dropdown-menu"></ul>`, true},
		{"a sidebar class is furniture", `<div id="x" class="sidebarWidget"></div>`, true},
		{"the site's header is furniture", `<header id="x"><a href="/">Home</a></header><main><h1>T</h1></main>`, true},
		{"an article's header is not", `<article><header id="x"><p>By Jane</p></header></article>`, false},
		{"the header holding the headline is not", `<header id="x"><h1>T</h1></header>`, false},
		{"a canvas is no navigation", `<div id="x" class="MainCanvas"></div>`, false},
		{"a page wrapper named for its sidebar is no furniture",
			`<div id="x" class="layout has-sidebar"><main><h1>T</h1></main><div class="sidebar"></div></div>`, false},
		{"content is not furniture", `<div id="x" class="entry-content"></div>`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := isFurniture(parseHTML(t, tt.html).Find("#x")); got != tt.want {
				t.Errorf("isFurniture = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestMainHeading(t *testing.T) {
	tests := []struct {
		name, html, want string
	}{
		{"the h1 that is the title wins",
			`<title>Rain expected all week | Example</title><article><h1>Photo gallery</h1></article><header><h1>Rain expected all week</h1></header>`,
			"Rain expected all week"},
		{"an h1 in the article wins over an earlier one", `<div><h1>Site name here</h1></div><article><h1>The story</h1></article>`, "The story"},
		{"an h1 in the navigation is no headline", `<nav><h1>Menu of the site</h1></nav><h1>The story</h1>`, "The story"},
		{"a page without an h1 has no headline", `<h2>Not a headline</h2>`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newPage(parseHTML(t, tt.html), mustURL(t, testPage), testNow)
			got := ""
			if h := p.mainHeading(); h != nil {
				got = cleanText(h.Text())
			}
			if got != tt.want {
				t.Errorf("mainHeading = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestSpacedTextPutsSpacesAtElementBoundaries(t *testing.T) {
	doc := parseHTML(t, `<div id="x">By<span>Travis Haney</span><script>var x</script><b>and</b>Co</div>`)
	if got := spacedText(doc.Find("#x")); got != "By Travis Haney and Co" {
		t.Errorf("spacedText = %q, want %q", got, "By Travis Haney and Co")
	}
}

func TestMetaDateKey(t *testing.T) {
	for in, want := range map[string]string{
		"rnews:datePublished": "datepublished", "DC.date.issued": "dcdateissued", "article:published_time": "publishedtime",
		"parsely-pub-date": "parselypubdate", "OriginalPublicationDate": "originalpublicationdate", "og:updated_time": "updatedtime",
	} {
		if got := metaDateKey(in); got != want {
			t.Errorf("metaDateKey(%q) = %q, want %q", in, got, want)
		}
	}
	for key, want := range map[string]bool{"publishedtime": true, "originalpublicationdate": true, "parselypubdate": true,
		"publisher": false, "citationpublicationtitle": false, "dcdateissued": false} {
		if got := isPublishedKey(key); got != want {
			t.Errorf("isPublishedKey(%q) = %v, want %v", key, got, want)
		}
	}
}
