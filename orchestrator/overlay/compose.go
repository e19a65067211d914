package overlay

import (
	"context"
	"image"
	"image/color"
	"image/draw"
	"math"

	xdraw "golang.org/x/image/draw"
)

// The browser themes.
const (
	Light = "light"
	Dark  = "dark"
)

// Window colours of each theme: the title bar, the address field drawn
// on it, and the three buttons at its left, as on a desktop browser.
var (
	lightBar     = color.NRGBA{R: 0xe9, G: 0xe9, B: 0xeb, A: 0xff}
	lightAddress = color.NRGBA{R: 0xff, G: 0xff, B: 0xff, A: 0xff}
	darkBar      = color.NRGBA{R: 0x2c, G: 0x2c, B: 0x2e, A: 0xff}
	darkAddress  = color.NRGBA{R: 0x1c, G: 0x1c, B: 0x1e, A: 0xff}
	buttons      = [3]color.NRGBA{
		{R: 0xff, G: 0x5f, B: 0x57, A: 0xff}, // close
		{R: 0xfe, G: 0xbc, B: 0x2e, A: 0xff}, // minimise
		{R: 0x28, G: 0xc8, B: 0x40, A: 0xff}, // zoom
	}
)

// TitleBar is the colour of a theme's title bar.
func TitleBar(theme string) color.NRGBA {
	if theme == Dark {
		return darkBar
	}
	return lightBar
}

// Layout is where each part of a composition goes.
type Layout struct {
	Canvas image.Rectangle // the whole picture, at the origin
	Frame  image.Rectangle // the window: title bar and screenshot; the screenshot alone without a browser
	Shot   image.Rectangle // the screenshot inside the window
	Bar    int             // the title bar's height; 0 without a browser
}

// Plan lays out a w×h screenshot. The margins follow Microlink's: the
// background is a tenth wider and a fifth taller than the window, which
// sits in its middle.
func Plan(w, h int, browser string) Layout {
	bar := 0
	if browser != "" {
		bar = max(16, min(96, int(math.Round(float64(w)/32))))
	}
	fw, fh := w, h+bar
	mx := int(math.Round(float64(fw) * 0.05))
	my := int(math.Round(float64(fh) * 0.1))
	frame := image.Rect(mx, my, mx+fw, my+fh)
	return Layout{
		Canvas: image.Rect(0, 0, fw+2*mx, fh+2*my),
		Frame:  frame,
		Shot:   image.Rect(frame.Min.X, frame.Min.Y+bar, frame.Max.X, frame.Max.Y),
		Bar:    bar,
	}
}

// Options say how to compose.
type Options struct {
	Browser    string      // "", Light or Dark
	Background Background  // Transparent when none was given
	Picture    image.Image // the fetched image of a Picture background
	// Opaque flattens the result onto white, for formats without an
	// alpha channel: Microlink's default background is transparent.
	Opaque bool
}

// Compose draws the screenshot in its window on the background. The
// caller bounds the screenshot's size (see Plan for the canvas it makes).
func Compose(shot image.Image, o Options) *image.RGBA {
	out, _ := ComposeContext(context.Background(), shot, o)
	return out
}

// bandRows is how many rows are drawn between looks at the deadline: a
// large canvas takes seconds to fill.
const bandRows = 64

// ComposeContext is Compose under ctx: painting stops between bands of
// rows once ctx is done, with ctx's error.
func ComposeContext(ctx context.Context, shot image.Image, o Options) (*image.RGBA, error) {
	b := shot.Bounds()
	l := Plan(b.Dx(), b.Dy(), o.Browser)
	canvas := image.NewRGBA(l.Canvas)
	if o.Opaque {
		draw.Draw(canvas, l.Canvas, image.White, image.Point{}, draw.Src)
	}
	var err error
	switch o.Background.Kind {
	case Solid:
		draw.Draw(canvas, l.Canvas, image.NewUniform(o.Background.Color), image.Point{}, draw.Over)
	case Gradient:
		err = paintGradient(ctx, canvas, o.Background.Gradient)
	case Picture:
		if o.Picture != nil {
			err = cover(ctx, canvas, o.Picture)
		}
	}
	if err != nil {
		return nil, err
	}
	if l.Bar > 0 {
		paintWindow(canvas, l, o.Browser)
	}
	draw.Draw(canvas, l.Shot, shot, b.Min, draw.Over)
	return canvas, nil
}

