package tcplab

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
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

	"github.com/gopcu/gopcu/internal/emu/btsemu"
	"github.com/gopcu/gopcu/internal/emu/demo"
	"github.com/gopcu/gopcu/internal/emu/msemu"
	"github.com/gopcu/gopcu/internal/syncbuf"
	"github.com/gopcu/gopcu/pcu"
	"github.com/gopcu/gopcu/pcu/pcuif"
	"golang.org/x/sys/unix"
)

// One run of a scenario: namespaces, HTTP server, gopcu with the BTS
// emulator, the radio loop, ping and curl, and the result.

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
	pingOut   *syncbuf.Buffer
	pingStart time.Time
	pingStop  time.Time
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

// lab is one run of a scenario: what Run sets up, in the order it starts
// it, and what it measures.
type lab struct {
	cfg     Config
	sc      demo.Scenario
	cleanup []func() // undone last first

	srv    *namespace
	srvTun *os.File
	sides  []*msSide
	want   [sha256.Size]byte // SHA-256 of the served file

	bts   *btsemu.BTS
	eng   *pcu.Engine
	gb    *demo.ULSink // the SGSN side: UL-UNITDATA for the radio loop
	cell  *msemu.Cell
	class int // the MSs' multislot class

	tunDrops atomic.Int64
	dlIn     chan []byte   // server TUN -> radio loop
	ulIn     chan msPacket // MS TUNs -> radio loop

	rctx    context.Context // the radio loop's; its cause ends the run
	rcancel context.CancelCauseFunc
	rdone   chan struct{}
	samples []qSample     // radio loop only until it stops
	maxLag  time.Duration // radio loop only until it stops
	vt      time.Duration // radio time; radio loop only
	env     []string      // of ping and curl
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
	l := &lab{cfg: cfg, sc: sc}
	defer l.close()
	if err := l.namespaces(); err != nil {
		return nil, err
	}
	if err := l.startServer(); err != nil {
		return nil, err
	}
	if err := l.startPCU(ctx); err != nil {
		return nil, err
	}
	l.startTUNReaders()
	l.rctx, l.rcancel = context.WithCancelCause(ctx)
	defer l.rcancel(nil)
	l.startRadio()
	l.env = []string{"PATH=" + os.Getenv("PATH"), "LC_ALL=C"} // no proxy variables
	if err := l.startPings(); err != nil {
		return nil, err
	}
	if err := l.sleep(time.Duration(cfg.IdlePings)*cfg.PingInterval + cfg.PingInterval/2); err != nil {
		return nil, err
	}
	if err := l.downloads(); err != nil {
		return nil, err
	}
	// A last ping after the downloads, then stop ping (SIGINT: it prints
	// its statistics) and the radio.
	if err := l.sleep(2 * cfg.PingInterval); err != nil {
		return nil, err
	}
	return l.finish()
}

// close undoes what the run set up, last first.
func (l *lab) close() {
	for i := len(l.cleanup) - 1; i >= 0; i-- {
		l.cleanup[i]()
	}
}

// namespaces creates the server's and the MSs' namespaces with their TUN
// devices.
func (l *lab) namespaces() error {
	cfg := l.cfg
	srv, err := newNamespace("srv")
	if err != nil {
		return err
	}
	l.srv = srv
	l.cleanup = append(l.cleanup, srv.delete)
	srvTun, err := srv.OpenTUN("tun0", srvAddr, "10.1.0.0/16", cfg.MTU)
	if err != nil {
		return err
	}
	l.srvTun = srvTun
	l.cleanup = append(l.cleanup, func() { srvTun.Close() })
	l.sides = make([]*msSide, cfg.MSs)
	for k := range l.sides {
		ns, err := newNamespace(fmt.Sprintf("ms%d", k+1))
		if err != nil {
			return err
		}
		l.cleanup = append(l.cleanup, ns.delete)
		if cfg.RcvBuf > 0 {
			if err := ns.sysctl(fmt.Sprintf("net.ipv4.tcp_rmem=4096 %d %d", cfg.RcvBuf, cfg.RcvBuf)); err != nil {
				return err
			}
		}
		tun, err := ns.OpenTUN("tun0", msAddr(k), "10.0.0.0/24", cfg.MTU)
		if err != nil {
			return err
		}
		l.cleanup = append(l.cleanup, func() { tun.Close() })
		s := &msSide{ns: ns, tun: tun, pingOut: &syncbuf.Buffer{}, file: filepath.Join(cfg.Dir, fmt.Sprintf("ms%d.bin", k+1))}
		s.dlEnc.N201U, s.ulEnc.N201U = cfg.N201U, cfg.N201U
		l.sides[k] = s
	}
	return nil
}

