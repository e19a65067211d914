package overlay

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/png"
	"math"
	"testing"

	xdraw "golang.org/x/image/draw"
)

// pattern is a w×h screenshot stand-in whose every pixel is distinct
// enough to tell where it went: four coloured quadrants with a gradient
// in each.
func pattern(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.SetNRGBA(x, y, color.NRGBA{R: uint8(x * 255 / w), G: uint8(y * 255 / h), B: uint8(40 + 160*((x*2/w)^(y*2/h))), A: 255})
		}
	}
	return img
}

func must(t *testing.T, s string) Background {
	t.Helper()
	bg, err := ParseBackground(s)
	if err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return bg
}

// roundTrip encodes and decodes the composition as png, as the stored
// file is read back.
func roundTrip(t *testing.T, img image.Image) image.Image {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	out, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func nrgba(img image.Image, x, y int) color.NRGBA {
	return color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
}

func TestPlanKeepsMicrolinksProportions(t *testing.T) {
	cases := []struct {
		name    string
		w, h    int
		browser string
		canvas  image.Point
		bar     int
	}{
		{"a viewport without a browser: a tenth wider, a fifth taller", 1280, 800, "", image.Pt(1408, 960), 0},
		{"a viewport in a browser adds the title bar to the window", 1280, 800, Dark, image.Pt(1408, 1008), 40},
		{"a narrow capture gets the smallest title bar", 200, 100, Light, image.Pt(220, 140), 16},
		{"a huge capture gets the largest title bar", 8000, 100, Light, image.Pt(8800, 236), 96},
		{"a one-pixel capture", 1, 1, "", image.Pt(1, 1), 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := Plan(tc.w, tc.h, tc.browser)
			if l.Canvas.Size() != tc.canvas || l.Bar != tc.bar {
				t.Fatalf("canvas %v bar %d, want %v bar %d", l.Canvas.Size(), l.Bar, tc.canvas, tc.bar)
			}
			if l.Shot.Size() != image.Pt(tc.w, tc.h) {
				t.Errorf("the screenshot's place is %v, want %dx%d", l.Shot.Size(), tc.w, tc.h)
			}
			if !l.Frame.In(l.Canvas) || !l.Shot.In(l.Frame) {
				t.Errorf("parts outside the canvas: %+v", l)
			}
			// The window is centred, give or take the rounding of one pixel.
			left, right := l.Frame.Min.X, l.Canvas.Max.X-l.Frame.Max.X
			top, bottom := l.Frame.Min.Y, l.Canvas.Max.Y-l.Frame.Max.Y
			if left != right || top != bottom {
				t.Errorf("margins left %d right %d top %d bottom %d, want even", left, right, top, bottom)
			}
		})
	}
}

func TestComposePutsTheScreenshotInAThemedWindowOnTheBackground(t *testing.T) {
	bgColor := color.NRGBA{R: 0xc1, G: 0xc1, B: 0xc1, A: 0xff}
	shot := pattern(640, 400)
	for _, theme := range []string{Light, Dark} {
		t.Run(theme, func(t *testing.T) {
			out := roundTrip(t, Compose(shot, Options{Browser: theme, Background: must(t, "#c1c1c1")}))
			l := Plan(640, 400, theme)
			if out.Bounds().Size() != l.Canvas.Size() {
				t.Fatalf("size %v, want %v", out.Bounds().Size(), l.Canvas.Size())
			}
			b := out.Bounds()
			for _, p := range []image.Point{{0, 0}, {b.Max.X - 1, 0}, {0, b.Max.Y - 1}, {b.Max.X - 1, b.Max.Y - 1}, {l.Frame.Min.X - 1, l.Frame.Max.Y - 1}} {
				if got := nrgba(out, p.X, p.Y); got != bgColor {
					t.Errorf("background at %v is %v, want %v", p, got, bgColor)
				}
			}
			midBar := l.Frame.Min.Y + l.Bar/2
			for _, x := range []int{l.Frame.Min.X + 2*l.Bar, l.Frame.Max.X - l.Bar} {
				if got := nrgba(out, x, midBar); got != TitleBar(theme) {
					t.Errorf("title bar at %d,%d is %v, want the %s bar %v", x, midBar, got, theme, TitleBar(theme))
				}
			}
			for i, c := range buttons {
				x := l.Frame.Min.X + int(float64(l.Bar)*(0.6+0.5*float64(i)))
				if got := nrgba(out, x, midBar); got != c {
					t.Errorf("button %d at %d,%d is %v, want %v", i, x, midBar, got, c)
				}
			}
			// The window's top corners are round: the very corner shows the background.
			if got := nrgba(out, l.Frame.Min.X, l.Frame.Min.Y); got != bgColor {
				t.Errorf("the window's top-left corner is %v, want the background", got)
			}
			for y := range 400 {
				for x := range 640 {
					if got, want := nrgba(out, l.Shot.Min.X+x, l.Shot.Min.Y+y), shot.NRGBAAt(x, y); got != want {
						t.Fatalf("screenshot pixel %d,%d is %v, want %v", x, y, got, want)
					}
				}
			}
		})
	}
	light := TitleBar(Light)
	dark := TitleBar(Dark)
	if int(light.R)+int(light.G)+int(light.B) <= int(dark.R)+int(dark.G)+int(dark.B)+300 {
		t.Errorf("the light bar %v is not clearly lighter than the dark one %v", light, dark)
	}
}

