package markdown

import (
	"math"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// trickyStrings are values that a naive writer would turn into other
// values, broken YAML or another document.
var trickyStrings = []string{
	"plain words",
	"title: with a colon",
	"key: value # not a comment",
	`He said "hi" and 'bye'`,
	"first line\nsecond line\n",
	"trailing newline\n",
	"- looks like a list item",
	"# looks like a comment",
	"---",
	"...",
	"null", "~", "true", "no", "yes", "off", "123", "1e3", "0x1F", "-0", ".inf", "2024-01-02", "2024-01-02T03:04:05Z",
	"", " leading space", "trailing space ",
	"tab\tinside",
	"日本語のタイトル — “typographic” quotes",
	"emoji 😀 and ümlauts",
	"bell \a and escape \x1b controls",
	"byte order mark \ufeff inside",
	"@at", "`backtick", "%percent", "*star", "&anchor", "!tag", "|pipe", ">folded", "{brace}", "[bracket]", "?question", ",comma",
	"a line separator \u2028 inside",
}

func TestFrontmatterReadsBackToTheSameValues(t *testing.T) {
	var fields []Field
	for i, s := range trickyStrings {
		fields = append(fields, Field{Key: "s" + string(rune('a'+i/26)) + string(rune('a'+i%26)), Value: s})
	}
	title := "A title"
	fields = append(fields,
		Field{Key: "description", Value: nil},
		Field{Key: "title_ptr", Value: &title},
		Field{Key: "nil_ptr", Value: (*string)(nil)},
		Field{Key: "image", Value: []Field{{Key: "url", Value: "https://example.com/a.png?x=1&y=2#frag"}, {Key: "type", Value: "png"}, {Key: "size", Value: 12345}, {Key: "width", Value: 640}}},
		Field{Key: "logo", Value: map[string]any{"url": "https://example.com/logo.svg", "type": "svg", "size_pretty": "1.2 kB"}},
		Field{Key: "keywords", Value: []string{"one", "two: three", "- four"}},
		Field{Key: "ratio", Value: 0.5},
		Field{Key: "published", Value: true},
		Field{Key: "count", Value: int64(-7)},
	)
	body := "# Heading\n\nSome words in a body, with a [link](https://example.com/x) and an ![image](https://example.com/i.png).\n"
	out, err := Frontmatter(fields, body)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, "---\n") || !strings.HasSuffix(out, "\n---\n\n") {
		t.Fatalf("the block is not fenced by --- lines and followed by a blank line:\n%s", out)
	}
	inner := strings.TrimSuffix(strings.TrimPrefix(out, "---\n"), "---\n\n")
	if strings.Contains(inner, "\n---\n") || strings.Contains(inner, "\n...\n") {
		t.Fatalf("a value ends the block early:\n%s", out)
	}

	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(inner), &doc); err != nil {
		t.Fatalf("the frontmatter is not valid YAML: %v\n%s", err, out)
	}
	m := doc.Content[0]
	var keys []string
	for i := 0; i < len(m.Content); i += 2 {
		keys = append(keys, m.Content[i].Value)
	}
	var wantKeys []string
	for _, f := range fields {
		wantKeys = append(wantKeys, f.Key)
	}
	wantKeys = append(wantKeys, "word_count", "reading_time")
	if strings.Join(keys, ",") != strings.Join(wantKeys, ",") {
		t.Errorf("the keys are %v, want them in the order given: %v", keys, wantKeys)
	}

	var got map[string]any
	if err := yaml.Unmarshal([]byte(inner), &got); err != nil {
		t.Fatal(err)
	}
	for i, s := range trickyStrings {
		key := fields[i].Key
		t.Run("the string "+strings.ToValidUTF8(key+" "+s, "?")+" reads back as itself", func(t *testing.T) {
			v, ok := got[key].(string)
			if !ok || v != s {
				t.Errorf("read back %#v (%T), want %q", got[key], got[key], s)
			}
		})
	}
	checks := map[string]any{
		"description": nil, "title_ptr": "A title", "nil_ptr": nil, "ratio": 0.5, "published": true, "count": -7,
		"word_count": 11, "reading_time": 1,
	}
	for k, want := range checks {
		t.Run(k+" reads back as its value", func(t *testing.T) {
			if got[k] != want {
				t.Errorf("read back %#v (%T), want %#v", got[k], got[k], want)
			}
		})
	}
	t.Run("nested objects read back whole", func(t *testing.T) {
		img, _ := got["image"].(map[string]any)
		if img["url"] != "https://example.com/a.png?x=1&y=2#frag" || img["type"] != "png" || img["size"] != 12345 || img["width"] != 640 {
			t.Errorf("image read back as %#v", got["image"])
		}
		logo, _ := got["logo"].(map[string]any)
		if logo["url"] != "https://example.com/logo.svg" || logo["size_pretty"] != "1.2 kB" {
			t.Errorf("logo read back as %#v", got["logo"])
		}
		kw, _ := got["keywords"].([]any)
		if len(kw) != 3 || kw[1] != "two: three" || kw[2] != "- four" {
			t.Errorf("keywords read back as %#v", got["keywords"])
		}
	})
	t.Run("the same fields give the same bytes", func(t *testing.T) {
		again, err := Frontmatter(fields, body)
		if err != nil || again != out {
			t.Errorf("a second block differs (%v)", err)
		}
	})
}

