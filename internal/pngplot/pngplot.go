// Package pngplot holds the drawing primitives of the project's PNG plots
// (cmd/demo -plot, tests/labnet/cmd/labplot): axis steps, text labels and
// lines on an image.RGBA.
package pngplot

import (
	"image"
	"image/color"
	"time"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

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