func TestComposeWithABackgroundAloneDrawsNoWindow(t *testing.T) {
	shot := pattern(300, 200)
	out := Compose(shot, Options{Background: must(t, "rebeccapurple")})
	l := Plan(300, 200, "")
	if l.Bar != 0 || l.Shot != l.Frame {
		t.Fatalf("a window was planned: %+v", l)
	}
	if got, want := nrgba(out, l.Shot.Min.X, l.Shot.Min.Y), shot.NRGBAAt(0, 0); got != want {
		t.Errorf("the screenshot's first pixel is %v, want %v (no title bar above it)", got, want)
	}
	if got := nrgba(out, l.Shot.Min.X-1, l.Shot.Min.Y); got != (color.NRGBA{R: 0x66, G: 0x33, B: 0x99, A: 0xff}) {
		t.Errorf("left of the screenshot is %v, want the background", got)
	}
}

func TestComposeDefaultsToATransparentBackground(t *testing.T) {
	out := Compose(pattern(100, 100), Options{Browser: Light})
	if got := nrgba(out, 0, 0); got.A != 0 {
		t.Errorf("the corner is %v, want transparent", got)
	}
	flat := Compose(pattern(100, 100), Options{Browser: Light, Opaque: true})
	if got := nrgba(flat, 0, 0); got != (color.NRGBA{R: 255, G: 255, B: 255, A: 255}) {
		t.Errorf("flattened for jpeg, the corner is %v, want white", got)
	}
	half := Compose(pattern(100, 100), Options{Background: must(t, "rgba(0, 0, 0, 0.5)"), Opaque: true})
	if got := nrgba(half, 0, 0); got.A != 255 || got.R < 120 || got.R > 135 {
		t.Errorf("half-transparent black flattened on white is %v, want mid grey", got)
	}
}

func brightness(c color.NRGBA) int { return int(c.R) + int(c.G) + int(c.B) }

func TestGradientsRunInTheirDirection(t *testing.T) {
	shot := pattern(400, 300)
	l := Plan(400, 300, "")
	w, h := l.Canvas.Dx()-1, l.Canvas.Dy()-1
	corners := map[string]image.Point{"tl": {0, 0}, "tr": {w, 0}, "bl": {0, h}, "br": {w, h}}
	cases := []struct {
		bg           string
		dark, bright string // corners where the first (black) and last (white) stops show
	}{
		{"linear-gradient(#000, #fff)", "tl", "bl"},
		{"linear-gradient(90deg, #000, #fff)", "tl", "tr"},
		{"linear-gradient(to left, #000, #fff)", "tr", "tl"},
		{"linear-gradient(to top right, #000, #fff)", "bl", "tr"},
		{"linear-gradient(225deg, #000 0%, #888 50%, #fff 100%)", "tr", "bl"},
		{"linear-gradient(0.125turn, #000, #fff)", "bl", "tr"},
		{"radial-gradient(circle at top left, #000, #fff)", "tl", "br"},
	}
	for _, tc := range cases {
		t.Run(tc.bg, func(t *testing.T) {
			out := roundTrip(t, Compose(shot, Options{Background: must(t, tc.bg)}))
			d, b := corners[tc.dark], corners[tc.bright]
			dc, bc := nrgba(out, d.X, d.Y), nrgba(out, b.X, b.Y)
			if brightness(dc) > 3*40 || brightness(bc) < 3*215 {
				t.Errorf("%s corner %v should be near black and %s corner %v near white", tc.dark, dc, tc.bright, bc)
			}
		})
	}
	t.Run("a radial gradient turns from its first colour to its last towards the corners", func(t *testing.T) {
		out := Compose(pattern(100, 100), Options{Background: must(t, "radial-gradient(#f00, #00f)")})
		mid, corner := nrgba(out, out.Bounds().Dx()/2, 0), nrgba(out, 0, 0)
		if corner.B < 250 || corner.R > 5 {
			t.Errorf("the corner is %v, want the last stop's blue", corner)
		}
		if mid.R <= corner.R+40 {
			t.Errorf("the middle of the top edge %v is not redder than the corner %v", mid, corner)
		}
	})
}

