package llc

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// refCoDel is RFC 8289 §5 pseudocode transcribed for one queue (packets of
// known size and timestamp), the oracle for the rfc variant. It keeps the
// RFC's own structure: dodequeue() with ok_to_drop, dequeue() with the
// while loop and the Linux re-entry rule.
type refCoDel struct {
	target, interval time.Duration
	maxpacket        int

	q     []refPkt
	bytes int

	firstAboveTime time.Duration
	dropNext       time.Duration
	count          uint32
	lastcount      uint32
	dropping       bool

	drops []refDrop
}

type refPkt struct {
	t    time.Duration
	size int
	id   int
}

type refDrop struct {
	now   time.Duration
	id    int
	count uint32
}

func (r *refCoDel) enqueue(p refPkt) { r.q = append(r.q, p); r.bytes += p.size }

// dodequeue is RFC 8289 §5.3.
func (r *refCoDel) dodequeue(now time.Duration) (p *refPkt, ok bool) {
	if len(r.q) == 0 {
		r.firstAboveTime = 0
		return nil, false
	}
	x := r.q[0]
	r.q = r.q[1:]
	r.bytes -= x.size
	sojourn := now - x.t
	if sojourn < r.target || r.bytes <= r.maxpacket {
		r.firstAboveTime = 0
	} else if r.firstAboveTime == 0 {
		r.firstAboveTime = now + r.interval
	} else if now >= r.firstAboveTime {
		ok = true
	}
	return &x, ok
}

func (r *refCoDel) controlLaw(t time.Duration, count uint32) time.Duration {
	return t + time.Duration(float64(r.interval)/math.Sqrt(float64(count)))
}

func (r *refCoDel) drop(now time.Duration, p *refPkt) {
	r.drops = append(r.drops, refDrop{now, p.id, r.count})
}

// dequeue is RFC 8289 §5.4.
func (r *refCoDel) dequeue(now time.Duration) *refPkt {
	p, ok := r.dodequeue(now)
	if p == nil {
		r.dropping = false
		return nil
	}
	if r.dropping {
		if !ok {
			r.dropping = false
		}
		for now >= r.dropNext && r.dropping {
			r.count++
			r.drop(now, p)
			p, ok = r.dodequeue(now)
			if !ok {
				r.dropping = false
			} else {
				r.dropNext = r.controlLaw(r.dropNext, r.count)
			}
		}
	} else if ok {
		d := *p
		p, _ = r.dodequeue(now)
		r.dropping = true
		delta := r.count - r.lastcount
		r.count = 1
		if delta > 1 && now-r.dropNext < 16*r.interval {
			r.count = delta
		}
		r.drops = append(r.drops, refDrop{now, d.id, r.count})
		r.dropNext = r.controlLaw(now, r.count)
		r.lastcount = r.count
	}
	return p
}

// event is one step of a script: an arrival (size > 0) or a dequeue.
type event struct {
	at   time.Duration
	size int // 0: dequeue
}

// runBoth plays a script on the oracle and on a Queue (rfc variant, one
// SAPI 3 flow, fixed interval/target) and returns both drop lists and
// delivery lists.
func runBoth(t *testing.T, script []event, interval, target time.Duration) (ref, got []refDrop, refDel, gotDel []int) {
	t.Helper()
	r := &refCoDel{target: target, interval: interval, maxpacket: MaxFrameLen}
	s := mustShared(t, Config{CoDel: true, Interval: interval, Target: target, Lifetime: LifetimeInfinite,
		MSLimit: 1 << 30, GlobalLimit: 1 << 40})
	q := s.NewQueue(nil)
	id := 0
	for _, ev := range script {
		if ev.size > 0 {
			r.enqueue(refPkt{t: ev.at, size: ev.size, id: id})
			b := uiFrame(3, ev.size, "")
			b = append(b[:0:0], b...)
			putID(b, id)
			if err := q.Enqueue(ev.at, b, LifetimeInfinite); err != nil {
				t.Fatal(err)
			}
			id++
			continue
		}
		if p := r.dequeue(ev.at); p != nil {
			refDel = append(refDel, p.id)
		}
		before := q.a
		var cnt uint32
		fr, ok, d := q.Dequeue(ev.at)
		if before != nil {
			cnt = before.cd[flowS3].count
		}
		// The Queue reports drops per call: one record per drop with the
		// count after the call; the oracle's are regrouped the same way.
		for k := 0; k < d.CoDel; k++ {
			got = append(got, refDrop{now: ev.at, count: cnt})
		}
		if ok {
			gotDel = append(gotDel, getID(fr.Data))
		}
	}
	// Regroup the oracle's drops per dequeue instant with the final count.
	ref = append([]refDrop(nil), r.drops...)
	for i := len(ref) - 2; i >= 0; i-- {
		if ref[i].now == ref[i+1].now {
			ref[i].count = ref[i+1].count
		}
	}
	return ref, got, refDel, gotDel
}