// startServer starts the HTTP server: Go's net/http on Linux's TCP, its
// listening socket opened inside the server namespace.
func (l *lab) startServer() error {
	cfg := l.cfg
	content := make([]byte, cfg.FileBytes)
	rand.New(rand.NewSource(cfg.Seed)).Read(content)
	l.want = sha256.Sum256(content)
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
	if err := l.srv.Do(func() (err error) { ln, err = lc.Listen(context.Background(), "tcp4", srvAddr+":80"); return }); err != nil {
		return fmt.Errorf("listen in %s: %w", l.srv.Name, err)
	}
	hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeContent(w, r, "file", time.Time{}, bytes.NewReader(content))
	})}
	go hs.Serve(ln)
	l.cleanup = append(l.cleanup, func() { hs.Close() })
	return nil
}

// startPCU starts gopcu with the BTS emulator, as the demo runs it, and
// adds the MS emulators.
func (l *lab) startPCU(ctx context.Context) error {
	cfg := l.cfg
	rad, err := demo.StartRadio(ctx, cfg.Dir, cfg.Slots, cfg.CS, l.sc.LLC)
	if err != nil {
		return err
	}
	l.cleanup = append(l.cleanup, rad.Close)
	l.bts, l.eng, l.gb = rad.BTS, rad.Eng, rad.Gb
	l.cell = msemu.NewCell(l.bts, cfg.Seed)
	l.class = demo.MSClass(cfg.Slots)
	for k, s := range l.sides {
		s.ms = l.cell.AddMS(tlliBase+uint32(k), fmt.Sprintf("90170000000%04d", k), l.class)
	}
	return nil
}

// startTUNReaders starts a reader on every TUN device that hands the IPv4
// packets to the radio loop (dlIn, ulIn).
func (l *lab) startTUNReaders() {
	l.dlIn = make(chan []byte, 4096)
	l.ulIn = make(chan msPacket, 4096)
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
				l.tunDrops.Add(1)
			}
		}
	}
	go readTUN(l.srvTun, func(p []byte) bool {
		select {
		case l.dlIn <- p:
			return true
		default:
			return false
		}
	})
	for k, s := range l.sides {
		go readTUN(s.tun, func(p []byte) bool {
			select {
			case l.ulIn <- msPacket{k, p}:
				return true
			default:
				return false
			}
		})
	}
}

// startRadio starts the radio loop: one goroutine owns the cell, the MS
// emulators and the encoders, and steps the radio paced by the wall clock.
func (l *lab) startRadio() {
	l.rdone = make(chan struct{})
	for _, s := range l.sides {
		s := s
		s.ms.OnLLC = func(f []byte) {
			if ip, err := s.dlDec.Decode(f); err == nil && ip != nil {
				l.icmp("ms-rx", ip)
				if _, err := s.tun.Write(ip); err != nil {
					l.tunDrops.Add(1)
				}
			}
		}
	}
	go l.radioLoop()
	l.cleanup = append(l.cleanup, l.stopRadio)
}

// stopRadio ends the radio loop and waits for it.
func (l *lab) stopRadio() { l.rcancel(nil); <-l.rdone }

func (l *lab) radioLoop() {
	defer close(l.rdone)
	srvIP := [4]byte(net.ParseIP(srvAddr).To4())
	byAddr := map[[4]byte]int{}
	for k := range l.sides {
		var a [4]byte
		copy(a[:], net.ParseIP(msAddr(k)).To4())
		byAddr[a] = k
	}
	var pending []pcu.DLUnitdata
	var vt time.Duration
	lastFN := l.bts.FN()
	t0 := time.Now()
	nextSample := time.Duration(0)
	for l.rctx.Err() == nil {
		pending = l.serverToMSs(byAddr, pending)
		l.msToServer(srvIP)
		if len(pending) > 0 {
			batch := pending
			pending = nil
			l.eng.Call(func() {
				for i := range batch {
					l.eng.HandleDLUnitdata(0, &batch[i])
				}
			})
		}
		if vt >= nextSample {
			nextSample += 100 * time.Millisecond
			l.sampleQueues()
		}
		if err := l.cell.Step(l.rctx); err != nil {
			l.rcancel(fmt.Errorf("radio: %w", err))
			return
		}
		fn := l.bts.FN()
		vt += time.Duration((fn-lastFN+pcuif.MaxFN)%pcuif.MaxFN) * btsemu.FramePeriod
		l.vt = vt
		lastFN = fn
		if d := time.Until(t0.Add(vt)); d > 0 {
			time.Sleep(d)
		} else {
			l.maxLag = max(l.maxLag, -d)
		}
	}
}