func TestPictureBackgroundsCoverTheCanvas(t *testing.T) {
	// Left half red, right half blue; far smaller than the canvas, and of
	// other proportions.
	pic := image.NewNRGBA(image.Rect(0, 0, 40, 80))
	for y := range 80 {
		for x := range 40 {
			c := color.NRGBA{R: 255, A: 255}
			if x >= 20 {
				c = color.NRGBA{B: 255, A: 255}
			}
			pic.SetNRGBA(x, y, c)
		}
	}
	out := Compose(pattern(300, 200), Options{Browser: Dark, Background: Background{Kind: Picture}, Picture: pic})
	b := out.Bounds()
	for _, p := range []image.Point{{0, 0}, {0, b.Max.Y - 1}} {
		if c := nrgba(out, p.X, p.Y); c.R < 200 || c.B > 55 || c.A != 255 {
			t.Errorf("left edge at %v is %v, want the picture's red", p, c)
		}
	}
	for _, p := range []image.Point{{b.Max.X - 1, 0}, {b.Max.X - 1, b.Max.Y - 1}} {
		if c := nrgba(out, p.X, p.Y); c.B < 200 || c.R > 55 || c.A != 255 {
			t.Errorf("right edge at %v is %v, want the picture's blue", p, c)
		}
	}
}

// BenchmarkCompose measures the composition of a desktop viewport's
// capture, the common case, on each kind of background.
func BenchmarkCompose(b *testing.B) {
	shot := pattern(1280, 800)
	pic := pattern(1920, 1080)
	for _, bg := range []string{"#c1c1c1", "linear-gradient(225deg, #FF057C 0%, #8D0B93 50%, #321575 100%)", "radial-gradient(circle, red, blue)", "picture"} {
		o := Options{Browser: Dark, Picture: pic, Background: Background{Kind: Picture}}
		if bg != "picture" {
			o.Background, _ = ParseBackground(bg)
		}
		b.Run(bg[:min(len(bg), 15)], func(b *testing.B) {
			for b.Loop() {
				Compose(shot, o)
			}
		})
	}
}

func TestACoveringPictureDrawnInBandsIsTheWholeScalingClipped(t *testing.T) {
	// A gradient of a picture, scaled up across many bands of rows: any
	// seam between bands would differ from the one-pass scaling.
	pic := image.NewNRGBA(image.Rect(0, 0, 37, 23))
	for y := range 23 {
		for x := range 37 {
			pic.SetNRGBA(x, y, color.NRGBA{R: uint8(7 * x), G: uint8(11 * y), B: uint8(x * y), A: 255})
		}
	}
	for _, size := range []image.Point{{300, 5 * bandRows}, {301, 5*bandRows + 17}, {50, 3}} {
		banded := image.NewRGBA(image.Rectangle{Max: size})
		if err := cover(t.Context(), banded, pic); err != nil {
			t.Fatal(err)
		}
		whole := image.NewRGBA(image.Rectangle{Max: size})
		sb := pic.Bounds()
		scale := max(float64(size.X)/float64(sb.Dx()), float64(size.Y)/float64(sb.Dy()))
		cw, ch := float64(size.X)/scale, float64(size.Y)/scale
		x0, y0 := (float64(sb.Dx())-cw)/2, (float64(sb.Dy())-ch)/2
		src := image.Rect(int(math.Floor(x0)), int(math.Floor(y0)), int(math.Ceil(x0+cw)), int(math.Ceil(y0+ch))).Intersect(sb)
		xdraw.ApproxBiLinear.Scale(whole, whole.Bounds(), pic, src, xdraw.Over, nil)
		if !bytes.Equal(banded.Pix, whole.Pix) {
			t.Errorf("at %v the banded drawing differs from the one-pass scaling", size)
		}
	}
}

func TestCompositionStopsWhenTheRequestIsOver(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	pic := image.NewNRGBA(image.Rect(0, 0, 8, 8))
	for _, bg := range []Background{must(t, "radial-gradient(#f00, #00f)"), {Kind: Picture}} {
		out, err := ComposeContext(ctx, pattern(300, 200), Options{Browser: Dark, Background: bg, Picture: pic})
		if !errors.Is(err, context.Canceled) || out != nil {
			t.Errorf("a %v background composed for a request that is over: %v", bg.Kind, err)
		}
	}
	if _, err := ComposeContext(ctx, pattern(30, 20), Options{Background: must(t, "white")}); err != nil {
		t.Errorf("a solid background, drawn at once, gave %v", err)
	}
}
