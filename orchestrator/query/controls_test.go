package query

import (
	"fmt"
	"net/http"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/glimpse/glimpse/orchestrator/apierr"
)

// parseControlsQuery parses a query with a valid target before it.
func parseControlsQuery(t *testing.T, query string) (*Request, *apierr.Error) {
	t.Helper()
	raw := "url=https%3A%2F%2Fexample.com%2F"
	if query != "" {
		raw += "&" + query
	}
	req, err := Parse(raw, Limits{})
	if err != nil {
		e := apierr.From(err)
		if e.Code == apierr.CodeFatal {
			t.Fatalf("parsing %q failed unexpectedly: %v", query, err)
		}
		return nil, e
	}
	return req, nil
}

func TestControlsAreParsedFromTheQuery(t *testing.T) {
	defaults := Controls{WaitUntil: "auto"}
	// Microlink's iPhone 15: the viewport Safari leaves the page.
	iPhone := Viewport{Emulate: true, Width: 393, Height: 659, DeviceScaleFactor: 3, IsMobile: true, HasTouch: true}
	cases := []struct {
		name  string
		query string
		want  func(c *Controls)
	}{
		{"no control leaves the defaults: auto, JavaScript, animations and adblock on", "", func(*Controls) {}},
		{"waitUntil takes each event in any case", "waitUntil=NetworkIdle0", func(c *Controls) { c.WaitUntil = "networkidle0" }},
		{"several waitUntil events wait for the latest", "waitUntil.0=networkidle2&waitUntil.1=load", func(c *Controls) { c.WaitUntil = "networkidle2" }},
		{"networkidle0 comes after networkidle2", "waitUntil.1=networkidle2&waitUntil.0=networkidle0", func(c *Controls) { c.WaitUntil = "networkidle0" }},
		{"one waitUntil event as a list", "waitUntil.0=domcontentloaded", func(c *Controls) { c.WaitUntil = "domcontentloaded" }},
		{"a bare boolean control is true, as the CLI sends it", "javascript&adblock=&animations=", func(*Controls) {}},
		{"a bare viewport flag is true", "viewport.isMobile&viewport.width=400", func(c *Controls) {
			c.Viewport = Viewport{Emulate: true, Width: 400, IsMobile: true}
		}},
		{"wait_until is the same parameter", "wait_until=domcontentloaded", func(c *Controls) { c.WaitUntil = "domcontentloaded" }},
		{"waitForSelector is trimmed", "waitForSelector=%20%23late%20", func(c *Controls) { c.WaitForSelector = "#late" }},
		{"waitForTimeout is milliseconds without a unit", "waitForTimeout=1500", func(c *Controls) { c.WaitForTimeout = 1500 * time.Millisecond }},
		{"waitForTimeout takes a unit", "wait_for_timeout=2s", func(c *Controls) { c.WaitForTimeout = 2 * time.Second }},
		{"waitForTimeout of zero waits not at all", "waitForTimeout=0", func(*Controls) {}},
		{"waitForTimeout may use most of a raised timeout", "waitForTimeout=40s&timeout=45s", func(c *Controls) { c.WaitForTimeout = 40 * time.Second }},
		{"a device sets its whole viewport", "device=iPhone%2015", func(c *Controls) { c.Device = "iPhone 15"; c.Viewport = iPhone }},
		{"a device name ignores case, spaces and dashes", "device=iphone-15", func(c *Controls) { c.Device = "iPhone 15"; c.Viewport = iPhone }},
		{"isLandscape turns a portrait device sideways", "device=iPhone%2015&viewport.isLandscape=true", func(c *Controls) {
			c.Device = "iPhone 15"
			c.Viewport = iPhone
			c.Viewport.Width, c.Viewport.Height, c.Viewport.IsLandscape = 659, 393, true
		}},
		{"a viewport option overrides the device's value", "device=iPhone%2015&viewport.width=400&viewport.deviceScaleFactor=1.5", func(c *Controls) {
			c.Device = "iPhone 15"
			c.Viewport = iPhone
			c.Viewport.Width, c.Viewport.DeviceScaleFactor = 400, 1.5
		}},
		{"an explicit size is kept as given in landscape", "device=iPhone%2015&viewport.isLandscape=true&viewport.height=500", func(c *Controls) {
			c.Device = "iPhone 15"
			c.Viewport = iPhone
			c.Viewport.Height, c.Viewport.IsLandscape = 500, true
		}},
		{"viewport options alone emulate the rest as the window has it", "viewport.width=500&viewport.is_mobile=true&viewport.has_touch=true", func(c *Controls) {
			c.Viewport = Viewport{Emulate: true, Width: 500, IsMobile: true, HasTouch: true}
		}},
		{"colorScheme takes dark", "colorScheme=Dark", func(c *Controls) { c.ColorScheme = "dark" }},
		{"color_scheme takes light", "color_scheme=light", func(c *Controls) { c.ColorScheme = "light" }},
		{"no-preference leaves the browser's default", "colorScheme=no-preference", func(*Controls) {}},
		{"javascript, animations and adblock switch off", "javascript=false&animations=false&adblock=false", func(c *Controls) {
			c.JavaScriptOff, c.AnimationsOff, c.AdblockOff = true, true, true
		}},
		{"javascript, animations and adblock set to true change nothing", "javascript=true&animations=true&adblock=true", func(*Controls) {}},
		{"click takes one selector", "click=%23accept", func(c *Controls) { c.Click = []string{"#accept"} }},
		{"click items apply bare first, then by index", "click.10=%23c&click=%23a&click.2=%23b", func(c *Controls) { c.Click = []string{"#a", "#b", "#c"} }},
		{"scroll takes a selector", "scroll=footer", func(c *Controls) { c.Scroll = "footer" }},
		{"styles and scripts keep their text as given", "styles=h1%20%7B%20color%3A%20red%20%7D&scripts.0=a()&scripts.1=b()", func(c *Controls) {
			c.Styles = []string{"h1 { color: red }"}
			c.Scripts = []string{"a()", "b()"}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, e := parseControlsQuery(t, tc.query)
			if e != nil {
				t.Fatalf("refused: %s %s", e.Code, e.Message)
			}
			want := defaults
			tc.want(&want)
			if !reflect.DeepEqual(req.Controls, want) {
				t.Errorf("controls\n got %+v\nwant %+v", req.Controls, want)
			}
		})
	}
}

