package metricstest

import (
	"fmt"
	"sort"
	"strings"
)

// Words of PromQL that are not metric names where they appear bare.
var promqlWords = map[string]bool{
	"and": true, "or": true, "unless": true, "bool": true, "offset": true, "atan2": true,
	"by": true, "without": true, "on": true, "ignoring": true, "group_left": true, "group_right": true,
	"sum": true, "min": true, "max": true, "avg": true, "group": true, "stddev": true, "stdvar": true,
	"count": true, "count_values": true, "bottomk": true, "topk": true, "quantile": true,
	"limitk": true, "limit_ratio": true, "inf": true, "nan": true,
}

// Keywords followed by a parenthesised list of label names.
var labelListWords = map[string]bool{
	"by": true, "without": true, "on": true, "ignoring": true, "group_left": true, "group_right": true,
}

// MetricNames returns, sorted and once each, the metric names that a valid
// PromQL expression selects. It reads the expression as tokens, so it
// expects one that promtool accepts; it refuses selectors by __name__,
// whose metric it cannot know.
func MetricNames(expr string) ([]string, error) {
	seen := map[string]bool{}
	i := 0
	n := len(expr)
	skipSpace := func() {
		for i < n && strings.IndexByte(" \t\r\n", expr[i]) >= 0 {
			i++
		}
	}
	// skipGroup moves past the bracketed group that starts at i, honouring
	// strings inside it, and returns its inside.
	skipGroup := func(open, close byte) (string, error) {
		start := i
		depth := 0
		for i < n {
			c := expr[i]
			switch {
			case c == '"' || c == '\'' || c == '`':
				if err := skipString(expr, &i); err != nil {
					return "", err
				}
				continue
			case c == open:
				depth++
			case c == close:
				depth--
				if depth == 0 {
					i++
					return expr[start+1 : i-1], nil
				}
			}
			i++
		}
		return "", fmt.Errorf("the expression %q has an unclosed %q", expr, string(open))
	}

	for i < n {
		c := expr[i]
		switch {
		case c == '#':
			for i < n && expr[i] != '\n' {
				i++
			}
		case c == '"' || c == '\'' || c == '`':
			if err := skipString(expr, &i); err != nil {
				return nil, err
			}
		case c == '{':
			inside, err := skipGroup('{', '}')
			if err != nil {
				return nil, err
			}
			if strings.Contains(inside, "__name__") {
				return nil, fmt.Errorf("the expression %q selects series by __name__; name the metric instead", expr)
			}
		case c == '[':
			if _, err := skipGroup('[', ']'); err != nil {
				return nil, err
			}
		case c >= '0' && c <= '9' || c == '.':
			// numbers and durations, including 1e3, 0x1f and 5m30s
			for i < n && (isIdentChar(expr[i]) || expr[i] == '.') {
				i++
			}
		case isIdentStart(c):
			start := i
			for i < n && isIdentChar(expr[i]) {
				i++
			}
			word := expr[start:i]
			lower := strings.ToLower(word)
			skipSpace()
			switch {
			case labelListWords[lower]:
				if i < n && expr[i] == '(' {
					if _, err := skipGroup('(', ')'); err != nil {
						return nil, err
					}
				}
			case promqlWords[lower]:
			case i < n && expr[i] == '(':
				// a function call
			default:
				seen[word] = true
			}
		default:
			i++
		}
	}
	names := make([]string, 0, len(seen))
	for k := range seen {
		names = append(names, k)
	}
	sort.Strings(names)
	return names, nil
}

func skipString(s string, i *int) error {
	quote := s[*i]
	j := *i + 1
	for j < len(s) {
		switch {
		case s[j] == '\\' && quote != '`':
			j += 2
			continue
		case s[j] == quote:
			*i = j + 1
			return nil
		}
		j++
	}
	return fmt.Errorf("the expression %q has an unclosed string", s)
}

func isIdentStart(c byte) bool {
	return c == '_' || c == ':' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isIdentChar(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }
