package overlay

import (
	"image"
	"image/color"
	"math"
	"strings"
	"testing"
)

func TestParseBackgroundReadsEveryDocumentedForm(t *testing.T) {
	grey := color.NRGBA{R: 0xc1, G: 0xc1, B: 0xc1, A: 0xff}
	cases := []struct {
		name, in string
		kind     Kind
		color    color.NRGBA
	}{
		{"a six-digit hex colour", "#c1c1c1", Solid, grey},
		{"a hex colour in capitals", "#C1C1C1", Solid, grey},
		{"a three-digit hex colour", "#abc", Solid, color.NRGBA{R: 0xaa, G: 0xbb, B: 0xcc, A: 0xff}},
		{"a four-digit hex colour", "#abc8", Solid, color.NRGBA{R: 0xaa, G: 0xbb, B: 0xcc, A: 0x88}},
		{"an eight-digit hex colour", "#c1c1c180", Solid, color.NRGBA{R: 0xc1, G: 0xc1, B: 0xc1, A: 0x80}},
		{"rgb() with commas", "rgb(193, 193, 193)", Solid, grey},
		{"rgba() with commas", "rgba(255,0,0,0.5)", Solid, color.NRGBA{R: 255, A: 128}},
		{"rgb() in space syntax with alpha", "rgb(255 0 0 / 50%)", Solid, color.NRGBA{R: 255, A: 128}},
		{"rgb() in percentages", "rgb(100%, 0%, 50%)", Solid, color.NRGBA{R: 255, B: 128, A: 255}},
		{"rgb() out of range is clamped, as CSS does", "rgb(300, -5, 0)", Solid, color.NRGBA{R: 255, A: 255}},
		{"a colour name", "white", Solid, color.NRGBA{R: 255, G: 255, B: 255, A: 255}},
		{"a colour name in any case", "DarkSlateGray", Solid, color.NRGBA{R: 47, G: 79, B: 79, A: 255}},
		{"rebeccapurple", "rebeccapurple", Solid, color.NRGBA{R: 0x66, G: 0x33, B: 0x99, A: 255}},
		{"transparent is no background", "transparent", Transparent, color.NRGBA{}},
		{"a fully transparent colour is no background", "#0000", Transparent, color.NRGBA{}},
		{"a linear gradient", "linear-gradient(225deg, #FF057C 0%, #8D0B93 50%, #321575 100%)", Gradient, color.NRGBA{}},
		{"a radial gradient", "radial-gradient(circle, red, blue)", Gradient, color.NRGBA{}},
		{"an https image", "https://example.com/bg.png", Picture, color.NRGBA{}},
		{"an http image in capitals", "HTTP://example.com/bg.png", Picture, color.NRGBA{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			bg, err := ParseBackground(tc.in)
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			if bg.Kind != tc.kind {
				t.Fatalf("kind %d, want %d", bg.Kind, tc.kind)
			}
			if tc.kind == Solid && bg.Color != tc.color {
				t.Errorf("colour %v, want %v", bg.Color, tc.color)
			}
			if tc.kind == Picture && bg.URL != tc.in {
				t.Errorf("URL %q, want %q", bg.URL, tc.in)
			}
		})
	}
}

func TestParseBackgroundRefusesWhatItCannotDraw(t *testing.T) {
	cases := []struct{ name, in, msg string }{
		{"empty", " ", "is empty"},
		{"too long", "#" + strings.Repeat("a", MaxBackgroundLength), "up to 4096 bytes"},
		{"an unknown name", "blurple", "`blurple`, which is not a colour"},
		{"a five-digit hex colour", "#c1c1c", "not a hex colour"},
		{"a hex colour with a letter past f", "#gggggg", "not a hex colour"},
		{"rgb() with two channels", "rgb(1, 2)", "not an rgb() colour"},
		{"rgb() with five values", "rgb(1, 2, 3, 4, 5)", "not an rgb() colour"},
		{"rgb() with a word", "rgb(1, 2, x)", "not an rgb() colour"},
		{"rgb() with NaN", "rgb(nan, 2, 3)", "not an rgb() colour"},
		{"hsl()", "hsl(0, 0%, 50%)", "`hsl()`"},
		{"a file URL", "file:///etc/passwd", "scheme `file`"},
		{"a javascript URL", "javascript:alert(1)", "scheme `javascript`"},
		{"a one-stop gradient", "linear-gradient(red)", "at least two"},
		{"an empty gradient", "linear-gradient()", "empty colour stop"},
		{"a gradient with a stray comma", "linear-gradient(red,,blue)", "empty colour stop"},
		{"a conic gradient", "conic-gradient(red, blue)", "`conic-gradient()`"},
		{"a repeating gradient", "repeating-linear-gradient(red, blue)", "`repeating-linear-gradient()`"},
		{"an angle without a known unit", "linear-gradient(45, red, blue)", "`45`"},
		{"an angle that is not a number", "linear-gradient(xdeg, red, blue)", "`xdeg`"},
		{"a direction naming a side twice", "linear-gradient(to left right, red, blue)", "`to left right`"},
		{"a direction with no side", "linear-gradient(to, red, blue)", "`to`"},
		{"a stop position in pixels", "linear-gradient(red 10px, blue)", "percentages"},
		{"a stop with three positions", "linear-gradient(red 1% 2% 3%, blue)", "up to two percentages"},
		{"a stop position that is not a number", "linear-gradient(red x%, blue)", "not a percentage"},
		{"a bad colour inside a gradient", "linear-gradient(red, nocolour)", "`nocolour`"},
		{"a radial size in pixels", "radial-gradient(circle 40px, red, blue)", "neither a colour stop nor a shape"},
		{"a radial position that is a word", "radial-gradient(circle at middle, red, blue)", "`at middle`"},
		{"too many stops", "linear-gradient(" + strings.Repeat("red,", maxStops) + "blue)", "up to 32"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			bg, err := ParseBackground(tc.in)
			if err == nil {
				t.Fatalf("accepted as %+v", bg)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %q does not contain %q", err, tc.msg)
			}
		})
	}
}

func TestGradientDirectionsAndStopPositions(t *testing.T) {
	cases := []struct {
		in     string
		angle  float64
		corner image.Point
		pos    []float64
	}{
		{"linear-gradient(red, blue)", 180, image.Point{}, []float64{0, 1}},
		{"linear-gradient(to right, red, blue)", 90, image.Point{}, []float64{0, 1}},
		{"linear-gradient(to left, red, blue)", 270, image.Point{}, []float64{0, 1}},
		{"linear-gradient(to top, red, blue)", 0, image.Point{}, []float64{0, 1}},
		{"linear-gradient(to top right, red, blue)", 0, image.Point{X: 1, Y: -1}, []float64{0, 1}},
		{"linear-gradient(to left bottom, red, blue)", 0, image.Point{X: -1, Y: 1}, []float64{0, 1}},
		{"linear-gradient(0.5turn, red, blue)", 180, image.Point{}, []float64{0, 1}},
		{"linear-gradient(100grad, red, blue)", 90, image.Point{}, []float64{0, 1}},
		{"linear-gradient(3.141592653589793rad, red, blue)", 180, image.Point{}, []float64{0, 1}},
		{"linear-gradient(-45deg, red, blue)", -45, image.Point{}, []float64{0, 1}},
		{"linear-gradient(red, green, blue)", 180, image.Point{}, []float64{0, 0.5, 1}},
		{"linear-gradient(red, green, yellow, blue 70%)", 180, image.Point{}, []float64{0, 0.7 / 3, 1.4 / 3, 0.7}},
		// A position before an earlier one moves up to it.
		{"linear-gradient(red 50%, blue 20%)", 180, image.Point{}, []float64{0.5, 0.5}},
		// Two positions make two stops of one colour.
		{"linear-gradient(red 0% 40%, blue)", 180, image.Point{}, []float64{0, 0.4, 1}},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			bg, err := ParseBackground(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			g := bg.Gradient
			if math.Abs(g.Angle-tc.angle) > 1e-9 || g.Corner != tc.corner {
				t.Errorf("angle %g corner %v, want %g %v", g.Angle, g.Corner, tc.angle, tc.corner)
			}
			if len(g.Stops) != len(tc.pos) {
				t.Fatalf("%d stops, want %d", len(g.Stops), len(tc.pos))
			}
			for i, s := range g.Stops {
				if math.Abs(s.Pos-tc.pos[i]) > 1e-9 {
					t.Errorf("stop %d at %g, want %g", i, s.Pos, tc.pos[i])
				}
			}
		})
	}
}

func TestRadialGradientShapes(t *testing.T) {
	cases := []struct {
		in     string
		circle bool
		extent string
		at     [2]float64
	}{
		{"radial-gradient(red, blue)", false, "farthest-corner", [2]float64{0.5, 0.5}},
		{"radial-gradient(circle, red, blue)", true, "farthest-corner", [2]float64{0.5, 0.5}},
		{"radial-gradient(ellipse closest-side, red, blue)", false, "closest-side", [2]float64{0.5, 0.5}},
		{"radial-gradient(circle at top left, red, blue)", true, "farthest-corner", [2]float64{0, 0}},
		{"radial-gradient(at 30% 70%, red, blue)", false, "farthest-corner", [2]float64{0.3, 0.7}},
		{"radial-gradient(farthest-side at bottom, red, blue)", false, "farthest-side", [2]float64{0.5, 1}},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			bg, err := ParseBackground(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			g := bg.Gradient
			if !g.Radial || g.Circle != tc.circle || g.Extent != tc.extent || g.At != tc.at {
				t.Errorf("got radial %t circle %t extent %s at %v, want circle %t extent %s at %v",
					g.Radial, g.Circle, g.Extent, g.At, tc.circle, tc.extent, tc.at)
			}
		})
	}
}

// FuzzParseBackground: whatever the caller sends, parsing answers with a
// background or an error, never a panic, and a gradient it accepts has
// at least two stops in order.
func FuzzParseBackground(f *testing.F) {
	for _, s := range []string{"#c1c1c1", "rgb(1 2 3 / 4%)", "linear-gradient(225deg, #FF057C 0%, #8D0B93 50%, #321575 100%)",
		"radial-gradient(circle at 10% 20%, red 0% 10%, blue)", "linear-gradient(", "linear-gradient(,)", "https://x/", "((((", "to top"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		bg, err := ParseBackground(s)
		if err != nil || bg.Kind != Gradient {
			return
		}
		stops := bg.Gradient.Stops
		if len(stops) < 2 {
			t.Fatalf("%q: %d stops", s, len(stops))
		}
		for i := 1; i < len(stops); i++ {
			if stops[i].Pos < stops[i-1].Pos || math.IsNaN(stops[i].Pos) {
				t.Fatalf("%q: stops out of order: %+v", s, stops)
			}
		}
	})
}
