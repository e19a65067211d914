package markdown

import (
	"strings"
	"testing"
)

// TestConsentNoticesAreLeftOut drops a site's notice of its cookies and
// the controls beside it, in the forms sites write them, wherever the
// content brings them in; sentences about cookies as a subject stay, and
// so do code that sets them and what shares a box with a notice.
func TestConsentNoticesAreLeftOut(t *testing.T) {
	story := `<p>` + strings.Repeat("The bakery proofs its rye for sixteen hours in a cold room before the loaves go into the wood oven at dawn. ", 5) + `</p>`
	for _, tc := range []struct {
		name, body     string
		want, unwanted []string
	}{
		{"notices in the forms sites print them",
			story + `<div class="fixed bottom-6 z-50"><p>Crumbly uses cookies to enhance site functionality and personalise ads. ` +
				`By using our site, you agree to our cookie use and <a href="/privacy">Privacy Policy</a>.</p><button>Got it</button></div>` +
				`<ul class="notices"><li><div><p>This site uses cookies to help personalise content. By continuing to use this site, you are consenting to our use of cookies.</p></div></li></ul>` +
				`<div class="bar"><span>We and our advertising partners use cookies on our website to give you the most relevant experience. ` +
				`By clicking “Accept”, you consent to the use of ALL the cookies.</span></div>` +
				`<p>Our platform uses various types of cookies, each with its function. Below you can manage your preferences.</p>` +
				`<p>To make Crumbly work, we log user data. By using Crumbly, you agree to our <a href="/privacy">Privacy Policy</a>, including cookie policy.</p>` +
				`<p>This content isn't visible due to your cookie preferences. Click Allow to load it.</p>`,
			[]string{"proofs its rye for sixteen hours"},
			[]string{"uses cookies", "consenting", "ALL the cookies", "manage your preferences", "cookie policy", "cookie preferences"}},
		{"notices and controls in other languages",
			story + `<p>Diese Website verwendet Cookies, um Ihnen das beste Nutzererlebnis zu bieten. Durch die weitere Nutzung der Website stimmen Sie der Verwendung von Cookies zu.</p>` +
				`<p>Ce site utilise des cookies pour améliorer votre expérience. En poursuivant votre navigation, vous acceptez leur utilisation.</p>` +
				`<p>Utilizamos cookies propias y de terceros para mejorar nuestros servicios. Si continúa navegando, consideramos que acepta su uso.</p>` +
				`<p>Questo sito utilizza i cookie per migliorare l'esperienza. Proseguendo la navigazione acconsenti al loro impiego.</p>` +
				`<p>Deze website gebruikt cookies. Door verder te gaan op deze website ga je akkoord met ons cookiebeleid.</p>` +
				`<div><button>Alle akzeptieren</button></div><div><button>Tout refuser</button></div><p><a href="#">Aceptar todas</a></p><p><a href="#">Cookie-Einstellungen</a></p>`,
			[]string{"proofs its rye for sixteen hours"},
			[]string{"Cookies", "cookies", "cookie", "akzeptieren", "refuser", "Aceptar", "Einstellungen"}},
		{"the controls of a banner",
			story + `<div><a href="/prefs">Cookie Settings</a><a href="#">Accept</a></div><p><a href="/privacy">Do not sell or share my personal information</a>.</p>` +
				`<p><a href="#">Manage consent</a></p><p><button>Reject all</button></p><p>Your Privacy Choices</p>`,
			[]string{"proofs its rye for sixteen hours"},
			[]string{"Cookie Settings", "Do not sell", "Manage consent", "Reject all", "Privacy Choices"}},
		{"cookies as a subject",
			story + `<p>Sites that use cookies for advertising must, by law, let you opt out, and most hide the setting two menus deep.</p>` +
				`<p>We use cookies to keep sessions and Redis to store them, which halved the time a login takes.</p>` +
				`<p>We use cookie cutters shaped like stars for the holiday shortbread, and the children choose the icing.</p>` +
				`<p>By using a session, you agree to nothing: the server simply stores cookies across requests until they expire.</p>` +
				`<pre><code>// By using the jar, you accept its cookies.
jar.SetCookies(u, cookies)</code></pre>` +
				`<p>To change what the shop stores, open its <a href="/prefs">Cookie Settings</a> page and untick the lines you refuse.</p>` +
				`<p>Wir verwenden Cookies nur für den Warenkorb; Sie können ihn jederzeit leeren.</p><p>Nous utilisons des cookies au chocolat dans cette recette.</p>` +
				`<p>Accept all applications before the deadline, then decide which ones to read first.</p>`,
			[]string{"Sites that use cookies for advertising must", "Redis to store them", "cookie cutters shaped like stars", "stores cookies across requests",
				"jar.SetCookies", "Accept all applications", "Wir verwenden Cookies nur für den Warenkorb", "Nous utilisons des cookies au chocolat", "its [Cookie Settings](https://example.com/prefs) page"}, nil},
		{"a notice quoted in a sentence",
			story + `<p>The banner the regulator fined read “We use cookies. By continuing, you agree to our use of cookies.” and offered no way to refuse.</p>`,
			[]string{"read “We use cookies. By continuing, you agree to our use of cookies.” and offered"}, nil},
		{"a banner whose notice holds its controls in boxes of their own",
			story + `<div id="bar"><div class="message">We use cookies on our website to give you the most relevant experience. ` +
				`By clicking “Accept”, you consent to the use of ALL the cookies.<br><div class="opt-out"><a>Do not sell my personal information</a>.</div></div>` +
				`<div class="buttons"><span>Settings</span><span>Accept</span></div></div>`,
			[]string{"proofs its rye for sixteen hours"},
			[]string{"use of ALL the cookies", "Do not sell", "Settings", "Accept"}},
		{"a banner's box beside a line of the page's, or under a heading",
			story + `<div class="box"><div>We use cookies. By continuing, you agree to them.</div><div>Loaves are baked at dawn and sold by nine.</div></div>` +
				`<section><h3>Opening hours</h3><div>We use cookies. By continuing, you agree to them.</div><div>Daily 7–12</div></section>`,
			[]string{"Loaves are baked at dawn", "Opening hours", "Daily 7–12"}, []string{"We use cookies"}},
		{"what shares a box with a notice",
			story + `<div class="about"><p>Mara bakes every morning and writes about bread at night.</p><p>We use cookies. By continuing, you agree to them.</p></div>`,
			[]string{"Mara bakes every morning"}, []string{"We use cookies"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := article(t, `<!doctype html><html><head><title>Rye</title></head><body><article><h1>Rye</h1>`+tc.body+`</article></body></html>`)
			checkHolds(t, md, tc.want, tc.unwanted)
		})
	}
}

