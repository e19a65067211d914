package overlay

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"math"
	"strconv"
	"strings"

	"golang.org/x/image/colornames"
)

// MaxBackgroundLength bounds the text of a background: real gradients are
// a few hundred bytes, and the value is parsed on every request.
const MaxBackgroundLength = 4096

// maxStops bounds a gradient's colour stops.
const maxStops = 32

// Kind is what a background is.
type Kind int

const (
	// Transparent is no background at all, Microlink's default.
	Transparent Kind = iota
	// Solid is one colour.
	Solid
	// Gradient is a CSS linear or radial gradient.
	Gradient
	// Picture is an image at an http(s) URL, drawn to cover the canvas.
	Picture
)

// Background is a parsed `screenshot.overlay.background`.
type Background struct {
	Kind     Kind
	Color    color.NRGBA // Solid
	Gradient GradientSpec
	URL      string // Picture: the URL as given; the caller checks and fetches it
}

// GradientSpec is a CSS gradient reduced to what drawing it needs.
type GradientSpec struct {
	Radial bool
	// Linear: the direction in CSS degrees (0 is towards the top, 90
	// towards the right), unless Corner is set: `to top right` depends on
	// the box's proportions, so it is resolved when the size is known.
	Angle  float64
	Corner image.Point // x: -1 left, 1 right; y: -1 top, 1 bottom; zero: use Angle
	// Radial: the ending shape, its extent keyword and its centre as
	// fractions of the box.
	Circle bool
	Extent string // "closest-side", "closest-corner", "farthest-side" or "farthest-corner"
	At     [2]float64
	Stops  []Stop
}

// Stop is a colour at a position along the gradient line, 0 to 1 (CSS
// allows positions beyond both ends).
type Stop struct {
	Color color.NRGBA
	Pos   float64
}

// ParseBackground reads a background the way Microlink documents it: a
// hex, rgb() or rgba() colour or a colour name, a CSS linear-gradient()
// or radial-gradient(), or an http(s) image URL. Its errors are sentence
// ends that follow the parameter's name ("is not a colour: …").
func ParseBackground(s string) (Background, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return Background{}, errors.New("is empty; give a colour (`#c1c1c1`, `rgb(193, 193, 193)`, `white`), a CSS gradient or an http(s) image URL")
	case len(s) > MaxBackgroundLength:
		return Background{}, fmt.Errorf("is %d bytes long; a background may have up to %d bytes", len(s), MaxBackgroundLength)
	}
	// Neither colours nor gradients have a colon; a URL always has one.
	if i := strings.IndexByte(s, ':'); i >= 0 {
		scheme := strings.ToLower(s[:i])
		if scheme != "http" && scheme != "https" {
			return Background{}, fmt.Errorf("is a URL of scheme %s; a background image must be an http or https URL", quote(scheme))
		}
		return Background{Kind: Picture, URL: s}, nil
	}
	lower := strings.ToLower(s)
	if name, args, ok := function(lower); ok && strings.HasSuffix(name, "gradient") {
		g, err := parseGradient(name, args)
		if err != nil {
			return Background{}, err
		}
		return Background{Kind: Gradient, Gradient: g}, nil
	}
	c, err := ParseColor(lower)
	if err != nil {
		return Background{}, fmt.Errorf("%s; give a colour (`#c1c1c1`, `rgb(193, 193, 193)`, `white`), a CSS `linear-gradient()` or `radial-gradient()`, or an http(s) image URL", err)
	}
	if c.A == 0 {
		return Background{}, nil
	}
	return Background{Kind: Solid, Color: c}, nil
}

// function splits `name(args)`.
func function(s string) (name, args string, ok bool) {
	open := strings.IndexByte(s, '(')
	if open <= 0 || !strings.HasSuffix(s, ")") {
		return "", "", false
	}
	return strings.TrimSpace(s[:open]), s[open+1 : len(s)-1], true
}

func quote(s string) string {
	if len(s) > 64 {
		s = s[:64] + "…"
	}
	return "`" + s + "`"
}

func isColor(s string) bool {
	_, err := ParseColor(s)
	return err == nil
}

