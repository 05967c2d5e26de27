package chaos

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gopcu/gopcu/bssgp"
	"github.com/gopcu/gopcu/bssgp/ns"
	"github.com/gopcu/gopcu/internal/emu/btsemu"
	"github.com/gopcu/gopcu/internal/emu/msemu"
	"github.com/gopcu/gopcu/internal/testutil"
	"github.com/gopcu/gopcu/internal/testutil/netnstest"
	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/stats/capture"
)

// Addresses inside the test's network namespace (btsemu.DefaultInfo).
var (
	sgsnAddr = netip.MustParseAddrPort("127.0.0.1:23000")
	pcuNS    = netip.MustParseAddrPort("127.0.0.1:23001")
)

const (
	vtyPort     = 4240
	metricsAddr = "127.0.0.1:9240"
	bvci        = 1800
)

// kind is the PCU under test.
type kind string

const (
	gopcu   kind = "gopcu"
	osmoPCU kind = "osmo-pcu"
)

// pcuKind is the PCU the suite runs: gopcu, or osmo-pcu 1.1.0 with
// GOPCU_CHAOS_PCU=osmo-pcu (the comparison in docs/reliability.md).
func pcuKind() kind {
	if os.Getenv("GOPCU_CHAOS_PCU") == string(osmoPCU) {
		return osmoPCU
	}
	return gopcu
}

// full is the full run (GOPCU_CHAOS_FULL=1); CI runs the short one.
func full() bool { return os.Getenv("GOPCU_CHAOS_FULL") == "1" }

// cycles is n in the full run, short in CI.
func cycles(n, short int) int {
	if full() {
		return n
	}
	return short
}

var (
	buildOnce sync.Once
	buildDir  string
	buildBin  string
	buildErr  error
)

// TestMain builds gopcu once, before any test starts its clock: on a cold
// build cache the build takes longer than a scenario's recovery window
// (TestBTSRestart's 30 s failed so). It builds only when the rigs can run
// (root, osmo-sgsn, gopcu under test); the binary goes with the test
// process.
func TestMain(m *testing.M) {
	if testutil.IsRoot() && pcuKind() == gopcu && testutil.HaveBinaries("osmo-sgsn") {
		buildGopcu()
	}
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// buildGopcu builds cmd/gopcu once per test binary (TestMain does it
// first).
func buildGopcu() {
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "gopcu-chaos-bin")
		if err != nil {
			buildErr = err
			return
		}
		buildDir, buildBin = dir, filepath.Join(dir, "gopcu")
		c := exec.Command("go", "build", "-o", buildBin, "github.com/gopcu/gopcu/cmd/gopcu")
		c.Env = append(os.Environ(), "CGO_ENABLED=0") // static, as packaged
		out, err := c.CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
}

// gopcuBinary is the gopcu TestMain built.
func gopcuBinary(t *testing.T) string {
	buildGopcu() // when TestMain did not (it did if the rig can run)
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return buildBin
}

// rig is one scenario's world: a network namespace with osmo-sgsn, the
// PCU under test as a process in it, the BTS emulator on a unix socket and
// MS emulators keeping traffic going (GMM Attach Requests up, osmo-sgsn's
// answers down).
type rig struct {
	t    *testing.T
	kind kind
	n    *netnstest.NS
	dir  string
	sock string

	sgsn   *exec.Cmd
	sgsnWG chan struct{}

	pcu     *exec.Cmd
	pcuDone chan struct{}
	pcuLog  string
	pcuN    int // PCU processes started

	tr  *traffic
	ids []uint32 // the MSs' identities: the same phones come back after a BTS restart
}

func need(t *testing.T) kind {
	t.Helper()
	testutil.NeedRoot(t, "network namespaces")
	k := pcuKind()
	testutil.NeedBinaries(t, "osmo-sgsn", "ip")
	if k != gopcu { // gopcu is built from this tree
		testutil.NeedBinaries(t, string(k))
	}
	return k
}

