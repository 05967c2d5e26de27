package lab

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gopcu/gopcu/bssgp"
	"github.com/gopcu/gopcu/internal/emu/netns"
	"github.com/gopcu/gopcu/internal/testutil"
	"github.com/gopcu/gopcu/pcu"
	"github.com/gopcu/gopcu/pcu/driver"
)

// labPrograms are what the lab runs, from the Debian packages `make test`
// installs.
var labPrograms = []string{"osmo-bts-virtual", "osmo-bsc", "osmo-sgsn", "gcc", "python3", "ip"}

// need skips unless the lab can run: root (network namespaces) and the
// Debian packages.
func need(t *testing.T) {
	t.Helper()
	testutil.NeedRoot(t, "network namespaces")
	testutil.NeedBinaries(t, labPrograms...)
}

// canRun is need without a test: whether TestMain builds gopcu.
func canRun() bool {
	return testutil.IsRoot() && testutil.HaveBinaries(labPrograms...)
}

type lab struct {
	t     *testing.T
	dir   string // tests/lab
	run   string // LAB_RUN
	netns string
	sock  string
}

// The gopcu under test, built by TestMain.
var (
	gopcuBin      string
	gopcuBuildErr error
)

// TestMain builds gopcu once, before any test and its timed windows (the
// BTS's 60 s of RTS_REQs, the SGSN's Gb bring-up), and only when the lab
// can run (need's conditions): on a cold build cache the build takes
// minutes.
func TestMain(m *testing.M) {
	dir := ""
	if canRun() {
		var err error
		if dir, err = os.MkdirTemp("", "gopcu-lab-bin"); err != nil {
			gopcuBuildErr = err
		} else {
			gopcuBin = filepath.Join(dir, "gopcu")
			cmd := exec.Command("go", "build", "-o", gopcuBin, "github.com/gopcu/gopcu/cmd/gopcu")
			cmd.Env = append(os.Environ(), "CGO_ENABLED=0") // static, as packaged
			if out, err := cmd.CombinedOutput(); err != nil {
				gopcuBuildErr = fmt.Errorf("go build: %v\n%s", err, out)
			}
		}
	}
	code := m.Run()
	if dir != "" {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}

// buildGopcu is the binary TestMain built (the test fails if the build
// did).
func buildGopcu(t *testing.T) string {
	t.Helper()
	if gopcuBuildErr != nil {
		t.Fatal(gopcuBuildErr)
	}
	if gopcuBin == "" {
		t.Fatal("gopcu was not built (TestMain: the lab cannot run here)")
	}
	return gopcuBin
}

// upWithoutPCU starts SGSN, BSC and BTS (PCU_CMD=none) in a fresh netns.
func upWithoutPCU(t *testing.T) *lab {
	t.Helper()
	wd, _ := os.Getwd()
	l := &lab{t: t, dir: wd, run: t.TempDir(), netns: fmt.Sprintf("gopcu-lab-%d", os.Getpid())}
	cmd := exec.Command("./up.sh")
	cmd.Dir = wd
	cmd.Env = append(os.Environ(), "LAB_RUN="+l.run, "LAB_NETNS="+l.netns, "PCU_CMD=none")
	out, err := cmd.CombinedOutput()
	t.Cleanup(l.down)
	if err != nil {
		t.Fatalf("up.sh: %v\n%s", err, out)
	}
	l.sock = filepath.Join(l.run, "pcu_bts")
	return l
}

func (l *lab) down() {
	cmd := exec.Command("./down.sh")
	cmd.Dir = l.dir
	cmd.Env = append(os.Environ(), "LAB_RUN="+l.run, "LAB_NETNS="+l.netns)
	if out, err := cmd.CombinedOutput(); err != nil {
		l.t.Logf("down.sh: %v\n%s", err, out)
	}
}

// startPCU runs a command inside the lab netns with cwd = LAB_RUN.
func (l *lab) startPCU(args ...string) (*exec.Cmd, string) {
	logf := filepath.Join(l.run, "gopcu.log")
	f, err := os.Create(logf)
	if err != nil {
		l.t.Fatal(err)
	}
	cmd := exec.Command("ip", append([]string{"netns", "exec", l.netns}, args...)...)
	cmd.Dir = l.run
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		l.t.Fatal(err)
	}
	l.t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
		f.Close()
	})
	return cmd, logf
}

