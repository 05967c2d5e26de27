// Package demo is gopcu's bufferbloat demo: gopcu with the BTS, MS and SGSN
// emulators in one process, a TCP-like bulk download plus a periodic ping
// per MS, run once per queue management scenario (AQM off, osmo-pcu's
// CoDel, gopcu's default), with a summary table and a plot.
//
// The SGSN side is emulated at the BSSGP service level inside the process
// (DL-UNITDATA into the engine, UL-UNITDATA out of it); the radio side is
// the real PCU socket with the BTS emulator and the MS emulators.
package demo

import (
	"context"
	"fmt"
	"io"
	"math/rand"
	"slices"
	"sync"
	"time"

	"github.com/gopcu/gopcu/internal/emu/btsemu"
	"github.com/gopcu/gopcu/internal/emu/msemu"
	"github.com/gopcu/gopcu/llc"
	"github.com/gopcu/gopcu/pcu"
	"github.com/gopcu/gopcu/pcu/pcuif"
)

// Scenario is one queue management configuration.
type Scenario struct {
	Name string
	Key  string // the -scenario name
	LLC  llc.Config
	ECN  bool // the demo's TCP runs with ECN (RFC 3168): data carries ECT(0)
}

// Scenarios returns the three compared configurations.
func Scenarios() []Scenario {
	// osmo-pcu's queue: one FIFO per priority class; `no queue codel` and
	// `queue codel` (4 s interval).
	off := llc.DefaultConfig()
	off.CoDel = false
	off.Variant, off.AQM = llc.VariantOsmo, llc.AQMCoDel
	osmo := llc.DefaultConfig()
	osmo.Variant, osmo.AQM = llc.VariantOsmo, llc.AQMCoDel
	return []Scenario{
		{Name: "AQM off", Key: "off", LLC: off},
		{Name: "osmo CoDel", Key: "osmo", LLC: osmo},
		{Name: "gopcu default", Key: "gopcu", LLC: llc.DefaultConfig()},
	}
}

// AQMScenarios returns the AQM family rows: AQM off and osmo-pcu's CoDel
// as above, then gopcu's CoDel, PIE and RED each alone per MS (`no queue
// fq`) and inside the flow queues (FQ-CoDel, FQ-PIE, SFQ-RED = the
// default).
func AQMScenarios() []Scenario {
	sc := Scenarios()[:2]
	for _, a := range []struct {
		name, key string
		aqm       llc.AQM
		fq        bool
	}{{"CoDel", "codel", llc.AQMCoDel, false}, {"PIE", "pie", llc.AQMPIE, false},
		{"FQ-CoDel", "fq-codel", llc.AQMCoDel, true}, {"FQ-PIE", "fq-pie", llc.AQMPIE, true},
		{"SFQ-RED (default)", "sfq-red", llc.AQMRED, true}} {
		c := llc.DefaultConfig()
		c.AQM, c.NoFQ = a.aqm, !a.fq
		sc = append(sc, Scenario{Name: a.name, Key: a.key, LLC: c})
	}
	return sc
}

// WithECN returns the scenarios with the demo's TCP using ECN, their names
// suffixed " +ECN".
func WithECN(scs []Scenario) []Scenario {
	out := make([]Scenario, len(scs))
	for i, s := range scs {
		s.ECN = true
		s.Name += " +ECN"
		out[i] = s
	}
	return out
}

// Config is the demo's scenario.
type Config struct {
	MSs          int           // mobile stations, each with a download and a ping
	CS           int           // GPRS coding scheme 1..4
	Slots        int           // PDCHs (and DL slots per MS, up to its class)
	FileBytes    int           // download size per MS
	PingInterval time.Duration // ping period
	IdlePings    int           // pings measured before the download starts
	RWnd         int           // TCP receive window (bytes)
	MaxTime      time.Duration // give up after this much radio time per scenario
	RealTime     bool          // pace the radio clock with the wall clock
	Seed         int64
	DLLoss       float64 // radio block loss rate
	Status       io.Writer
	Dir          string    // where the PCU socket lives
	Trace        io.Writer // ping timeline (sent, received by the MS, answered)
	// PingFromNet makes the server side ping the MS (request down, reply
	// up) instead of the MS pinging the server (request up, reply down),
	// which is what the seed measured on its phone and the real-TCP lab does.
	PingFromNet bool
}

// DefaultConfig is the seed scenario's shape: one MS at ~50 kbit/s (CS-2 on
// 4 timeslots = 4 x 12 kbit/s of LLC payload), pings every second.
func DefaultConfig() Config {
	return Config{MSs: 1, CS: 2, Slots: 4, FileBytes: 90 << 10, PingInterval: time.Second, IdlePings: 4,
		RWnd: 32 << 10, MaxTime: 5 * time.Minute, Seed: 1}
}