func TestBadControlsAreRefusedWithTheAcceptedValues(t *testing.T) {
	longSelector := strings.Repeat("a", maxSelector+1)
	bigStyle := strings.Repeat("a", maxInjected/2+1)
	cases := []struct {
		name, query, param string
		msg                []string
	}{
		{"an unknown waitUntil", "waitUntil=idle", "waitUntil", []string{"`auto`, `load`, `domcontentloaded`, `networkidle0` or `networkidle2`", "`idle`"}},
		{"an unknown waitUntil in a list", "waitUntil.0=load&waitUntil.1=idle", "waitUntil.1", []string{"`idle`"}},
		{"auto beside other events", "waitUntil.0=auto&waitUntil.1=load", "waitUntil.0", []string{"cannot be `auto` beside other events"}},
		{"a waitUntil member that is not an index", "waitUntil.first=load", "waitUntil.first", []string{"`waitUntil.0`, `waitUntil.1`"}},
		{"an empty waitForSelector", "waitForSelector=", "waitForSelector", []string{"needs a CSS selector"}},
		{"a selector longer than the limit", "waitForSelector=" + longSelector, "waitForSelector", []string{"at most 1024"}},
		{"a waitForTimeout that is not a duration", "waitForTimeout=soon", "waitForTimeout", []string{"milliseconds (`1500`)", "`soon`"}},
		{"a negative waitForTimeout", "waitForTimeout=-5", "waitForTimeout", []string{"milliseconds"}},
		{"a waitForTimeout as long as the default timeout", "waitForTimeout=28s", "waitForTimeout", []string{"shorter than the request's `timeout` (28s)"}},
		{"a waitForTimeout longer than a given timeout", "waitForTimeout=6000&timeout=5s", "waitForTimeout", []string{"(6s)", "`timeout` (5s)"}},
		{"an unknown device lists the devices", "device=Nokia%203310", "device", []string{"`Macbook Pro 13`", "`iPhone X`", "`iPad`", "README lists all", "`Nokia 3310`"}},
		{"an empty device", "device=", "device", []string{"must name a device"}},
		{"a bare viewport", "viewport=390x844", "viewport", []string{"`viewport.width`", "`viewport.isLandscape`"}},
		{"an unknown viewport option", "viewport.depth=3", "viewport.depth", []string{"not a viewport option", "`viewport.deviceScaleFactor`"}},
		{"a zero width", "viewport.width=0", "viewport.width", []string{"from 1 to 10000", "`0`"}},
		{"a fractional height", "viewport.height=600.5", "viewport.height", []string{"whole number"}},
		{"a width beyond the limit", "viewport.width=10001", "viewport.width", []string{"from 1 to 10000"}},
		{"a scale factor beyond the limit", "viewport.deviceScaleFactor=8", "viewport.deviceScaleFactor", []string{"from 0.1 to 5"}},
		{"a scale factor of zero", "viewport.device_scale_factor=0", "viewport.device_scale_factor", []string{"from 0.1 to 5"}},
		{"a viewport of too many device pixels", "viewport.width=8000&viewport.height=8000&viewport.deviceScaleFactor=2", "viewport.deviceScaleFactor", []string{"256 million device pixels", "at most 64 million"}},
		{"a boolean viewport option that is not a boolean", "viewport.isMobile=yes", "viewport.isMobile", []string{"`true`, `false` or empty (meaning true)"}},
		{"an unknown color scheme", "colorScheme=blue", "colorScheme", []string{"`light`, `dark` or `no-preference`", "`blue`"}},
		{"javascript that is not a boolean", "javascript=off", "javascript", []string{"`true`, `false` or empty (meaning true)"}},
		{"animations that is not a boolean", "animations=0", "animations", []string{"`true`, `false` or empty (meaning true)"}},
		{"an empty click", "click=", "click", []string{"needs a CSS selector"}},
		{"a click item without an index", "click.first=a", "click.first", []string{"`click.0`, `click.1`"}},
		{"too many clicks", clicks(11), "click.10", []string{"at most 10"}},
		{"an empty scroll", "scroll=%20", "scroll", []string{"needs a CSS selector"}},
		{"an empty style", "styles=", "styles", []string{"is empty", "`body { background: white }`"}},
		{"an empty script item", "scripts.0=%20", "scripts.0", []string{"is empty"}},
		{"styles and scripts beyond 64 KiB", "styles=" + bigStyle + "&scripts=" + bigStyle, "scripts", []string{"64 KiB"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, e := parseControlsQuery(t, tc.query)
			if e == nil {
				t.Fatalf("accepted with controls %+v", req.Controls)
			}
			if e.Code != apierr.CodeInvalidQuery || e.Status() != http.StatusBadRequest {
				t.Errorf("code %s status %d, want EINVALQUERY 400", e.Code, e.Status())
			}
			if e.Param != tc.param {
				t.Errorf("param %q, want %q (message: %s)", e.Param, tc.param, e.Message)
			}
			for _, m := range tc.msg {
				if !strings.Contains(e.Message, m) {
					t.Errorf("message %q does not contain %q", e.Message, m)
				}
			}
		})
	}
}

