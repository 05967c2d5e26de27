package demo

import (
	"fmt"
	"image/color"
	"image/png"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/gopcu/gopcu/internal/pngplot"
)

// Summary is one scenario's row of the table (all MSs pooled).
type Summary struct {
	Scenario                   string
	IdleP50                    time.Duration
	BusyP50, BusyP95, BusyMax  time.Duration
	QueueP50, QueueMax         time.Duration
	DropsCoDel, DropsLifetime  uint64
	DropsOverflow              uint64
	Marks                      uint64
	Retx, Timeouts             int
	DownloadTime               time.Duration // slowest MS
	GoodputKbps                float64       // per MS, mean
	AllDone                    bool
	FileBytes, MSs, CS, Slots  int
	IdlePings, BusyPings, Lost int
}

// Summarize pools the MSs of a result.
func Summarize(r *Result, cfg Config) Summary {
	s := Summary{Scenario: r.Scenario, AllDone: true, FileBytes: cfg.FileBytes, MSs: cfg.MSs, CS: cfg.CS, Slots: cfg.Slots}
	var idle, busy, qd []time.Duration
	var gp float64
	for _, m := range r.MS {
		idle = append(idle, m.IdlePing...)
		busy = append(busy, m.BusyPing...)
		qd = append(qd, m.QueueDelay...)
		s.Retx += m.Retx
		s.Timeouts += m.Timeouts
		s.AllDone = s.AllDone && m.Done
		s.DownloadTime = max(s.DownloadTime, m.DownloadTime)
		if m.DownloadTime > 0 {
			gp += float64(m.Bytes) * 8 / m.DownloadTime.Seconds() / 1000
		}
	}
	s.GoodputKbps = gp / float64(max(len(r.MS), 1))
	s.IdleP50 = Percentile(idle, 50)
	s.BusyP50, s.BusyP95, s.BusyMax = Percentile(busy, 50), Percentile(busy, 95), Percentile(busy, 100)
	s.QueueP50, s.QueueMax = Percentile(qd, 50), Percentile(qd, 100)
	s.DropsCoDel, s.DropsLifetime, s.DropsOverflow = r.Drops.CoDel, r.Drops.Lifetime, r.Drops.Overflow
	s.Marks = r.Marks
	s.IdlePings, s.BusyPings = len(idle), len(busy)
	return s
}

// MS formats a duration in whole milliseconds, as the tables show them.
func MS(d time.Duration) string { return strconv.FormatInt(d.Milliseconds(), 10) }

// Unfinished is the note a table puts after the download time of a
// scenario whose downloads did not all finish ("" when they did).
func (s Summary) Unfinished() string {
	if s.AllDone {
		return ""
	}
	return " (unfinished)"
}

// WriteHeader writes the header line of a Markdown table with the column
// names cols, and its separator line.
func WriteHeader(w io.Writer, cols ...string) {
	fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(cols, " | "), strings.Repeat("---|", len(cols)))
}

// WriteTable prints the summary as a Markdown table.
func WriteTable(w io.Writer, rows []Summary) {
	WriteHeader(w, "scenario", "idle ping p50 (ms)", "busy ping p50 / p95 / max (ms)", "queue delay p50 / max (ms)",
		"drops codel / lifetime / overflow", "ECN marks", "TCP retx / timeouts", "download time (s)", "goodput per MS (kbit/s)")
	for _, r := range rows {
		fmt.Fprintf(w, "| %s | %s | %s / %s / %s | %s / %s | %d / %d / %d | %d | %d / %d | %.1f%s | %.1f |\n",
			r.Scenario, MS(r.IdleP50), MS(r.BusyP50), MS(r.BusyP95), MS(r.BusyMax), MS(r.QueueP50), MS(r.QueueMax),
			r.DropsCoDel, r.DropsLifetime, r.DropsOverflow, r.Marks, r.Retx, r.Timeouts, r.DownloadTime.Seconds(), r.Unfinished(), r.GoodputKbps)
	}
}