func newRig(t *testing.T) *rig {
	k := need(t)
	r := &rig{t: t, kind: k, n: netnstest.New(t), dir: t.TempDir()}
	r.sock = filepath.Join(r.dir, "pcu_bts")
	r.startSGSN()
	t.Cleanup(func() {
		if r.tr != nil {
			r.tr.stop()
		}
		r.killPCU()
		r.killSGSN()
		if t.Failed() {
			for _, f := range []string{r.pcuLog, filepath.Join(r.dir, "osmo-sgsn.log")} {
				if b, err := os.ReadFile(f); err == nil {
					if len(b) > 8000 {
						b = b[len(b)-8000:]
					}
					t.Logf("%s (tail):\n%s", filepath.Base(f), b)
				}
			}
		}
	})
	return r
}

// startProc runs args inside the namespace (ip netns exec execs, so the
// PID is the program's own).
func (r *rig) startProc(logName string, args ...string) (*exec.Cmd, chan struct{}) {
	lf, err := os.OpenFile(filepath.Join(r.dir, logName), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		r.t.Fatal(err)
	}
	cmd := exec.Command("ip", append([]string{"netns", "exec", r.n.Name}, args...)...)
	cmd.Stdout, cmd.Stderr, cmd.Dir = lf, lf, r.dir
	if err := cmd.Start(); err != nil {
		r.t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); lf.Close(); close(done) }()
	return cmd, done
}

func (r *rig) startSGSN() {
	cfg, err := os.ReadFile("testdata/osmo-sgsn.cfg")
	if err != nil {
		r.t.Fatal(err)
	}
	p := filepath.Join(r.dir, "osmo-sgsn.cfg")
	if err := os.WriteFile(p, cfg, 0o644); err != nil {
		r.t.Fatal(err)
	}
	r.sgsn, r.sgsnWG = r.startProc("osmo-sgsn.log", "osmo-sgsn", "-c", p)
}

func (r *rig) killSGSN() {
	if r.sgsn != nil {
		r.sgsn.Process.Kill()
		<-r.sgsnWG
		r.sgsn = nil
	}
}

// startPCU starts the PCU under test (its log appends to pcu.log).
func (r *rig) startPCU() {
	r.pcuN++
	r.pcuLog = filepath.Join(r.dir, "pcu.log")
	switch r.kind {
	case gopcu:
		r.pcu, r.pcuDone = r.startProc("pcu.log", gopcuBinary(r.t), "--pcu-sock", r.sock, "--vty-port", strconv.Itoa(vtyPort),
			"--metrics-addr", metricsAddr)
	case osmoPCU:
		cfg, err := os.ReadFile("testdata/osmo-pcu.cfg")
		if err != nil {
			r.t.Fatal(err)
		}
		p := filepath.Join(r.dir, "osmo-pcu.cfg")
		if err := os.WriteFile(p, []byte(strings.Replace(string(cfg), "PCU_SOCK", r.sock, 1)), 0o644); err != nil {
			r.t.Fatal(err)
		}
		r.pcu, r.pcuDone = r.startProc("pcu.log", "osmo-pcu", "-c", p)
	}
}

// pcuAlive reports whether the PCU process runs.
func (r *rig) pcuAlive() bool {
	if r.pcu == nil {
		return false
	}
	select {
	case <-r.pcuDone:
		return false
	default:
		return true
	}
}

func (r *rig) killPCU() {
	if r.pcu != nil {
		r.pcu.Process.Kill()
		<-r.pcuDone
		r.pcu = nil
	}
}

// sigterm stops the PCU with SIGTERM and returns how long it took to
// exit and whether it exited cleanly (status 0); after 10 s it is killed.
func (r *rig) sigterm() (time.Duration, bool) {
	if !r.pcuAlive() {
		r.pcu = nil
		return 0, false
	}
	start := time.Now()
	r.pcu.Process.Signal(syscall.SIGTERM)
	select {
	case <-r.pcuDone:
	case <-time.After(10 * time.Second):
		r.pcu.Process.Kill()
		<-r.pcuDone
		r.pcu = nil
		return time.Since(start), false
	}
	ok := r.pcu.ProcessState.Success()
	r.pcu = nil
	return time.Since(start), ok
}

// panicked reports a Go panic or a C crash in the PCU log.
func (r *rig) panicked() string {
	b, _ := os.ReadFile(r.pcuLog)
	for _, w := range []string{"panic:", "fatal error:", "SIGSEGV", "Assert failed", "Aborted"} {
		if i := strings.Index(string(b), w); i >= 0 {
			return string(b[i:min(len(b), i+300)])
		}
	}
	return ""
}

