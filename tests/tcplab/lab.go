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
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gopcu/gopcu/pcu"
	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/tests/btsemu"
	"github.com/gopcu/gopcu/tests/demo"
	"github.com/gopcu/gopcu/tests/msemu"
	"golang.org/x/sys/unix"
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
	Trace        io.Writer // per second: the server's TCP state (ss -tin) and the MS emulators (nil: none)
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

func msStr(d time.Duration) string { return strconv.FormatInt(d.Milliseconds(), 10) }

// WriteTable prints the rows as a Markdown table.
func WriteTable(w io.Writer, rows []Row) {
	fmt.Fprintln(w, "| scenario | idle ping p50 (ms) | busy ping p50 / p95 / max (ms) | pings lost / sent | queue delay p50 / max (ms) | drops codel / lifetime / overflow | server TCP retx / RTOs | download time (s) | goodput per MS (kbit/s) | sha256 |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|")
	for _, r := range rows {
		done := ""
		if !r.AllDone {
			done = " (unfinished)"
		}
		exact := "ok"
		if !r.Exact {
			exact = "MISMATCH"
		}
		fmt.Fprintf(w, "| %s | %s | %s / %s / %s | %d / %d | %s / %s | %d / %d / %d | %d / %d | %.1f%s | %.1f | %s |\n",
			r.Scenario, msStr(r.IdleP50), msStr(r.BusyP50), msStr(r.BusyP95), msStr(r.BusyMax), r.PingsLost, r.PingsSent,
			msStr(r.QueueP50), msStr(r.QueueMax), r.DropsCoDel, r.DropsLifetime, r.DropsOverflow, r.Retx, r.Timeouts,
			r.DownloadTime.Seconds(), done, r.GoodputKbps, exact)
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

type ulFrame struct {
	idx   int
	frame []byte
}

// gbSide is the SGSN side at the BSSGP service level: UL-UNITDATA from the
// engine goroutine is handed to the radio loop.
type gbSide struct {
	mu sync.Mutex
	ul []ulFrame
	n  int
}

func (g *gbSide) ULUnitdata(bts uint8, tlli uint32, llc []byte) {
	idx := int(tlli - tlliBase)
	if idx < 0 || idx >= g.n {
		return
	}
	g.mu.Lock()
	g.ul = append(g.ul, ulFrame{idx, llc})
	g.mu.Unlock()
}
func (g *gbSide) LLCDiscarded(bts uint8, tlli uint32, frames uint8, octets uint32) {}
func (g *gbSide) take() []ulFrame {
	g.mu.Lock()
	defer g.mu.Unlock()
	u := g.ul
	g.ul = nil
	return u
}

type msSide struct {
	ns      *namespace
	tun     *os.File
	ms      *msemu.MS
	dlEnc   Encoder // server -> MS
	dlDec   Decoder
	ulEnc   Encoder // MS -> server
	ulDec   Decoder
	queueMs atomic.Int64 // last head-of-queue sojourn sample
	// download
	curlStart, curlEnd time.Time
	curlOut            string
	curlErr            error
	file               string
	// ping
	ping      *exec.Cmd
	pingOut   *syncBuffer
	pingStart time.Time
	pingStop  time.Time
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type qSample struct {
	t   time.Time
	idx int
	d   time.Duration
}

type msPacket struct {
	idx int
	ip  []byte
}

// Run runs one queue management scenario with fresh namespaces (so no TCP
// metrics carry over) and removes them before it returns, also when ctx is
// cancelled.
func Run(ctx context.Context, cfg Config, sc demo.Scenario) (*Result, error) {
	if err := Check(); err != nil {
		return nil, err
	}
	if cfg.CS < 1 || cfg.CS > 4 || cfg.Slots < 1 || cfg.Slots > 8 || cfg.MSs < 1 || cfg.MSs > 200 {
		return nil, fmt.Errorf("tcplab: bad configuration (CS %d, slots %d, MSs %d)", cfg.CS, cfg.Slots, cfg.MSs)
	}
	if cfg.N201U == 0 {
		cfg.N201U = DefaultN201U
	}
	var cleanup []func()
	defer func() {
		for i := len(cleanup) - 1; i >= 0; i-- {
			cleanup[i]()
		}
	}()

	// Namespaces and TUN devices.
	srv, err := newNamespace("srv")
	if err != nil {
		return nil, err
	}
	cleanup = append(cleanup, srv.delete)
	srvTun, err := srv.openTUN(srvAddr, "10.1.0.0/16", cfg.MTU)
	if err != nil {
		return nil, err
	}
	cleanup = append(cleanup, func() { srvTun.Close() })
	sides := make([]*msSide, cfg.MSs)
	for k := range sides {
		ns, err := newNamespace(fmt.Sprintf("ms%d", k+1))
		if err != nil {
			return nil, err
		}
		cleanup = append(cleanup, ns.delete)
		if cfg.RcvBuf > 0 {
			if err := ns.sysctl(fmt.Sprintf("net.ipv4.tcp_rmem=4096 %d %d", cfg.RcvBuf, cfg.RcvBuf)); err != nil {
				return nil, err
			}
		}
		tun, err := ns.openTUN(msAddr(k), "10.0.0.0/24", cfg.MTU)
		if err != nil {
			return nil, err
		}
		cleanup = append(cleanup, func() { tun.Close() })
		s := &msSide{ns: ns, tun: tun, pingOut: &syncBuffer{}, file: filepath.Join(cfg.Dir, fmt.Sprintf("ms%d.bin", k+1))}
		s.dlEnc.N201U, s.ulEnc.N201U = cfg.N201U, cfg.N201U
		sides[k] = s
	}

	// The HTTP server: Go's net/http on Linux's TCP, its listening socket
	// opened inside the server namespace.
	content := make([]byte, cfg.FileBytes)
	rand.New(rand.NewSource(cfg.Seed)).Read(content)
	want := sha256.Sum256(content)
	var ln net.Listener
	// A new namespace inherits the host's congestion control (some hosts
	// run BBR, and only the host may allow others for namespaces): the
	// server's listening socket names its own (TCP_CONGESTION, root), and
	// the accepted connections inherit it.
	lc := net.ListenConfig{Control: func(network, address string, c syscall.RawConn) error {
		if cfg.CC == "" {
			return nil
		}
		var serr error
		if err := c.Control(func(fd uintptr) { serr = unix.SetsockoptString(int(fd), unix.IPPROTO_TCP, unix.TCP_CONGESTION, cfg.CC) }); err != nil {
			return err
		}
		if serr != nil {
			return fmt.Errorf("TCP_CONGESTION %s: %w", cfg.CC, serr)
		}
		return nil
	}}
	if err := srv.Do(func() (err error) { ln, err = lc.Listen(context.Background(), "tcp4", srvAddr+":80"); return }); err != nil {
		return nil, fmt.Errorf("listen in %s: %w", srv.Name, err)
	}
	hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeContent(w, r, "file", time.Time{}, bytes.NewReader(content))
	})}
	go hs.Serve(ln)
	cleanup = append(cleanup, func() { hs.Close() })

	// gopcu with the BTS emulator, as the demo runs it.
	path := filepath.Join(cfg.Dir, "pcu_bts")
	info := btsemu.DefaultInfo(pcuif.V12)
	info.TRX[0].PDCHMask = byte(0xff << (8 - cfg.Slots))
	info.InitialCS = uint8(cfg.CS)
	bts, err := btsemu.Listen(btsemu.Config{Path: path, Version: pcuif.V12, Info: info})
	if err != nil {
		return nil, err
	}
	cleanup = append(cleanup, func() { bts.Close() })
	params := pcu.DefaultParams()
	params.LLC = sc.LLC
	// the scenario's coding scheme, pinned: no link adaptation (`cs N N`, `cs max N N`)
	params.ForceCSDL, params.ForceCSUL = cfg.CS, cfg.CS
	params.CSMaxDL, params.CSMaxUL = cfg.CS, cfg.CS
	eng := pcu.New(pcu.Config{SocketPath: path, Params: &params})
	gb := &gbSide{n: cfg.MSs}
	eng.SetGb(gb)
	ectx, ecancel := context.WithCancel(context.Background())
	edone := make(chan struct{})
	go func() { eng.Run(ectx); close(edone) }()
	cleanup = append(cleanup, func() { ecancel(); <-edone })
	wctx, wcancel := context.WithTimeout(ctx, 10*time.Second)
	err = bts.WaitActive(wctx, cfg.Slots)
	wcancel()
	if err != nil {
		return nil, err
	}
	cell := msemu.NewCell(bts, cfg.Seed)
	class := 12
	if cfg.Slots > 4 {
		class = 29
	}
	for k, s := range sides {
		s.ms = cell.AddMS(tlliBase+uint32(k), fmt.Sprintf("90170000000%04d", k), class)
	}

	// TUN readers.
	var tunDrops atomic.Int64
	dlIn := make(chan []byte, 4096)
	ulIn := make(chan msPacket, 4096)
	readTUN := func(f *os.File, put func([]byte) bool) {
		for {
			buf := make([]byte, 65536)
			n, err := f.Read(buf)
			if err != nil {
				return
			}
			if n < 20 || buf[0]>>4 != 4 { // IPv4 only
				continue
			}
			if !put(buf[:n]) {
				tunDrops.Add(1)
			}
		}
	}
	go readTUN(srvTun, func(p []byte) bool {
		select {
		case dlIn <- p:
			return true
		default:
			return false
		}
	})
	for k, s := range sides {
		go readTUN(s.tun, func(p []byte) bool {
			select {
			case ulIn <- msPacket{k, p}:
				return true
			default:
				return false
			}
		})
	}

	// The radio loop: one goroutine owns the cell, the MS emulators and
	// the encoders.
	rctx, rcancel := context.WithCancelCause(ctx)
	defer rcancel(nil)
	var samples []qSample
	var maxLag time.Duration
	rdone := make(chan struct{})
	for _, s := range sides {
		s := s
		s.ms.OnLLC = func(f []byte) {
			if ip, err := s.dlDec.Decode(f); err == nil && ip != nil {
				if _, err := s.tun.Write(ip); err != nil {
					tunDrops.Add(1)
				}
			}
		}
	}
	go func() {
		defer close(rdone)
		srvIP := [4]byte(net.ParseIP(srvAddr).To4())
		byAddr := map[[4]byte]int{}
		for k := range sides {
			var a [4]byte
			copy(a[:], net.ParseIP(msAddr(k)).To4())
			byAddr[a] = k
		}
		var pending []pcu.DLUnitdata
		var vt time.Duration
		lastFN := bts.FN()
		t0 := time.Now()
		nextSample := time.Duration(0)
		for rctx.Err() == nil {
			// server -> MSs
			for more := true; more; {
				select {
				case ip := <-dlIn:
					k, ok := byAddr[[4]byte(ip[16:20])]
					if !ok {
						continue
					}
					frames, err := sides[k].dlEnc.Encode(ip)
					if err != nil {
						tunDrops.Add(1)
						continue
					}
					for _, f := range frames {
						pending = append(pending, pcu.DLUnitdata{TLLI: sides[k].ms.TLLI, IMSI: sides[k].ms.IMSI, Lifetime: lifetime, MSClass: class, LLC: f})
					}
				default:
					more = false
				}
			}
			// MSs -> server: the MS emulator requests an UL TBF
			for more := true; more; {
				select {
				case p := <-ulIn:
					frames, err := sides[p.idx].ulEnc.Encode(p.ip)
					if err != nil {
						tunDrops.Add(1)
						continue
					}
					for _, f := range frames {
						sides[p.idx].ms.SendLLC(f)
					}
				default:
					more = false
				}
			}
			for _, u := range gb.take() {
				// only packets for the server reach its namespace
				if ip, err := sides[u.idx].ulDec.Decode(u.frame); err == nil && len(ip) >= 20 && [4]byte(ip[16:20]) == srvIP {
					if _, err := srvTun.Write(ip); err != nil {
						tunDrops.Add(1)
					}
				}
			}
			if len(pending) > 0 {
				batch := pending
				pending = nil
				eng.Call(func() {
					for i := range batch {
						eng.HandleDLUnitdata(0, &batch[i])
					}
				})
			}
			if vt >= nextSample {
				nextSample += 100 * time.Millisecond
				delays := make([]time.Duration, len(sides))
				eng.Call(func() {
					for k, s := range sides {
						if m, ok := eng.MSViewByTLLI(s.ms.TLLI); ok {
							delays[k] = m.QueueHeadSojourn
						}
					}
				})
				now := time.Now()
				for k, d := range delays {
					samples = append(samples, qSample{now, k, d})
					sides[k].queueMs.Store(d.Milliseconds())
				}
			}
			if err := cell.Step(rctx); err != nil {
				rcancel(fmt.Errorf("radio: %w", err))
				return
			}
			fn := bts.FN()
			vt += time.Duration((fn-lastFN+pcuif.MaxFN)%pcuif.MaxFN) * btsemu.FramePeriod
			lastFN = fn
			if d := time.Until(t0.Add(vt)); d > 0 {
				time.Sleep(d)
			} else {
				maxLag = max(maxLag, -d)
			}
		}
	}()
	stopRadio := func() { rcancel(nil); <-rdone }
	cleanup = append(cleanup, stopRadio)

	sleep := func(d time.Duration) error {
		select {
		case <-rctx.Done():
			return context.Cause(rctx)
		case <-time.After(d):
			return nil
		}
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "LC_ALL=C"} // no proxy variables
	// Pings from every MS to the server, staggered inside the interval.
	for k, s := range sides {
		if k > 0 {
			if err := sleep(cfg.PingInterval / time.Duration(2*cfg.MSs)); err != nil {
				return nil, err
			}
		}
		s.ping = s.ns.command("ping", "-D", "-n", "-i", strconv.FormatFloat(cfg.PingInterval.Seconds(), 'f', 3, 64), srvAddr)
		s.ping.Stdout, s.ping.Stderr, s.ping.Env = s.pingOut, s.pingOut, env
		s.pingStart = time.Now()
		if err := s.ping.Start(); err != nil {
			return nil, err
		}
		p := s.ping
		cleanup = append(cleanup, func() { p.Process.Kill(); p.Wait() })
	}
	if err := sleep(time.Duration(cfg.IdlePings)*cfg.PingInterval + cfg.PingInterval/2); err != nil {
		return nil, err
	}
	// The downloads.
	var wg sync.WaitGroup
	for _, s := range sides {
		s.curlStart = time.Now()
		c := s.ns.command("curl", "-sS", "--noproxy", "*", "--max-time", strconv.Itoa(int(cfg.MaxTime.Seconds())),
			"-o", s.file, "-w", "%{time_total} %{size_download} %{http_code}", "http://"+srvAddr+"/file")
		c.Env = env
		var out syncBuffer
		c.Stdout, c.Stderr = &out, &out
		if err := c.Start(); err != nil {
			return nil, err
		}
		cdone := make(chan struct{})
		cleanup = append(cleanup, func() { c.Process.Kill(); <-cdone }) // by PID; a no-op once reaped
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(cdone)
			s.curlErr = c.Wait()
			s.curlEnd = time.Now()
			s.curlOut = out.String()
		}()
	}
	allDone := make(chan struct{})
	go func() { wg.Wait(); close(allDone) }()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	start := time.Now()