// ctrRe matches a "counter at exit" line in libosmocore's format (the
// default) and in --log-format logfmt.
var ctrRe = regexp.MustCompile(`counter at exit"? group=(\S+) index=(\d+) (?:index_name=\S+ )?name=(\S+) value=(\d+)`)

// readCounters collects the "counter at exit" lines gopcu logs on SIGTERM.
func readCounters(t *testing.T, logf string) map[string]uint64 {
	f, err := os.Open(logf)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m := map[string]uint64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if s := ctrRe.FindStringSubmatch(sc.Text()); s != nil {
			v, _ := strconv.ParseUint(s[4], 10, 64)
			m[s[1]+"."+s[2]+"."+s[3]] = v
		}
	}
	return m
}

func labSeconds() time.Duration {
	if s := os.Getenv("GOPCU_LAB_SECONDS"); s != "" {
		if n, err := strconv.Atoi(s); err == nil {
			return time.Duration(n) * time.Second
		}
	}
	if testing.Short() {
		return 10 * time.Second
	}
	return 60 * time.Second
}

// TestRealBTSPDCHAndRTS: gopcu against Debian's osmo-bts-virtual 1.5.0
// (PCUIF v10): it activates the 4 PDCHs and answers every RTS_REQ for 60 s
// with no PCU error in the BTS log.
func TestRealBTSPDCHAndRTS(t *testing.T) {
	need(t)
	bin := buildGopcu(t)
	l := upWithoutPCU(t)
	cmd, logf := l.startPCU(bin, "--pcu-sock", l.sock)
	d := labSeconds()
	time.Sleep(d) // real time: the BTS's frame clock is what is being tested
	if cmd.ProcessState != nil {
		t.Fatal("gopcu exited early")
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("gopcu: %v", err)
	}
	c := readCounters(t, logf)
	rts := c["pcu:l1if.0.rx:rts_req"]
	tx := c["pcu:l1if.0.tx:msgs"]
	// 4 PDCHs x 50 blocks/s plus PTCCH; allow for the BTS's bursty clock.
	if min := uint64(d.Seconds() * 4 * 50 * 0.8); rts < min {
		t.Errorf("only %d RTS_REQs in %v (want >= %d)", rts, d, min)
	}
	if tx != rts+5 { // every RTS answered + TXT_IND + 4 ACT_REQ
		t.Errorf("sent %d messages for %d RTS_REQs: want RTS + 5 (TXT_IND, 4 ACT_REQ)", tx, rts)
	}
	for k, v := range c {
		if strings.Contains(k, ":err:") || strings.Contains(k, "tx:dropped") || strings.Contains(k, "disabled_pdch") || strings.Contains(k, "link:lost") {
			t.Errorf("counter %s = %d", k, v)
		}
	}
	bl, err := os.ReadFile(filepath.Join(l.run, "osmo-bts-virtual.log"))
	if err != nil {
		t.Fatal(err)
	}
	acts := 0
	for _, line := range strings.Split(string(bl), "\n") {
		if strings.Contains(line, "Activate request received") {
			acts++
		}
		if strings.Contains(line, "DPCU") && strings.Contains(line, "ERROR") {
			t.Errorf("BTS log: %s", line)
		}
	}
	if acts != 4 {
		t.Errorf("BTS saw %d PDCH activations, want 4", acts)
	}
	if !strings.Contains(string(bl), "OsmoPCU version "+pcu.Version) {
		t.Error("BTS did not see our TXT_IND version")
	}
	t.Logf("%v: %d RTS_REQs answered, %d messages sent", d, rts, tx)
}