var palette = []color.RGBA{{200, 40, 40, 255}, {230, 150, 0, 255}, {20, 110, 200, 255}, {40, 160, 60, 255},
	{140, 60, 180, 255}, {0, 150, 150, 255}, {120, 120, 120, 255}}

// Finish writes what a run of the scenarios ends with: a blank line, the
// table (written by table), the wall time since start and, with a plot
// file, the plot (WritePlotFile) and its name.
func Finish(w io.Writer, table func(io.Writer), start time.Time, plot string, results []*Result) error {
	fmt.Fprintln(w)
	table(w)
	fmt.Fprintf(w, "\n(%v wall time)\n", time.Since(start).Round(time.Second))
	if plot == "" {
		return nil
	}
	if err := WritePlotFile(plot, results); err != nil {
		return err
	}
	fmt.Fprintf(w, "plot: %s\n", plot)
	return nil
}

// WritePlotFile writes the PNG plot of WritePlot to the file at path.
func WritePlotFile(path string, results []*Result) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := WritePlot(f, results); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// WritePlot draws ping RTT (top) and queue delay (bottom) over time for
// every scenario as a PNG.
func WritePlot(w io.Writer, results []*Result) error {
	const W, H = 1000, 700
	img := pngplot.Canvas(W, H)
	var tmax time.Duration
	var pmax, qmax time.Duration
	for _, r := range results {
		for _, p := range r.Series {
			tmax = max(tmax, p.T)
			pmax = max(pmax, p.Ping)
			qmax = max(qmax, p.QueueDelay)
		}
	}
	tmax = max(tmax, time.Second)
	panel := func(top int, title string, yMax time.Duration, val func(Point) (time.Duration, bool), line bool) {
		x0, y0, pw, ph := 70, top+25, W-100, 270
		pngplot.Label(img, x0, top+15, strings.TrimSpace(title), color.Black)
		pngplot.Axes(img, x0, y0, pw, ph)
		yStep := pngplot.NiceStep(yMax, 8)
		for v := time.Duration(0); v <= yMax; v += yStep {
			pngplot.YTick(img, x0, y0+ph-int(float64(ph)*float64(v)/float64(yMax)), pw, v)
		}
		xStep := pngplot.NiceStep(tmax, 8)
		for v := time.Duration(0); v <= tmax; v += xStep {
			pngplot.XTick(img, x0+int(float64(pw)*float64(v)/float64(tmax)), y0+ph, v)
		}
		for i, r := range results {
			c := palette[i%len(palette)]
			px, py := -1, -1
			for _, p := range r.Series {
				v, ok := val(p)
				if !ok || p.T < 0 {
					continue
				}
				x := x0 + int(float64(pw)*float64(p.T)/float64(tmax))
				y := y0 + ph - int(float64(ph)*math.Min(1, float64(v)/float64(yMax)))
				if line && px >= 0 {
					pngplot.Line(img, px, py, x, y, c, 2)
				} else {
					pngplot.Dot(img, x, y, 1, c)
				}
				px, py = x, y
			}
			lx := x0 + 20 + i*230
			pngplot.Swatch(img, lx, top+12, c)
			pngplot.Label(img, lx+18, top+18, strings.TrimSpace(r.Scenario), color.Black)
		}
	}
	panel(0, "", max(pmax, 100*time.Millisecond), func(p Point) (time.Duration, bool) { return p.Ping, p.Ping > 0 }, false)
	pngplot.Label(img, 70, 320+5, "ping RTT (dots) since the download started", color.Black)
	panel(345, "", max(qmax, 100*time.Millisecond), func(p Point) (time.Duration, bool) { return p.QueueDelay, p.QueueDelay >= 0 }, true)
	pngplot.Label(img, 70, 665+5, "LLC queue delay at the PCU (head-of-queue sojourn, every 100 ms)", color.Black)
	return png.Encode(w, img)
}
