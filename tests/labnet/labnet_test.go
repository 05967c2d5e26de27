package labnet

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

func need(t *testing.T) {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("the Osmocom network lab needs root (network namespaces, TUN devices)")
	}
	for _, b := range []string{"osmo-bts-virtual", "osmo-bsc", "osmo-sgsn", "osmo-ggsn", "gcc", "python3", "ip", "curl", "ping", "tshark"} {
		if _, err := exec.LookPath(b); err != nil {
			t.Skipf("%s not installed (apt-get install osmo-bts osmo-bsc osmo-sgsn osmo-ggsn gcc python3 iproute2 curl iputils-ping tshark)", b)
		}
	}
}

type labNet struct {
	t   *testing.T
	env []string
	run string
	ms  []string
}

// up runs tests/labnet/up.sh with names of this process (so a second run
// on the machine does not clash) and registers down.sh.
func up(t *testing.T, pcuCmd string, nMS int) *labNet {
	t.Helper()
	run := t.TempDir()
	pid := os.Getpid()
	l := &labNet{t: t, run: run, env: append(os.Environ(),
		"LABNET_RUN="+run,
		fmt.Sprintf("LAB_NETNS=gopcu-ln%d", pid),
		fmt.Sprintf("SERVER_NETNS=gopcu-ln%d-srv", pid),
		fmt.Sprintf("MS_PREFIX=gopcu-ln%d-ms", pid),
		fmt.Sprintf("MS_COUNT=%d", nMS),
		"CAPTURE=1", "LABNET_TIMEOUT=60")}
	if pcuCmd != "" {
		l.env = append(l.env, "PCU_CMD="+pcuCmd)
	}
	start := time.Now()
	cmd := exec.Command("./up.sh")
	cmd.Env = l.env
	out, err := cmd.CombinedOutput()
	t.Cleanup(l.down)
	if err != nil {
		for _, f := range []string{"labms.log", "lab/osmo-sgsn.log", "lab/pcu.log", "osmo-ggsn.log"} {
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
// on osmo-bts-virtual's virtual Um attaches to osmo-sgsn (accept-all),
// activates a PDP context through osmo-ggsn and gets a TUN in its own
// namespace; Linux's ping and curl then reach the HTTP server behind
// osmo-ggsn. tshark decodes the Gb and the GSMTAP captures without errors
// and shows the GMM and SM exchange. With -short the download is 50 kB.
func TestLabNetGopcu(t *testing.T) {
	need(t)
	testLabNet(t, "")
}

// TestLabNetOsmoPCU: the same with Debian's osmo-pcu 1.1.0 as the PCU
// (GOPCU_LABNET_OSMOPCU=1: over virtual Um it carries the download slowly,
// 50 kB in 100 s or more, see tests/lab/LAB-NOTES.md).
func TestLabNetOsmoPCU(t *testing.T) {
	need(t)
	if os.Getenv("GOPCU_LABNET_OSMOPCU") != "1" {
		t.Skip("GOPCU_LABNET_OSMOPCU=1 runs it (osmo-pcu 1.1.0 over virtual Um takes minutes)")
	}
	if _, err := exec.LookPath("osmo-pcu"); err != nil {
		t.Skip("osmo-pcu not installed")
	}
	testLabNet(t, "osmo-pcu -c configs/osmo-pcu.cfg")
}

func testLabNet(t *testing.T, pcuCmd string) {
	l := up(t, pcuCmd, 1)
	ms := l.ms[0]
	out, err := l.exec(ms, "ping", "-n", "-c", "3", "-i", "0.5", "-W", "5", "10.46.0.1")
	if err != nil || !strings.Contains(out, "3 received") {
		t.Fatalf("ping from %s: %v\n%s", ms, err, out)
	}
	t.Logf("ping: %s", lastLine(out))
	path := "/200k"
	if testing.Short() {
		path = "/50k"
	}
	start := time.Now()
	out, err = l.exec(ms, "curl", "-s", "-S", "-m", "120", "-o", "/dev/null", "-w", "%{http_code} %{size_download}", "http://10.46.0.1"+path)
	want := "200 204800"
	if testing.Short() {
		want = "200 51200"
	}
	if err != nil || out != want {
		t.Fatalf("curl %s from %s: %v: %q", path, ms, err, out)
	}
	t.Logf("curl %s: %v", path, time.Since(start).Round(time.Millisecond))

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
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}