func TestFrontmatterRefusesWhatItCannotWrite(t *testing.T) {
	cases := []struct {
		name   string
		fields []Field
	}{
		{"an empty key", []Field{{Key: "", Value: "x"}}},
		{"a repeated key", []Field{{Key: "title", Value: "a"}, {Key: "title", Value: "b"}}},
		{"a key it computes itself", []Field{{Key: "word_count", Value: 3}}},
		{"a value of an unknown type", []Field{{Key: "x", Value: struct{ A int }{1}}}},
		{"a number that is not one", []Field{{Key: "x", Value: math.NaN()}}},
		{"a repeated key in a nested object", []Field{{Key: "image", Value: []Field{{Key: "url", Value: "a"}, {Key: "url", Value: "b"}}}}},
	}
	for _, c := range cases {
		t.Run(c.name+" is refused", func(t *testing.T) {
			if out, err := Frontmatter(c.fields, "body"); err == nil {
				t.Errorf("got no error and\n%s", out)
			}
		})
	}
}

func TestFrontmatterWithoutFieldsStillCounts(t *testing.T) {
	out, err := Frontmatter(nil, "")
	if err != nil || out != "---\nword_count: 0\nreading_time: 0\n---\n\n" {
		t.Errorf("got %q, %v", out, err)
	}
}

func TestWordCountCountsWhatAReaderReads(t *testing.T) {
	cases := []struct {
		name, md string
		want     int
	}{
		{"plain words", "one two three", 3},
		{"punctuation is not a word", "one, two — three... !", 3},
		{"contractions and hyphenated words are one word", "don't well-known it’s", 3},
		{"Markdown syntax is not words", "# Title\n\n- **bold** item\n> quoted\n\n| a | b |\n|---|---|", 6},
		{"a link counts its text, not its address", "[the docs](https://example.com/very/long/path?x=1 \"Title words\")", 2},
		{"an image does not count", "![alt words here](https://example.com/i.png) after", 1},
		{"an autolink does not count", "<https://example.com/a/b> after", 1},
		{"code counts", "```go\nfunc main() {}\n```", 3},
		{"numbers count, decimals and thousands as one", "in 2026 about 3.5 percent of 1,000", 7},
		{"each Han and kana character is a word", "日本語のテキスト", 8},
		{"other scripts count by spaces", "Привет мир, γειά σου κόσμε", 5},
		{"combining marks stay inside their word", "नमस्ते दुनिया", 2},
		{"HTML comments do not count", "a <!-- b c --> d", 2},
		{"nothing is no words", "", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := WordCount(c.md); got != c.want {
				t.Errorf("WordCount(%q) = %d, want %d", c.md, got, c.want)
			}
		})
	}
}

func TestReadingTimeRoundsUpWholeMinutes(t *testing.T) {
	for words, want := range map[int]int{0: 0, 1: 1, WordsPerMinute: 1, WordsPerMinute + 1: 2, 10 * WordsPerMinute: 10, -5: 0} {
		if got := ReadingTime(words); got != want {
			t.Errorf("ReadingTime(%d) = %d, want %d", words, got, want)
		}
	}
}