// ParseColor reads a CSS colour: `#rgb`, `#rgba`, `#rrggbb`, `#rrggbbaa`,
// `rgb()` and `rgba()` in comma or space syntax, `transparent` and the
// CSS colour names. s is in lower case.
func ParseColor(s string) (color.NRGBA, error) {
	s = strings.TrimSpace(s)
	if hex, ok := strings.CutPrefix(s, "#"); ok {
		return parseHex(hex)
	}
	if name, args, ok := function(s); ok {
		if name != "rgb" && name != "rgba" {
			return color.NRGBA{}, fmt.Errorf("uses the colour function %s, which glimpse does not read; use `rgb()` or `rgba()`", quote(name+"()"))
		}
		return parseRGB(args)
	}
	if s == "transparent" {
		return color.NRGBA{}, nil
	}
	if s == "rebeccapurple" { // CSS Color 4's one addition to the SVG names
		return color.NRGBA{R: 0x66, G: 0x33, B: 0x99, A: 255}, nil
	}
	if c, ok := colornames.Map[s]; ok {
		return color.NRGBA{R: c.R, G: c.G, B: c.B, A: 255}, nil
	}
	return color.NRGBA{}, fmt.Errorf("has %s, which is not a colour", quote(s))
}

func parseHex(h string) (color.NRGBA, error) {
	bad := fmt.Errorf("has %s, which is not a hex colour (`#rgb`, `#rgba`, `#rrggbb` or `#rrggbbaa`)", quote("#"+h))
	for i := 0; i < len(h); i++ {
		if !strings.ContainsRune("0123456789abcdef", rune(h[i])) {
			return color.NRGBA{}, bad
		}
	}
	digit := func(i int) uint8 { v, _ := strconv.ParseUint(h[i:i+1], 16, 8); return uint8(v) }
	pair := func(i int) uint8 { v, _ := strconv.ParseUint(h[i:i+2], 16, 8); return uint8(v) }
	switch len(h) {
	case 3, 4:
		c := color.NRGBA{R: digit(0) * 17, G: digit(1) * 17, B: digit(2) * 17, A: 255}
		if len(h) == 4 {
			c.A = digit(3) * 17
		}
		return c, nil
	case 6, 8:
		c := color.NRGBA{R: pair(0), G: pair(2), B: pair(4), A: 255}
		if len(h) == 8 {
			c.A = pair(6)
		}
		return c, nil
	}
	return color.NRGBA{}, bad
}

// parseRGB reads the arguments of rgb()/rgba(): `r, g, b[, a]` or
// `r g b[ / a]`, channels as 0–255 or percentages, alpha as 0–1 or a
// percentage.
func parseRGB(args string) (color.NRGBA, error) {
	bad := fmt.Errorf("has %s, which is not an rgb() colour; write `rgb(193, 193, 193)` or `rgba(193, 193, 193, 0.5)`", quote("rgb("+args+")"))
	var parts []string
	if strings.Contains(args, ",") {
		parts = strings.Split(args, ",")
	} else {
		channels, alpha, hasAlpha := strings.Cut(args, "/")
		parts = strings.Fields(channels)
		if hasAlpha {
			parts = append(parts, alpha)
		}
	}
	if len(parts) != 3 && len(parts) != 4 {
		return color.NRGBA{}, bad
	}
	var v [4]float64
	v[3] = 1
	for i, p := range parts {
		p = strings.TrimSpace(p)
		pct := strings.HasSuffix(p, "%")
		f, err := strconv.ParseFloat(strings.TrimSuffix(p, "%"), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return color.NRGBA{}, bad
		}
		switch {
		case pct:
			f /= 100
			if i < 3 {
				f *= 255
			}
		}
		limit := 255.0
		if i == 3 {
			limit = 1
		}
		v[i] = math.Max(0, math.Min(limit, f))
	}
	return color.NRGBA{R: uint8(math.Round(v[0])), G: uint8(math.Round(v[1])), B: uint8(math.Round(v[2])), A: uint8(math.Round(v[3] * 255))}, nil
}

// splitTop splits s at sep outside parentheses.
func splitTop(s string, sep func(rune) bool) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')':
			depth--
		case depth == 0 && sep(r):
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