// serverToMSs encodes the server's waiting packets into LLC frames for
// the engine (appended to pending).
func (l *lab) serverToMSs(byAddr map[[4]byte]int, pending []pcu.DLUnitdata) []pcu.DLUnitdata {
	for {
		select {
		case ip := <-l.dlIn:
			k, ok := byAddr[[4]byte(ip[16:20])]
			if !ok {
				continue
			}
			l.icmp("srv-tx", ip)
			frames, err := l.sides[k].dlEnc.Encode(ip)
			if err != nil {
				l.tunDrops.Add(1)
				continue
			}
			for _, f := range frames {
				pending = append(pending, pcu.DLUnitdata{TLLI: l.sides[k].ms.TLLI, IMSI: l.sides[k].ms.IMSI, Lifetime: lifetime, MSClass: l.class, LLC: f})
			}
		default:
			return pending
		}
	}
}

// msToServer hands the MSs' waiting packets to their MS emulators (which
// request an UL TBF) and the UL-UNITDATA that reached the SGSN side to the
// server's TUN.
func (l *lab) msToServer(srvIP [4]byte) {
	for more := true; more; {
		select {
		case p := <-l.ulIn:
			l.icmp("ms-tx", p.ip)
			frames, err := l.sides[p.idx].ulEnc.Encode(p.ip)
			if err != nil {
				l.tunDrops.Add(1)
				continue
			}
			for _, f := range frames {
				l.sides[p.idx].ms.SendLLC(f)
			}
		default:
			more = false
		}
	}
	for _, u := range l.gb.Take() {
		idx := int(u.TLLI - tlliBase)
		if idx < 0 || idx >= len(l.sides) {
			continue
		}
		// only packets for the server reach its namespace
		if ip, err := l.sides[idx].ulDec.Decode(u.LLC); err == nil && len(ip) >= 20 && [4]byte(ip[16:20]) == srvIP {
			l.icmp("srv-rx", ip)
			if _, err := l.srvTun.Write(ip); err != nil {
				l.tunDrops.Add(1)
			}
		}
	}
}

// sampleQueues records the head-of-queue sojourn of every MS's DL queue.
func (l *lab) sampleQueues() {
	delays := demo.HeadSojourns(l.eng, len(l.sides), func(k int) uint32 { return l.sides[k].ms.TLLI })
	now := time.Now()
	for k, d := range delays {
		l.samples = append(l.samples, qSample{now, k, d})
		l.sides[k].queueMs.Store(d.Milliseconds())
	}
}

// sleep waits d or until the radio loop ends.
func (l *lab) sleep(d time.Duration) error {
	select {
	case <-l.rctx.Done():
		return context.Cause(l.rctx)
	case <-time.After(d):
		return nil
	}
}

// startPings starts ping from every MS to the server, staggered inside
// the interval.
func (l *lab) startPings() error {
	cfg := l.cfg
	for k, s := range l.sides {
		if k > 0 {
			if err := l.sleep(cfg.PingInterval / time.Duration(2*cfg.MSs)); err != nil {
				return err
			}
		}
		s.ping = s.ns.command("ping", "-D", "-n", "-i", strconv.FormatFloat(cfg.PingInterval.Seconds(), 'f', 3, 64), srvAddr)
		s.ping.Stdout, s.ping.Stderr, s.ping.Env = s.pingOut, s.pingOut, l.env
		s.pingStart = time.Now()
		if err := s.ping.Start(); err != nil {
			return err
		}
		p := s.ping
		l.cleanup = append(l.cleanup, func() { p.Process.Kill(); p.Wait() })
	}
	return nil
}

// downloads runs curl in every MS namespace and waits for all of them,
// writing the trace and status lines every second.
func (l *lab) downloads() error {
	cfg := l.cfg
	var wg sync.WaitGroup
	for _, s := range l.sides {
		s.curlStart = time.Now()
		c := s.ns.command("curl", "-sS", "--noproxy", "*", "--max-time", strconv.Itoa(int(cfg.MaxTime.Seconds())),
			"-o", s.file, "-w", "%{time_total} %{size_download} %{http_code}", "http://"+srvAddr+"/file")
		c.Env = l.env
		var out syncbuf.Buffer
		c.Stdout, c.Stderr = &out, &out
		if err := c.Start(); err != nil {
			return err
		}
		cdone := make(chan struct{})
		l.cleanup = append(l.cleanup, func() { c.Process.Kill(); <-cdone }) // by PID; a no-op once reaped
		wg.Go(func() {
			defer close(cdone)
			s.curlErr = c.Wait()
			s.curlEnd = time.Now()
			s.curlOut = out.String()
		})
	}
	allDone := make(chan struct{})
	go func() { wg.Wait(); close(allDone) }()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	start := time.Now()
	for {
		select {
		case <-allDone:
			return nil
		case <-l.rctx.Done():
			return context.Cause(l.rctx) // the cleanup kills curl and ping
		case <-tick.C:
			l.report(start)
		}
	}
}

