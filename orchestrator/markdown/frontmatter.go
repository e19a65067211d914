package markdown

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// WordsPerMinute is the reading speed reading_time assumes: the mean
// silent reading rate of adults for non-fiction in English (Brysbaert,
// 2019), close to the 255 characters a minute found for Chinese, where
// WordCount counts each character as a word.
const WordsPerMinute = 238

// Field is one key of a frontmatter block and its value. Value may be a
// string, nil (written null), a bool, an integer or a float, a slice of
// those, a []Field (a nested object whose keys keep their order) or a
// map[string]any (a nested object whose keys are sorted), such as an asset
// with url, type and size.
type Field struct {
	Key   string
	Value any
}

// Frontmatter is a YAML frontmatter block for a Markdown body: "---", the
// fields in the order given, then word_count and reading_time (whole
// minutes at WordsPerMinute, rounded up) computed from body, "---" and a
// blank line. Any YAML parser reads the block back to the same values:
// strings that would read as another type (a number, a date, true, null),
// or that hold colons, quotes, line breaks or a leading '-' or '#', are
// quoted or written as blocks. It fails on an empty or repeated key (the
// two computed ones included) and on a value it cannot write.
func Frontmatter(fields []Field, body string) (string, error) {
	words := WordCount(body)
	all := append(append([]Field(nil), fields...),
		Field{Key: "word_count", Value: words},
		Field{Key: "reading_time", Value: ReadingTime(words)})
	node, err := mappingNode(all, 0)
	if err != nil {
		return "", err
	}
	var sb strings.Builder
	enc := yaml.NewEncoder(&sb)
	enc.SetIndent(2)
	if err := enc.Encode(node); err != nil {
		return "", fmt.Errorf("markdown: the frontmatter cannot be written as YAML: %w", err)
	}
	if err := enc.Close(); err != nil {
		return "", fmt.Errorf("markdown: the frontmatter cannot be written as YAML: %w", err)
	}
	return "---\n" + sb.String() + "---\n\n", nil
}

// ReadingTime is the whole minutes, rounded up, that words take to read at
// WordsPerMinute.
func ReadingTime(words int) int {
	return int(math.Ceil(float64(max(words, 0)) / WordsPerMinute))
}

// maxNesting bounds nested objects and lists in frontmatter values.
const maxNesting = 16

func mappingNode(fields []Field, depth int) (*yaml.Node, error) {
	if depth > maxNesting {
		return nil, errors.New("markdown: the frontmatter nests deeper than 16 levels")
	}
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	seen := map[string]bool{}
	for _, f := range fields {
		if f.Key == "" {
			return nil, errors.New("markdown: a frontmatter field has an empty key")
		}
		if seen[f.Key] {
			return nil, fmt.Errorf("markdown: the frontmatter key %q is given twice", f.Key)
		}
		seen[f.Key] = true
		v, err := valueNode(f.Value, depth)
		if err != nil {
			return nil, fmt.Errorf("markdown: frontmatter key %q: %w", f.Key, err)
		}
		m.Content = append(m.Content, strNode(f.Key), v)
	}
	return m, nil
}

func strNode(s string) *yaml.Node {
	s = strings.ToValidUTF8(s, "\uFFFD")
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
	if strings.ContainsFunc(s, unsafeInYAML) {
		// Characters YAML may not print as they are are escaped in
		// double quotes.
		n.Style = yaml.DoubleQuotedStyle
	}
	return n
}

// unsafeInYAML reports characters a YAML stream may not carry as they are:
// controls other than tab and line feed, and the byte-order mark.
func unsafeInYAML(r rune) bool {
	return r != '\t' && r != '\n' && (unicode.IsControl(r) || r == '\ufeff' || r == '\u2028' || r == '\u2029')
}

func valueNode(v any, depth int) (*yaml.Node, error) {
	switch x := v.(type) {
	case nil:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}, nil
	case string:
		return strNode(x), nil
	case *string:
		if x == nil {
			return valueNode(nil, depth)
		}
		return strNode(*x), nil
	case []Field:
		return mappingNode(x, depth+1)
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		fields := make([]Field, 0, len(keys))
		for _, k := range keys {
			fields = append(fields, Field{Key: k, Value: x[k]})
		}
		return mappingNode(fields, depth+1)
	case []string:
		items := make([]any, len(x))
		for i, s := range x {
			items[i] = s
		}
		return valueNode(items, depth)
	case []any:
		if depth > maxNesting {
			return nil, errors.New("the value nests deeper than 16 levels")
		}
		seq := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		for _, item := range x {
			n, err := valueNode(item, depth+1)
			if err != nil {
				return nil, err
			}
			seq.Content = append(seq.Content, n)
		}
		return seq, nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("%v is not a number YAML readers agree on", x)
		}
	case float32:
		return valueNode(float64(x), depth)
	case bool, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
	default:
		return nil, fmt.Errorf("a value of type %T cannot be written", v)
	}
	n := &yaml.Node{}
	if err := n.Encode(v); err != nil {
		return nil, err
	}
	return n, nil
}

var (
	// imageRe and linkTargetRe find what a reader of the page never reads
	// as words: images and the addresses links lead to.
	imageRe      = regexp.MustCompile(`!\[[^\]]*\]\([^)]*\)`)
	linkTargetRe = regexp.MustCompile(`\]\([^)\s]*(?:\s+"[^"]*")?\)`)
	autolinkRe   = regexp.MustCompile(`<(?:https?|ftp|mailto):[^>\s]*>`)
	commentRe    = regexp.MustCompile(`(?s)<!--.*?-->`)
)

// WordCount counts the words a reader reads in Markdown: runs of letters
// and digits (an apostrophe or hyphen between two letters joins them, as
// does a point or comma between two digits), with
// each Han or kana character a word of its own, as those scripts do not
// space words. Images, link addresses and HTML comments do
// not count; code does.
func WordCount(markdown string) int {
	s := commentRe.ReplaceAllString(markdown, " ")
	s = imageRe.ReplaceAllString(s, " ")
	s = linkTargetRe.ReplaceAllString(s, "]")
	s = autolinkRe.ReplaceAllString(s, " ")
	count, inWord := 0, false
	prev := rune(0)
	for i, r := range s {
		switch {
		case ideographic(r):
			count++
			inWord = false
		case unicode.IsLetter(r) || unicode.IsDigit(r) || (unicode.Is(unicode.M, r) && inWord):
			if !inWord {
				count++
			}
			inWord = true
		case (r == '\'' || r == '’' || r == '-') && inWord && unicode.IsLetter(prev):
			next, _ := utf8.DecodeRuneInString(s[i+utf8.RuneLen(r):])
			inWord = unicode.IsLetter(next)
		case (r == '.' || r == ',') && inWord && unicode.IsDigit(prev):
			next, _ := utf8.DecodeRuneInString(s[i+1:])
			inWord = unicode.IsDigit(next)
		default:
			inWord = false
		}
		prev = r
	}
	return count
}

// ideographic reports characters that are words of their own.
func ideographic(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r)
}