func parseGradient(name, args string) (GradientSpec, error) {
	var g GradientSpec
	switch name {
	case "linear-gradient":
		g.Angle = 180 // CSS's default: towards the bottom
	case "radial-gradient":
		g.Radial, g.Extent, g.At = true, "farthest-corner", [2]float64{0.5, 0.5}
	default:
		return g, fmt.Errorf("uses %s; glimpse draws `linear-gradient()` and `radial-gradient()`", quote(name+"()"))
	}
	parts := splitTop(args, func(r rune) bool { return r == ',' })
	if len(parts) > maxStops+1 {
		return g, fmt.Errorf("has %d colour stops; a gradient may have up to %d", len(parts)-1, maxStops)
	}
	first := strings.TrimSpace(parts[0])
	if _, err := parseStop(first); err != nil && first != "" {
		if words := strings.Fields(first); len(words) > 0 && isColor(words[0]) {
			return g, err // a stop, badly written
		}
		var lead error
		if g.Radial {
			lead = g.radialShape(first)
		} else {
			lead = g.linearDirection(first)
		}
		if lead != nil {
			return g, lead
		}
		parts = parts[1:]
	}
	var stops []Stop
	var set []bool
	for _, p := range parts {
		st, err := parseStop(strings.TrimSpace(p))
		if err != nil {
			return g, err
		}
		if len(st.pos) == 0 {
			stops, set = append(stops, Stop{Color: st.c}), append(set, false)
		}
		for _, pos := range st.pos {
			stops, set = append(stops, Stop{Color: st.c, Pos: pos}), append(set, true)
		}
	}
	if len(stops) > maxStops {
		return g, fmt.Errorf("has %d colour stops; a gradient may have up to %d", len(stops), maxStops)
	}
	if len(stops) < 2 {
		return g, errors.New("has fewer than two colour stops; a gradient needs at least two, as in `linear-gradient(90deg, #fff 0%, #000 100%)`")
	}
	resolvePositions(stops, set)
	g.Stops = stops
	return g, nil
}

// resolvePositions fills in missing stop positions as CSS does: the ends
// default to 0 and 1, a position before an earlier one moves up to it,
// and runs without positions are spread evenly.
func resolvePositions(stops []Stop, set []bool) {
	n := len(stops)
	if !set[0] {
		stops[0].Pos, set[0] = 0, true
	}
	if !set[n-1] {
		stops[n-1].Pos, set[n-1] = 1, true
	}
	high := math.Inf(-1)
	for i := range stops {
		if set[i] {
			high = math.Max(high, stops[i].Pos)
			stops[i].Pos = high
		}
	}
	for i := 1; i < n; {
		if set[i] {
			i++
			continue
		}
		j := i
		for !set[j] {
			j++
		}
		from, to := stops[i-1].Pos, stops[j].Pos
		for k := i; k < j; k++ {
			stops[k].Pos = from + (to-from)*float64(k-i+1)/float64(j-i+1)
		}
		i = j
	}
}

type stopSpec struct {
	c   color.NRGBA
	pos []float64
}