// report writes the per-second trace and status lines of the downloads
// that started at start.
func (l *lab) report(start time.Time) {
	cfg := l.cfg
	if cfg.Trace != nil {
		out, _ := l.srv.Output("ss", "-tin", "state", "established")
		fmt.Fprintf(cfg.Trace, "--- %.1fs\n%s", time.Since(start).Seconds(), out)
		for k, s := range l.sides {
			fmt.Fprintf(cfg.Trace, "MS%d queue %d ms\n", k, s.queueMs.Load())
		}
	}
	if cfg.Status != nil {
		for k, s := range l.sides {
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
			fmt.Fprintf(cfg.Status, "[%-13s %5.1fs] MS%d %5.1f%% %5.1f kbit/s  ping %s  queue %4d ms\n", l.sc.Name, el, k,
				100*float64(got)/float64(cfg.FileBytes), float64(got)*8/el/1000, last, s.queueMs.Load())
		}
	}
}

// finish stops ping and the radio and builds the result.
func (l *lab) finish() (*Result, error) {
	for _, s := range l.sides {
		s.pingStop = time.Now()
		s.ping.Process.Signal(syscall.SIGINT)
		s.ping.Wait()
	}
	res := &Result{Result: demo.Result{Scenario: l.sc.Name, MS: make([]demo.MSResult, l.cfg.MSs)}}
	demo.ReadDrops(l.eng, &res.Result)
	l.stopRadio()
	res.MaxLag = l.maxLag
	res.TUNDrops = int(l.tunDrops.Load())
	l.collect(res)
	for k, s := range l.sides {
		if !res.MS[k].Done {
			return res, fmt.Errorf("tcplab: %s: MS%d download failed: %v %s", l.sc.Name, k, s.curlErr, strings.TrimSpace(s.curlOut))
		}
	}
	return res, nil
}

// collect fills res from curl's and ping's output, the queue samples and
// the server namespace's TCP counters.
func (l *lab) collect(res *Result) {
	cfg := l.cfg
	dlStart := l.sides[0].curlStart
	for k, s := range l.sides {
		m := &res.MS[k]
		var tt float64
		var size, code int
		if _, err := fmt.Sscanf(strings.TrimSpace(lastLine(s.curlOut)), "%g %d %d", &tt, &size, &code); err == nil && s.curlErr == nil && code == 200 {
			m.Done = true
			m.DownloadTime = time.Duration(tt * float64(time.Second))
			m.Bytes = size
		}
		got, _ := os.ReadFile(s.file)
		res.Exact = append(res.Exact, m.Done && sha256.Sum256(got) == l.want)
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
	for _, q := range l.samples {
		s := l.sides[q.idx]
		if !q.t.Before(s.curlStart) && !q.t.After(s.curlEnd) {
			res.MS[q.idx].QueueDelay = append(res.MS[q.idx].QueueDelay, q.d)
		}
		res.Series = append(res.Series, demo.Point{T: q.t.Sub(dlStart), MS: q.idx, QueueDelay: q.d})
	}
	// Linux's TCP counters of the server namespace (all MSs together).
	if out, err := l.srv.Output("cat", "/proc/net/snmp", "/proc/net/netstat"); err == nil {
		res.MS[0].Retx = snmpValue(out, "Tcp:", "RetransSegs")
		res.MS[0].Timeouts = snmpValue(out, "TcpExt:", "TCPTimeouts")
	}
}

// icmp writes a packet's passage to cfg.Trace with the radio time (radio
// loop only): an echo request or reply with its sequence number, any
// other packet with its protocol and length. (The per-second "---"
// lines of report carry the wall clock since the start.)
func (l *lab) icmp(ev string, ip []byte) {
	if l.cfg.Trace == nil || len(ip) < 28 {
		return
	}
	if ip[9] != 1 {
		fmt.Fprintf(l.cfg.Trace, "pkt  %8.3f %-6s proto %d len %d\n", l.vt.Seconds(), ev, ip[9], len(ip))
		return
	}
	fmt.Fprintf(l.cfg.Trace, "icmp %8.3f %-6s type %d seq %d\n", l.vt.Seconds(), ev, ip[20], int(ip[26])<<8|int(ip[27]))
}