// upWithGopcu starts the whole lab with gopcu as the PCU: up.sh returns
// only once osmo-sgsn reports the PTP BVC 1800 UNBLOCKED (its `show bssgp`).
func upWithGopcu(t *testing.T, bin string, extra string) *lab {
	t.Helper()
	wd, _ := os.Getwd()
	l := &lab{t: t, dir: wd, run: t.TempDir(), netns: fmt.Sprintf("gopcu-lab-%d", os.Getpid())}
	cmd := exec.Command("./up.sh")
	cmd.Dir = wd
	cmd.Env = append(os.Environ(), "LAB_RUN="+l.run, "LAB_NETNS="+l.netns, "LAB_TIMEOUT=20",
		"PCU_CMD="+bin+` --pcu-sock "$PCU_SOCK" `+extra)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	t.Cleanup(l.down)
	if err != nil {
		pl, _ := os.ReadFile(filepath.Join(l.run, "pcu.log"))
		t.Fatalf("up.sh: %v\n%s\npcu.log:\n%s", err, out, pl)
	}
	t.Logf("lab with gopcu up (BVC UNBLOCKED at osmo-sgsn) in %v", time.Since(start).Round(time.Millisecond))
	l.sock = filepath.Join(l.run, "pcu_bts")
	return l
}

func (l *lab) vty(port int, cmds ...string) string {
	args := append([]string{"netns", "exec", l.netns, "python3", filepath.Join(l.dir, "tools", "vty.py"), strconv.Itoa(port)}, cmds...)
	out, err := exec.Command("ip", args...).CombinedOutput()
	if err != nil {
		l.t.Fatalf("vty %d: %v\n%s", port, err, out)
	}
	return string(out)
}

