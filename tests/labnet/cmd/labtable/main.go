// Command labtable turns the row directories of tests/labnet/compare.sh into
// a markdown table: one line per row directory (-runs), or one line per
// scenario, MS count, ECN setting and cipher with the median of its runs.
//
//	labtable [-runs] [-detail] dir...
//
// Figures of a run:
//   - idle ping p50: the idle pings (measure.sh, 10 per phone), all phones
//     pooled.
//   - busy ping p50 / p95 / max: the pings whose echo request left while
//     their phone downloaded (send time = ping -D reply time less the RTT),
//     all phones pooled; nearest rank.
//   - bulk queue delay p50 / p95: from gopcu's gopcu_llc_sojourn_seconds
//     histogram (every LLC frame handed to RLC/MAC, every MS), /metrics
//     read right before the downloads started and right after they ended;
//     the difference is the downloads' distribution. The ping replies of
//     the window are in it too: the k lowest observations are removed (k =
//     busy ping replies received in the window), which bounds the bulk
//     flows' own quantiles from above whatever delay the replies had. The
//     quantile is interpolated linearly inside its histogram bucket (bounds
//     10, 20, 50, 100, 200, 500 ms, 1, 2, 5, 10, 20, 30 s).
//   - download: curl's time_total, the mean over the phones.
//   - retx: TcpRetransSegs of the server's namespace (nstat), after less
//     before.
//   - AQM drops / ECN marks / drops ECN could not avoid / overflow drops /
//     lifetime expiries: gopcu's counters llc:dropped:codel, llc:ecn:marked,
//     llc:aqm:nomark:* (summed), llc:dropped:overflow and the BTS group's
//     llc:timeout, after less before.
//
// The median of a group (scenario, MSs, ECN, cipher, commit) is taken per
// column over its runs.
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Run is one row directory's figures; NaN where not available.
type Run struct {
	Dir                       string
	Env                       map[string]string
	IdleP50                   float64 // ms
	BusyP50, BusyP95, BusyMax float64 // ms
	BusyLost, BusySent        int
	QP50, QP95                float64 // s, bulk bound
	QAllP50, QAllP95          float64 // s, every frame
	QFrames, QPings           float64
	Download                  float64 // s, mean over MSs
	Downloads                 []float64
	Retx                      float64
	Codel, Marked, NoMark     float64
	Overflow, Timeout         float64
	ECNSeen                   string // "yes", "no", "-" from ss.txt
	OK                        bool
}

var nan = math.NaN()

// "[1764619000.123456] 64 bytes from 10.46.0.1: icmp_seq=3 ttl=63 time=345 ms"
var (
	replyRE = regexp.MustCompile(`^\[([0-9.]+)\] .*icmp_seq=([0-9]+) .*time=([0-9.]+) ms`)
	timeRE  = regexp.MustCompile(`time=([0-9.]+) ms`)
	statRE  = regexp.MustCompile(`^([0-9]+) packets transmitted, ([0-9]+) received`)
)

func readLines(path string) []string {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	return strings.Split(string(b), "\n")
}

func readEnv(path string) map[string]string {
	m := map[string]string{}
	for _, l := range readLines(path) {
		if k, v, ok := strings.Cut(l, "="); ok {
			m[k] = v
		}
	}
	return m
}

// quantile is the nearest-rank q-quantile of sorted xs.
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return nan
	}
	i := int(math.Ceil(q*float64(len(xs)))) - 1
	return xs[min(max(i, 0), len(xs)-1)]
}

// Hist is a cumulative histogram: Count[i] observations ≤ Bound[i]; the
// last bound is +Inf.
type Hist struct {
	Bound []float64
	Count []float64
}

var bucketRE = regexp.MustCompile(`^gopcu_llc_sojourn_seconds_bucket\{le="([^"]+)"\} ([0-9.e+]+)`)

func readHist(path string) (Hist, bool) {
	var h Hist
	for _, l := range readLines(path) {
		m := bucketRE.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		b, err := strconv.ParseFloat(m[1], 64) // "+Inf" parses as +Inf
		if err != nil {
			continue
		}
		c, _ := strconv.ParseFloat(m[2], 64)
		h.Bound = append(h.Bound, b)
		h.Count = append(h.Count, c)
	}
	return h, len(h.Bound) > 0
}

// HistQuantile is the q-quantile of h's observations after removing the
// skip lowest, interpolated linearly inside the bucket (from the previous
// bound, 0 for the first); +Inf if it falls in the +Inf bucket.
func HistQuantile(h Hist, q, skip float64) float64 {
	if len(h.Count) == 0 {
		return nan
	}
	total := h.Count[len(h.Count)-1]
	rest := total - skip
	if rest <= 0 {
		return nan
	}
	rank := skip + q*rest
	prevB, prevC := 0.0, 0.0
	for i, c := range h.Count {
		if c >= rank && c > prevC {
			if math.IsInf(h.Bound[i], 1) {
				return math.Inf(1)
			}
			return prevB + (rank-prevC)/(c-prevC)*(h.Bound[i]-prevB)
		}
		prevB, prevC = h.Bound[i], c
	}
	return nan
}

