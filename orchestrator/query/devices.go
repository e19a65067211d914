package query

import (
	"regexp"
	"strings"
)

// Device is a `device` preset: the screen of a common phone, tablet or
// computer in CSS pixels (portrait for phones and tablets), and the user
// agent its usual browser sends.
type Device struct {
	Name          string
	Width, Height int64
	Scale         float64 // device pixels per CSS pixel
	Mobile        bool    // mobile viewport rules: the viewport meta tag, overlay scrollbars
	Touch         bool
	// UserAgent holds {chrome} where the running Chromium's major version
	// goes, so that a Chrome user agent never claims a version the
	// rendering engine does not have.
	UserAgent string
	Platform  string // navigator.platform
	Landscape bool   // held sideways: wider than tall
}

const (
	uaIOS     = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"
	uaIPad    = "Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"
	uaAndroid = "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/{chrome}.0.0.0 Mobile Safari/537.36"
	// Android tablets send no "Mobile" token, which is how sites tell them
	// from phones.
	uaAndroidTablet = "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/{chrome}.0.0.0 Safari/537.36"
	uaMac           = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/{chrome}.0.0.0 Safari/537.36"
	uaWindows       = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/{chrome}.0.0.0 Safari/537.36"
)

// devices are the presets, phones first. Sizes are the CSS viewport each
// device's browser reports at its default zoom.
var devices = []Device{
	{"iPhone SE", 375, 667, 2, true, true, uaIOS, "iPhone", false},
	{"iPhone 15", 393, 852, 3, true, true, uaIOS, "iPhone", false},
	{"iPhone 15 Pro Max", 430, 932, 3, true, true, uaIOS, "iPhone", false},
	{"Pixel 8", 412, 915, 2.625, true, true, uaAndroid, "Linux armv81", false},
	{"Galaxy S24", 360, 780, 3, true, true, uaAndroid, "Linux armv81", false},
	{"iPad Mini", 744, 1133, 2, true, true, uaIPad, "iPad", false},
	{"iPad Air", 820, 1180, 2, true, true, uaIPad, "iPad", false},
	{"iPad Pro 12.9", 1024, 1366, 2, true, true, uaIPad, "iPad", false},
	{"Galaxy Tab S9", 800, 1280, 2, true, true, uaAndroidTablet, "Linux armv81", false},
	{"Laptop", 1366, 768, 1, false, false, uaWindows, "Win32", false},
	{"MacBook Air 13", 1440, 900, 2, false, false, uaMac, "MacIntel", false},
	{"MacBook Pro 14", 1512, 982, 2, false, false, uaMac, "MacIntel", false},
	{"Desktop", 1920, 1080, 1, false, false, uaWindows, "Win32", false},
	{"Desktop 1440p", 2560, 1440, 1, false, false, uaWindows, "Win32", false},
}

// deviceKey folds a device name so that `iPhone 15 Pro Max`,
// `iphone-15-pro-max` and `iPhone15ProMax` name the same preset.
func deviceKey(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// LookupDevice finds a preset by any spelling of its name: Microlink's
// names first, then glimpse's own.
func LookupDevice(name string) (Device, bool) {
	key := deviceKey(name)
	if key == "" {
		return Device{}, false
	}
	for _, list := range [][]Device{microlinkDevices, devices} {
		for _, d := range list {
			if deviceKey(d.Name) == key {
				return d, true
			}
		}
	}
	return Device{}, false
}

// DeviceNames are every preset's name, Microlink's first.
func DeviceNames() []string {
	names := make([]string, 0, len(microlinkDevices)+len(devices))
	seen := map[string]bool{}
	for _, list := range [][]Device{microlinkDevices, devices} {
		for _, d := range list {
			if k := deviceKey(d.Name); !seen[k] {
				seen[k] = true
				names = append(names, d.Name)
			}
		}
	}
	return names
}

// deviceExamples names a few presets for messages; the README lists all.
const deviceExamples = "`Macbook Pro 13`, `iPhone X`, `iPhone 15 Pro`, `iPad`, `Galaxy S9+`, `Pixel 5` or `Desktop`"

// DesktopUserAgent is what glimpse claims to be when no Device is
// emulated and no browser is asked: a current desktop Chromium, so pages
// answer with the HTML a browser gets.
const DesktopUserAgent = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36"

var chromeMajor = regexp.MustCompile(`Chrome/(\d+)`)

// UserAgentFor fills in the running Chromium's major version, read from
// Browser.getVersion's product ("HeadlessChrome/156.0.8078.79"). An
// unreadable version falls back to the one the plain fetch claims.
func (d Device) UserAgentFor(product string) string {
	m := chromeMajor.FindStringSubmatch(product)
	if m == nil {
		m = chromeMajor.FindStringSubmatch(DesktopUserAgent)
	}
	major := "0"
	if m != nil {
		major = m[1]
	}
	return strings.ReplaceAll(d.UserAgent, "{chrome}", major)
}