// cover scales pic to fill the canvas, cropping what overflows evenly on
// both sides, as CSS's `background-size: cover` does. It draws a band of
// rows at a time: each band is the same scaling clipped to its rows.
func cover(ctx context.Context, dst *image.RGBA, pic image.Image) error {
	sb, db := pic.Bounds(), dst.Bounds()
	if sb.Empty() {
		return nil
	}
	sw, sh := float64(sb.Dx()), float64(sb.Dy())
	scale := math.Max(float64(db.Dx())/sw, float64(db.Dy())/sh)
	cw, ch := float64(db.Dx())/scale, float64(db.Dy())/scale
	x0, y0 := float64(sb.Min.X)+(sw-cw)/2, float64(sb.Min.Y)+(sh-ch)/2
	src := image.Rect(int(math.Floor(x0)), int(math.Floor(y0)), int(math.Ceil(x0+cw)), int(math.Ceil(y0+ch))).Intersect(sb)
	for y := db.Min.Y; y < db.Max.Y; y += bandRows {
		if err := ctx.Err(); err != nil {
			return err
		}
		band := dst.SubImage(image.Rect(db.Min.X, y, db.Max.X, min(y+bandRows, db.Max.Y))).(*image.RGBA)
		xdraw.ApproxBiLinear.Scale(band, db, pic, src, xdraw.Over, nil)
	}
	return nil
}

// paintWindow draws the title bar with rounded top corners, its three
// buttons and, where there is room, an address field.
func paintWindow(dst *image.RGBA, l Layout, theme string) {
	bar := l.Bar
	radius := float64(bar) / 4
	// The bar's rounded rectangle reaches below the bar, where the
	// screenshot covers it: only its top corners stay round.
	barRect := image.Rect(l.Frame.Min.X, l.Frame.Min.Y, l.Frame.Max.X, min(l.Frame.Min.Y+bar+int(radius)+1, l.Frame.Max.Y))
	fillRoundRect(dst, barRect, radius, TitleBar(theme))
	r := float64(bar) * 0.15
	cy := float64(l.Frame.Min.Y) + float64(bar)/2
	for i, c := range buttons {
		cx := float64(l.Frame.Min.X) + float64(bar)*(0.6+0.5*float64(i))
		fillCircle(dst, cx, cy, r, c)
	}
	if l.Frame.Dx() >= 8*bar {
		address := lightAddress
		if theme == Dark {
			address = darkAddress
		}
		h := int(math.Round(float64(bar) * 0.56))
		w := l.Frame.Dx() / 2
		x := l.Frame.Min.X + (l.Frame.Dx()-w)/2
		y := l.Frame.Min.Y + (bar-h)/2
		fillRoundRect(dst, image.Rect(x, y, x+w, y+h), float64(h)/2, address)
	}
}

// fillRoundRect blends a rounded rectangle, its edges antialiased.
func fillRoundRect(dst *image.RGBA, r image.Rectangle, radius float64, c color.NRGBA) {
	r = r.Intersect(dst.Bounds())
	cx, cy := float64(r.Min.X+r.Max.X)/2, float64(r.Min.Y+r.Max.Y)/2
	hw, hh := float64(r.Dx())/2, float64(r.Dy())/2
	radius = math.Min(radius, math.Min(hw, hh))
	for y := r.Min.Y; y < r.Max.Y; y++ {
		qy := math.Max(math.Abs(float64(y)+0.5-cy)-(hh-radius), 0)
		for x := r.Min.X; x < r.Max.X; x++ {
			qx := math.Max(math.Abs(float64(x)+0.5-cx)-(hw-radius), 0)
			cov := 1.0
			if qx > 0 && qy > 0 {
				cov = coverage(math.Hypot(qx, qy) - radius)
			} else if qx > radius || qy > radius {
				cov = 0
			}
			blend(dst, x, y, c, cov)
		}
	}
}

// fillCircle blends a disc, its edge antialiased.
func fillCircle(dst *image.RGBA, cx, cy, r float64, c color.NRGBA) {
	box := image.Rect(int(cx-r-1), int(cy-r-1), int(cx+r+2), int(cy+r+2)).Intersect(dst.Bounds())
	for y := box.Min.Y; y < box.Max.Y; y++ {
		for x := box.Min.X; x < box.Max.X; x++ {
			blend(dst, x, y, c, coverage(math.Hypot(float64(x)+0.5-cx, float64(y)+0.5-cy)-r))
		}
	}
}

// coverage is how much of a pixel lies inside an edge at signed distance d
// (negative inside).
func coverage(d float64) float64 {
	return math.Max(0, math.Min(1, 0.5-d))
}

// blend puts c over the pixel at x, y with the given coverage.
func blend(dst *image.RGBA, x, y int, c color.NRGBA, cov float64) {
	if cov <= 0 {
		return
	}
	a := float64(c.A) / 255 * cov
	i := dst.PixOffset(x, y)
	p := dst.Pix[i : i+4 : i+4]
	p[0] = uint8(math.Round(float64(c.R)*a + float64(p[0])*(1-a)))
	p[1] = uint8(math.Round(float64(c.G)*a + float64(p[1])*(1-a)))
	p[2] = uint8(math.Round(float64(c.B)*a + float64(p[2])*(1-a)))
	p[3] = uint8(math.Round(255*a + float64(p[3])*(1-a)))
}