var counterRE = regexp.MustCompile(`^(gopcu_[a-z0-9_]+_total)(\{[^}]*\})? ([0-9.e+]+)`)

// readCounters sums every gopcu_*_total series by name.
func readCounters(path string) map[string]float64 {
	m := map[string]float64{}
	for _, l := range readLines(path) {
		if c := counterRE.FindStringSubmatch(l); c != nil {
			v, _ := strconv.ParseFloat(c[3], 64)
			m[c[1]] += v
		}
	}
	return m
}

func readNstat(path string, name string) (float64, bool) {
	for _, l := range readLines(path) {
		f := strings.Fields(l)
		if len(f) >= 2 && f[0] == name {
			v, err := strconv.ParseFloat(f[1], 64)
			return v, err == nil
		}
	}
	return 0, false
}

func parseUnix(s string) float64 {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nan
	}
	return v
}

// Load reads one row directory.
func Load(dir string) Run {
	r := Run{Dir: dir, Env: readEnv(filepath.Join(dir, "row.env")),
		IdleP50: nan, BusyP50: nan, BusyP95: nan, BusyMax: nan, QP50: nan, QP95: nan,
		QAllP50: nan, QAllP95: nan, QFrames: nan, QPings: nan, Download: nan, Retx: nan,
		Codel: nan, Marked: nan, NoMark: nan, Overflow: nan, Timeout: nan, ECNSeen: "-"}
	busyFiles, _ := filepath.Glob(filepath.Join(dir, "*.busy"))
	sort.Strings(busyFiles)
	var idle, busy []float64
	winStart, winEnd := math.Inf(1), math.Inf(-1)
	type reply struct{ at, rtt float64 }
	var replies []reply
	ok := len(busyFiles) > 0
	for _, bf := range busyFiles {
		stem := strings.TrimSuffix(bf, ".busy")
		for _, l := range readLines(stem + ".idle") {
			if m := timeRE.FindStringSubmatch(l); m != nil {
				idle = append(idle, parseUnix(m[1]))
			}
		}
		start, end := nan, nan
		for _, l := range readLines(stem + ".dl") {
			f := strings.Fields(l)
			if len(f) == 2 && f[0] == "start" {
				start = parseUnix(f[1])
			} else if len(f) == 2 && f[0] == "end" {
				end = parseUnix(f[1])
			}
		}
		winStart, winEnd = math.Min(winStart, start), math.Max(winEnd, end)
		for _, l := range readLines(bf) {
			if m := replyRE.FindStringSubmatch(l); m != nil {
				at, rtt := parseUnix(m[1]), parseUnix(m[3])
				replies = append(replies, reply{at, rtt})
				sent := at - rtt/1000
				if sent >= start && sent <= end {
					busy = append(busy, rtt)
				}
			} else if m := statRE.FindStringSubmatch(l); m != nil {
				tx, _ := strconv.Atoi(m[1])
				rx, _ := strconv.Atoi(m[2])
				r.BusySent += tx
				r.BusyLost += tx - rx
			}
		}
		cl := readLines(stem + ".curl")
		f := []string{}
		if len(cl) > 0 {
			f = strings.Fields(cl[0])
		}
		if len(f) == 3 && f[2] == "200" {
			r.Downloads = append(r.Downloads, parseUnix(f[0]))
		} else {
			r.Downloads = append(r.Downloads, nan)
			ok = false
		}
	}
	sort.Float64s(idle)
	sort.Float64s(busy)
	r.IdleP50 = quantile(idle, 0.5)
	r.BusyP50, r.BusyP95 = quantile(busy, 0.5), quantile(busy, 0.95)
	if len(busy) > 0 {
		r.BusyMax = busy[len(busy)-1]
	}
	if len(r.Downloads) > 0 {
		s := 0.0
		for _, d := range r.Downloads {
			s += d
		}
		r.Download = s / float64(len(r.Downloads))
	}
	// ping replies that left the PCU's queue between the two scrapes
	pings := 0.0
	for _, p := range replies {
		if p.at >= winStart && p.at <= winEnd+0.2 {
			pings++
		}
	}
	hb, okb := readHist(filepath.Join(dir, "metrics.before"))
	ha, oka := readHist(filepath.Join(dir, "metrics.after"))
	if okb && oka && len(hb.Count) == len(ha.Count) {
		d := Hist{Bound: ha.Bound, Count: make([]float64, len(ha.Count))}
		for i := range d.Count {
			d.Count[i] = ha.Count[i] - hb.Count[i]
		}
		r.QFrames, r.QPings = d.Count[len(d.Count)-1], pings
		r.QAllP50, r.QAllP95 = HistQuantile(d, 0.5, 0), HistQuantile(d, 0.95, 0)
		r.QP50, r.QP95 = HistQuantile(d, 0.5, pings), HistQuantile(d, 0.95, pings)
		cb, ca := readCounters(filepath.Join(dir, "metrics.before")), readCounters(filepath.Join(dir, "metrics.after"))
		diff := func(name string) float64 { return ca[name] - cb[name] }
		r.Codel = diff("gopcu_pcu_l1if_llc_dropped_codel_total")
		r.Marked = diff("gopcu_pcu_l1if_llc_ecn_marked_total")
		r.Overflow = diff("gopcu_pcu_l1if_llc_dropped_overflow_total")
		r.Timeout = diff("gopcu_bts_llc_timeout_total")
		r.NoMark = 0
		for name := range ca {
			if strings.HasPrefix(name, "gopcu_pcu_l1if_llc_aqm_nomark_") {
				r.NoMark += diff(name)
			}
		}
	}
	b, okb := readNstat(filepath.Join(dir, "nstat.before"), "TcpRetransSegs")
	a, oka := readNstat(filepath.Join(dir, "nstat.after"), "TcpRetransSegs")
	if okb && oka {
		r.Retx = a - b
	}
	if lines := readLines(filepath.Join(dir, "ecn.txt")); lines != nil {
		ect, all := 0, 0
		for _, l := range lines {
			f := strings.Fields(l)
			if len(f) != 2 {
				continue
			}
			n, _ := strconv.Atoi(f[0])
			v := f[1][strings.LastIndex(f[1], ",")+1:]
			all += n
			if v != "0" {
				ect += n
			}
		}
		r.ECNSeen = fmt.Sprintf("%d/%d", ect, all)
	}
	r.OK = ok && r.Env["up_failed"] == "" && r.Env["measure_rc"] == "0"
	return r
}