wait:
	for {
		select {
		case <-allDone:
			break wait
		case <-rctx.Done():
			return nil, context.Cause(rctx) // the cleanup kills curl and ping
		case <-tick.C:
			if cfg.Trace != nil {
				out, _ := srv.Output("ss", "-tin", "state", "established")
				fmt.Fprintf(cfg.Trace, "--- %.1fs\n%s", time.Since(start).Seconds(), out)
				for k, s := range sides {
					fmt.Fprintf(cfg.Trace, "MS%d queue %d ms\n", k, s.queueMs.Load())
				}
			}
			if cfg.Status != nil {
				for k, s := range sides {
					var got int64
					if st, err := os.Stat(s.file); err == nil {
						got = st.Size()
					}
					el := time.Since(start).Seconds()
					rtts := parsePing(s.pingOut.String())
					last := "-"
					if len(rtts) > 0 {
						last = fmt.Sprintf("%4d ms", rtts[len(rtts)-1].rtt.Milliseconds())
					}
					fmt.Fprintf(cfg.Status, "[%-13s %5.1fs] MS%d %5.1f%% %5.1f kbit/s  ping %s  queue %4d ms\n", sc.Name, el, k,
						100*float64(got)/float64(cfg.FileBytes), float64(got)*8/el/1000, last, s.queueMs.Load())
				}
			}
		}
	}
	// A last ping after the downloads, then stop ping (SIGINT: it prints
	// its statistics) and the radio.
	if err := sleep(2 * cfg.PingInterval); err != nil {
		return nil, err
	}
	for _, s := range sides {
		s.pingStop = time.Now()
		s.ping.Process.Signal(syscall.SIGINT)
		s.ping.Wait()
	}
	res := &Result{Result: demo.Result{Scenario: sc.Name, MS: make([]demo.MSResult, cfg.MSs)}}
	eng.Call(func() {
		b, _ := eng.BTSView(0)
		res.Drops.Total = b.Ctr.Value(pcu.CtrLLCFrameDropped)
		res.Drops.Lifetime = b.Ctr.Value(pcu.CtrLLCFrameTimedout)
		res.Drops.CoDel = eng.L1Counters().Value(pcu.L1LLCCoDelDropped)
		res.Drops.Overflow = eng.L1Counters().Value(pcu.L1LLCOverflowDropped)
	})
	stopRadio()
	res.MaxLag = maxLag
	res.TUNDrops = int(tunDrops.Load())

	dlStart := sides[0].curlStart
	for k, s := range sides {
		m := &res.MS[k]
		var tt float64
		var size, code int
		if _, err := fmt.Sscanf(strings.TrimSpace(lastLine(s.curlOut)), "%g %d %d", &tt, &size, &code); err == nil && s.curlErr == nil && code == 200 {
			m.Done = true
			m.DownloadTime = time.Duration(tt * float64(time.Second))
			m.Bytes = size
		}
		got, _ := os.ReadFile(s.file)
		res.Exact = append(res.Exact, m.Done && sha256.Sum256(got) == want)
		replies := parsePing(s.pingOut.String())
		for _, p := range replies {
			sent := p.at.Add(-p.rtt)
			switch {
			case sent.Before(s.curlStart):
				m.IdlePing = append(m.IdlePing, p.rtt)
			case !sent.After(s.curlEnd):
				m.BusyPing = append(m.BusyPing, p.rtt)
			}
			res.Series = append(res.Series, demo.Point{T: p.at.Sub(dlStart), MS: k, Ping: p.rtt, QueueDelay: -1})
		}
		tx, _ := pingTotals(s.pingOut.String())
		res.PingsSent += tx
		res.PingsAnswered += tx - lostPings(tx, replies, s.pingStart, s.pingStop.Add(-3*cfg.PingInterval/2), cfg.PingInterval)
	}
	for _, q := range samples {
		s := sides[q.idx]
		if !q.t.Before(s.curlStart) && !q.t.After(s.curlEnd) {
			res.MS[q.idx].QueueDelay = append(res.MS[q.idx].QueueDelay, q.d)
		}
		res.Series = append(res.Series, demo.Point{T: q.t.Sub(dlStart), MS: q.idx, QueueDelay: q.d})
	}
	// Linux's TCP counters of the server namespace (all MSs together).
	if out, err := srv.Output("cat", "/proc/net/snmp", "/proc/net/netstat"); err == nil {
		res.MS[0].Retx = snmpValue(out, "Tcp:", "RetransSegs")
		res.MS[0].Timeouts = snmpValue(out, "TcpExt:", "TCPTimeouts")
	}
	for k, s := range sides {
		if !res.MS[k].Done {
			return res, fmt.Errorf("tcplab: %s: MS%d download failed: %v %s", sc.Name, k, s.curlErr, strings.TrimSpace(s.curlOut))
		}
	}
	return res, nil
}

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
