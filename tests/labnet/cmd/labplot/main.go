// Command labplot draws the busy pings of lab-net runs (tests/labnet) as a
// PNG: for each MS, a panel with the ping RTT over the time since that MS's
// download started, one line per run, and each run's download end marked.
//
// Each run is a directory as tests/labnet/measure.sh leaves it
// ($LABNET_RUN/measure, or $LABNET_RUN/compare-<scenario>-<MSs> after
// compare.sh): <netns>.busy is `ping -D` output, <netns>.dl holds the
// download's "start <unix time>" and "end <unix time>". The MSs of a run are
// its .busy files in name order. A run directory of compare.sh with a
// sojourn.ts (gopcu's gopcu_llc_sojourn_seconds sum and count, read every
// second of the download) gets a last panel: the mean LLC queue delay of the
// frames sent in each interval (Δsum / Δcount), every MS's frames together.
//
//	labplot -o docs/bufferbloat-labnet-1ms.png \
//		"gopcu default=/tmp/gopcu-labnet/compare-gopcu-1" \
//		"osmo-pcu 1.1.0=/tmp/gopcu-labnet/compare-osmo-pcu-1"
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"image/color"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gopcu/gopcu/internal/pngplot"
	"github.com/gopcu/gopcu/tests/labnet/pinglog"
)

// Download is a download's start and end; End is zero if it never ended.
type Download struct{ Start, End time.Time }

// ParseDownload reads measure.sh's <netns>.dl: "start <unix time>" and
// "end <unix time>" lines.
func ParseDownload(r io.Reader) (Download, error) {
	var d Download
	err := timedLines(r, 2, 1, func(f []string, t time.Time) error {
		switch f[0] {
		case "start":
			d.Start = t
		case "end":
			d.End = t
		}
		return nil
	})
	if err != nil {
		return d, err
	}
	if d.Start.IsZero() {
		return d, errors.New("no download start")
	}
	return d, nil
}

// Point is one ping on the plot: icmp_seq Seq, sent T after the download
// started, RTT.
type Point struct {
	Seq    int
	T, RTT time.Duration
}

// Series places the replies at their send time relative to the download's
// start.
func Series(replies []pinglog.Reply, start time.Time) []Point {
	out := make([]Point, 0, len(replies))
	for _, r := range replies {
		out = append(out, Point{Seq: r.Seq, T: r.Sent().Sub(start), RTT: r.RTT})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].T < out[j].T })
	return out
}

// MS is one MS's busy pings and download length (0: unfinished).
type MS struct {
	Name     string
	Points   []Point
	Download time.Duration
}

// Run is one labelled run directory.
type Run struct {
	Label string
	MS    []MS
	// Queue is the mean LLC queue delay (in RTT) of the frames sent in each
	// interval of sojourn.ts, at the interval's end since the first
	// download started; nil without a sojourn.ts.
	Queue []Point
}

// Sojourn is one line of sojourn.ts: when it was read and the
// histogram's sum (seconds) and count.
type Sojourn struct {
	At         time.Time
	Sum, Count float64
}

