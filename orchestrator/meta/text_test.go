package meta

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTruncate(t *testing.T) {
	tests := []struct {
		name, in string
		max      int
		want     string
	}{
		{"short text is left alone", "Hello world", 20, "Hello world"},
		{"text exactly at the limit is left alone", "Hello world", 11, "Hello world"},
		{"long text is cut at the last word boundary", "The quick brown fox jumps over", 20, "The quick brown fox…"},
		{"a cut right after a word keeps that word", "The quick brown fox jumps", 20, "The quick brown fox…"},
		{"punctuation before the cut goes", "One, two, three, four", 15, "One, two…"},
		{"one long word is cut mid-word", "Supercalifragilisticexpialidocious", 10, "Supercali…"},
		{"text without spaces is cut by characters", "これは日本語の文章でスペースがありません", 8, "これは日本語の…"},
		{"a limit of one leaves the ellipsis", "Hello", 1, "…"},
		{"a limit of zero leaves nothing", "Hello", 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Truncate(tt.in, tt.max)
			if got != tt.want {
				t.Errorf("Truncate(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
			}
			if utf8.RuneCountInString(got) > max(tt.max, 0) {
				t.Errorf("Truncate(%q, %d) = %q is longer than the limit", tt.in, tt.max, got)
			}
		})
	}
}

func TestSmartQuotes(t *testing.T) {
	for in, want := range map[string]string{
		`"Hello," she said`:       "“Hello,” she said",
		`it's John's`:             "it’s John’s",
		`'Sway'`:                  "‘Sway’",
		`Time to 'come out'`:      "Time to ‘come out’",
		`the '90s`:                "the ’90s",
		`rock 'n' roll`:           "rock ‘n’ roll",
		`students' work`:          "students’ work",
		`5'10" tall`:              "5′10″ tall",
		`The "1990" edition`:      "The “1990” edition",
		`no quotes at all`:        "no quotes at all",
		`(“already” typographic)`: "(“already” typographic)",
		`say "hi" and 'bye'`:      "say “hi” and ‘bye’",
		`Jane "JD" Doe`:           "Jane “JD” Doe",
	} {
		if got := smartQuotes(in); got != want {
			t.Errorf("smartQuotes(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCleanText(t *testing.T) {
	for in, want := range map[string]string{
		"  a \n\t b  ":                "a b",
		"caf\u0065\u0301":             "café", // NFC
		"AT&amp;T":                    "AT&T",
		"a&nbsp;b":                    "a b",
		"zero\u200bwidth\u2060joined": "zerowidthjoined",
		"\ufeffBOM":                   "BOM",
		"R&D stays":                   "R&D stays",
		"family 👨\u200d👩\u200d👧":      "family 👨\u200d👩\u200d👧",
		"bad \xff byte":               "bad byte",
		"ctl\x00\x07chars":            "ctlchars",
		"":                            "",
	} {
		if got := cleanText(in); got != want {
			t.Errorf("cleanText(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestStripSiteSuffixCutsABrandTheDomainStartsWith(t *testing.T) {
	u := mustURL(t, "https://shop.acmecorp.com/a")
	for in, want := range map[string]string{
		"Story | Acme":          "Story",
		"Story – Acme Corp":     "Story",
		"Story | Ac":            "Story | Ac",
		"Story | Acmecorporate": "Story | Acmecorporate",
	} {
		if got := stripSiteSuffix(in, "", u); got != want {
			t.Errorf("stripSiteSuffix(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestStripSiteSuffixLeavesTitlesWithoutOneAlone(t *testing.T) {
	u := mustURL(t, "https://www.example.co.uk/a")
	for in, want := range map[string]string{
		"Story | Example":       "Story",
		"Story - example.co.uk": "Story",
		"Story | Other Site":    "Story | Other Site",
		"Example":               "Example",
		"A - B - C":             "A - B - C",
		"Story | The Example":   "Story",
		"Story : Example":       "Story",
		"Story: A Subtitle":     "Story: A Subtitle",
		"Story | Exa":           "Story | Exa",
		strings.Repeat("x ", 3): "x x x ",
	} {
		if got := stripSiteSuffix(in, "", u); got != want {
			t.Errorf("stripSiteSuffix(%q) = %q, want %q", in, got, want)
		}
	}
}
