package pngplot

import (
	"image"
	"image/color"
	"testing"
	"time"
)

func TestNiceStep(t *testing.T) {
	for _, c := range []struct {
		span  time.Duration
		ticks int
		want  time.Duration
	}{
		{800 * time.Millisecond, 8, 100 * time.Millisecond},
		{900 * time.Millisecond, 8, 200 * time.Millisecond},
		{35 * time.Second, 10, 5 * time.Second},
		{35 * time.Second, 8, 5 * time.Second},
		{time.Hour, 8, 2 * time.Minute},
	} {
		if got := NiceStep(c.span, c.ticks); got != c.want {
			t.Errorf("NiceStep(%v, %d) = %v, want %v", c.span, c.ticks, got, c.want)
		}
	}
}

// TestLine: both ends and the pixels between are set, width rows thick.
func TestLine(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 10, 10))
	Line(img, 1, 1, 5, 3, color.Black, 2)
	set := 0
	for y := 0; y < 10; y++ {
		for x := 0; x < 10; x++ {
			if img.RGBAAt(x, y).A != 0 {
				set++
			}
		}
	}
	for _, p := range []image.Point{{1, 1}, {1, 2}, {5, 3}, {5, 4}} {
		if img.RGBAAt(p.X, p.Y).A == 0 {
			t.Errorf("pixel %v not set", p)
		}
	}
	if set != 10 { // 5 columns x 2 rows
		t.Errorf("%d pixels set, want 10", set)
	}
}

// TestShapes: Canvas is white; Dot, Swatch and Axes set the pixels they
// name and no other.
func TestShapes(t *testing.T) {
	img := Canvas(40, 40)
	white := color.RGBA{255, 255, 255, 255}
	count := func(c color.RGBA) int {
		n := 0
		for y := 0; y < 40; y++ {
			for x := 0; x < 40; x++ {
				if img.RGBAAt(x, y) == c {
					n++
				}
			}
		}
		return n
	}
	if n := count(white); n != 40*40 {
		t.Fatalf("canvas: %d white pixels", n)
	}
	red := color.RGBA{255, 0, 0, 255}
	Dot(img, 5, 5, 2, red)
	if n := count(red); n != 25 || img.RGBAAt(3, 3) != red || img.RGBAAt(7, 7) != red {
		t.Errorf("dot: %d pixels", n)
	}
	blue := color.RGBA{0, 0, 255, 255}
	Swatch(img, 20, 20, blue)
	if n := count(blue); n != 14*4 || img.RGBAAt(33, 23) != blue {
		t.Errorf("swatch: %d pixels", n)
	}
	Axes(img, 10, 10, 20, 15)
	if n := count(Axis); n != 21+15 || img.RGBAAt(10, 10) != Axis || img.RGBAAt(30, 25) != Axis {
		t.Errorf("axes: %d pixels", n)
	}
}
