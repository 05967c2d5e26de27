// Package tcplab is gopcu's real-TCP bufferbloat lab: Linux's own TCP and
// ping run through gopcu over the emulated radio in real time.
//
// The lab (root only) creates a "server" network namespace and one
// namespace per MS, each with nothing but lo and a TUN device:
//
//	server ns 10.0.0.1 (tun0, route 10.1.0.0/16)      MS k ns 10.1.0.k (tun0, route 10.0.0.0/24)
//	   HTTP server (Go, in-process,                      curl, ping -i 1 (real programs,
//	   listener opened inside the ns)                    started with ip netns exec)
//	        |                                                 ^ |
//	   server TUN --IP--> SNDCP SN-UNITDATA / LLC UI (SAPI 3) --> gopcu DL-UNITDATA (TLLI of MS k)
//	                      --> LLC queue, RLC/MAC, PCU socket --> BTS emulator --> MS emulator k
//	                      --> OnLLC: unwrap --> MS k TUN
//	   MS k TUN --IP--> SNDCP/LLC --> MS emulator k SendLLC --> uplink TBF --> gopcu --> Gb UL-UNITDATA
//	                      --> unwrap --> server TUN
//
// The radio is stepped one block at a time (msemu.Cell.Step) and paced by
// the wall clock (TDMA frames of 120/26 ms), so Linux's TCP sees the GPRS
// link's real rate, round trip and queueing. Nothing is routed anywhere
// else: the namespaces have no other interface.
package tcplab

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/gopcu/gopcu/internal/emu/demo"
)

// ErrSkip is wrapped by Run's error when the lab cannot run on this
// machine (not root, a program missing); tests skip on it.
var ErrSkip = errors.New("tcplab: cannot run here")

// Config is the lab's scenario.
type Config struct {
	MSs          int           // mobile stations, each with its own namespace
	CS           int           // GPRS coding scheme 1..4
	Slots        int           // PDCHs
	FileBytes    int           // HTTP download size per MS
	IdlePings    int           // pings before the downloads start
	PingInterval time.Duration // ping -i
	MTU          int           // TUN MTU (IP packet size of full TCP segments)
	N201U        int           // LLC information field for SNDCP segmentation
	RcvBuf       int           // MS's net.ipv4.tcp_rmem max (receive window bound); 0: Linux default
	CC           string        // the server's TCP congestion control ("cubic", Linux's default; "bbr", "reno"; "": the host's)
	MaxTime      time.Duration // give a download up after this
	Seed         int64
	Dir          string    // scratch directory (PCU socket, downloaded files)
	Status       io.Writer // a status line per second (nil: none)
	Trace        io.Writer // per second: the server's TCP state (ss -tin) and the MS emulators; every packet at the TUNs in radio time (nil: none; written from two goroutines: safe for concurrent use, as an *os.File is)
}

// DefaultConfig is the seed scenario: one MS, a 360 kB HTTP download,
// ping every second, CS-2 on 4 PDCHs (~48 kbit/s of LLC payload, like the
// seed's phone and the demo).
func DefaultConfig() Config {
	return Config{MSs: 1, CS: 2, Slots: 4, FileBytes: 360 << 10, IdlePings: 5, PingInterval: time.Second,
		MTU: 1400, N201U: DefaultN201U, RcvBuf: 64 << 10, CC: "cubic", MaxTime: 5 * time.Minute, Seed: 1}
}

// Result of one scenario: the demo's result (so its Summarize and
// WritePlot apply) plus what only real programs tell.
type Result struct {
	demo.Result
	Exact         []bool        // per MS: the download's SHA-256 matched
	PingsSent     int           // all MSs, as ping reported
	PingsAnswered int           // PingsSent less the lost (unanswered, sent 1.5 s or more before ping stopped)
	TUNDrops      int           // packets the lab itself dropped (never expected)
	MaxLag        time.Duration // worst lag of the radio clock behind the wall clock
}

// Row is one line of the lab's table.
type Row struct {
	demo.Summary
	Exact                bool
	PingsSent, PingsLost int
	MaxLag               time.Duration
}

// Summarize makes the table row of a result.
func Summarize(r *Result, cfg Config) Row {
	s := demo.Summarize(&r.Result, demo.Config{MSs: cfg.MSs, CS: cfg.CS, Slots: cfg.Slots, FileBytes: cfg.FileBytes})
	row := Row{Summary: s, Exact: len(r.Exact) > 0, PingsSent: r.PingsSent, PingsLost: r.PingsSent - r.PingsAnswered, MaxLag: r.MaxLag}
	for _, e := range r.Exact {
		row.Exact = row.Exact && e
	}
	return row
}