// Point is one sample of the time series.
type Point struct {
	T          time.Duration // since the download started (negative: idle phase)
	MS         int
	Ping       time.Duration // RTT of a ping answered at T (0: none)
	QueueDelay time.Duration // head-of-queue sojourn at T (-1: not sampled)
}

// MSResult is what one MS saw.
type MSResult struct {
	IdlePing     []time.Duration
	BusyPing     []time.Duration
	QueueDelay   []time.Duration // samples during the download
	DownloadTime time.Duration
	Bytes        int
	Done         bool
	Retx         int
	Timeouts     int
}

// Result of one scenario.
type Result struct {
	Scenario string
	MS       []MSResult
	Series   []Point
	Drops    struct{ CoDel, Lifetime, Overflow, Total uint64 }
	Marks    uint64 // LLC frames the AQM marked CE (llc:ecn:marked)
}

// ULSink is an in-process SGSN side at the BSSGP service level (a
// pcu.Gb): it collects the UL-UNITDATA the engine sends until Take.
type ULSink struct {
	mu sync.Mutex
	ul []ULFrame
}

// ULFrame is one UL LLC frame of an MS.
type ULFrame struct {
	TLLI uint32
	LLC  []byte
}

// ULUnitdata keeps a copy of llc (the engine lends it, pcu.Gb).
func (g *ULSink) ULUnitdata(bts uint8, tlli uint32, llc []byte) {
	g.mu.Lock()
	g.ul = append(g.ul, ULFrame{tlli, append([]byte(nil), llc...)})
	g.mu.Unlock()
}

// LLCDiscarded ignores the report.
func (g *ULSink) LLCDiscarded(bts uint8, tlli uint32, frames uint8, octets uint32) {}

// Take returns the frames collected since the last Take.
func (g *ULSink) Take() []ULFrame {
	g.mu.Lock()
	defer g.mu.Unlock()
	u := g.ul
	g.ul = nil
	return u
}

type msApp struct {
	ms      *msemu.MS
	tcp     *tcpSender
	rcvNext int
	ooo     map[int]bool
	ceSeen  int // data segments that arrived marked CE
	bytes   int
	pingSeq uint32
	res     MSResult
}

// run is one run of a scenario: gopcu with the BTS emulator, the MS
// emulators with their applications, and the state of the loop that steps
// the radio one block at a time.
type run struct {
	cfg     Config
	sc      Scenario
	closers []func() // undone last first

	bts   *btsemu.BTS
	eng   *pcu.Engine
	gb    *ULSink
	cell  *msemu.Cell
	class int // the MSs' multislot class
	apps  []*msApp
	res   *Result
	rnd   *rand.Rand
	mss   int // application segment size

	vt            time.Duration // radio time: frames stepped so far
	lastFN        uint32
	t0            time.Time
	pendingDL     []pcu.DLUnitdata
	downloadStart time.Duration // -1: the downloads have not started
	pingFor       []time.Duration
	idleEnd       time.Duration
	nextSample    time.Duration
	nextStatus    time.Duration
}

// dlLifetime is the PDU lifetime of the DL-UNITDATA (centiseconds, an
// SGSN's default).
const dlLifetime = 1000

// Run runs one scenario.
func Run(ctx context.Context, cfg Config, sc Scenario) (*Result, error) {
	if cfg.CS < 1 || cfg.CS > 4 || cfg.Slots < 1 || cfg.Slots > 8 || cfg.MSs < 1 {
		return nil, fmt.Errorf("demo: bad radio configuration (CS %d, slots %d, MSs %d)", cfg.CS, cfg.Slots, cfg.MSs)
	}
	r := &run{cfg: cfg, sc: sc}
	defer r.close()
	if err := r.start(ctx); err != nil {
		return nil, err
	}
	r.addMSs()
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		r.sgsnSide()
		r.pings()
		if r.downloadStart < 0 && r.vt >= r.idleEnd {
			r.startDownloads()
		}
		r.flushDL()
		// queue delay samples every 100 ms
		if r.vt >= r.nextSample {
			r.nextSample += 100 * time.Millisecond
			r.sampleQueues()
		}
		if r.finished() || r.vt > cfg.MaxTime+r.idleEnd {
			break
		}
		if cfg.Status != nil && r.vt >= r.nextStatus {
			r.nextStatus += time.Second
			r.status()
		}
		if err := r.step(ctx); err != nil {
			return nil, err
		}
	}
	return r.result(), nil
}