// TestRealSGSNAndRACH: gopcu brings Gb up with Debian's osmo-sgsn 1.9.0
// (classic NS: RESET, UNBLOCK, ALIVE; BVC-RESET 0 and 1800, UNBLOCK), and a
// RACH sent over virtual Um to the real osmo-bts-virtual gets an Immediate
// Assignment for a packet uplink TBF from gopcu, followed by blocks on the
// assigned PDCH carrying the assigned USF.
func TestRealSGSNAndRACH(t *testing.T) {
	need(t)
	bin := buildGopcu(t)
	l := upWithGopcu(t, bin, "")
	bssgpOut := l.vty(4245, "show bssgp", "show ns")
	if !regexp.MustCompile(`NSEI +101, BVCI +1800, RA-ID: 901-70-1-0, CID: 6969, STATE: UNBLOCKED`).MatchString(bssgpOut) ||
		!strings.Contains(bssgpOut, "NSVCI 00101: UNBLOCKED") {
		t.Fatalf("osmo-sgsn state:\n%s", bssgpOut)
	}
	probe := exec.Command("ip", "netns", "exec", l.netns, "python3", filepath.Join(l.dir, "tools", "rach_probe.py"), "--listen", "3")
	out, err := probe.CombinedOutput()
	if err != nil {
		t.Fatalf("rach_probe: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`IMMEDIATE ASSIGNMENT: 2d 06 3f 10 ([0-9a-f]{2}) e3 67 78 .. .. 00 00 c8 0(.) 3`).FindStringSubmatch(string(out))
	if m == nil {
		t.Fatalf("no packet uplink IMMEDIATE ASSIGNMENT for RA 0x78:\n%s", out)
	}
	ts, _ := strconv.ParseUint(m[1], 16, 8)
	ts &= 7
	usf, _ := strconv.ParseUint(m[2], 16, 8)
	usf = usf >> 1 & 7
	// After X2002 the UL TBF is in FLOW: blocks on its TS carry its USF
	// (octet 0 = 0x40 | USF for a dummy control block).
	re := regexp.MustCompile(fmt.Sprintf(`ts%d 4%d: (\d+)`, ts, usf))
	if mm := re.FindStringSubmatch(string(out)); mm == nil {
		t.Fatalf("no block on TS %d carrying USF %d:\n%s", ts, usf, out)
	}
	t.Logf("RACH answered: IMMEDIATE ASSIGNMENT on TS %d, USF %d", ts, usf)
	// The BTS passed osmo-bsc's SI13 on: its GPRS Cell Options give
	// T3168 (osmo-bsc's 2000 ms, not the 4000 ms default) and T3192.
	if tm := l.vty(4240, "show bts-timer"); !strings.Contains(tm, "T3168 = 2000 ms") || !strings.Contains(tm, "T3192 = 1500 ms") {
		t.Errorf("T3168/T3192 not from osmo-bsc's SI13:\n%s", tm)
	}
}

// TestRealBSCNeighbourResolution: Debian's osmo-bsc 1.9 resolves the
// neighbour its config names (ARFCN 880, BSIC 10 -> CGI-PS
// 901-70-2-3-7000) for gopcu, both ways NACC uses: NEIGH_ADDR_REQ in a
// PCUIF CONTAINER that osmo-bts-virtual relays to the BSC, and osmo-pcu
// 1.1.0's CTRL command on the BSC's neighbour resolution port 4248. An
// unknown neighbour fails both ways.
func TestRealBSCNeighbourResolution(t *testing.T) {
	need(t)
	l := upWithoutPCU(t)
	for _, ctrl := range []bool{false, true} {
		name := "PCUIF"
		if ctrl {
			name = "CTRL"
		}
		t.Run(name, func(t *testing.T) {
			p := pcu.DefaultParams()
			var o driver.Options
			if ctrl {
				ns := &netns.NS{Name: l.netns}
				p.NACC.NeighCtrlAddr, p.NACC.NeighCtrlPort = "127.0.0.1", 4248
				o.Dial = func(network, addr string) (c net.Conn, err error) {
					err = ns.Do(func() (err error) { c, err = net.Dial(network, addr); return })
					return c, err
				}
			}
			eng := pcu.New(pcu.Config{SocketPath: l.sock, Params: &p, MinBackoff: 100 * time.Millisecond})
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() { driver.Run(ctx, eng, o); close(done) }()
			defer func() { cancel(); <-done }()
			resolve := func(arfcn uint16, bsic uint8) (bssgp.CellID, bool) {
				type res struct {
					cgi bssgp.CellID
					ok  bool
				}
				ch := make(chan res, 1)
				var err error
				if !testutil.Poll(20*time.Second, func() bool { // waiting for INFO_IND
					eng.Call(func() {
						err = eng.ResolveNeighbour(0, arfcn, bsic, func(c bssgp.CellID, ok bool) { ch <- res{c, ok} })
					})
					return err == nil
				}) {
					t.Fatalf("BTS never came up: %v", err)
				}
				select {
				case r := <-ch:
					return r.cgi, r.ok
				case <-time.After(10 * time.Second):
					t.Fatal("no answer from osmo-bsc within 10 s")
				}
				return bssgp.CellID{}, false
			}
			cgi, ok := resolve(880, 10)
			want := bssgp.CellID{RAI: bssgp.RAI{MCC: 901, MNC: 70, LAC: 2, RAC: 3}, CI: 7000}
			if !ok || !cgi.Equal(want) {
				bl, _ := os.ReadFile(filepath.Join(l.run, "osmo-bsc.log"))
				t.Fatalf("resolved %v (ok %v), want %v\nosmo-bsc.log:\n%s", cgi, ok, want, bl)
			}
			if _, ok := resolve(881, 11); ok {
				t.Fatal("an unknown neighbour resolved")
			}
			t.Logf("osmo-bsc resolved ARFCN 880 BSIC 10 to %v over %s", cgi, name)
		})
	}
}