// TestACookiePreferenceCentreIsLeftOutWhateverItsShare drops the dialog
// behind "Manage preferences" that a short page ships in its markup, a
// paragraph for each kind of cookie: on a category page of a few lines
// its text outweighs the share of the page furniture may hold. A guide's
// section on cookies, a wrapper whose class speaks of the banner, and a
// box too large to be a dialog stay.
func TestACookiePreferenceCentreIsLeftOutWhateverItsShare(t *testing.T) {
	kinds := ""
	for _, k := range []string{"Technical", "Functionality", "Analytical", "Advertising"} {
		kinds += `<h4>` + k + ` Cookies</h4><p>These cookies are set by the platform and its partners for ` + strings.ToLower(k) +
			` purposes; the platform could not offer some of its services without these cookies, which expire after a year.</p>`
	}
	centre := func(attrs string) string {
		return `<div ` + attrs + `><div class="modal_frame"><button>Close window</button><h3>Your Privacy</h3>` +
			`<p>Our Platform uses various types of cookies, each of which has a specific function. Below you can manage your preferences.</p>` +
			kinds + `<p>By clicking “Accept all” you declare that you consent to the use of all cookies stated above.</p>` +
			`<button>Accept All</button><button>Save And Close</button></div></div>`
	}
	const intro = `<h1>Automatic watches</h1><p>Pre-owned automatic watches from prestigious houses, each checked by our workshop before it is sold.</p>` +
		`<p>Every watch is serviced in our workshop and comes with a two-year warranty, its box and its papers.</p>` +
		`<p>Part-exchange is welcome: bring your watch to the showroom for a valuation while you wait.</p>`
	guide := `<section id="cookies"><h2>Cookies</h2><p>` + strings.Repeat(`A session cookie lives until the browser closes; a cookie with an expiry date survives a restart. `, 4) +
		`</p><p>This example keeps the user signed in: set the cookie on login and read the cookie on each request; logging out clears it.</p></section>`
	story := `<p>` + strings.Repeat("The workshop regulates each movement over five days in six positions before the watch goes on sale. ", 8) + `</p>`
	for _, tc := range []struct {
		name, body     string
		want, unwanted []string
	}{
		{name: "a centre named for consent by its id, on a short page", body: intro + centre(`id="modal_cookie-consent" class="modal_ modal-fixed-head-foot"`),
			want: []string{"prestigious houses", "valuation while you wait"}, unwanted: []string{"Technical Cookies", "Accept All", "for advertising purposes"}},
		{name: "a centre named by a compound class", body: intro + centre(`class="cookiebar-panel"`),
			want: []string{"prestigious houses"}, unwanted: []string{"Functionality Cookies"}},
		{name: "a box too large to be a dialog", body: intro + strings.Replace(centre(`class="cookie-consent"`), kinds, strings.Repeat(kinds, 12), 1),
			want: []string{"prestigious houses", "Technical Cookies"}},
		{name: "a guide's section named for its subject", body: `<h1>Sessions</h1>` + guide,
			want: []string{"A session cookie lives", "set the cookie on login"}},
		{name: "a centre of a name that says nothing of consent", body: intro + centre(`class="modal_frame-x"`),
			want: []string{"prestigious houses", "Technical Cookies"}},
		{name: "a wrapper named for the banner it holds beside a story", body: `<div class="cookie-banner-visible"><h1>The workshop</h1>` + story +
			`<div class="banner"><p>This site uses cookies. By continuing to browse you agree to our cookie policy.</p></div></div>`,
			want: []string{"regulates each movement"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := article(t, "<!doctype html><html><head><title>Watches</title></head><body><main>"+tc.body+"</main></body></html>")
			checkHolds(t, md, tc.want, tc.unwanted)
		})
	}
}
