package labnet

import (
	"fmt"
	"math/bits"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gopcu/gopcu/internal/testutil"
)

func need(t *testing.T) {
	t.Helper()
	testutil.NeedRoot(t, "the Osmocom network lab: network namespaces, TUN devices")
	testutil.NeedBinaries(t, "osmo-bts-virtual", "osmo-bsc", "osmo-sgsn", "osmo-ggsn", "gcc", "python3", "ip", "curl", "ping", "tshark")
}

type labNet struct {
	t   *testing.T
	env []string
	run string
	ms  []string
}

// up runs tests/labnet/up.sh with names of this process (so a second run
// on the machine does not clash) and registers down.sh.
func up(t *testing.T, pcuCmd string, nMS int, labmsArgs string, env ...string) *labNet {
	t.Helper()
	run := t.TempDir()
	pid := os.Getpid()
	l := &labNet{t: t, run: run, env: append(os.Environ(),
		"LABNET_RUN="+run,
		fmt.Sprintf("LAB_NETNS=gopcu-ln%d", pid),
		fmt.Sprintf("SERVER_NETNS=gopcu-ln%d-srv", pid),
		fmt.Sprintf("MS_PREFIX=gopcu-ln%d-ms", pid),
		fmt.Sprintf("MS_COUNT=%d", nMS),
		"CAPTURE=1", "LABNET_TIMEOUT=60", "LABMS_ARGS="+labmsArgs)}
	l.env = append(l.env, env...)
	if pcuCmd != "" {
		l.env = append(l.env, "PCU_CMD="+pcuCmd)
	}
	start := time.Now()
	cmd := exec.Command("./up.sh")
	cmd.Env = l.env
	out, err := cmd.CombinedOutput()
	t.Cleanup(l.down)
	if err != nil {
		for _, f := range []string{"labms.log", "lab/osmo-sgsn.log", "lab/pcu.log", "osmo-ggsn.log", "osmo-hlr.log"} {
			b, _ := os.ReadFile(filepath.Join(run, f))
			t.Logf("%s (tail):\n%s", f, tail(string(b), 30))
		}
		t.Fatalf("up.sh: %v\n%s", err, out)
	}
	for _, m := range regexp.MustCompile(`(?m)^MS_NETNS=(\S+)$`).FindAllStringSubmatch(string(out), -1) {
		l.ms = append(l.ms, m[1])
	}
	if len(l.ms) != nMS || !strings.Contains(string(out), "SERVER_ADDR=10.46.0.1\n") {
		t.Fatalf("up.sh output:\n%s", out)
	}
	t.Logf("lab-net up in %v: %v", time.Since(start).Round(time.Millisecond), l.ms)
	return l
}

func (l *labNet) down() {
	cmd := exec.Command("./down.sh")
	cmd.Env = l.env
	if out, err := cmd.CombinedOutput(); err != nil {
		l.t.Errorf("down.sh: %v\n%s", err, out)
	}
	// nothing left: no namespace of the run, no process of its pid files
	out, _ := exec.Command("ip", "netns", "list").Output()
	if p := fmt.Sprintf("gopcu-ln%d", os.Getpid()); strings.Contains(string(out), p) {
		l.t.Errorf("namespaces left after down.sh:\n%s", out)
	}
	for _, f := range []string{"pids", "lab/pids"} {
		b, _ := os.ReadFile(filepath.Join(l.run, f))
		if strings.TrimSpace(string(b)) != "" {
			l.t.Errorf("%s not emptied: %s", f, b)
		}
	}
}

func (l *labNet) exec(ns string, args ...string) (string, error) {
	out, err := exec.Command("ip", append([]string{"netns", "exec", ns}, args...)...).CombinedOutput()
	return string(out), err
}

