package pcu

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gopcu/gopcu/internal/logx"
	"github.com/gopcu/gopcu/pcu/pcuif"
)

// opRec records log records as "cat LEVEL message" (the attributes left
// out: the operator lines carry everything in the message, as osmo-pcu's).
type opRec struct {
	mu    sync.Mutex
	lines []string
}

func (r *opRec) Enabled(context.Context, slog.Level) bool { return true }
func (r *opRec) WithAttrs([]slog.Attr) slog.Handler       { return r }
func (r *opRec) WithGroup(string) slog.Handler            { return r }
func (r *opRec) Handle(_ context.Context, rec slog.Record) error {
	cat := ""
	rec.Attrs(func(a slog.Attr) bool {
		if a.Key == "cat" {
			cat = a.Value.String()
		}
		return true
	})
	r.mu.Lock()
	r.lines = append(r.lines, cat+" "+logx.LevelName(rec.Level)+" "+rec.Message)
	r.mu.Unlock()
	return nil
}

// take returns the lines recorded since the last take that contain sub.
func (r *opRec) take(sub string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, l := range r.lines {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	r.lines = nil
	return out
}

// TestOpLogGb: the Gb conditions an operator must see, at NOTICE and rate
// limited: osmo-pcu 1.1.0's "NS-NSE 101 became available/unavailable"
// (DPCU NOTICE, gprs_bssgp_pcu.c gprs_ns_prim_status_cb(); recorded from
// osmo-pcu 1.1.0 in cmd/gopcu/testdata/osmo-pcu-1.1.0-stderr.txt), the
// SGSN unreachable for 10 s (then once a minute), the BVC blocked and
// unblocked, and blocked for 10 s while NS is up.
func TestOpLogGb(t *testing.T) {
	rec := &opRec{}
	logs := logx.New(rec)
	pl, bl := logs.Logger(logx.CatPCU), logs.Logger(logx.CatBSSGP)
	var o opLog
	s := time.Second
	g := &opGb{NSEI: 101, BVCI: 1800, SGSN: []string{"127.0.0.1:23000"}}
	type step struct {
		at   time.Duration
		do   func(now time.Duration)
		want []string
	}
	tick := func(up bool) func(time.Duration) {
		return func(now time.Duration) { g.NSEUp = up; o.follow(pl, now, g) }
	}
	bvc := func(up bool) func(time.Duration) { return func(now time.Duration) { o.bvcState(bl, 1800, up, now) } }
	steps := []step{
		{0, tick(false), nil},
		{9 * s, tick(false), nil},
		{10 * s, tick(false), []string{"pcu NOTICE NS-NSE 101 unavailable for 10s: the SGSN (127.0.0.1:23000) does not answer"}},
		{11 * s, tick(false), nil},
		{69 * s, tick(false), nil},
		{70 * s, tick(false), []string{"pcu NOTICE NS-NSE 101 unavailable for 1m10s: the SGSN (127.0.0.1:23000) does not answer"}},
		{71 * s, tick(true), []string{"pcu NOTICE NS-NSE 101 became available"}},
		{80 * s, tick(true), nil},
		{81 * s, tick(true), []string{"pcu NOTICE BVCI=1800 blocked for 10s while NS-NSE 101 is available: the SGSN does not unblock it"}},
		{82 * s, bvc(true), []string{"lbssgp NOTICE BVCI=1800 unblocked"}},
		{100 * s, tick(true), nil},
		{101 * s, bvc(false), []string{"lbssgp NOTICE BVCI=1800 blocked"}},
		{102 * s, tick(false), []string{"pcu NOTICE NS-NSE 101 became unavailable"}},
		{111 * s, tick(false), nil},
		{112 * s, tick(false), []string{"pcu NOTICE NS-NSE 101 unavailable for 10s: the SGSN (127.0.0.1:23000) does not answer"}},
	}
	for _, st := range steps {
		st.do(st.at)
		if got := rec.take(""); fmt.Sprint(got) != fmt.Sprint(st.want) {
			t.Errorf("at %v: %q, want %q", st.at, got, st.want)
		}
	}
	// A flapping NSE: 6 state lines a minute, then one saying how many
	// were held back.
	var lines []string
	for i := 0; i < 20; i++ {
		tick(i%2 == 0)(200*s + time.Duration(i)*s)
		lines = append(lines, rec.take("NS-NSE")...)
	}
	if len(lines) != opStateBurst {
		t.Fatalf("flapping: %d lines in 20 s, want %d: %q", len(lines), opStateBurst, lines)
	}
	tick(true)(261 * s) // a minute after the first: passes, with the count
	if got := rec.take("NS-NSE"); len(got) != 1 || !strings.HasSuffix(got[0], "(14 similar lines suppressed)") {
		t.Fatalf("after the burst: %q", got)
	}
	// no Gb (the BTS went): the next Gb starts from "NSE down"
	o.follow(pl, 300*s, nil)
	tick(false)(301 * s)
	tick(false)(310 * s)
	if got := rec.take(""); len(got) != 0 {
		t.Fatalf("new Gb, 9 s without NS: %q", got)
	}
}

// TestOpLogQueue: frames dropped at a limit and `ms-max` reached are
// logged at NOTICE, one line per kind every 10 s: the PDU lifetime as
// osmo-pcu 1.1.0 logs it (DTBFDL NOTICE "MS(...) Discarding LLC PDU
// because lifetime limit reached, count=N new_queue_size=N", llc.c
// llc_queue_dequeue()), the queue memory limit in the same form, and
// the idle MSs freed at ms-max. CoDel's drops are not logged.
func TestOpLogQueue(t *testing.T) {
	ii := &pcuif.InfoInd{Version: pcuif.V12, Flags: pcuif.FlagActive | pcuif.FlagCS(1), InitialCS: 1}
	ii.TRX[0].PDCHMask = 0xf0
	ii.TRX[0].ARFCN = 871
	rec := &opRec{}
	e, bts := configEngine(t, Config{Logs: logx.New(rec)}, ii)
	p := e.params
	p.MSMax = 10
	p.LLC.MSLimit = 4096
	e.SetParams(p)
	g := &discardGb{frames: map[uint32]int{}}
	e.SetGb(g)
	var fn uint32
	advanceTo(e, bts, &fn, time.Second)
	frame := make([]byte, 1000)
	frame[0], frame[1] = 0x03, 0xc0            // SAPI 3 UI
	dl := func(tlli uint32, lifetime uint16) { // centiseconds
		e.HandleDLUnitdata(0, &DLUnitdata{TLLI: tlli, Lifetime: lifetime, LLC: append([]byte(nil), frame...)})
	}
	// one MS over its 4096 octets: drops at the memory limit
	for i := 0; i < 8; i++ {
		dl(0xc0000001, 10000)
	}
	over := rec.take("memory limit")
	if e.l1ctr.Value(L1LLCOverflowDropped) == 0 || len(over) != 1 ||
		!strings.HasPrefix(over[0], "tbfdl NOTICE MS(TLLI=0xc0000001) Discarding LLC PDU because the queue memory limit was reached, count=1 new_queue_size=") {
		t.Fatalf("overflow drops %d, lines %q", e.l1ctr.Value(L1LLCOverflowDropped), over)
	}
	// more MSs than ms-max: idle ones freed, one line
	// (the first ones get DL TBFs, and stay: "no idle MS to free")
	for i := 0; i < 100; i++ {
		dl(0xc1000000+uint32(i), 100)
	}
	msMax := rec.take("ms-max")
	if e.l1ctr.Value(L1MSReclaimed) == 0 || len(msMax) != 1 || !strings.HasPrefix(msMax[0], "pcu NOTICE BTS0: ms-max 10 reached: ") {
		t.Fatalf("reclaimed %d, lines %q", e.l1ctr.Value(L1MSReclaimed), msMax)
	}
	// their 1 s lifetime expires (the sweep every 100 ms): one line in 10 s
	advanceTo(e, bts, &fn, 3*time.Second)
	life := rec.take("lifetime")
	if bts.Ctr.Value(CtrLLCFrameTimedout) < 2 || len(life) != 1 || !strings.HasPrefix(life[0], "tbfdl NOTICE MS(TLLI=0xc1") ||
		!strings.HasSuffix(life[0], " Discarding LLC PDU because lifetime limit reached, count=1 new_queue_size=0") {
		t.Fatalf("timed out %d, lines %q", bts.Ctr.Value(CtrLLCFrameTimedout), life)
	}
	// 10 s later the next ones pass and say how many were held back
	advanceTo(e, bts, &fn, 12*time.Second)
	for i := 0; i < 5; i++ {
		dl(0xc2000000+uint32(i), 100)
	}
	if ms := rec.take("ms-max"); len(ms) != 1 || !strings.Contains(ms[0], " similar lines suppressed)") {
		t.Fatalf("ms-max after 10 s: %q", ms)
	}
	advanceTo(e, bts, &fn, 14*time.Second)
	if life = rec.take("lifetime"); len(life) != 1 || !strings.Contains(life[0], " similar lines suppressed)") {
		t.Fatalf("lines %q", life)
	}
}
