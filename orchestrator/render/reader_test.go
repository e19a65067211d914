package render

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/andybalholm/cascadia"
)

func TestRevealAppliesToWhatAReaderScrollsThrough(t *testing.T) {
	for _, tc := range []struct {
		name, query string
		want        bool
	}{
		{"a full-page screenshot is scrolled through", "screenshot.fullPage=true", true},
		{"a PDF is scrolled through", "pdf=true", true},
		{"Markdown of the page is scrolled through", "data.content.attr=markdown", true},
		{"Markdown in a nested rule is scrolled through", "data.post.selector=article&data.post.attr.body.selector=main&data.post.attr.body.attr=markdown", true},
		{"Markdown as a fallback attribute is scrolled through", "data.content.attr.0=text&data.content.attr.1=markdown", true},
		{"a screenshot of the viewport is not", "screenshot=true", false},
		{"metadata alone is not", "", false},
		{"a text data rule is not", "data.title.selector=h1&data.title.attr=text", false},
		{"an explicit waitUntil skips it", "pdf=true&waitUntil=load", false},
		{"waitUntil=auto given explicitly does not", "pdf=true&waitUntil=auto", true},
		{"waitForSelector skips it", "pdf=true&waitForSelector=main", false},
		{"waitForTimeout skips it", "screenshot.fullPage=true&waitForTimeout=500", false},
		{"javascript=false skips it", "pdf=true&javascript=false", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := revealApplies(parse(t, "url=https://example.com/&"+tc.query)); got != tc.want {
				t.Errorf("revealApplies(%q) = %v, want %v", tc.query, got, tc.want)
			}
		})
	}
}

func TestConsentAppliesWithAdblockToWhatShowsTheBanner(t *testing.T) {
	for _, tc := range []struct {
		name, query string
		want        bool
	}{
		{"a screenshot dismisses banners", "screenshot=true", true},
		{"a PDF dismisses banners", "pdf=true", true},
		{"Markdown dismisses banners", "data.content.attr=markdown", true},
		{"caller's waits do not stop it", "screenshot=true&waitForTimeout=100", true},
		{"adblock=false keeps the banners", "screenshot=true&adblock=false", false},
		{"metadata alone leaves the page alone", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := consentApplies(parse(t, "url=https://example.com/&"+tc.query)); got != tc.want {
				t.Errorf("consentApplies(%q) = %v, want %v", tc.query, got, tc.want)
			}
		})
	}
}

func TestRevealTakesAShareOfWhatIsLeftBoundedByItsMaximum(t *testing.T) {
	for _, tc := range []struct {
		left, want time.Duration
	}{
		{28 * time.Second, 8400 * time.Millisecond},
		{60 * time.Second, revealMax},
		{time.Second, 300 * time.Millisecond},
		{0, 0},
		{-time.Second, 0},
	} {
		if got := revealBudget(tc.left); got != tc.want {
			t.Errorf("revealBudget(%s) = %s, want %s", tc.left, got, tc.want)
		}
	}
}

func TestAutoWaitsForTheNetworkOnlyWhenThereArePixels(t *testing.T) {
	if idle, settle := autoQuiet(false); idle != 0 || settle != autoSettle {
		t.Errorf("a render with pixels waits for %d requests in flight, at most %s; want none, at most %s", idle, settle, autoSettle)
	}
	if idle, settle := autoQuiet(true); idle != -1 || settle != 0 {
		t.Errorf("a render without pixels changed its wait: %d, %s", idle, settle)
	}
}

func TestTheConsentRulesAreWellFormed(t *testing.T) {
	rules, err := consentRules()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range rules {
		names = append(names, r.Name)
		for _, list := range [][]string{r.Detect, r.Reject, r.Hide} {
			for _, sel := range list {
				if _, err := cascadia.Compile(sel); err != nil {
					t.Errorf("rule %s: selector %q does not parse: %v", r.Name, sel, err)
				}
			}
		}
		for _, c := range r.Unlock {
			if !regexp.MustCompile(`^[A-Za-z][\w-]*$`).MatchString(c) {
				t.Errorf("rule %s: %q is not a class name", r.Name, c)
			}
		}
	}
	for _, want := range []string{"onetrust", "quantcast", "didomi", "cookiebot", "sourcepoint", "trustarc", "usercentrics", "tcf"} {
		if !slices.Contains(names, want) {
			t.Errorf("the consent rules lack %s", want)
		}
	}
}

