package llc

import (
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"
)

func TestClassOf(t *testing.T) {
	want := map[uint8]Class{0: ClassData, 1: ClassGMM, 2: ClassTOMSMS, 3: ClassData, 5: ClassData,
		7: ClassTOMSMS, 8: ClassTOMSMS, 9: ClassData, 11: ClassData, 15: ClassData}
	for sapi, c := range want {
		if ClassOf(sapi) != c {
			t.Errorf("SAPI %d: %v want %v", sapi, ClassOf(sapi), c)
		}
	}
}

// TestPriority: GMM before TOM/SMS before data, FIFO inside a class.
func TestPriority(t *testing.T) {
	s := mustShared(t, DefaultConfig())
	q := s.NewQueue(nil)
	in := []struct {
		sapi uint8
		tag  string
	}{{3, "d1"}, {7, "s1"}, {1, "g1"}, {2, "t1"}, {3, "d2"}, {1, "g2"}, {8, "t2"}}
	for _, x := range in {
		q.Enqueue(0, uiFrame(x.sapi, 10, x.tag), LifetimeInfinite)
	}
	var got []string
	for {
		fr, ok, _ := q.Dequeue(time.Millisecond)
		if !ok {
			break
		}
		got = append(got, string(fr.Data[8:]))
	}
	want := []string{"g1", "g2", "s1", "t1", "t2", "d1", "d2"}
	if !slices.Equal(got, want) {
		t.Fatalf("order %v want %v", got, want)
	}
}

// TestDRR: two backlogged user SAPIs with equal frames share the link by
// quantum; a sparse SAPI arriving later is served at once (new-flow list).
func TestDRR(t *testing.T) {
	s := mustShared(t, Config{Quantum: 1000, Lifetime: LifetimeInfinite})
	q := s.NewQueue(nil)
	for i := 0; i < 6; i++ {
		q.Enqueue(0, uiFrame(3, 500, "3"), LifetimeInfinite)
		q.Enqueue(0, uiFrame(5, 500, "5"), LifetimeInfinite)
	}
	var got []byte
	deq := func() {
		fr, ok, _ := q.Dequeue(time.Second)
		if !ok {
			t.Fatal("empty")
		}
		got = append(got, fr.Data[len(fr.Data)-1])
	}
	for i := 0; i < 4; i++ {
		deq()
	}
	q.Enqueue(time.Second, uiFrame(11, 60, "b"), LifetimeInfinite) // sparse flow
	for q.Len() > 0 {
		deq()
	}
	if string(got) != "3355b33553355" {
		t.Fatalf("service order %s", got)
	}
}

// TestHysteresis: osmo-pcu's lifetime hysteresis (osmo-pcu llc.c llc_queue_dequeue(), `queue hysteresis`).
func TestHysteresis(t *testing.T) {
	s := mustShared(t, Config{Hysteresis: 100}) // 1 s
	q := s.NewQueue(nil)
	// A: expired at now (lifetime 1 s, dequeued at 2 s).
	// B: expires at 2.5 s: inside the hysteresis, discardable → dropped.
	// C: 40 octets, inside the hysteresis but small → kept (not discardable).
	q.Enqueue(0, uiFrame(3, 100, "A"), 100)
	q.Enqueue(0, uiFrame(3, 100, "B"), 250)
	q.Enqueue(0, uiFrame(3, 40, "C"), 250)
	q.Enqueue(0, uiFrame(3, 100, "D"), 250)
	fr, ok, d := q.Dequeue(2 * time.Second)
	if !ok || fr.Data[len(fr.Data)-1] != 'C' {
		t.Fatalf("got %q", fr.Data)
	}
	if d.Lifetime != 2 || d.Frames != 2 || d.Octets != 200 {
		t.Fatalf("discard %+v", d)
	}
	// D: inside the hysteresis, but nothing dropped in this call → kept.
	fr, ok, d = q.Dequeue(2 * time.Second)
	if !ok || fr.Data[len(fr.Data)-1] != 'D' || d.Frames != 0 {
		t.Fatalf("got %q %+v", fr.Data, d)
	}
	if c := s.Counters(); c.Timeout != 2 || c.Scheduled != 2 {
		t.Fatalf("counters %+v", c)
	}
}