var names = map[string]string{
	"gopcu-off":      "AQM off",
	"gopcu-osmo":     "osmo CoDel",
	"gopcu-codel":    "gopcu CoDel (one FIFO)",
	"gopcu-pie":      "PIE (one FIFO)",
	"gopcu":          "gopcu default", // FQ-CoDel before issue 26's switch, SFQ-RED after (the row's commit)
	"gopcu-fq-codel": "FQ-CoDel",
	"gopcu-fq-pie":   "FQ-PIE",
	"gopcu-sfq-red":  "SFQ-RED",
	"osmo-pcu":       "osmo-pcu 1.1.0",
}

// commit is the row's gopcu commit without compare.sh's "+dirty" (which
// untracked or uncommitted files of the tree set, code or not).
func commit(r Run) string { return strings.TrimSuffix(r.Env["commit"], "+dirty") }

// pool, when set, groups runs of different commits (the commit column
// lists them all).
var pool bool

func key(r Run) string {
	k := fmt.Sprintf("%s|%s|%s|%s", r.Env["scenario"], r.Env["ms"], r.Env["ecn"], r.Env["cipher"])
	if !pool {
		k += "|" + commit(r)
	}
	return k
}

func f0(v float64) string {
	switch {
	case math.IsNaN(v):
		return "-"
	case math.IsInf(v, 1):
		return ">30000"
	}
	return strconv.FormatFloat(math.Round(v), 'f', -1, 64)
}

