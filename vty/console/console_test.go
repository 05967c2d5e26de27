package console

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/gopcu/gopcu/internal/testutil"
	"github.com/gopcu/gopcu/vty"
)

func TestConsole(t *testing.T) {
	v := vty.New(vty.AppInfo{Name: "OsmoPCU", Version: "test", Copyright: "c\n"})
	v.Finish()
	pr, pw := io.Pipe()
	out := &testutil.SyncBuffer{}
	done := make(chan error, 1)
	go func() { done <- Run(v, &vty.LockedExecutor{}, Config{In: pr, Out: out, NotTerminal: true}) }()
	// each line once the one before has run (its prompt is out): the
	// completion of "conf\t" needs the enable node
	for _, l := range []struct{ in, after string }{
		{"enable\r", "OsmoPCU# "}, {"show version\r", "OsmoPCU test (OsmoPCU)."},
		{"conf\tt\r", "OsmoPCU(config)# "}, {"end\r", "(config)# end"}, {"exit\r", ""},
	} {
		pw.Write([]byte(l.in))
		testutil.Eventually(t, 5*time.Second, func() bool { return strings.Contains(out.String(), l.after) }, "no %q after %q", l.after, l.in)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("console did not exit")
	}
	pw.Close()
	o := out.String()
	for _, want := range []string{"OsmoPCU test (OsmoPCU).", "OsmoPCU(config)# "} {
		if !strings.Contains(o, want) {
			t.Errorf("missing %q in %q", want, o)
		}
	}
}

func TestCandidates(t *testing.T) {
	v := vty.New(vty.AppInfo{Name: "OsmoPCU"})
	v.Finish()
	s := v.NewSession(nil)
	s.Exec("enable")
	got := s.Candidates("sh")
	if strings.Join(got, ",") != "show,shutdown" {
		t.Errorf("%q", got)
	}
	if got := s.Candidates("show ru"); strings.Join(got, ",") != "running-config" {
		t.Errorf("%q", got)
	}
	if h := s.Help("show r"); h != "  running-config  running configuration\n  rate-counters   Show all rate counters\n" {
		t.Errorf("%q", h)
	}
}