func clicks(n int) string {
	var q []string
	for i := range n {
		q = append(q, fmt.Sprintf("click.%d=%%23b%d", i, i))
	}
	return strings.Join(q, "&")
}

func TestControlsGiveDifferentRequestsDifferentCacheKeys(t *testing.T) {
	pairs := []struct{ name, a, b string }{
		{"one selector with a space and two selectors", "click=a%20b", "click.0=a&click.1=b"},
		{"text that imitates the next field", "waitForSelector=x%22%2C%22WaitForTimeout%22%3A5", "waitForSelector=x&waitForTimeout=5"},
		{"adblock on and off", "", "adblock=false"},
		{"two devices", "device=Pixel%208", "device=Galaxy%20S24"},
		{"a style and the same text as a script", "styles=a", "scripts=a"},
	}
	for _, p := range pairs {
		t.Run(p.name, func(t *testing.T) {
			a, e := parseControlsQuery(t, p.a)
			if e != nil {
				t.Fatal(e)
			}
			b, e := parseControlsQuery(t, p.b)
			if e != nil {
				t.Fatal(e)
			}
			if Key(a) == Key(b) {
				t.Errorf("%q and %q share the cache key; controls print as %v and %v", p.a, p.b, a.Controls, b.Controls)
			}
		})
	}
	t.Run("the same controls spelt differently share the cache key", func(t *testing.T) {
		a, _ := parseControlsQuery(t, "device=iphone-15&wait_until=load")
		b, _ := parseControlsQuery(t, "waitUntil=LOAD&device=iPhone%2015")
		if a == nil || b == nil || Key(a) != Key(b) {
			t.Errorf("the keys differ for two spellings of one request")
		}
	})
}