func tail(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// tsharkClean decodes a capture and fails on malformed packets or
// expert errors; it returns the Info column of the packets matching show.
func tsharkClean(t *testing.T, file string, dissect []string, show string) string {
	t.Helper()
	// the user data is TCP: its reassembly reports retransmissions
	// (lost or reordered segments) as errors, which are no decode errors
	args := append([]string{"-r", file, "-o", "tcp.desegment_tcp_streams:FALSE", "-o", "ip.defragment:FALSE"}, dissect...)
	bad, err := exec.Command("tshark", append(args, "-Y", "_ws.malformed || _ws.expert.severity >= error")...).Output()
	if err != nil {
		t.Fatalf("tshark %s: %v\n%s", file, err, bad)
	}
	if s := strings.TrimSpace(string(bad)); s != "" {
		t.Errorf("tshark finds errors in %s:\n%s", filepath.Base(file), tail(s, 20))
	}
	out, err := exec.Command("tshark", append(args, "-Y", show)...).Output()
	if err != nil {
		t.Fatalf("tshark %s: %v\n%s", file, err, out)
	}
	return string(out)
}

// TestLabNetGopcu: the whole Osmocom network with gopcu as the PCU. One MS
// on osmo-bts-virtual's virtual Um attaches to osmo-sgsn (accept-all), does
// a periodic Routing Area Update (a new P-TMSI: its second TLLI change),
// authenticated by osmo-hlr when it is installed (LABNET_AUTH=hlr: the MS's
// USIM answers osmo-sgsn's Authentication and Ciphering Request),
// activates a PDP context through osmo-ggsn and gets a TUN in its own
// namespace; Linux's ping and a 200 kB curl then reach the HTTP server
// behind osmo-ggsn. tshark decodes the Gb and the GSMTAP captures without
// errors and shows the GMM and SM exchange. The DL TBF that carries the
// download has at least 3 timeslots (class 10 on TS 4-7; after the RAU
// gopcu gave it one, see pcu TestTLLIChangeKeepsMultislot). With -short
// the download is 50 kB.
func TestLabNetGopcu(t *testing.T) {
	need(t)
	var env []string
	auth := testutil.HaveBinaries("osmo-hlr")
	if auth {
		env = append(env, "LABNET_AUTH=hlr")
	} else {
		t.Log("osmo-hlr not installed: osmo-sgsn accepts the MS without authentication")
	}
	l := up(t, "", 1, "-rau", env...)
	r := l.pingAndCurl(l.ms[0], "/200k", 120)
	t.Logf("gopcu: idle ping %s; %s in %v", r.ping, r.path, r.took)
	gb := l.checkCaptures()
	want := []string{"Routing Area Update Accept"}
	if auth {
		want = append(want, "Authentication and Ciphering Req", "Authentication and Ciphering Resp")
	}
	for _, m := range want {
		if !strings.Contains(gb, m) {
			t.Errorf("no %s in the Gb capture:\n%s", m, gb)
		}
	}
	if n := l.lastDLSlots(); n < 3 {
		t.Errorf("the last Packet Downlink Assignment gives %d timeslots, want at least 3 (class 10, TS 4-7)", n)
	}
}

// TestLabNetGopcuGEA3: the same network with LLC ciphered by GEA3
// (LABNET_CIPHER=gea3: osmo-sgsn `encryption gea 3`, osmo-hlr
// authentication, the MS's USIM gives Kc): the MS attaches with GEA/3, ping
// and a 200 kB curl (50 kB with -short) pass through gopcu, which sees only
// ciphered user data, and tshark decodes both captures without errors (the
// ciphered frames as such). The osmo-sgsn and labms logs say GEA/3.
func TestLabNetGopcuGEA3(t *testing.T) {
	need(t)
	testutil.NeedBinaries(t, "osmo-hlr") // GEA3 needs authentication
	l := up(t, "", 1, "", "LABNET_CIPHER=gea3")
	r := l.pingAndCurl(l.ms[0], "/200k", 180)
	t.Logf("gopcu, GEA3: idle ping %s; %s in %v", r.ping, r.path, r.took)
	gb := tsharkClean(t, filepath.Join(l.run, "lab", "lab.pcapng"), []string{"-d", "udp.port==23000,gprs-ns"},
		"gsm_a.dtap.msg_gmm_type || llcgprs.e == 1")
	for _, m := range []string{"Attach Request", "Authentication and Ciphering Req", "Authentication and Ciphering Resp"} {
		if !strings.Contains(gb, m) {
			t.Errorf("no %s in the Gb capture:\n%s", m, tail(gb, 20))
		}
	}
	tsharkClean(t, filepath.Join(l.run, "um.pcap"), nil, "gsmtap.chan_type == 3")
	b, _ := os.ReadFile(filepath.Join(l.run, "labms.log"))
	if !strings.Contains(string(b), "GEA/3") || regexp.MustCompile(`ciphered=0 `).Match(b) {
		t.Errorf("labms did not cipher with GEA/3:\n%s", tail(string(b), 10))
	}
}

// TestLabNetOsmoPCU: the same (without the RAU) with Debian's osmo-pcu 1.1.0
// as the PCU: ping and a 200 kB curl (50 kB with -short), bounded at 150 s.
func TestLabNetOsmoPCU(t *testing.T) {
	need(t)
	testutil.NeedBinaries(t, "osmo-pcu")
	l := up(t, osmoPCU, 1, "")
	r := l.pingAndCurl(l.ms[0], "/200k", 150)
	t.Logf("osmo-pcu 1.1.0: idle ping %s; %s in %v", r.ping, r.path, r.took)
	l.checkCaptures()
}

// TestLabNetOsmoPCULong (GOPCU_LABNET_OSMOPCU=1): two MSs through osmo-pcu
// 1.1.0, each pinging the server while both download 200 kB at once.
func TestLabNetOsmoPCULong(t *testing.T) {
	need(t)
	if os.Getenv("GOPCU_LABNET_OSMOPCU") != "1" {
		t.Skip("GOPCU_LABNET_OSMOPCU=1 runs it (two MSs through osmo-pcu 1.1.0, a few minutes)")
	}
	testutil.NeedBinaries(t, "osmo-pcu")
	l := up(t, osmoPCU, 2, "")
	var wg sync.WaitGroup
	res := make([]result, len(l.ms))
	for i, ms := range l.ms {
		wg.Go(func() {
			res[i] = l.pingAndCurl(ms, "/200k", 300)
		})
	}
	wg.Wait()
	for i, r := range res {
		t.Logf("osmo-pcu 1.1.0, MS %d of 2: idle ping %s; %s in %v", i, r.ping, r.path, r.took)
	}
	l.checkCaptures()
}

const osmoPCU = "osmo-pcu -c configs/osmo-pcu.cfg"

type result struct {
	ping, path string
	took       time.Duration
}

// pingAndCurl pings the server from ms three times, then downloads path
// (the 50 kB file with -short) with curl within timeout seconds.
func (l *labNet) pingAndCurl(ms, path string, timeout int) result {
	t := l.t
	out, err := l.exec(ms, "ping", "-n", "-c", "3", "-i", "0.5", "-W", "5", "10.46.0.1")
	if err != nil || !strings.Contains(out, "3 received") {
		t.Errorf("ping from %s: %v\n%s", ms, err, out)
	}
	r := result{ping: lastLine(out), path: path}
	want := "200 204800"
	if testing.Short() {
		r.path, want = "/50k", "200 51200"
	}
	start := time.Now()
	out, err = l.exec(ms, "curl", "-s", "-S", "-m", strconv.Itoa(timeout), "-o", "/dev/null", "-w", "%{http_code} %{size_download}", "http://10.46.0.1"+r.path)
	r.took = time.Since(start).Round(time.Millisecond)
	if err != nil || out != want {
		t.Errorf("curl %s from %s: %v: %q after %v", r.path, ms, err, out, r.took)
	}
	return r
}

// checkCaptures decodes both captures with tshark: no errors, the GMM and
// SM exchange on Gb, an Immediate Assignment on the air. It returns the
// Gb capture's GMM/SM lines.
func (l *labNet) checkCaptures() string {
	t := l.t
	gb := tsharkClean(t, filepath.Join(l.run, "lab", "lab.pcapng"), []string{"-d", "udp.port==23000,gprs-ns"},
		"gsm_a.dtap.msg_gmm_type || gsm_a.dtap.msg_sm_type")
	for _, m := range []string{"Attach Request", "Identity Response", "Attach Accept", "Attach Complete",
		"Activate PDP Context Request", "Activate PDP Context Accept"} {
		if !strings.Contains(gb, m) {
			t.Errorf("no %s in the Gb capture:\n%s", m, gb)
		}
	}
	um := tsharkClean(t, filepath.Join(l.run, "um.pcap"), nil, "gsm_a.dtap.msg_rr_type == 0x3f || gsmtap.chan_type == 3")
	if !strings.Contains(um, "Immediate Assignment") {
		t.Errorf("no Immediate Assignment in the GSMTAP capture:\n%s", tail(um, 10))
	}
	return gb
}

// lastDLSlots is the number of timeslots the last Packet Downlink
// Assignment in the GSMTAP capture gives (TIMESLOT_ALLOCATION, TS 44.060
// §11.2.7), -1 without one.
func (l *labNet) lastDLSlots() int {
	out, err := exec.Command("tshark", "-r", filepath.Join(l.run, "um.pcap"), "-Y", "gsm_rlcmac.dl.timeslot_allocation",
		"-T", "fields", "-e", "gsm_rlcmac.dl.timeslot_allocation").Output()
	if err != nil {
		l.t.Fatalf("tshark: %v", err)
	}
	f := strings.Fields(string(out))
	if len(f) == 0 {
		return -1
	}
	v, err := strconv.ParseUint(f[len(f)-1], 0, 8)
	if err != nil {
		l.t.Fatalf("timeslot allocation %q: %v", f[len(f)-1], err)
	}
	l.t.Logf("Packet Downlink Assignments' timeslot allocations: %v", f)
	return bits.OnesCount8(uint8(v))
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}