func f1(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

func ms(v float64) string { return f0(v * 1000) }

func median(xs []float64) float64 {
	var v []float64
	for _, x := range xs {
		if !math.IsNaN(x) {
			v = append(v, x)
		}
	}
	if len(v) == 0 {
		return nan
	}
	sort.Float64s(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

func header(detail bool) {
	h := "| PCU / queue | MSs | ECN | cipher | runs | idle ping p50 (ms) | busy ping p50 / p95 / max (ms) | bulk queue delay p50 / p95 (ms) | download (s) | server retx | AQM drops / ECN marks / unmarkable / overflow / lifetime | commit |"
	if detail {
		h += " all frames p50 / p95 (ms), frames, pings | server data packets ECT / all | pings lost |"
	}
	fmt.Println(h)
	fmt.Println("|" + strings.Repeat("---|", strings.Count(h, "|")-1))
}

// commits lists the runs' commits, each once, in run order.
func commits(rs []Run) string {
	var out []string
	seen := map[string]bool{}
	for _, r := range rs {
		if c := commit(r); !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return strings.Join(out, ", ")
}

func line(rs []Run, detail bool) {
	col := func(f func(Run) float64) float64 {
		var v []float64
		for _, r := range rs {
			v = append(v, f(r))
		}
		return median(v)
	}
	r0 := rs[0]
	name := names[r0.Env["scenario"]]
	if name == "" {
		name = r0.Env["scenario"]
	}
	ecn := "off"
	if r0.Env["ecn"] == "1" {
		ecn = "on"
	}
	runs := strconv.Itoa(len(rs))
	if len(rs) == 1 {
		runs = r0.Env["run"]
		if runs == "" {
			runs = "1"
		}
		runs = "r" + runs
		if !r0.OK {
			runs += " (failed)"
		}
	}
	dl := f1(col(func(r Run) float64 { return r.Download }))
	if len(rs) == 1 && len(r0.Downloads) > 1 {
		var ds []string
		for _, d := range r0.Downloads {
			ds = append(ds, f1(d))
		}
		dl = strings.Join(ds, "; ")
	}
	fmt.Printf("| %s | %s | %s | %s | %s | %s | %s / %s / %s | %s / %s | %s | %s | %s / %s / %s / %s / %s | %s |",
		name, r0.Env["ms"], ecn, r0.Env["cipher"], runs,
		f0(col(func(r Run) float64 { return r.IdleP50 })),
		f0(col(func(r Run) float64 { return r.BusyP50 })), f0(col(func(r Run) float64 { return r.BusyP95 })), f0(col(func(r Run) float64 { return r.BusyMax })),
		ms(col(func(r Run) float64 { return r.QP50 })), ms(col(func(r Run) float64 { return r.QP95 })),
		dl, f0(col(func(r Run) float64 { return r.Retx })),
		f0(col(func(r Run) float64 { return r.Codel })), f0(col(func(r Run) float64 { return r.Marked })),
		f0(col(func(r Run) float64 { return r.NoMark })), f0(col(func(r Run) float64 { return r.Overflow })),
		f0(col(func(r Run) float64 { return r.Timeout })), commits(rs))
	if detail {
		var lost []string
		ecns := map[string]bool{}
		for _, r := range rs {
			lost = append(lost, fmt.Sprintf("%d/%d", r.BusyLost, r.BusySent))
			ecns[r.ECNSeen] = true
		}
		var e []string
		for k := range ecns {
			e = append(e, k)
		}
		sort.Strings(e)
		fmt.Printf(" %s / %s, %s, %s | %s | %s |",
			ms(col(func(r Run) float64 { return r.QAllP50 })), ms(col(func(r Run) float64 { return r.QAllP95 })),
			f0(col(func(r Run) float64 { return r.QFrames })), f0(col(func(r Run) float64 { return r.QPings })),
			strings.Join(e, ","), strings.Join(lost, " "))
	}
	fmt.Println()
}

var order = []string{"gopcu-off", "gopcu-osmo", "gopcu-codel", "gopcu-pie", "gopcu", "gopcu-fq-codel", "gopcu-fq-pie", "gopcu-sfq-red", "osmo-pcu"}

func rank(s string) int {
	for i, o := range order {
		if o == s {
			return i
		}
	}
	return len(order)
}

func main() {
	perRun := flag.Bool("runs", false, "one line per row directory instead of the median per scenario")
	detail := flag.Bool("detail", false, "more columns: all frames' queue delay, ECT data packets, pings lost")
	noHeader := flag.Bool("noheader", false, "no table header")
	flag.BoolVar(&pool, "pool", false, "pool the runs of different commits in one group")
	flag.Parse()
	var runs []Run
	for _, d := range flag.Args() {
		if _, err := os.Stat(filepath.Join(d, "row.env")); err != nil {
			fmt.Fprintln(os.Stderr, "labtable: skipping", d, "(no row.env)")
			continue
		}
		runs = append(runs, Load(d))
	}
	if !*noHeader {
		header(*detail)
	}
	if *perRun {
		for _, r := range runs {
			line([]Run{r}, *detail)
		}
		return
	}
	groups := map[string][]Run{}
	var keys []string
	for _, r := range runs {
		if !r.OK {
			fmt.Fprintln(os.Stderr, "labtable: failed run left out of the medians:", r.Dir)
			continue
		}
		k := key(r)
		if groups[k] == nil {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], r)
	}
	sort.SliceStable(keys, func(i, j int) bool {
		a, b := groups[keys[i]][0].Env, groups[keys[j]][0].Env
		if a["cipher"] != b["cipher"] {
			return a["cipher"] < b["cipher"]
		}
		if a["ms"] != b["ms"] {
			return a["ms"] < b["ms"]
		}
		if rank(a["scenario"]) != rank(b["scenario"]) {
			return rank(a["scenario"]) < rank(b["scenario"])
		}
		if a["ecn"] != b["ecn"] {
			return a["ecn"] < b["ecn"]
		}
		return a["started"] < b["started"]
	})
	for _, k := range keys {
		line(groups[k], *detail)
	}
}