// TestLifetimeOverride: `queue lifetime` overrides the SGSN value for
// frames already queued; infinite never expires.
func TestLifetimeOverride(t *testing.T) {
	s := mustShared(t, Config{})
	q := s.NewQueue(nil)
	q.Enqueue(0, uiFrame(3, 100, "a"), 100)
	q.Enqueue(0, uiFrame(3, 100, "b"), LifetimeInfinite)
	if err := s.Apply(Config{Lifetime: 50}); err != nil {
		t.Fatal(err)
	}
	if _, ok, d := q.Dequeue(600 * ms); ok || d.Lifetime != 2 {
		t.Fatalf("ok %v %+v", ok, d)
	}
	s.Apply(Config{Lifetime: LifetimeInfinite})
	q.Enqueue(0, uiFrame(3, 100, "c"), 1)
	if _, ok, _ := q.Dequeue(time.Hour); !ok {
		t.Fatal("infinite lifetime expired")
	}
}

// TestPerMSLimit: the per-MS limit drops from the head of the fattest
// user flow and reports through Dequeue and TakeOverflowed exactly once.
func TestPerMSLimit(t *testing.T) {
	lim := 10 * (500 + FrameOverhead)
	s := mustShared(t, Config{MSLimit: lim, Lifetime: LifetimeInfinite})
	q := s.NewQueue("ms1")
	q.Enqueue(0, uiFrame(1, 500, "gmm"), LifetimeInfinite)
	for i := 0; i < 3; i++ {
		q.Enqueue(0, uiFrame(5, 500, "5"), LifetimeInfinite)
	}
	for i := 0; i < 8; i++ {
		q.Enqueue(0, uiFrame(3, 500, string(rune('a'+i))), LifetimeInfinite)
	}
	// 12 frames, room for 10: the two oldest SAPI 3 frames went.
	if q.Len() != 10 {
		t.Fatalf("len %d", q.Len())
	}
	var reported []Discard
	s.TakeOverflowed(func(v *Queue, d Discard) {
		if v.Owner != "ms1" {
			t.Fatalf("owner %v", v.Owner)
		}
		reported = append(reported, d)
	})
	if len(reported) != 1 || reported[0].Frames != 2 || reported[0].Octets != 1000 || reported[0].Overflow != 2 {
		t.Fatalf("reported %+v", reported)
	}
	fr, _, d := q.Dequeue(0)
	if d.Frames != 0 || string(fr.Data[len(fr.Data)-3:]) != "gmm" {
		t.Fatalf("%q %+v", fr.Data, d)
	}
	for i := 0; i < 3; i++ {
		q.Dequeue(0)
	}
	fr, _, _ = q.Dequeue(0)
	for fr.SAPI != 3 {
		fr, _, _ = q.Dequeue(0)
	}
	if fr.Data[len(fr.Data)-1] != 'c' {
		t.Fatalf("first SAPI 3 frame %q", fr.Data)
	}
	if st := q.Stats(0); st.Classes[ClassData].Drops[ReasonOverflow] != 2 {
		t.Fatalf("stats %+v", st.Classes[ClassData])
	}
}

// TestGlobalLimit: the global limit drops from the fattest MS; the
// victim learns about it in its next Dequeue when nobody took the report.
func TestGlobalLimit(t *testing.T) {
	per := 500 + FrameOverhead
	s := mustShared(t, Config{GlobalLimit: int64(10 * per), Lifetime: LifetimeInfinite})
	fat, thin := s.NewQueue("fat"), s.NewQueue("thin")
	for i := 0; i < 8; i++ {
		fat.Enqueue(0, uiFrame(3, 500, ""), LifetimeInfinite)
	}
	for i := 0; i < 4; i++ {
		thin.Enqueue(0, uiFrame(3, 500, ""), LifetimeInfinite)
	}
	if fat.Len() != 6 || thin.Len() != 4 {
		t.Fatalf("fat %d thin %d", fat.Len(), thin.Len())
	}
	if m, _, _ := s.Usage(); m > int64(10*per) {
		t.Fatalf("usage %d", m)
	}
	_, _, d := fat.Dequeue(0)
	if d.Overflow != 2 || d.Frames != 2 {
		t.Fatalf("fat discard %+v", d)
	}
	n := 0
	s.TakeOverflowed(func(*Queue, Discard) { n++ })
	if n != 0 {
		t.Fatal("reported twice")
	}
	// Lowering the limit applies at once.
	if err := s.Apply(Config{GlobalLimit: int64(4 * per), Lifetime: LifetimeInfinite}); err != nil {
		t.Fatal(err)
	}
	if m, f, _ := s.Usage(); m > int64(4*per) || f != 4 {
		t.Fatalf("after apply: %d octets %d frames", m, f)
	}
}