// proc is what /proc tells about the PCU process.
type proc struct {
	FDs       int
	RSS, HWM  int64 // octets
	Threads   int
	Goroutine int   // gopcu: from /metrics
	Heap      int64 // gopcu: go_memstats_heap_alloc_bytes (liveHeap: after a GC)
}

// liveHeap is gopcu's live heap: SIGUSR1's state dump runs a garbage
// collection (internal/app snapshot), and the heap is read from /metrics
// once go_gc_duration_seconds_count shows it done. A sample's
// heap_alloc also holds the garbage not yet collected, which after a
// burst of work (60 VTY sessions under -race) can stand at the GC goal
// for minutes: no leak, but no fit for a leak check either. 0: no
// answer.
func (r *rig) liveHeap() int64 {
	if r.kind != gopcu || !r.pcuAlive() {
		return 0
	}
	gc0, ok := r.metrics()["go_gc_duration_seconds_count"]
	if !ok {
		return 0
	}
	r.pcu.Process.Signal(syscall.SIGUSR1)
	var heap int64
	testutil.Poll(5*time.Second, func() bool {
		m := r.metrics()
		heap = int64(m["go_memstats_heap_alloc_bytes"])
		return m["go_gc_duration_seconds_count"] > gc0
	})
	return heap
}

func (r *rig) sample() proc {
	var p proc
	if !r.pcuAlive() {
		return p
	}
	pid := r.pcu.Process.Pid
	if ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid)); err == nil {
		p.FDs = len(ents)
	}
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid)); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			f := strings.Fields(l)
			if len(f) < 2 {
				continue
			}
			v, _ := strconv.ParseInt(f[1], 10, 64)
			switch f[0] {
			case "VmRSS:":
				p.RSS = v << 10
			case "VmHWM:":
				p.HWM = v << 10
			case "Threads:":
				p.Threads = int(v)
			}
		}
	}
	if r.kind == gopcu {
		m := r.metrics()
		p.Goroutine = int(m["go_goroutines"])
		p.Heap = int64(m["go_memstats_heap_alloc_bytes"])
	}
	return p
}

