package meta

import (
	"strings"
	"testing"
)

// TestZoneAbbreviationsAreReadAsThePagesRegionUsesThem covers zone
// abbreviations that several countries print for different zones.
func TestZoneAbbreviationsAreReadAsThePagesRegionUsesThem(t *testing.T) {
	page := func(head, stamp string) string {
		return head + `<body><article><h1>Rates rise again</h1><p class="byline">Published ` + stamp + `</p><p>Text.</p></article></body></html>`
	}
	tests := []struct {
		name, html, want string
	}{
		{"IST on an Indian English page is India's",
			page(`<html lang="en-IN">`, "March 5, 2024 10.34PM IST"), "2024-03-05T17:04:00.000Z"},
		{"IST on a page without a region is India's",
			page(`<html lang="en">`, "March 5, 2024 10.34PM IST"), "2024-03-05T17:04:00.000Z"},
		{"IST on an Irish English page is Ireland's",
			page(`<html lang="en-IE">`, "March 5, 2024 10.34PM IST"), "2024-03-05T21:34:00.000Z"},
		{"IST on a Hebrew page is Israel's",
			page(`<html lang="he">`, "March 5, 2024 10:34 PM IST"), "2024-03-05T20:34:00.000Z"},
		{"IST on a page of an Irish domain is Ireland's",
			page(`<html lang="en"><link rel="canonical" href="https://www.example.ie/news/rates">`, "March 5, 2024 10:34 PM IST"), "2024-03-05T21:34:00.000Z"},
		{"og:locale gives the region when the html tag does not",
			page(`<html><meta property="og:locale" content="en_IE">`, "March 5, 2024 10:34 PM IST"), "2024-03-05T21:34:00.000Z"},
		{"CST on a Chinese page is China's",
			page(`<html lang="zh">`, "March 5, 2024 10:34 PM CST"), "2024-03-05T14:34:00.000Z"},
		{"CST on an American page is US Central",
			page(`<html lang="en-US">`, "March 5, 2024 10:34 PM CST"), "2024-03-06T04:34:00.000Z"},
		{"PST on a Philippine page is the Philippines'",
			page(`<html lang="en-PH">`, "March 5, 2024 10:34 PM PST"), "2024-03-05T14:34:00.000Z"},
		{"BST on a Bengali page is Bangladesh's",
			page(`<html lang="bn">`, "March 5, 2024 10:34 PM BST"), "2024-03-05T16:34:00.000Z"},
		{"BST on a British page is British Summer Time",
			page(`<html lang="en-GB">`, "June 5, 2024 10:34 PM BST"), "2024-06-05T21:34:00.000Z"},
		{"AST on an Arabic page is Arabia's",
			page(`<html lang="ar">`, "March 5, 2024 10:34 PM AST"), "2024-03-05T19:34:00.000Z"},
		{"AST on a page without a region is Atlantic",
			page(`<html lang="en">`, "March 5, 2024 10:34 PM AST"), "2024-03-06T02:34:00.000Z"},
		{"East Africa Time is read",
			page(`<html lang="en-KE">`, "March 5, 2024 10:34 PM EAT"), "2024-03-05T19:34:00.000Z"},
		{"a language tag that does not parse gives no region",
			page(`<html lang="`+strings.Repeat("x-", 400)+`">`, "March 5, 2024 10:34 PM IST"), "2024-03-05T17:04:00.000Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := extractHTML(t, tt.html)
			if got := value(r.DatePublished); got != tt.want {
				t.Errorf("datePublished = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestSlashDatesAreReadAsThePageWritesItsDates covers numeric dates that
// read both ways (03/10/2023), read as the page writes its dates in words.
func TestSlashDatesAreReadAsThePageWritesItsDates(t *testing.T) {
	page := func(stamp, others string) string {
		return `<html lang="en"><body><article><h1>Wine styles</h1><p class="post-date">` + stamp + `</p><p>Text.</p></article>` +
			`<div class="more">` + others + `</div></body></html>`
	}
	tests := []struct {
		name, html, want string
	}{
		{"a page that writes its dates day first writes its slash dates so",
			page("03/10/2023", `<span class="date">13 October 2023</span><span class="date">3 September 2023</span>`), "2023-10-03T12:00:00.000Z"},
		{"a page that writes its dates month first writes its slash dates so",
			page("03/10/2023", `<span class="date">October 13, 2023</span>`), "2023-03-10T12:00:00.000Z"},
		{"a page that writes no dates in words reads a slash date month first",
			page("03/10/2023", ""), "2023-03-10T12:00:00.000Z"},
		{"a slash date that can be read only one way is read that way",
			page("10/23/2023", `<span class="date">13 October 2023</span>`), "2023-10-23T12:00:00.000Z"},
		{"a dotted date stays day first",
			page("03.10.2023", `<span class="date">October 13, 2023</span>`), "2023-10-03T12:00:00.000Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := extractHTML(t, tt.html)
			if got := value(r.DatePublished); got != tt.want {
				t.Errorf("datePublished = %q, want %q", got, tt.want)
			}
		})
	}
}