// close undoes what start set up, last first.
func (r *run) close() {
	for i := len(r.closers) - 1; i >= 0; i-- {
		r.closers[i]()
	}
}

// start starts the BTS emulator and gopcu on a fixed radio and waits for
// the PDCHs.
func (r *run) start(ctx context.Context) error {
	rad, err := StartRadio(ctx, r.cfg.Dir, r.cfg.Slots, r.cfg.CS, r.sc.LLC)
	if err != nil {
		return err
	}
	r.closers = append(r.closers, rad.Close)
	r.bts, r.eng, r.gb = rad.BTS, rad.Eng, rad.Gb
	return nil
}

// addMSs adds the MS emulators and their applications, and sets the
// loop's start state.
func (r *run) addMSs() {
	cfg := r.cfg
	r.cell = msemu.NewCell(r.bts, cfg.Seed)
	r.cell.DLLoss, r.cell.ULLoss = cfg.DLLoss, cfg.DLLoss
	r.class = MSClass(cfg.Slots)
	r.apps = make([]*msApp, cfg.MSs)
	for i := range r.apps {
		a := &msApp{ooo: map[int]bool{}}
		a.ms = r.cell.AddMS(0xc1000000+uint32(i), fmt.Sprintf("90170000000%04d", i), r.class)
		r.apps[i] = a
	}
	r.res = &Result{Scenario: r.sc.Name, MS: make([]MSResult, cfg.MSs)}
	r.rnd = rand.New(rand.NewSource(cfg.Seed))
	r.lastFN = r.bts.FN()
	r.t0 = time.Now()
	r.downloadStart = -1
	r.pingFor = make([]time.Duration, cfg.MSs)
	r.idleEnd = time.Duration(cfg.IdlePings) * cfg.PingInterval
	r.nextStatus = time.Second
	r.mss = 1400 - sndcpLen - ipLen - 20 - appHdr // one 1400-octet IP packet per segment
	for i := range r.pingFor {
		r.pingFor[i] = time.Duration(i) * cfg.PingInterval / time.Duration(cfg.MSs) / 2
	}
	// MS side: data, acks, ping replies.
	for i, a := range r.apps {
		a.ms.OnLLC = func(f []byte) { r.msReceive(i, a, f) }
	}
}

// sendDL queues an LLC frame for the MS of a as a DL-UNITDATA.
func (r *run) sendDL(a *msApp, frame []byte) {
	r.pendingDL = append(r.pendingDL, pcu.DLUnitdata{TLLI: a.ms.TLLI, IMSI: a.ms.IMSI, Lifetime: dlLifetime, MSClass: r.class, LLC: frame})
}

// sendData queues data segment s of a's download.
func (r *run) sendData(a *msApp, s int) {
	f := appFrame(kindData, uint32(s), r.vt, r.mss)
	if r.sc.ECN {
		setECN(f, 2, false) // ECT(0)
	}
	r.sendDL(a, f)
}

// recordPing records the round trip of a ping of MS idx.
func (r *run) recordPing(a *msApp, idx int, rtt time.Duration) {
	if r.downloadStart < 0 {
		a.res.IdlePing = append(a.res.IdlePing, rtt)
	} else {
		a.res.BusyPing = append(a.res.BusyPing, rtt)
	}
	r.res.Series = append(r.res.Series, Point{T: r.vt - max(r.downloadStart, r.idleEnd), MS: idx, Ping: rtt, QueueDelay: -1})
}

// msReceive is the application of MS i: it acknowledges data, measures
// its own ping and answers the network's.
func (r *run) msReceive(i int, a *msApp, f []byte) {
	cfg := r.cfg
	kind, seq, stamp, payload, ok := parseApp(f)
	if !ok {
		return
	}
	switch kind {
	case kindData:
		s := int(seq)
		if s >= a.rcvNext && !a.ooo[s] {
			a.ooo[s] = true
			a.bytes += payload
		}
		for a.ooo[a.rcvNext] {
			delete(a.ooo, a.rcvNext)
			a.rcvNext++
		}
		var sack uint32
		for k := 0; k < 32; k++ {
			if a.ooo[a.rcvNext+1+k] {
				sack |= 1 << k
			}
		}
		ack := appFrame(kindAck, uint32(a.rcvNext), stamp, 20)
		putSACK(ack, sack)
		if f[ipTOS]&3 == 3 { // CE: echo it
			a.ceSeen++
			setECN(ack, 0, true)
		}
		a.ms.SendLLC(ack)
	case kindReply: // the answer to the MS's own ping
		rtt := r.vt - stamp
		if cfg.Trace != nil {
			fmt.Fprintf(cfg.Trace, "ping %d (MS %d): reply after %v\n", seq, i, rtt)
		}
		r.recordPing(a, i, rtt)
	case kindPing:
		if cfg.Trace != nil {
			fmt.Fprintf(cfg.Trace, "ping %d (MS %d) sent at %v\n", seq, i, stamp)
			fmt.Fprintf(cfg.Trace, "ping %d (MS %d): at MS after %v (UL TBF active %v)\n", seq, i, r.vt-stamp, a.ms.ULActive())
		}
		a.ms.SendLLC(appFrame(kindReply, seq, stamp, 43))
	}
}