func TestBadConsentRulesAreRefusedWithTheReason(t *testing.T) {
	for _, tc := range []struct{ name, json, want string }{
		{"broken JSON", `{"rules": [`, "not valid JSON"},
		{"a rule without a name", `{"rules": [{"detect": ["#a"]}]}`, "has no name"},
		{"a name twice", `{"rules": [{"name": "a", "detect": ["#a"]}, {"name": "a", "detect": ["#b"]}]}`, "listed twice"},
		{"a rule that detects nothing", `{"rules": [{"name": "a"}]}`, "no selector"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseConsentRules([]byte(tc.json))
			if err == nil || !regexp.MustCompile(regexp.QuoteMeta(tc.want)).MatchString(err.Error()) {
				t.Errorf("got %v, want an error saying %q", err, tc.want)
			}
		})
	}
}

func TestTheGenericConsentRuleReadsNoticesNotPages(t *testing.T) {
	topic, answer := regexp.MustCompile("(?i)"+consentTopic), regexp.MustCompile("(?i)"+consentAnswer)
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"We use cookies to improve your experience.", true},
		{"This website uses Cookies.", true},
		{"Wir verwenden Cookies. Datenschutzerklärung", true},
		{"We value your privacy and ask for your consent.", true},
		{"Manage your privacy settings", true},
		{"Subscribe to our newsletter", false},
		{"Free shipping on orders over 50", false},
		{"Sign in to continue", false},
	} {
		if got := topic.MatchString(tc.text); got != tc.want {
			t.Errorf("topic %q = %v, want %v", tc.text, got, tc.want)
		}
	}
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"Accept all", true}, {"Accept", true}, {"I agree", true}, {"Reject all", true}, {"Got it!", true},
		{"OK", true}, {"Alle akzeptieren", true}, {"Tout accepter", true}, {"Allow cookies", true},
		{"Read more", false}, {"Sign in", false}, {"Home", false}, {"Cookie policy", false}, {"Book now", false},
	} {
		if got := answer.MatchString(tc.text); got != tc.want {
			t.Errorf("answer %q = %v, want %v", tc.text, got, tc.want)
		}
	}
}

func TestListedBannersAreHiddenInAFetchedDocument(t *testing.T) {
	rules, err := consentRules()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, html string
		found      []string
		hidden     []string // ids that must end up with display:none
		kept       []string // ids that must not
	}{
		{"a manager's container written by the server is hidden",
			`<main id="m">Text</main><div id="onetrust-consent-sdk" style="z-index: 9;"><div id="onetrust-banner-sdk">We use cookies</div></div>`,
			[]string{"onetrust"}, []string{"onetrust-consent-sdk", "onetrust-banner-sdk"}, []string{"m"}},
		{"a manager detected by one selector hides all of its own",
			`<div id="didomi-notice">x</div><div class="didomi-popup-backdrop" id="b"></div><p id="p">y</p>`,
			[]string{"didomi"}, []string{"didomi-notice", "b"}, []string{"p"}},
		{"a page without a manager is left alone",
			`<div id="cookie-recipes">Cookies</div><div class="consent">Consent form</div>`,
			nil, nil, []string{"cookie-recipes"}},
		{"a manager with nothing to hide is not reported",
			`<iframe name="__tcfapiLocator" id="f"></iframe>`,
			nil, nil, []string{"f"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := goquery.NewDocumentFromReader(strings.NewReader("<html><body>" + tc.html + "</body></html>"))
			if err != nil {
				t.Fatal(err)
			}
			if got := hideListed(doc, rules); !slices.Equal(got, tc.found) {
				t.Errorf("found %v, want %v", got, tc.found)
			}
			for _, id := range tc.hidden {
				if style := doc.Find("#"+id).AttrOr("style", ""); !strings.HasSuffix(style, "display: none !important") {
					t.Errorf("#%s has style %q, not hidden", id, style)
				}
			}
			for _, id := range tc.kept {
				if style := doc.Find("#"+id).AttrOr("style", ""); strings.Contains(style, "display") {
					t.Errorf("#%s was hidden: %q", id, style)
				}
			}
		})
	}
}