// parseStop reads `<colour> [<pos> [<pos>]]`, positions as percentages
// (or a bare 0).
func parseStop(s string) (stopSpec, error) {
	words := splitTop(s, func(r rune) bool { return r == ' ' || r == '\t' })
	var fields []string
	for _, w := range words {
		if w = strings.TrimSpace(w); w != "" {
			fields = append(fields, w)
		}
	}
	if len(fields) == 0 {
		return stopSpec{}, errors.New("has an empty colour stop; remove the stray comma")
	}
	c, err := ParseColor(fields[0])
	if err != nil {
		return stopSpec{}, err
	}
	if len(fields) > 3 {
		return stopSpec{}, fmt.Errorf("has the colour stop %s; a stop is a colour and up to two percentages", quote(s))
	}
	st := stopSpec{c: c}
	for _, f := range fields[1:] {
		var v float64
		switch {
		case f == "0":
		case strings.HasSuffix(f, "%"):
			v, err = strconv.ParseFloat(strings.TrimSuffix(f, "%"), 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > 1e6 {
				return stopSpec{}, fmt.Errorf("has the stop position %s, which is not a percentage", quote(f))
			}
			v /= 100
		default:
			return stopSpec{}, fmt.Errorf("has the stop position %s; give stop positions as percentages, such as `50%%`", quote(f))
		}
		st.pos = append(st.pos, v)
	}
	return st, nil
}

// linearDirection reads `<angle>` or `to <side> [<side>]`.
func (g *GradientSpec) linearDirection(s string) error {
	if rest, ok := strings.CutPrefix(s, "to "); ok {
		var corner image.Point
		for _, w := range strings.Fields(rest) {
			switch {
			case w == "left" && corner.X == 0:
				corner.X = -1
			case w == "right" && corner.X == 0:
				corner.X = 1
			case w == "top" && corner.Y == 0:
				corner.Y = -1
			case w == "bottom" && corner.Y == 0:
				corner.Y = 1
			default:
				return fmt.Errorf("has the direction %s; write `to right`, `to bottom left` and the like, or an angle such as `225deg`", quote(s))
			}
		}
		switch {
		case corner == image.Point{}:
			return fmt.Errorf("has the direction %s, which names no side; write `to right`, `to top left` and the like", quote(s))
		case corner.X == 0:
			g.Angle = float64(90 + 90*corner.Y) // to top: 0, to bottom: 180
		case corner.Y == 0:
			g.Angle = float64(180 - 90*corner.X) // to right: 90, to left: 270
		default:
			g.Angle, g.Corner = 0, corner
		}
		return nil
	}
	a, err := parseAngle(s)
	if err != nil {
		return err
	}
	g.Angle = a
	return nil
}

// parseAngle reads a CSS angle: deg, grad, rad or turn, or a bare 0.
func parseAngle(s string) (float64, error) {
	bad := fmt.Errorf("starts with %s, which is neither a colour stop nor a direction; give an angle (`225deg`, `0.5turn`) or `to <side>`", quote(s))
	if s == "0" {
		return 0, nil
	}
	units := []struct {
		suffix string
		deg    float64
	}{{"deg", 1}, {"grad", 0.9}, {"rad", 180 / math.Pi}, {"turn", 360}}
	for _, u := range units {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			v, err := strconv.ParseFloat(num, 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > 1e6 {
				return 0, bad
			}
			return v * u.deg, nil
		}
	}
	return 0, bad
}

// radialShape reads `[circle|ellipse] [<extent>] [at <position>]`.
func (g *GradientSpec) radialShape(s string) error {
	shape, at, hasAt := strings.Cut(" "+s+" ", " at ")
	for _, w := range strings.Fields(shape) {
		switch w {
		case "circle":
			g.Circle = true
		case "ellipse":
		case "closest-side", "closest-corner", "farthest-side", "farthest-corner":
			g.Extent = w
		default:
			return fmt.Errorf("starts with %s, which is neither a colour stop nor a shape; write `circle`, `ellipse`, an extent such as `closest-side` and `at <position>`, sizes in lengths are not read", quote(s))
		}
	}
	if hasAt {
		pos, err := parsePosition(strings.Fields(at))
		if err != nil {
			return fmt.Errorf("has the position %s; write `at center`, `at top left` or `at 30%% 70%%`", quote("at "+strings.TrimSpace(at)))
		}
		g.At = pos
	}
	return nil
}

// parsePosition reads one or two keywords or percentages.
func parsePosition(words []string) ([2]float64, error) {
	pos := [2]float64{0.5, 0.5}
	if len(words) == 0 || len(words) > 2 {
		return pos, errors.New("bad position")
	}
	var xSet, ySet bool
	for i, w := range words {
		switch w {
		case "left", "right":
			if xSet {
				return pos, errors.New("bad position")
			}
			pos[0], xSet = map[string]float64{"left": 0, "right": 1}[w], true
		case "top", "bottom":
			if ySet {
				return pos, errors.New("bad position")
			}
			pos[1], ySet = map[string]float64{"top": 0, "bottom": 1}[w], true
		case "center":
		default:
			num, ok := strings.CutSuffix(w, "%")
			v, err := strconv.ParseFloat(num, 64)
			if !ok || err != nil || math.IsNaN(v) || math.Abs(v) > 1e6 {
				return pos, errors.New("bad position")
			}
			// A percentage is horizontal first, vertical second.
			if i == 0 && !xSet {
				pos[0], xSet = v/100, true
			} else if !ySet {
				pos[1], ySet = v/100, true
			} else {
				return pos, errors.New("bad position")
			}
		}
	}
	return pos, nil
}