// sgsnSide is the server behind the SGSN: UL frames in (acks, ping
// requests and replies), DL frames out.
func (r *run) sgsnSide() {
	cfg := r.cfg
	for _, u := range r.gb.Take() {
		idx := int(u.TLLI - 0xc1000000)
		if idx < 0 || idx >= len(r.apps) {
			continue
		}
		a := r.apps[idx]
		kind, seq, stamp, _, ok := parseApp(u.LLC)
		if !ok {
			continue
		}
		switch kind {
		case kindAck:
			if a.tcp != nil {
				a.tcp.onAckECN(int(seq), getSACK(u.LLC), len(u.LLC) > tcpFlags && u.LLC[tcpFlags]&flagECE != 0, r.vt,
					func(s int) { r.sendData(a, s) })
			}
		case kindReply:
			rtt := r.vt - stamp
			if cfg.Trace != nil {
				fmt.Fprintf(cfg.Trace, "ping %d (MS %d): reply after %v\n", seq, idx, rtt)
			}
			r.recordPing(a, idx, rtt)
		case kindPing: // the MS's ping reaches the server, which answers
			if cfg.Trace != nil {
				fmt.Fprintf(cfg.Trace, "ping %d (MS %d): at server after %v\n", seq, idx, r.vt-stamp)
			}
			r.sendDL(a, appFrameDir(kindReply, false, seq, stamp, 43))
		}
	}
}

// pings sends the pings that are due and runs the senders' timers.
func (r *run) pings() {
	cfg := r.cfg
	for i, a := range r.apps {
		if r.vt >= r.pingFor[i] {
			a.pingSeq++
			if cfg.PingFromNet {
				r.sendDL(a, appFrame(kindPing, a.pingSeq, r.vt, 43))
			} else {
				a.ms.SendLLC(appFrameDir(kindPing, true, a.pingSeq, r.vt, 43))
			}
			// ±10 % jitter: a real ping's period is not locked to the
			// radio's frame boundaries
			r.pingFor[i] += cfg.PingInterval*9/10 + time.Duration(r.rnd.Int63n(int64(cfg.PingInterval/5)+1))
		}
		if a.tcp != nil {
			a.tcp.tick(r.vt, func(s int) { r.sendData(a, s) })
		}
	}
}

// startDownloads starts every MS's download after the idle pings.
func (r *run) startDownloads() {
	r.downloadStart = r.vt
	for _, a := range r.apps {
		a.tcp = newTCPSender(r.cfg.FileBytes, r.mss, r.cfg.RWnd, r.vt)
		a.tcp.sendable(r.vt, func(s int) { r.sendData(a, s) })
	}
}

// flushDL hands the queued DL-UNITDATA to the engine.
func (r *run) flushDL() {
	if len(r.pendingDL) == 0 {
		return
	}
	batch := r.pendingDL
	r.pendingDL = nil
	r.eng.Call(func() {
		for i := range batch {
			r.eng.HandleDLUnitdata(0, &batch[i])
		}
	})
}

// sampleQueues records the head-of-queue sojourn of every MS's DL queue.
func (r *run) sampleQueues() {
	delays := HeadSojourns(r.eng, len(r.apps), func(i int) uint32 { return r.apps[i].ms.TLLI })
	for i, d := range delays {
		if r.downloadStart >= 0 && !r.apps[i].res.Done {
			r.apps[i].res.QueueDelay = append(r.apps[i].res.QueueDelay, d)
		}
		r.res.Series = append(r.res.Series, Point{T: r.vt - max(r.downloadStart, r.idleEnd), MS: i, QueueDelay: d})
	}
}

// finished notes the downloads that completed and reports whether all
// have.
func (r *run) finished() bool {
	all := r.downloadStart >= 0
	for _, a := range r.apps {
		if a.tcp != nil && a.tcp.done && !a.res.Done {
			a.res.Done = true
			a.res.DownloadTime = a.tcp.doneAt - a.tcp.start
		}
		all = all && a.res.Done
	}
	return all
}

