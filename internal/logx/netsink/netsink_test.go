package netsink

import (
	"bytes"
	"encoding/binary"
	"log/slog"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gopcu/gopcu/gsmtap"
	"github.com/gopcu/gopcu/internal/logx"
	"github.com/gopcu/gopcu/internal/testutil"
)

// target is a target of sink with the category and level in its lines.
func target(name string, sink logx.Sink, levels map[string]slog.Level) *logx.Target {
	return &logx.Target{Name: name, Levels: levels, Default: logx.LevelNotice, FilterAll: true, Sink: sink,
		Format: logx.Format{Category: true, Level: true}}
}

// fanout is a registry (all categories at debug: the targets alone
// filter) writing to a fan-out with the one target t.
func fanout(t *logx.Target) (*logx.Registry, *logx.Fanout) {
	f := logx.NewFanout(slog.DiscardHandler)
	r := logx.New(f)
	r.SetAll(logx.LevelDebug)
	f.Configure(logx.FanoutConfig{Targets: []*logx.Target{t}})
	return r, f
}

// TestGSMTAPTarget: `log gsmtap` sends a record its target lets through as
// one GSMTAP OSMOCORE_LOG datagram, with the source file and line although
// the target's format names none (logx.TestAppendGSMTAPLogGolden pins the
// octets).
func TestGSMTAPTarget(t *testing.T) {
	pc := testutil.UDP(t)
	sink, err := DialGSMTAP("127.0.0.1", pc.LocalAddr().(*net.UDPAddr).Port, "OsmoPCU")
	if err != nil {
		t.Fatal(err)
	}
	r, f := fanout(target("gsmtap", sink, map[string]slog.Level{logx.CatTBF: logx.LevelInfo}))
	defer f.Close()
	before := time.Now().Add(-time.Second)
	r.Logger(logx.CatTBF).Debug("not sent")
	r.Logger(logx.CatTBF).Info("TBF(DL:TFI-0-0-1) assigned", "ms", 7)
	p := testutil.ReadDatagram(t, pc)
	if len(p) < gsmtap.HdrLen+logx.GSMTAPLogHdrLen || p[0] != 2 || p[1] != 4 || p[2] != gsmtap.TypeOsmocoreLog {
		t.Fatalf("not a GSMTAP log datagram: % x", p)
	}
	l := p[gsmtap.HdrLen:]
	cstr := func(b []byte) string { return string(bytes.TrimRight(b, "\x00")) }
	ts := time.Unix(int64(binary.BigEndian.Uint32(l[0:])), 0)
	level, proc, subsys, file, line := l[28], cstr(l[8:24]), cstr(l[32:48]), cstr(l[48:80]), binary.BigEndian.Uint32(l[80:])
	msg := string(l[logx.GSMTAPLogHdrLen:])
	if level != logx.OsmoInfo || proc != "OsmoPCU" || subsys != "TBF" || file != "netsink_test.go" || line == 0 ||
		msg != "TBF(DL:TFI-0-0-1) assigned ms=7\n" || ts.Before(before.Truncate(time.Second)) || ts.After(time.Now().Add(time.Second)) {
		t.Fatalf("decoded level=%d proc=%q subsys=%q file=%q line=%d msg=%q ts=%v", level, proc, subsys, file, line, msg, ts)
	}
	// nothing else arrived (the debug record was filtered before)
	_ = pc.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	buf := make([]byte, 8192)
	if n, err := pc.Read(buf); err == nil {
		t.Fatalf("unexpected datagram % x", buf[:n])
	}
}

// TestSyslogTarget: an unknown facility is refused; without a daemon
// lines are dropped with an error; a daemon gets the line at the entry's
// severity and the target's facility.
func TestSyslogTarget(t *testing.T) {
	if _, err := OpenSyslog("nosuch", "x"); err == nil {
		t.Error("unknown facility accepted")
	}
	nd, err := DialSyslog("unix", filepath.Join(t.TempDir(), "no-log"), "daemon", "x")
	if err != nil {
		t.Fatal(err)
	}
	if err := nd.Output(&logx.Entry{Level: logx.LevelError}, []byte("x\n")); err == nil {
		t.Error("output without daemon: no error")
	}
	nd.Close()
	pc := testutil.UDP(t)
	sink, err := DialSyslog("udp", pc.LocalAddr().String(), "local3", "OsmoPCU")
	if err != nil {
		t.Fatal(err)
	}
	r, f := fanout(target("syslog local3", sink, nil))
	defer f.Close()
	r.Logger(logx.CatPCU).Error("to syslog", "bts", 0)
	// <PRI> = local3 (19) * 8 + err (3) = 155
	if got := string(testutil.ReadDatagram(t, pc)); !strings.HasPrefix(got, "<155>") || !strings.Contains(got, "OsmoPCU[") ||
		!strings.HasSuffix(strings.TrimSuffix(got, "\n"), ": DPCU ERROR to syslog bts=0") {
		t.Errorf("syslog datagram %q", got)
	}
}
