// Command labping splits each busy ping of a lab-net row
// (tests/labnet/compare.sh) into where its time went, per phone:
//
//	labping <row dir>...
//
// A row's files: gopcu-ms<k>.busy (ping -D: each reply's Unix time and
// round trip), ul-trace.txt (labms -ul-trace: the phone's uplink steps,
// msemu.MS.Trace) and, for the Gb split, gb-icmp.txt (the pings on Gb from
// lab.pcapng; CAPTURE=1). For each echo request: when its LLC frame
// (94 octets) was queued in the phone, whether the phone had to ask for
// an uplink TBF (a Channel Request Description in a DL Ack/Nack, or a
// RACH) and when the assignment came, its first uplink block, the
// UL-UNITDATA on Gb carrying it, the echo reply's DL-UNITDATA on Gb and
// the reply's LLC frame in the phone. It prints the medians and 90th
// percentiles of each step.
package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/gopcu/gopcu/tests/labnet/pinglog"
)

// pingFrame is the LLC length of a default ping's echo request and reply
// (84 octets of IP, SNDCP and LLC headers, FCS).
const pingFrame = 94

type event struct {
	t  float64
	ev string
	n  int
}

type gbPing struct {
	t  float64
	ul bool   // UL-UNITDATA (the echo request); else DL-UNITDATA (the reply)
	ms string // the phone's address
}

type ping struct{ reply, rtt float64 }

// split is one ping's steps, in seconds (negative: not known).
type split struct {
	rtt, request, assign, firstUL, ulAir, core, dl float64
}

// asked: the phone had to ask for an uplink TBF (request known).
func (x split) asked() bool { return x.request >= 0 }

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: labping <row dir>...")
		os.Exit(2)
	}
	for _, dir := range os.Args[1:] {
		if err := row(dir); err != nil {
			fmt.Fprintf(os.Stderr, "labping: %s: %v\n", dir, err)
			os.Exit(1)
		}
	}
}

func row(dir string) error {
	trace, err := readTrace(filepath.Join(dir, "ul-trace.txt"))
	if err != nil {
		return err
	}
	gb, _ := readGb(filepath.Join(dir, "gb-icmp.txt")) // (optional)
	var phones []string
	for p := range trace {
		phones = append(phones, p)
	}
	sort.Strings(phones)
	fmt.Printf("%s\n", dir)
	for _, p := range phones {
		pings, err := readBusy(filepath.Join(dir, "gopcu-"+p+".busy"))
		if err != nil {
			return err
		}
		s := splits(trace[p], pings, gb)
		fmt.Printf("  %s: %d pings, %d asked for an uplink TBF\n", p, len(s), count(s, split.asked))
		show := func(name string, f func(split) float64, sel func(split) bool) {
			var v []float64
			for _, x := range s {
				if y := f(x); y >= 0 && (sel == nil || sel(x)) {
					v = append(v, y)
				}
			}
			if len(v) == 0 {
				return
			}
			sort.Float64s(v)
			fmt.Printf("    %-44s p50 %4.0f ms  p90 %4.0f ms  (%d)\n", name, 1000*v[(len(v)-1)/2], 1000*v[(len(v)-1)*9/10], len(v))
		}
		asked := split.asked
		open := func(x split) bool { return !x.asked() }
		show("round trip", func(x split) float64 { return x.rtt }, nil)
		show("round trip, uplink TBF asked for", func(x split) float64 { return x.rtt }, asked)
		show("round trip, uplink TBF open", func(x split) float64 { return x.rtt }, open)
		show("frame queued -> request (CRD or RACH)", func(x split) float64 { return x.request }, asked)
		show("request -> assignment", func(x split) float64 { return x.assign }, asked)
		show("frame queued -> first uplink block", func(x split) float64 { return x.firstUL }, nil)
		show("first uplink block -> UL-UNITDATA on Gb", func(x split) float64 { return x.ulAir }, nil)
		show("UL-UNITDATA -> reply's DL-UNITDATA", func(x split) float64 { return x.core }, nil)
		show("reply's DL-UNITDATA -> reply frame in phone", func(x split) float64 { return x.dl }, nil)
	}
	return nil
}

func count(s []split, f func(split) bool) int {
	n := 0
	for _, x := range s {
		if f(x) {
			n++
		}
	}
	return n
}