// status prints the status lines (and the TBFs and MSs to the trace).
func (r *run) status() {
	cfg := r.cfg
	printStatus(cfg.Status, r.sc.Name, r.vt-max(r.downloadStart, 0), r.downloadStart >= 0, r.apps, cfg)
	if cfg.Trace != nil {
		r.eng.Call(func() {
			for _, l := range r.eng.TBFDebug(0) {
				fmt.Fprintf(cfg.Trace, "   %s\n", l)
			}
		})
		for _, a := range r.apps {
			fmt.Fprintf(cfg.Trace, "   %s\n", a.ms.Debug())
		}
	}
}

// step moves the radio one block ahead (paced by the wall clock in real
// time mode).
func (r *run) step(ctx context.Context) error {
	if err := r.cell.Step(ctx); err != nil {
		return err
	}
	fn := r.bts.FN()
	r.vt += time.Duration((fn-r.lastFN+pcuif.MaxFN)%pcuif.MaxFN) * btsemu.FramePeriod
	r.lastFN = fn
	if r.cfg.RealTime {
		if d := time.Until(r.t0.Add(r.vt)); d > 0 {
			time.Sleep(d)
		}
	}
	return nil
}

// result collects the MSs' results and the engine's drop counters.
func (r *run) result() *Result {
	res := r.res
	for i, a := range r.apps {
		a.res.Bytes = a.bytes
		if a.tcp != nil {
			a.res.Retx, a.res.Timeouts = a.tcp.retx, a.tcp.timeouts
		}
		res.MS[i] = a.res
	}
	ReadDrops(r.eng, res)
	return res
}

// HeadSojourns reads the head-of-queue sojourn of the DL queues of n MSs,
// MS i of TLLI tlli(i) (0 for an MS the engine does not know).
func HeadSojourns(eng *pcu.Engine, n int, tlli func(i int) uint32) []time.Duration {
	delays := make([]time.Duration, n)
	eng.Call(func() {
		for i := range delays {
			if m, ok := eng.MSViewByTLLI(tlli(i)); ok {
				delays[i] = m.QueueHeadSojourn
			}
		}
	})
	return delays
}

// ReadDrops reads the engine's LLC drop counters and ECN marks into res.
func ReadDrops(eng *pcu.Engine, res *Result) {
	eng.Call(func() {
		b, _ := eng.BTSView(0)
		res.Drops.Total = b.Ctr.Value(pcu.CtrLLCFrameDropped)
		res.Drops.Lifetime = b.Ctr.Value(pcu.CtrLLCFrameTimedout)
		res.Drops.CoDel = eng.L1Counters().Value(pcu.L1LLCCoDelDropped)
		res.Drops.Overflow = eng.L1Counters().Value(pcu.L1LLCOverflowDropped)
		res.Marks = eng.L1Counters().Value(pcu.L1LLCECNMarked)
	})
}

func printStatus(w io.Writer, name string, t time.Duration, busy bool, apps []*msApp, cfg Config) {
	for i, a := range apps {
		phase := "idle"
		pct := 0.0
		thr := 0.0
		if busy {
			phase = "download"
			pct = 100 * float64(a.bytes) / float64(cfg.FileBytes)
			if t > 0 {
				thr = float64(a.bytes) * 8 / t.Seconds() / 1000
			}
		}
		ping := "-"
		if p := lastOf(a.res.BusyPing); busy && p > 0 {
			ping = fmt.Sprintf("%4d ms", p.Milliseconds())
		} else if p := lastOf(a.res.IdlePing); p > 0 {
			ping = fmt.Sprintf("%4d ms", p.Milliseconds())
		}
		q := time.Duration(0)
		if n := len(a.res.QueueDelay); n > 0 {
			q = a.res.QueueDelay[n-1]
		}
		fmt.Fprintf(w, "[%-13s %6.1fs] MS%d %-8s %5.1f%% %5.1f kbit/s  ping %s  queue %4d ms  retx %d\n",
			name, t.Seconds(), i, phase, pct, thr, ping, q.Milliseconds(), a.tcpRetx())
	}
}

func (a *msApp) tcpRetx() int {
	if a.tcp == nil {
		return 0
	}
	return a.tcp.retx
}

func lastOf(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	return d[len(d)-1]
}

// Percentile of a sample (p in 0..100); 0 for none.
func Percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	i := int(p / 100 * float64(len(s)-1))
	return s[i]
}