func TestControlsThatOnlyABrowserHonoursSkipThePlainFetch(t *testing.T) {
	cases := []struct {
		query string
		want  bool
	}{
		{"", false},
		{"waitUntil=auto", false},
		{"javascript=false", false},
		{"adblock=false&animations=false", false},
		{"colorScheme=no-preference", false},
		{"waitUntil=load", true},
		{"waitForSelector=%23x", true},
		{"waitForTimeout=10", true},
		{"device=Laptop", true},
		{"viewport.width=300", true},
		{"colorScheme=dark", true},
		{"click=a", true},
		{"scroll=a", true},
		{"styles=a", true},
		{"scripts=a", true},
	}
	for _, tc := range cases {
		name := fmt.Sprintf("%q needs a browser: %t", tc.query, tc.want)
		t.Run(name, func(t *testing.T) {
			req, e := parseControlsQuery(t, tc.query)
			if e != nil {
				t.Fatal(e)
			}
			if got := req.Controls.NeedsBrowser(); got != tc.want {
				t.Errorf("needsBrowser() = %t", got)
			}
		})
	}
	t.Run("the zero controls need no browser", func(t *testing.T) {
		if (Controls{}).NeedsBrowser() {
			t.Error("zero controls need a browser")
		}
	})
}

func TestDevicePresets(t *testing.T) {
	all := append(append([]Device(nil), microlinkDevices...), devices...)
	names := DeviceNames()
	for _, name := range names {
		t.Run(name+" is found by its name and its folded name", func(t *testing.T) {
			for _, spelling := range []string{name, strings.ToUpper(name), strings.ReplaceAll(strings.ToLower(name), " ", "-")} {
				got, ok := LookupDevice(spelling)
				if !ok || deviceKey(got.Name) != deviceKey(name) {
					t.Errorf("LookupDevice(%q) = %q, %t", spelling, got.Name, ok)
				}
			}
		})
	}
	for _, d := range all {
		if d.Width < 1 || d.Height < 1 || d.Scale <= 0 || d.UserAgent == "" || d.Platform == "" {
			t.Errorf("incomplete preset: %+v", d)
		}
		if d.Landscape && d.Width < d.Height {
			t.Errorf("%s is %dx%d, yet held sideways", d.Name, d.Width, d.Height)
		}
	}
	t.Run("Microlink's names mean what they mean there", func(t *testing.T) {
		for _, tc := range []struct {
			name          string
			width, height int64
			scale         float64
			mobile        bool
		}{
			{"Macbook Pro 13", 1280, 800, 2, false},
			{"iPhone X", 375, 812, 3, true},
			{"iPhone 11", 414, 828, 2, true},
			{"iPad", 768, 1024, 2, true},
			{"Galaxy S9", 320, 658, 4.5, true},
			{"iPhone SE", 320, 568, 2, true},
			{"iphone x landscape", 812, 375, 3, true},
		} {
			d, ok := LookupDevice(tc.name)
			if !ok || d.Width != tc.width || d.Height != tc.height || d.Scale != tc.scale || d.Mobile != tc.mobile {
				t.Errorf("%s = %+v, %t; want %dx%d at %g, mobile %t", tc.name, d, ok, tc.width, tc.height, tc.scale, tc.mobile)
			}
		}
	})
	t.Run("glimpse's own presets stay as aliases", func(t *testing.T) {
		for _, d := range devices {
			if _, ok := LookupDevice(d.Name); !ok {
				t.Errorf("%s is no longer found", d.Name)
			}
		}
	})
	if n := len(names); n < 140 {
		t.Errorf("%d presets, want Microlink's and glimpse's", n)
	}
	t.Run("a Chrome user agent claims the running Chromium's version", func(t *testing.T) {
		d, _ := LookupDevice("Pixel 8")
		ua := d.UserAgentFor("HeadlessChrome/161.0.1234.5")
		if !strings.Contains(ua, "Chrome/161.0.0.0 Mobile Safari") || strings.Contains(ua, "{chrome}") {
			t.Errorf("user agent %q", ua)
		}
		if ua := d.UserAgentFor("garbage"); strings.Contains(ua, "{chrome}") || !regexp.MustCompile(`Chrome/\d+\.0\.0\.0`).MatchString(ua) {
			t.Errorf("without a readable version the user agent is %q", ua)
		}
	})
	t.Run("a name that folds to nothing is not a device", func(t *testing.T) {
		if _, ok := LookupDevice(" - "); ok {
			t.Error("found a device for a name of punctuation")
		}
	})
}