// WriteTable prints the rows as a Markdown table.
func WriteTable(w io.Writer, rows []Row) {
	demo.WriteHeader(w, "scenario", "idle ping p50 (ms)", "busy ping p50 / p95 / max (ms)", "pings lost / sent",
		"queue delay p50 / max (ms)", "drops codel / lifetime / overflow", "server TCP retx / RTOs", "download time (s)",
		"goodput per MS (kbit/s)", "sha256")
	for _, r := range rows {
		exact := "ok"
		if !r.Exact {
			exact = "MISMATCH"
		}
		fmt.Fprintf(w, "| %s | %s | %s / %s / %s | %d / %d | %s / %s | %d / %d / %d | %d / %d | %.1f%s | %.1f | %s |\n",
			r.Scenario, demo.MS(r.IdleP50), demo.MS(r.BusyP50), demo.MS(r.BusyP95), demo.MS(r.BusyMax), r.PingsLost, r.PingsSent,
			demo.MS(r.QueueP50), demo.MS(r.QueueMax), r.DropsCoDel, r.DropsLifetime, r.DropsOverflow, r.Retx, r.Timeouts,
			r.DownloadTime.Seconds(), r.Unfinished(), r.GoodputKbps, exact)
	}
}

// Check reports why the lab cannot run here (nil: it can).
func Check() error {
	if os.Getuid() != 0 {
		return fmt.Errorf("%w: needs root (network namespaces, TUN devices)", ErrSkip)
	}
	for _, p := range []string{"ip", "curl", "ping", "sysctl"} {
		if _, err := exec.LookPath(p); err != nil {
			return fmt.Errorf("%w: needs %s (apt-get install %s)", ErrSkip, p, debPackage(p))
		}
	}
	if _, err := os.Stat("/dev/net/tun"); err != nil {
		return fmt.Errorf("%w: needs /dev/net/tun (the tun kernel module)", ErrSkip)
	}
	return nil
}

// debPackage names the Debian package of a program Check needs.
func debPackage(p string) string {
	switch p {
	case "ip":
		return "iproute2"
	case "ping":
		return "iputils-ping"
	case "sysctl":
		return "procps"
	}
	return p
}

const (
	tlliBase = 0xc1000000
	lifetime = 1000 // centiseconds, an SGSN's default PDU lifetime
	srvAddr  = "10.0.0.1"
)

func msAddr(k int) string { return fmt.Sprintf("10.1.0.%d", k+1) }

func lastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

type pingReply struct {
	seq int
	at  time.Time // when ping printed the reply (-D)
	rtt time.Duration
}

// parsePing reads iputils ping -D output:
//
//	[1764496000.123456] 64 bytes from 10.0.0.1: icmp_seq=3 ttl=64 time=412 ms
func parsePing(out string) []pingReply {
	var r []pingReply
	for _, line := range strings.Split(out, "\n") {
		if !strings.HasPrefix(line, "[") || !strings.Contains(line, " bytes from ") {
			continue
		}
		end := strings.IndexByte(line, ']')
		ts, err := strconv.ParseFloat(line[1:max(end, 1)], 64)
		if end < 0 || err != nil {
			continue
		}
		var p pingReply
		p.at = time.Unix(0, int64(ts*1e9))
		for _, f := range strings.Fields(line[end+1:]) {
			if v, ok := strings.CutPrefix(f, "icmp_seq="); ok {
				p.seq, _ = strconv.Atoi(v)
			}
			if v, ok := strings.CutPrefix(f, "time="); ok {
				ms, err := strconv.ParseFloat(v, 64)
				if err == nil {
					p.rtt = time.Duration(ms * float64(time.Millisecond))
				}
			}
		}
		if p.rtt > 0 {
			r = append(r, p)
		}
	}
	return r
}

// lostPings counts the echo requests 1..tx without a reply among those
// sent (ping sends request k at start + (k-1) x interval) before cutoff;
// later ones may still have been on their way when ping was stopped.
func lostPings(tx int, replies []pingReply, start, cutoff time.Time, interval time.Duration) int {
	got := map[int]bool{}
	for _, r := range replies {
		got[r.seq] = true
	}
	n := 0
	for k := 1; k <= tx; k++ {
		if !got[k] && start.Add(time.Duration(k-1)*interval).Before(cutoff) {
			n++
		}
	}
	return n
}

// pingTotals reads "N packets transmitted, M received".
func pingTotals(out string) (tx, rx int) {
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "packets transmitted") {
			fmt.Sscanf(line, "%d packets transmitted, %d received", &tx, &rx)
		}
	}
	return
}

// snmpValue finds a counter in /proc/net/snmp or /proc/net/netstat text
// (a header line and a value line per protocol).
func snmpValue(text, proto, name string) int {
	lines := strings.Split(text, "\n")
	for i := 0; i+1 < len(lines); i++ {
		h, v := strings.Fields(lines[i]), strings.Fields(lines[i+1])
		if len(h) == 0 || h[0] != proto || len(v) != len(h) || v[0] != proto {
			continue
		}
		for j := range h {
			if h[j] == name {
				n, _ := strconv.Atoi(v[j])
				return n
			}
		}
	}
	return 0
}