func putID(b []byte, id int) {
	b[3], b[4], b[5] = byte(id>>16), byte(id>>8), byte(id)
}

func getID(b []byte) int { return int(b[3])<<16 | int(b[4])<<8 | int(b[5]) }

// cbr is the hand-checked script: 500-octet frames every 5 ms from t = 0,
// the link takes one frame every 10 ms (twice the drain rate is offered).
// At each 5 ms tick the arrival comes before the dequeue.
func cbr(until time.Duration) []event {
	var s []event
	for t := time.Duration(0); t <= until; t += 5 * ms {
		s = append(s, event{at: t, size: 500})
		if t > 0 && t%(10*ms) == 0 {
			s = append(s, event{at: t})
		}
	}
	return s
}

// TestRFCCoDelHandSchedule checks the drop instants of the cbr script
// against values worked out by hand from RFC 8289 (interval 100 ms,
// target 5 ms, MAXPACKET 1543):
//   - t = 10, 20: the backlog left (1000, 1500 octets) is ≤ MAXPACKET.
//   - t = 30: sojourn 20 ms ≥ target with 2000 octets left: first_above = 130.
//   - t = 130: first drop, count 1, drop_next = 230.
//   - t = 230: count 2, drop_next = 230 + 100/√2 = 300.711 ms.
//   - t = 310 (first dequeue ≥ 300.711): count 3, drop_next += 57.735 → 358.446.
//   - t = 360: count 4, drop_next += 50 → 408.446; t = 410: count 5.
func TestRFCCoDelHandSchedule(t *testing.T) {
	ref, got, refDel, gotDel := runBoth(t, cbr(500*ms), 100*ms, 5*ms)
	want := []refDrop{{130 * ms, 0, 1}, {230 * ms, 0, 2}, {310 * ms, 0, 3}, {360 * ms, 0, 4}, {410 * ms, 0, 5}}
	if len(ref) < len(want) || len(got) < len(want) {
		t.Fatalf("too few drops: ref %v got %v", ref, got)
	}
	for i, w := range want {
		if ref[i].now != w.now || ref[i].count != w.count {
			t.Errorf("oracle drop %d at %v count %d, want %v count %d", i, ref[i].now, ref[i].count, w.now, w.count)
		}
		if got[i].now != w.now || got[i].count != w.count {
			t.Errorf("queue drop %d at %v count %d, want %v count %d", i, got[i].now, got[i].count, w.now, w.count)
		}
	}
	compare(t, ref, got, refDel, gotDel)
}

func compare(t *testing.T, ref, got []refDrop, refDel, gotDel []int) {
	t.Helper()
	if len(ref) != len(got) {
		t.Fatalf("oracle %d drops, queue %d\noracle %v\nqueue  %v", len(ref), len(got), ref, got)
	}
	for i := range ref {
		if ref[i].now != got[i].now || ref[i].count != got[i].count {
			t.Fatalf("drop %d: oracle %v count %d, queue %v count %d", i, ref[i].now, ref[i].count, got[i].now, got[i].count)
		}
	}
	if fmt.Sprint(refDel) != fmt.Sprint(gotDel) {
		t.Fatalf("deliveries differ\noracle %v\nqueue  %v", refDel, gotDel)
	}
}

// TestRFCCoDelReentry: an overload episode, a short pause in which the
// queue drains, and a second episode within 16 intervals: the second
// episode starts at count − lastcount (RFC 8289 §5.4), not 1.
func TestRFCCoDelReentry(t *testing.T) {
	var s []event
	for tt := time.Duration(0); tt <= 3*time.Second; tt += 5 * ms {
		pause := tt >= 1500*ms && tt < 1700*ms
		if !pause {
			s = append(s, event{at: tt, size: 500})
		}
		if tt > 0 && tt%(10*ms) == 0 {
			s = append(s, event{at: tt})
		}
	}
	ref, got, refDel, gotDel := runBoth(t, s, 100*ms, 5*ms)
	compare(t, ref, got, refDel, gotDel)
	// Find the start of the second episode: the first drop after the pause.
	var last1, first2 refDrop
	for _, d := range ref {
		if d.now < 1500*ms {
			last1 = d
		} else if first2.now == 0 {
			first2 = d
		}
	}
	if first2.now == 0 || first2.count <= 1 {
		t.Fatalf("second episode starts with count %d (last of first: %d)", first2.count, last1.count)
	}
}