// ParseSojourn reads sojourn.ts: "<unix time> <sum> <count>" per line.
func ParseSojourn(r io.Reader) ([]Sojourn, error) {
	var out []Sojourn
	err := timedLines(r, 3, 0, func(f []string, at time.Time) error {
		sum, err1 := strconv.ParseFloat(f[1], 64)
		n, err2 := strconv.ParseFloat(f[2], 64)
		if err1 != nil || err2 != nil {
			return errors.New("not <time> <sum> <count>")
		}
		out = append(out, Sojourn{At: at, Sum: sum, Count: n})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// timedLines calls f for each line of r with n fields, with the fields
// and the unix time (seconds with a fraction) of field at; other lines
// are skipped. An error of the time or of f names the line.
func timedLines(r io.Reader, n, at int, f func(fields []string, t time.Time) error) error {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != n {
			continue
		}
		sec, frac, _ := strings.Cut(fields[at], ".")
		t, err := pinglog.UnixTime(sec, frac)
		if err == nil {
			err = f(fields, t)
		}
		if err != nil {
			return fmt.Errorf("%q: %v", sc.Text(), err)
		}
	}
	return sc.Err()
}

// QueueSeries is the mean sojourn of the frames counted between
// consecutive samples, placed at the later sample's time since start;
// intervals without frames are left out.
func QueueSeries(ss []Sojourn, start time.Time) []Point {
	var out []Point
	for i := 1; i < len(ss); i++ {
		dn := ss[i].Count - ss[i-1].Count
		if dn <= 0 {
			continue
		}
		mean := (ss[i].Sum - ss[i-1].Sum) / dn
		out = append(out, Point{Seq: i, T: ss[i].At.Sub(start), RTT: time.Duration(mean * float64(time.Second))})
	}
	return out
}

// LoadRun reads every <netns>.busy and its <netns>.dl in dir.
func LoadRun(label, dir string) (Run, error) {
	run := Run{Label: label}
	busy, err := filepath.Glob(filepath.Join(dir, "*.busy"))
	if err != nil {
		return run, err
	}
	if len(busy) == 0 {
		return run, fmt.Errorf("%s: no .busy files", dir)
	}
	sort.Strings(busy)
	var first time.Time
	for _, b := range busy {
		name := strings.TrimSuffix(filepath.Base(b), ".busy")
		replies, err := parseFile(b, pinglog.Parse)
		if err != nil {
			return run, err
		}
		dl, err := parseFile(strings.TrimSuffix(b, ".busy")+".dl", ParseDownload)
		if err != nil {
			return run, err
		}
		m := MS{Name: name, Points: Series(replies, dl.Start)}
		if !dl.End.IsZero() {
			m.Download = dl.End.Sub(dl.Start)
		}
		run.MS = append(run.MS, m)
		if first.IsZero() || dl.Start.Before(first) {
			first = dl.Start
		}
	}
	if ss, err := parseFile(filepath.Join(dir, "sojourn.ts"), ParseSojourn); err == nil {
		run.Queue = QueueSeries(ss, first)
	} else if !errors.Is(err, os.ErrNotExist) {
		return run, err
	}
	return run, nil
}

func parseFile[T any](path string, parse func(io.Reader) (T, error)) (T, error) {
	f, err := os.Open(path)
	if err != nil {
		var zero T
		return zero, err
	}
	defer f.Close()
	v, err := parse(f)
	if err != nil {
		return v, fmt.Errorf("%s: %v", path, err)
	}
	return v, nil
}

var palette = []color.RGBA{{20, 110, 200, 255}, {200, 40, 40, 255}, {230, 150, 0, 255}, {40, 160, 60, 255}, {140, 60, 170, 255}}

// Plot draws one panel per MS (up to the most MSs any run has): ping RTT
// over the time since the download started, one line per run, a dashed
// line where each run's download ended; and, when a run has one, a panel
// of the LLC queue delay over the same time axis.
func Plot(w io.Writer, title string, runs []Run) error {
	nms := 0
	tmin, tmax := -time.Second, time.Second
	var ymax, qmax time.Duration
	hasQ := false
	for _, r := range runs {
		nms = max(nms, len(r.MS))
		for _, m := range r.MS {
			tmax = max(tmax, m.Download)
			for _, p := range m.Points {
				tmin, tmax = min(tmin, p.T), max(tmax, p.T)
				ymax = max(ymax, p.RTT)
			}
		}
		for _, p := range r.Queue {
			hasQ = true
			qmax = max(qmax, p.RTT)
		}
	}
	if nms == 0 {
		return errors.New("no MS to plot")
	}
	tmin = (tmin/time.Second - 1) * time.Second
	npanels := nms
	if hasQ {
		npanels++
	}
	const W, ph, x0, pw = 1000, 260, 70, 900
	top := 40 + 20*len(runs)
	H := top + npanels*(ph+60)
	img := pngplot.Canvas(W, H)
	pngplot.Label(img, x0, 18, title, color.Black)
	for i, r := range runs {
		c := palette[i%len(palette)]
		y := 36 + 20*i
		pngplot.Swatch(img, x0, y-5, c)
		var dls []string
		for _, m := range r.MS {
			if m.Download > 0 {
				dls = append(dls, fmt.Sprintf("%.1f s", m.Download.Seconds()))
			} else {
				dls = append(dls, "unfinished")
			}
		}
		pngplot.Label(img, x0+20, y, fmt.Sprintf("%s (download %s)", r.Label, strings.Join(dls, "; ")), color.Black)
	}
	xOf := func(t time.Duration) int { return x0 + int(float64(pw)*float64(t-tmin)/float64(tmax-tmin)) }
	// panel k: its caption, y range and each run's points and download end
	panel := func(k int, caption string, ymax time.Duration, series func(Run) ([]Point, time.Duration, bool)) {
		ymax = max(ymax, 100*time.Millisecond)
		ystep := pngplot.NiceStep(ymax, 10)
		ymax = (ymax + ystep - 1) / ystep * ystep
		y0 := top + k*(ph+60) + 20
		yOf := func(v time.Duration) int {
			return y0 + ph - int(float64(ph)*math.Min(1, float64(v)/float64(ymax)))
		}
		pngplot.Label(img, x0, y0-6, caption, color.Black)
		pngplot.Axes(img, x0, y0, pw, ph)
		for v := time.Duration(0); v <= ymax; v += ystep {
			pngplot.YTick(img, x0, yOf(v), pw, v)
		}
		xstep := pngplot.NiceStep(tmax-tmin, 10)
		for v := (tmin / xstep) * xstep; v <= tmax; v += xstep {
			if v < tmin {
				continue
			}
			pngplot.XTick(img, xOf(v), y0+ph, v)
		}
		// the download starts at 0 for every run
		for y := y0; y < y0+ph; y++ {
			img.Set(xOf(0), y, pngplot.Axis)
			img.Set(xOf(0)+1, y, pngplot.Axis)
		}
		for i, r := range runs {
			pts, dl, ok := series(r)
			if !ok {
				continue
			}
			c := palette[i%len(palette)]
			if dl > 0 {
				x := xOf(dl)
				for y := y0; y < y0+ph; y++ {
					if (y-y0)%10 < 6 {
						img.Set(x, y, c)
						img.Set(x+1, y, c)
					}
				}
			}
			px, py, pseq := -1, -1, 0
			for _, p := range pts {
				x, y := xOf(p.T), yOf(p.RTT)
				if px >= 0 && p.Seq == pseq+1 {
					pngplot.Line(img, px, py, x, y, c, 1)
				}
				pngplot.Dot(img, x, y, 2, c)
				px, py, pseq = x, y, p.Seq
			}
		}
	}
	for k := 0; k < nms; k++ {
		panel(k, fmt.Sprintf("MS %d: ping RTT by send time since its download started", k), ymax,
			func(r Run) ([]Point, time.Duration, bool) {
				if k >= len(r.MS) {
					return nil, 0, false
				}
				return r.MS[k].Points, r.MS[k].Download, true
			})
	}
	if hasQ {
		panel(nms, "LLC queue delay: mean of the frames sent each second (gopcu's sojourn histogram, every MS)", qmax,
			func(r Run) ([]Point, time.Duration, bool) {
				var dl time.Duration
				for _, m := range r.MS {
					dl = max(dl, m.Download)
				}
				return r.Queue, dl, r.Queue != nil
			})
	}
	pngplot.Label(img, x0, H-12, "grey line at 0 s: the download starts; dashed: the run's download ended; a gap in a line: a lost ping", pngplot.Axis)
	return png.Encode(w, img)
}

func main() {
	out := flag.String("o", "labnet.png", "PNG to write")
	title := flag.String("title", "lab-net: busy ping while every MS downloads", "title line")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: labplot [-o file.png] [-title text] label=rundir ...")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	var runs []Run
	for _, a := range flag.Args() {
		lbl, dir, ok := strings.Cut(a, "=")
		if !ok {
			fail(fmt.Errorf("%q: want label=rundir", a))
		}
		r, err := LoadRun(lbl, dir)
		if err != nil {
			fail(err)
		}
		runs = append(runs, r)
	}
	f, err := os.Create(*out)
	if err != nil {
		fail(err)
	}
	if err := Plot(f, *title, runs); err != nil {
		f.Close()
		fail(err)
	}
	if err := f.Close(); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "labplot:", err)
	os.Exit(1)
}
