package labnet

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gopcu/gopcu/tests/msnet"
	"github.com/gopcu/gopcu/tests/netns"
	"github.com/gopcu/gopcu/tests/vum"
)

func need(t *testing.T) {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("the Osmocom network lab needs root (network namespaces)")
	}
	for _, b := range []string{"osmo-bts-virtual", "osmo-bsc", "osmo-sgsn", "gcc", "python3", "ip"} {
		if _, err := exec.LookPath(b); err != nil {
			t.Skipf("%s not installed (apt-get install osmo-bts osmo-bsc osmo-sgsn gcc python3 iproute2)", b)
		}
	}
}

type lab struct {
	t     *testing.T
	dir   string
	run   string
	netns string
}

func buildGopcu(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "gopcu")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/gopcu/gopcu/cmd/gopcu").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// upLab starts tests/lab's osmo-sgsn, osmo-bsc, osmo-bts-virtual and the
// PCU (pcuCmd) in a fresh namespace and waits for the BVC.
func upLab(t *testing.T, pcuCmd string) *lab {
	t.Helper()
	wd, _ := os.Getwd()
	l := &lab{t: t, dir: filepath.Join(wd, "..", "lab"), run: t.TempDir(), netns: fmt.Sprintf("gopcu-net-%d", os.Getpid())}
	cmd := exec.Command("./up.sh")
	cmd.Dir = l.dir
	cmd.Env = append(os.Environ(), "LAB_RUN="+l.run, "LAB_NETNS="+l.netns, "LAB_TIMEOUT=20", "CAPTURE=1", "PCU_CMD="+pcuCmd)
	out, err := cmd.CombinedOutput()
	t.Cleanup(func() {
		if t.Failed() {
			for _, f := range []string{"osmo-sgsn.log", "pcu.log"} {
				b, _ := os.ReadFile(filepath.Join(l.run, f))
				t.Logf("%s (tail):\n%s", f, tail(string(b), 60))
			}
		}
		d := exec.Command("./down.sh")
		d.Dir = l.dir
		d.Env = append(os.Environ(), "LAB_RUN="+l.run, "LAB_NETNS="+l.netns)
		if out, err := d.CombinedOutput(); err != nil {
			t.Logf("down.sh: %v\n%s", err, out)
		}
	})
	if err != nil {
		t.Fatalf("up.sh: %v\n%s", err, out)
	}
	return l
}

func tail(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func (l *lab) radio(t *testing.T) *Radio {
	ns := &netns.NS{Name: l.netns}
	var um *vum.Um
	if err := ns.Do(func() (err error) { um, err = vum.Open(vum.Config{}, nil); return }); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(um.Close)
	r := NewRadio(um, 1)
	r.Log = t.Logf
	return r
}

var labRAI = msnet.RAI{MCC: 901, MNC: 70, LAC: 1, RAC: 0}

// TestAttachOverVirtualUm: one MS on osmo-bts-virtual's virtual Um, with
// gopcu behind the BTS and osmo-sgsn (auth-policy accept-all) behind gopcu,
// does a GPRS attach: RACH, Immediate Assignment, uplink TBF on its USF,
// the Attach Request to osmo-sgsn, its Identity Request back down, the
// Attach Accept with a P-TMSI and the Attach Complete under the new TLLI.
func TestAttachOverVirtualUm(t *testing.T) {
	need(t)
	l := upLab(t, buildGopcu(t)+` --pcu-sock "$PCU_SOCK"`)
	r := l.radio(t)
	p := r.AddPhone(msnet.Config{IMSI: "901700000000001", IMEI: "490154203237518", RAI: labRAI}, 10)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	defer func() { cancel(); <-done }()
	r.Post(p.Stack.Attach)
	if err := r.Wait(ctx, 30*time.Second, "attach", func() bool { return p.Stack.GMM == msnet.GMMAttached }); err != nil {
		var dbg string
		r.Do(ctx, func() { dbg = p.MS.Debug() })
		t.Fatalf("%v\nms: %s\num: %+v", err, dbg, r.Um.Stats())
	}
	t.Logf("attached: P-TMSI %08x; um %+v", p.Stack.PTMSI, r.Um.Stats())
}