// TestApplyVariantKeepsOrder: switching the variant with frames queued
// keeps every frame and the per-SAPI order.
func TestApplyVariantKeepsOrder(t *testing.T) {
	s := mustShared(t, Config{CoDel: true, Lifetime: LifetimeInfinite})
	q := s.NewQueue(nil)
	for i := 0; i < 20; i++ {
		q.Enqueue(0, uiFrame([]uint8{3, 5, 9, 11, 12}[i%5], 20, string(rune('A'+i))), LifetimeInfinite)
	}
	q.Dequeue(0)
	s.Apply(Config{CoDel: true, Variant: VariantOsmo, Lifetime: LifetimeInfinite})
	var got []byte
	for i := 0; i < 5; i++ {
		fr, _, _ := q.Dequeue(0)
		got = append(got, fr.Data[19])
	}
	s.Apply(Config{CoDel: true, Lifetime: LifetimeInfinite})
	for q.Len() > 0 {
		fr, _, _ := q.Dequeue(0)
		got = append(got, fr.Data[19])
	}
	// osmo: one FIFO → B..F in arrival order; then rfc DRR again.
	if string(got[:5]) != "BCDEF" || len(got) != 19 {
		t.Fatalf("order %s", got)
	}
	last := map[uint8]byte{}
	for _, c := range got {
		sapi := []uint8{3, 5, 9, 11, 12}[(c-'A')%5]
		if c <= last[sapi] {
			t.Fatalf("SAPI %d out of order in %s", sapi, got)
		}
		last[sapi] = c
	}
}

// overload2to1 runs q from time 0 at twice the load it drains for n
// rounds of 10 ms: two 500-octet SAPI 3 frames in, then one out at the
// round's end. It returns the time of the last dequeue.
func overload2to1(q *Queue, n int) time.Duration {
	var now time.Duration
	for i := 0; i < n; i++ {
		q.Enqueue(now, uiFrame(3, 500, ""), LifetimeInfinite)
		q.Enqueue(now, uiFrame(3, 500, ""), LifetimeInfinite)
		now += 10 * ms
		q.Dequeue(now)
	}
	return now
}

// TestCoDelOffAndOn: `no queue codel` stops drops at once; re-enabling
// restarts with fresh state.
func TestCoDelOffAndOn(t *testing.T) {
	s := mustShared(t, Config{CoDel: true, Interval: 100 * ms, Lifetime: LifetimeInfinite})
	q := s.NewQueue(nil)
	now := overload2to1(q, 200)
	if s.Counters().CoDel == 0 {
		t.Fatal("no drops under overload")
	}
	s.Apply(Config{CoDel: false, Lifetime: LifetimeInfinite})
	before := s.Counters().CoDel
	for q.Len() > 0 {
		now += 10 * ms
		q.Dequeue(now)
	}
	if s.Counters().CoDel != before {
		t.Fatal("dropped with CoDel off")
	}
	s.Apply(Config{CoDel: true, Interval: 100 * ms, Lifetime: LifetimeInfinite})
	q.Enqueue(now, uiFrame(3, 500, ""), LifetimeInfinite)
	q.Dequeue(now)
	if st := q.Stats(now); st.Flows[flowS3].CoDel.Count != 0 && q.a != nil {
		t.Fatalf("state not restarted: %+v", st.Flows[flowS3].CoDel)
	}
}