var metricLine = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{[^}]*\})?) ([0-9.eE+-]+)$`)

// metrics scrapes gopcu's /metrics inside the namespace.
func (r *rig) metrics() map[string]float64 {
	m := map[string]float64{}
	var body []byte
	err := r.n.Do(func() error {
		c, err := net.DialTimeout("tcp", metricsAddr, 2*time.Second)
		if err != nil {
			return err
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(5 * time.Second))
		fmt.Fprintf(c, "GET /metrics HTTP/1.0\r\nHost: x\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		body, err = io.ReadAll(resp.Body)
		return err
	})
	if err != nil {
		return m
	}
	for _, l := range strings.Split(string(body), "\n") {
		if s := metricLine.FindStringSubmatch(l); s != nil {
			v, _ := strconv.ParseFloat(s[2], 64)
			m[s[1]] = v
		}
	}
	return m
}

// vty runs commands on the PCU's VTY inside the namespace.
func (r *rig) vty(cmds ...string) (string, error) {
	var out strings.Builder
	err := r.n.Do(func() error {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", vtyPort), 2*time.Second)
		if err != nil {
			return err
		}
		defer c.Close()
		br := bufio.NewReader(c)
		readPrompt := func() error {
			c.SetReadDeadline(time.Now().Add(5 * time.Second))
			var b strings.Builder
			for {
				x, err := br.ReadByte()
				if err != nil {
					out.WriteString(b.String())
					return err
				}
				b.WriteByte(x)
				s := b.String()
				if strings.HasSuffix(s, "> ") || strings.HasSuffix(s, "# ") {
					out.WriteString(s)
					return nil
				}
			}
		}
		if err := readPrompt(); err != nil {
			return err
		}
		for _, cmd := range cmds {
			fmt.Fprintf(c, "%s\r", cmd)
			if err := readPrompt(); err != nil {
				return err
			}
		}
		return nil
	})
	return out.String(), err
}

// traffic runs the BTS emulator and MSs in real time: each MS sends a GMM
// Attach Request every second; osmo-sgsn answers downlink. inject runs
// functions between radio blocks (the cell is not shared).
type traffic struct {
	bts    *btsemu.BTS
	cell   *msemu.Cell
	cancel context.CancelFunc
	done   chan struct{}
	inject chan func(*btsemu.BTS)

	activeAt atomic.Int64 // unix nanoseconds: the PCU activated the PDCHs
	ulAt     atomic.Int64 // ... an MS's first uplink frame went into a TBF
	dl       atomic.Int64 // downlink LLC frames the MSs received
	ul       atomic.Int64 // uplink LLC frames the MSs handed to TBFs
	lastDL   atomic.Int64 // unix nanoseconds of the last one
	errs     atomic.Int64
}

var tlliBase atomic.Uint32

// startTraffic starts a BTS emulator on the rig's socket (a new one: as
// a restarted BTS) with nMS MSs.
func (r *rig) startTraffic(nMS int) {
	v := pcuif.V12
	if r.kind == osmoPCU {
		v = pcuif.V10
	}
	bts, err := btsemu.Listen(btsemu.Config{Path: r.sock, Version: v, Info: btsemu.DefaultInfo(v)})
	if err != nil {
		r.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	tr := &traffic{bts: bts, cancel: cancel, done: make(chan struct{}), inject: make(chan func(*btsemu.BTS), 64)}
	r.tr = tr
	for len(r.ids) < nMS {
		r.ids = append(r.ids, tlliBase.Add(1))
	}
	go tr.run(ctx, r.t, r.ids[:nMS])
}

func (tr *traffic) run(ctx context.Context, t *testing.T, ids []uint32) {
	defer close(tr.done)
	if err := tr.bts.WaitActive(ctx, 4); err != nil {
		return
	}
	tr.activeAt.Store(time.Now().UnixNano())
	tr.cell = msemu.NewCell(tr.bts, time.Now().UnixNano())
	var mss []*msemu.MS
	for _, id := range ids {
		m := tr.cell.AddMS(0xd8000000+id, fmt.Sprintf("9017000%08d", id), 10)
		m.OnLLC = func([]byte) {
			tr.dl.Add(1)
			tr.lastDL.Store(time.Now().UnixNano())
		}
		mss = append(mss, m)
	}
	start := time.Now()
	last := tr.bts.FN()
	var radio time.Duration
	nextAttach := time.Now()
	nu := make([]uint16, len(mss)) // LLC N(U): osmo-sgsn drops repeated ones
	for ctx.Err() == nil {
		if time.Now().After(nextAttach) {
			for i, m := range mss {
				if m.ULPending() == 0 {
					m.SendLLC(msemu.UIFrame(1, nu[i]&0x1ff, attachRequest(m.IMSI)))
					nu[i]++
					tr.ul.Add(1)
				}
			}
			nextAttach = time.Now().Add(time.Second)
		}
	drain:
		for {
			select {
			case f := <-tr.inject:
				f(tr.bts)
			default:
				break drain
			}
		}
		if err := tr.cell.Step(ctx); err != nil {
			tr.errs.Add(1)
			select {
			case <-ctx.Done():
				return
			case <-time.After(20 * time.Millisecond):
			}
			start, radio, last = time.Now(), 0, tr.bts.FN()
			continue
		}
		if tr.ulAt.Load() == 0 {
			for _, m := range mss {
				if m.ULFrames > 0 {
					tr.ulAt.Store(time.Now().UnixNano())
				}
			}
		}
		fn := tr.bts.FN()
		radio += time.Duration((fn+pcuif.MaxFN-last)%pcuif.MaxFN) * btsemu.FramePeriod
		last = fn
		if d := time.Until(start.Add(radio)); d > 0 {
			select {
			case <-ctx.Done():
				return
			case <-time.After(d):
			}
		} else if d < -time.Second {
			start, radio = time.Now(), 0 // fell behind: do not race to catch up
		}
	}
}

// stop ends the traffic and closes the BTS emulator (to the PCU: the BTS
// process died).
func (tr *traffic) stop() {
	tr.cancel()
	<-tr.done
	tr.bts.Close()
}

// phases tells, for a slow recovery, when the PDCHs came back, the
// first uplink frame went and the first downlink frame arrived.
func (tr *traffic) phases(since time.Time) string {
	at := func(ns int64) string {
		if ns == 0 {
			return "never"
		}
		return time.Unix(0, ns).Sub(since).Round(time.Millisecond).String()
	}
	return fmt.Sprintf("PDCHs active %s, first UL %s, first DL %s, stepping errors %d", at(tr.activeAt.Load()), at(tr.ulAt.Load()),
		at(tr.lastDL.Load()), tr.errs.Load())
}

// waitDL waits until the MSs receive downlink frames again (after since)
// and returns when the first came, or false after timeout.
func (tr *traffic) waitDL(since time.Time, timeout time.Duration) (time.Duration, bool) {
	var l int64
	if testutil.Poll(time.Until(since.Add(timeout)), func() bool { l = tr.lastDL.Load(); return l > since.UnixNano() }) {
		return time.Unix(0, l).Sub(since), true
	}
	return timeout, false
}

// attachRequest is a GMM Attach Request (TS 24.008 §9.4.1) with the IMSI
// as identity for RAI 901-70-1-0 (as tests/system's).
func attachRequest(imsi string) []byte {
	mi, _ := bssgp.EncodeIMSI(imsi)
	b := []byte{0x08, 0x01, 0x02, 0xe5, 0xe0, 0x71, 0x08, 0x02, byte(len(mi))}
	b = append(b, mi...)
	b = append(b, 0x09, 0xf1, 0x07, 0x00, 0x01, 0x00)
	racap := []byte{0x18, 0xb3, 0x43, 0x2b, 0x25, 0x96, 0x62, 0x00, 0x60, 0x80, 0x9a, 0xc2, 0xc6, 0x62, 0x00, 0x60,
		0x80, 0xba, 0xc8, 0xc6, 0x62, 0x00, 0x60, 0x80, 0x00}
	b = append(b, byte(len(racap)))
	return append(b, racap...)
}

// spoofer sends UDP datagrams inside the namespace with any source address
// (a raw socket): NS PDUs that look like osmo-sgsn's, on the real NS-VC.
type spoofer struct {
	fd  int
	buf []byte
}

func (r *rig) spoofer() *spoofer {
	s := &spoofer{fd: -1}
	err := r.n.Do(func() error {
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_RAW, unix.IPPROTO_RAW)
		s.fd = fd
		return err
	})
	if err != nil {
		r.t.Fatalf("raw socket: %v", err)
	}
	r.t.Cleanup(func() { unix.Close(s.fd) })
	return s
}

func (s *spoofer) send(src, dst netip.AddrPort, payload []byte) error {
	s.buf = capture.AppendIPUDP(s.buf[:0], src, dst, payload)
	return unix.Sendto(s.fd, s.buf, 0, &unix.SockaddrInet4{Addr: dst.Addr().As4()})
}

// dlUnitdata is an NS-UNITDATA with a BSSGP DL-UNITDATA on the PTP BVC.
func dlUnitdata(tlli uint32, lifetime uint16, llc []byte) []byte {
	dl := &bssgp.DLUnitdata{TLLI: tlli, PDULifetime: lifetime, Alignment: -1, LLC: llc}
	b := make([]byte, ns.HeaderLen+bssgp.MarshalLen(dl))
	n, _ := bssgp.MarshalTo(dl, b[ns.HeaderLen:])
	b = b[:ns.HeaderLen+n]
	b[0], b[1], b[2], b[3] = byte(ns.PDUUnitdata), 0, bvci>>8, bvci&0xff
	return b
}

// udpDrops is what the kernel dropped for the PCU's NS socket (port
// 23001) because it was full (/proc/net/udp "drops" of the namespace).
func (r *rig) udpDrops() int64 {
	out, err := r.n.Output("cat", "/proc/net/udp")
	if err != nil {
		return 0
	}
	var n int64
	port := fmt.Sprintf(":%04X", pcuNS.Port())
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) < 13 || !strings.HasSuffix(f[1], port) {
			continue
		}
		v, _ := strconv.ParseInt(f[len(f)-1], 10, 64)
		n += v
	}
	return n
}

// up starts the PCU and the traffic and waits until downlink flows.
func (r *rig) up(nMS int) time.Duration {
	start := time.Now()
	r.startPCU()
	r.startTraffic(nMS)
	d, ok := r.tr.waitDL(start, 30*time.Second)
	if !ok {
		r.t.Fatalf("no downlink traffic within 30 s of the start (PCU alive %v)", r.pcuAlive())
	}
	return d
}