// rampSize is the resolution of a gradient's precomputed colours: finer
// than any 8-bit channel step over the canvas.
const rampSize = 4096

// paintGradient blends the gradient over the whole canvas.
func paintGradient(ctx context.Context, dst *image.RGBA, g GradientSpec) error {
	b := dst.Bounds()
	w, h := float64(b.Dx()), float64(b.Dy())
	first, last := g.Stops[0].Pos, g.Stops[len(g.Stops)-1].Pos
	ramp := makeRamp(g.Stops, first, last)
	at := func(t float64) [4]float64 {
		if last <= first {
			if t < first {
				return premultiplied(g.Stops[0].Color)
			}
			return premultiplied(g.Stops[len(g.Stops)-1].Color)
		}
		i := int(math.Round((t - first) / (last - first) * (rampSize - 1)))
		return ramp[max(0, min(rampSize-1, i))]
	}
	var t func(x, y float64) float64
	if !g.Radial {
		a := g.Angle * math.Pi / 180
		if g.Corner != (image.Point{}) {
			a = math.Atan2(float64(g.Corner.X)*h, float64(-g.Corner.Y)*w)
		}
		sin, cos := math.Sin(a), math.Cos(a)
		length := math.Abs(w*sin) + math.Abs(h*cos)
		t = func(x, y float64) float64 { return ((x-w/2)*sin-(y-h/2)*cos)/length + 0.5 }
	} else {
		px, py := g.At[0]*w, g.At[1]*h
		rx, ry := radii(g, px, py, w, h)
		t = func(x, y float64) float64 { return math.Hypot((x-px)/rx, (y-py)/ry) }
	}
	for y := 0; y < b.Dy(); y++ {
		if y%bandRows == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		row := dst.Pix[y*dst.Stride:]
		for x := 0; x < b.Dx(); x++ {
			c := at(t(float64(x)+0.5, float64(y)+0.5))
			p := row[x*4 : x*4+4 : x*4+4]
			k := 1 - c[3]/255
			p[0] = uint8(math.Round(c[0] + float64(p[0])*k))
			p[1] = uint8(math.Round(c[1] + float64(p[1])*k))
			p[2] = uint8(math.Round(c[2] + float64(p[2])*k))
			p[3] = uint8(math.Round(c[3] + float64(p[3])*k))
		}
	}
	return nil
}

// radii are a radial gradient's ending shape's radii, after CSS's extent
// keywords, from the centre px, py in a w×h box.
func radii(g GradientSpec, px, py, w, h float64) (float64, float64) {
	left, right, top, bottom := math.Abs(px), math.Abs(w-px), math.Abs(py), math.Abs(h-py)
	rx, ry := math.Max(left, right), math.Max(top, bottom)
	if g.Extent == "closest-side" || g.Extent == "closest-corner" {
		rx, ry = math.Min(left, right), math.Min(top, bottom)
	}
	corner := g.Extent == "closest-corner" || g.Extent == "farthest-corner"
	switch {
	case g.Circle && corner:
		rx = math.Hypot(rx, ry)
		ry = rx
	case g.Circle && g.Extent == "closest-side":
		rx = math.Min(rx, ry)
		ry = rx
	case g.Circle:
		rx = math.Max(rx, ry)
		ry = rx
	case corner:
		// An ellipse through the corner with the sides' proportions.
		rx, ry = rx*math.Sqrt2, ry*math.Sqrt2
	}
	return math.Max(rx, 1e-6), math.Max(ry, 1e-6)
}

func premultiplied(c color.NRGBA) [4]float64 {
	a := float64(c.A) / 255
	return [4]float64{float64(c.R) * a, float64(c.G) * a, float64(c.B) * a, float64(c.A)}
}

// makeRamp precomputes the colours from the first stop to the last,
// interpolated in premultiplied sRGB as CSS does.
func makeRamp(stops []Stop, first, last float64) [][4]float64 {
	ramp := make([][4]float64, rampSize)
	j := 0
	for i := range ramp {
		t := first + (last-first)*float64(i)/(rampSize-1)
		for j < len(stops)-2 && t > stops[j+1].Pos {
			j++
		}
		a, b := stops[j], stops[j+1]
		f := 1.0
		if b.Pos > a.Pos {
			f = math.Max(0, math.Min(1, (t-a.Pos)/(b.Pos-a.Pos)))
		} else if t < a.Pos {
			f = 0
		}
		ca, cb := premultiplied(a.Color), premultiplied(b.Color)
		for k := range 4 {
			ramp[i][k] = ca[k] + (cb[k]-ca[k])*f
		}
	}
	return ramp
}