func TestParamsFor(t *testing.T) {
	cases := []struct {
		cfg      Config
		rate     int
		tgt, ivl time.Duration
	}{
		{Config{CoDel: true}, DrainRate(20, 1), 2 * time.Second, 10 * time.Second}, // CS-1 x 1: 1.5 MTU = 2.25 s, capped
		{Config{CoDel: true}, 0, 2 * time.Second, 10 * time.Second},
		{Config{CoDel: true}, DrainRate(30, 1), 1500 * ms, 10 * time.Second}, // CS-2 x 1: 1.5 MTU = 1.5 s
		{Config{CoDel: true}, DrainRate(30, 4), 500 * ms, 4 * time.Second},   // CS-2 x 4: the GPRS RTT floor
		{Config{CoDel: true}, DrainRate(50, 4), 500 * ms, 4 * time.Second},   // CS-4 x 4
		{Config{CoDel: true}, DrainRate(148, 8), 500 * ms, 4 * time.Second},  // MCS-9 x 8
		{Config{CoDel: true, Interval: 200 * ms}, DrainRate(20, 1), 100 * ms, 200 * ms},
		{Config{CoDel: true, Target: 300 * time.Microsecond}, 10_000_000, 300 * time.Microsecond, 100 * ms},
		{Config{CoDel: true, Variant: VariantOsmo}, 0, 203 * ms, 4 * time.Second},
		{Config{CoDel: true, Variant: VariantOsmo, Interval: 10 * ms}, 0, 0, 10 * ms},
		{Config{CoDel: true, Variant: VariantOsmo, Interval: 2 * time.Second}, 0, 101 * ms, 2 * time.Second},
	}
	for _, c := range cases {
		p := c.cfg.ParamsFor(c.rate)
		if p.Target != c.tgt || p.Interval != c.ivl {
			t.Errorf("%+v rate %d: %v/%v, want %v/%v", c.cfg, c.rate, p.Target, p.Interval, c.tgt, c.ivl)
		}
	}
}