// TestRFCCoDelRandom compares the queue with the oracle on random bursty
// scripts with random frame sizes.
func TestRFCCoDelRandom(t *testing.T) {
	for seed := uint64(1); seed <= 200; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		var s []event
		var now time.Duration
		n := 500 + rng.IntN(1500)
		for i := 0; i < n; i++ {
			now += time.Duration(rng.IntN(20000)) * time.Microsecond
			if rng.IntN(3) == 0 {
				for k := rng.IntN(6); k >= 0; k-- {
					s = append(s, event{at: now, size: 20 + rng.IntN(MaxFrameLen-20)})
				}
			} else {
				for k := rng.IntN(3); k >= 0; k-- {
					s = append(s, event{at: now})
				}
			}
		}
		iv := time.Duration(20+rng.IntN(200)) * ms
		tg := time.Duration(1+rng.IntN(int(iv/time.Microsecond)/4)) * time.Microsecond
		ref, got, refDel, gotDel := runBoth(t, s, iv, tg)
		t.Run(fmt.Sprint(seed), func(t *testing.T) { compare(t, ref, got, refDel, gotDel) })
	}
}

// TestRFCProtectedDeferred: a non-UI (I) frame at the head when a drop is
// due is delivered; the drop falls on the next UI frame.
func TestRFCProtectedDeferred(t *testing.T) {
	s := mustShared(t, Config{CoDel: true, Interval: 100 * ms, Target: 5 * ms, Lifetime: LifetimeInfinite})
	q := s.NewQueue(nil)
	iFrame := func() []byte { b := make([]byte, 500); b[0] = 0x03; b[1] = 0x00; return b }
	var delivered, protectedDelivered, protectedIn int
	for tt := time.Duration(0); tt <= 2*time.Second; tt += 5 * ms {
		var b []byte
		if (tt/(5*ms))%3 == 0 {
			b = iFrame()
			protectedIn++
		} else {
			b = uiFrame(3, 500, "")
		}
		q.Enqueue(tt, b, LifetimeInfinite)
		if tt > 0 && tt%(10*ms) == 0 {
			fr, ok, _ := q.Dequeue(tt)
			if ok {
				delivered++
				if Protected(fr.Data) {
					protectedDelivered++
				}
			}
		}
	}
	for {
		fr, ok, _ := q.Dequeue(3 * time.Second)
		if !ok {
			break
		}
		if Protected(fr.Data) {
			protectedDelivered++
		}
	}
	if protectedDelivered != protectedIn {
		t.Fatalf("protected frames: %d in, %d out", protectedIn, protectedDelivered)
	}
	if s.Counters().CoDel == 0 {
		t.Fatal("no AQM drops at all")
	}
}

// TestTransmitStart: frames waiting for paging/assignment do not count as
// standing queue; lifetime still runs from enqueue.
func TestTransmitStart(t *testing.T) {
	s := mustShared(t, Config{CoDel: true, Interval: 100 * ms, Target: 5 * ms})
	q := s.NewQueue(nil)
	q.Enqueue(0, uiFrame(5, 500, ""), 100) // 1 s lifetime, first in DRR order
	for i := 0; i < 40; i++ {
		q.Enqueue(time.Duration(i)*ms, uiFrame(3, 500, ""), 300) // 3 s lifetime
	}
	q.SetTransmitStart(2 * time.Second)
	q.SetTransmitStart(2*time.Second + 5*ms) // ignored: the TBF is running
	fr, ok, d := q.Dequeue(2*time.Second + 10*ms)
	if !ok || d.Lifetime != 1 || d.CoDel != 0 {
		t.Fatalf("ok %v discard %+v", ok, d)
	}
	if fr.Sojourn != 10*ms {
		t.Fatalf("sojourn %v, want 10ms", fr.Sojourn)
	}
	// One frame per 20 ms: sojourn grows from 10 ms; the first CoDel drop
	// may come only one interval after it went above target.
	now := 2*time.Second + 10*ms
	firstDrop := time.Duration(0)
	for q.Len() > 0 {
		now += 20 * ms
		_, _, d := q.Dequeue(now)
		if d.CoDel > 0 && firstDrop == 0 {
			firstDrop = now
		}
	}
	if firstDrop != 0 && firstDrop < 2*time.Second+110*ms {
		t.Fatalf("first drop at %v", firstDrop)
	}
	if st := q.Stats(now); st.Classes[ClassData].SojournMax > time.Second {
		t.Fatalf("max sojourn %v counts the paging time", st.Classes[ClassData].SojournMax)
	}
	// A new TBF after StopTransmit restarts the origin.
	q.StopTransmit()
	q.Enqueue(now, uiFrame(3, 100, ""), LifetimeInfinite)
	q.SetTransmitStart(now + time.Second)
	if fr, _, _ := q.Dequeue(now + time.Second + ms); fr.Sojourn != ms {
		t.Fatalf("sojourn %v after a new TBF", fr.Sojourn)
	}
}
