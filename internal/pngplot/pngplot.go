// Package pngplot holds the drawing primitives of the project's PNG plots
// (cmd/demo -plot, tests/labnet/cmd/labplot): axis steps, text labels and
// lines on an image.RGBA.
package pngplot

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"time"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// Axis is the colour of the axes, ticks and tick labels; Grid the colour
// of the dotted grid lines.
var (
	Axis = color.RGBA{80, 80, 80, 255}
	Grid = color.RGBA{220, 220, 220, 255}
)

// Canvas is a white image of w x h pixels.
func Canvas(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Bounds(), &image.Uniform{color.White}, image.Point{}, draw.Src)
	return img
}

// Axes draws a panel's axes: the y axis at x0 from y0 down to y0+ph, the x
// axis along y0+ph from x0 to x0+pw.
func Axes(img *image.RGBA, x0, y0, pw, ph int) {
	for x := x0; x <= x0+pw; x++ {
		img.Set(x, y0+ph, Axis)
	}
	for y := y0; y <= y0+ph; y++ {
		img.Set(x0, y, Axis)
	}
}

// YTick marks the delay v at height y on the y axis at x0: a tick left of
// the axis, a dotted grid line across the panel (pw wide) and the label
// "<v> ms" at the image's left edge.
func YTick(img *image.RGBA, x0, y, pw int, v time.Duration) {
	for x := x0 - 4; x < x0; x++ {
		img.Set(x, y, Axis)
	}
	for x := x0 + 1; x <= x0+pw; x += 4 {
		img.Set(x, y, Grid)
	}
	Label(img, 5, y+4, fmt.Sprintf("%d ms", v.Milliseconds()), Axis)
}

// XTick marks the time v at x on the x axis at height y: a tick below the
// axis and the label "<v>s" under it.
func XTick(img *image.RGBA, x, y int, v time.Duration) {
	for yy := y; yy < y+4; yy++ {
		img.Set(x, yy, Axis)
	}
	Label(img, x-8, y+16, fmt.Sprintf("%ds", int(v.Seconds())), Axis)
}

// Dot draws a filled square of 2r+1 pixels a side centred on (x, y).
func Dot(img *image.RGBA, x, y, r int, c color.Color) {
	for dx := -r; dx <= r; dx++ {
		for dy := -r; dy <= r; dy++ {
			img.Set(x+dx, y+dy, c)
		}
	}
}

// Swatch draws a legend's colour mark, 14 x 4 pixels from (x, y) on.
func Swatch(img *image.RGBA, x, y int, c color.Color) {
	for dx := 0; dx < 14; dx++ {
		for dy := 0; dy < 4; dy++ {
			img.Set(x+dx, y+dy, c)
		}
	}
}

// NiceStep is the smallest of 100 ms, 200 ms, 500 ms, 1 s, 2 s, 5 s, 10 s,
// 20 s, 30 s, 1 min that divides span into at most ticks steps (2 min if
// none does).
func NiceStep(span time.Duration, ticks int) time.Duration {
	for _, s := range []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 500 * time.Millisecond, time.Second,
		2 * time.Second, 5 * time.Second, 10 * time.Second, 20 * time.Second, 30 * time.Second, time.Minute} {
		if span/s <= time.Duration(ticks) {
			return s
		}
	}
	return 2 * time.Minute
}

// Label writes s with its baseline at (x, y) in the 7x13 fixed font.
func Label(img *image.RGBA, x, y int, s string, c color.Color) {
	d := font.Drawer{Dst: img, Src: image.NewUniform(c), Face: basicfont.Face7x13, Dot: fixed.P(x, y)}
	d.DrawString(s)
}

// Line draws a line from (x0, y0) to (x1, y1) (Bresenham), width pixels
// thick downwards (1 or 2).
func Line(img *image.RGBA, x0, y0, x1, y1 int, c color.Color, width int) {
	dx, dy := abs(x1-x0), -abs(y1-y0)
	sx, sy := 1, 1
	if x0 > x1 {
		sx = -1
	}
	if y0 > y1 {
		sy = -1
	}
	e := dx + dy
	for {
		for w := 0; w < width; w++ {
			img.Set(x0, y0+w, c)
		}
		if x0 == x1 && y0 == y1 {
			return
		}
		e2 := 2 * e
		if e2 >= dy {
			e += dy
			x0 += sx
		}
		if e2 <= dx {
			e += dx
			y0 += sy
		}
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