func TestVTYLines(t *testing.T) {
	if got := DefaultConfig().VTYLines(); !slices.Equal(got, []string{" queue idle-ack-delay 10", " queue codel"}) {
		t.Errorf("default %q", got)
	}
	c := Config{CoDel: true, Interval: 2 * time.Second, Lifetime: LifetimeInfinite, Hysteresis: 5}
	if got := c.VTYLines(); !slices.Equal(got, []string{" queue lifetime infinite", " queue hysteresis 5", " queue codel interval 200"}) {
		t.Errorf("got %q", got)
	}
	c = Config{Lifetime: 300, Variant: VariantOsmo, Target: 2500 * time.Microsecond}
	if got := c.VTYLines(); !slices.Equal(got, []string{" queue lifetime 300", " no queue codel"}) {
		t.Errorf("got %q", got)
	}
	if got := c.VTYExtLines(); !slices.Equal(got, []string{" queue codel variant osmo", " queue codel target 2500"}) {
		t.Errorf("ext %q", got)
	}
	for _, bad := range []Config{{Interval: 5 * ms}, {Target: 100}, {Quantum: 10}, {MSLimit: 100}, {Variant: 9}} {
		if bad.Validate() == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

// TestPutBack: frames put back go to the head, keep their lifetime origin
// and restart their sojourn.
func TestPutBack(t *testing.T) {
	s := mustShared(t, Config{})
	q := s.NewQueue(nil)
	q.Enqueue(0, uiFrame(3, 100, "1"), 1000)
	q.Enqueue(0, uiFrame(3, 100, "2"), 1000)
	q.Enqueue(0, uiFrame(3, 100, "3"), 1000)
	a, _, _ := q.Dequeue(time.Second)
	b, _, _ := q.Dequeue(time.Second)
	q.PutBack(5*time.Second, b)
	q.PutBack(5*time.Second, a)
	var got []byte
	for q.Len() > 0 {
		fr, _, _ := q.Dequeue(5*time.Second + ms)
		got = append(got, fr.Data[99])
		if fr.Data[99] != '3' && (fr.Sojourn != ms || fr.Enqueued != 0) {
			t.Fatalf("frame %c sojourn %v enq %v", fr.Data[99], fr.Sojourn, fr.Enqueued)
		}
	}
	if string(got) != "123" {
		t.Fatalf("order %s", got)
	}
}

// TestIdleRelease: a drained queue with cold CoDel state gives its working
// storage back, and a new queue costs only its header.
func TestIdleRelease(t *testing.T) {
	s := mustShared(t, DefaultConfig())
	q := s.NewQueue(nil)
	q.Enqueue(0, uiFrame(3, 100, ""), LifetimeInfinite)
	q.Dequeue(ms)
	if q.a != nil {
		t.Fatal("storage kept")
	}
	if s.poolLen != 1 {
		t.Fatalf("pool %d", s.poolLen)
	}
	if sz := idleQueueBytes(s, 1000); sz > 256 {
		t.Fatalf("idle queue %.0f bytes", sz)
	}
}

// idleQueueBytes measures the heap bytes per idle queue.
func idleQueueBytes(s *Shared, n int) float64 {
	qs := make([]*Queue, n)
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	for i := range qs {
		qs[i] = s.NewQueue(nil)
	}
	runtime.ReadMemStats(&m1)
	runtime.KeepAlive(qs)
	return float64(m1.TotalAlloc-m0.TotalAlloc) / float64(n)
}

// TestCounterSemantics: llc:dropped = timeout + codel + overflow + cleared.
func TestCounterSemantics(t *testing.T) {
	c := Counters{Scheduled: 5, Timeout: 1, CoDel: 2, Overflow: 3, Cleared: 4}
	if c.Dropped() != 10 {
		t.Fatal(c.Dropped())
	}
	d := Discard{Frames: 300, Octets: 1 << 25}
	if f, o := d.LLCDiscarded(); f != 255 || o != 0xffffff {
		t.Fatal(f, o)
	}
}

func TestSizes(t *testing.T) {
	if n := unsafe.Sizeof(Queue{}); n > 256 {
		t.Errorf("Queue header %d bytes", n)
	}
	if n := unsafe.Sizeof(entry{}); n > FrameOverhead {
		t.Errorf("entry %d bytes > FrameOverhead", n)
	}
	t.Logf("Queue %d B, active %d B, entry %d B", unsafe.Sizeof(Queue{}), unsafe.Sizeof(active{}), unsafe.Sizeof(entry{}))
}

// TestClose: a closed queue refuses frames, gives its storage back and is
// not reported as an overflow victim.
func TestClose(t *testing.T) {
	s := mustShared(t, Config{MSLimit: 2 * (1000 + FrameOverhead)})
	q := s.NewQueue(nil)
	for i := 0; i < 3; i++ {
		q.Enqueue(0, uiFrame(3, 1000, ""), LifetimeInfinite)
	}
	if f, o := q.Close(); f != 2 || o != 2000 {
		t.Fatalf("close %d %d", f, o)
	}
	if q.Enqueue(0, uiFrame(3, 10, ""), 0) != ErrClosed {
		t.Fatal("enqueue after close")
	}
	s.TakeOverflowed(func(*Queue, Discard) { t.Fatal("closed queue reported") })
	if m, f, _ := s.Usage(); m != 0 || f != 0 || s.Counters().Cleared != 2 || s.Counters().Overflow != 1 {
		t.Fatalf("usage %d %d %+v", m, f, s.Counters())
	}
}

func TestIdleAckAndLines(t *testing.T) {
	s := mustShared(t, Config{CoDel: true, IdleAckDelay: 10, Interval: 100 * ms})
	q := s.NewQueue(nil)
	if _, ok := q.IdleAckDue(); ok {
		t.Fatal("due without enqueue")
	}
	now := overload2to1(q, 100)
	if at, ok := q.IdleAckDue(); !ok || at != now-10*ms+100*ms {
		t.Fatalf("idle ack at %v", at)
	}
	st := q.Stats(now)
	lines := st.Lines(now)
	if len(lines) != 7 || lines[1] != " CoDel rfc: interval 100ms, target 50ms, maxpacket 1543, drain rate 0 octets/s (measured 50000)" ||
		!strings.HasPrefix(lines[2], " flow queues, ECN on (CoDel interval 100ms, target 50ms): marked 0, dropped unmarkable not-ect 0 ciphered 0 compressed 0 other ") {
		t.Fatalf("%q", lines)
	}
	if c := st.Classes[ClassData]; c.Delivered != 100 || c.SojournMax < c.SojournAvg || c.SojournAvg < c.SojournMin || c.Drops[ReasonCoDel] == 0 {
		t.Fatalf("class stats %+v", c)
	}
	for _, l := range lines {
		t.Log(l)
	}
}

// TestPutBackHandMade: a Frame without queue metadata is not dropped as
// expired when put back.
func TestPutBackHandMade(t *testing.T) {
	s := mustShared(t, Config{})
	q := s.NewQueue(nil)
	q.Enqueue(0, uiFrame(3, 100, "2"), 500)
	q.PutBack(time.Second, Frame{Data: uiFrame(3, 100, "1")})
	for _, want := range "12" {
		fr, ok, d := q.Dequeue(2 * time.Second)
		if !ok || d.Frames != 0 || rune(fr.Data[99]) != want {
			t.Fatalf("got %q %+v", fr.Data, d)
		}
	}
}