// splits matches each ping with its steps in the phone's trace and on Gb.
func splits(ev []event, pings []ping, gb []gbPing) []split {
	addr := phoneAddr(pings, gb)
	var out []split
	for _, p := range pings {
		sent := p.reply - p.rtt
		qi := -1
		for i, e := range ev {
			if e.ev == "ulq" && e.n == pingFrame && e.t >= sent-0.002 {
				qi = i
				break
			}
		}
		if qi < 0 || ev[qi].t > p.reply {
			continue
		}
		x := split{rtt: p.rtt, request: -1, assign: -1, firstUL: -1, ulAir: -1, core: -1, dl: -1}
		q := ev[qi].t
		var req, asg, ul1 float64
		for _, e := range ev[qi+1:] {
			if e.t > p.reply || ul1 > 0 {
				break
			}
			switch e.ev {
			case "crd", "rach":
				if req == 0 {
					req = e.t
				}
			case "pua", "ia":
				if asg == 0 {
					asg = e.t
				}
			case "ul":
				ul1 = e.t
			}
		}
		if ul1 == 0 {
			continue
		}
		x.firstUL = ul1 - q
		if req > 0 {
			x.request = req - q
			if asg > 0 {
				x.assign = asg - req
			}
		}
		var reply float64
		for _, e := range ev {
			if e.ev == "dlf" && e.n == pingFrame && e.t > q && e.t <= p.reply+0.002 {
				reply = e.t
			}
		}
		var gul, gdl float64
		for _, g := range gb {
			if g.ms != addr || g.t <= sent || g.t >= p.reply {
				continue
			}
			if g.ul && gul == 0 {
				gul = g.t
			} else if !g.ul && gdl == 0 {
				gdl = g.t
			}
		}
		if gul > 0 {
			x.ulAir = gul - ul1
			if gdl > 0 {
				x.core = gdl - gul
				if reply > 0 {
					x.dl = reply - gdl
				}
			}
		}
		out = append(out, x)
	}
	return out
}

// phoneAddr is the address whose echo requests on Gb fall within the
// phone's pings (the trace does not name it).
func phoneAddr(pings []ping, gb []gbPing) string {
	hits := map[string]int{}
	for _, p := range pings {
		for _, g := range gb {
			if g.ul && g.t > p.reply-p.rtt && g.t < p.reply {
				hits[g.ms]++
			}
		}
	}
	best, n := "", 0
	for a, h := range hits {
		if h > n || h == n && a < best {
			best, n = a, h
		}
	}
	return best
}

func readTrace(name string) (map[string][]event, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string][]event{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text()) // <unix time> ms<k> <event> <n> <fn>
		if len(fs) != 5 {
			continue
		}
		t, err1 := strconv.ParseFloat(fs[0], 64)
		n, err2 := strconv.Atoi(fs[3])
		if err1 != nil || err2 != nil {
			continue
		}
		out[fs[1]] = append(out[fs[1]], event{t, fs[2], n})
	}
	return out, sc.Err()
}

// readBusy reads a phone's busy pings (pinglog) as Unix seconds.
func readBusy(name string) ([]ping, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rs, err := pinglog.Parse(f)
	var out []ping
	for _, r := range rs {
		out = append(out, ping{float64(r.At.UnixNano()) / 1e9, r.RTT.Seconds()})
	}
	return out, err
}

// readGb reads gb-icmp.txt: "<time> <NS source port> <ICMP type> <seq>
// <outer,inner source> <outer,inner destination>"; the PCU sends from
// port 23001 (UL-UNITDATA), the SGSN from 23000.
func readGb(name string) ([]gbPing, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	var out []gbPing
	for _, l := range strings.Split(string(b), "\n") {
		fs := strings.Fields(l)
		if len(fs) != 6 {
			continue
		}
		t, _ := strconv.ParseFloat(fs[0], 64)
		ul := fs[1] == "23001"
		last := func(s string) string { return s[strings.LastIndexByte(s, ',')+1:] }
		ms := last(fs[5])
		if ul {
			ms = last(fs[4])
		}
		out = append(out, gbPing{t: t, ul: ul, ms: ms})
	}
	return out, nil
}
