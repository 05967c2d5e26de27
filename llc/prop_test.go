package llc

import (
	"testing"
	"time"

	"pgregory.net/rapid"
)

// propModel tracks what the queues must contain.
type propModel struct {
	s   *Shared
	qs  [2]*Queue
	now time.Duration

	nextID int
	// per queue: frames/octets enqueued, delivered, dropped (reported)
	enq, del, drop          [2]int
	enqOct, delOct, dropOct [2]int

	delivered map[int]bool // ids delivered (and not put back)
	protInf   map[int]bool // protected frames with infinite lifetime
	lastSAPI  [2][16]int   // per queue and SAPI: last delivered id
	lastClass [2][2]int    // GMM and TOM/SMS classes: last delivered id
	recent    [2][]Frame   // delivered frames that may be put back
	noLoss    bool         // limits huge: protected frames must all arrive
	copies    int          // frames enqueued with EnqueueCopy (pooled buffers)
}

func frameID(b []byte) int { return int(b[3])<<16 | int(b[4])<<8 | int(b[5]) }

// fillFrame writes frame id's pattern after its header (octets 6..).
func fillFrame(b []byte, id int) {
	b[3], b[4], b[5] = byte(id>>16), byte(id>>8), byte(id)
	for i := 6; i < len(b); i++ {
		b[i] = byte(id*7 + i)
	}
}

// verifyFrame fails on a frame whose octets are not its pattern: a pooled
// buffer given back (poisoned) or reused while the frame still lived.
func verifyFrame(t *rapid.T, b []byte) {
	id := frameID(b)
	for i := 6; i < len(b); i++ {
		if b[i] != byte(id*7+i) {
			t.Fatalf("frame %d (%d octets): octet %d is %#x, want %#x", id, len(b), i, b[i], byte(id*7+i))
		}
	}
}

// retire ends the life of delivered frames (the DL TBF's Release).
func (m *propModel) retire(frs []Frame) {
	for i := range frs {
		m.s.Release(&frs[i])
	}
}

func (m *propModel) discard(qi int, d Discard) {
	m.drop[qi] += d.Frames
	m.dropOct[qi] += d.Octets
	if d.Frames != d.Lifetime+d.CoDel+d.Overflow {
		panic("discard reasons do not add up")
	}
}

func (m *propModel) deliver(t *rapid.T, qi int, fr Frame) {
	id := frameID(fr.Data)
	verifyFrame(t, fr.Data)
	if m.delivered[id] {
		t.Fatalf("frame %d delivered twice", id)
	}
	m.delivered[id] = true
	m.del[qi]++
	m.delOct[qi] += len(fr.Data)
	if id <= m.lastSAPI[qi][fr.SAPI] {
		t.Fatalf("SAPI %d: frame %d after %d", fr.SAPI, id, m.lastSAPI[qi][fr.SAPI])
	}
	m.lastSAPI[qi][fr.SAPI] = id
	if fr.Class < ClassData {
		if id <= m.lastClass[qi][fr.Class] {
			t.Fatalf("class %v: frame %d after %d", fr.Class, id, m.lastClass[qi][fr.Class])
		}
		m.lastClass[qi][fr.Class] = id
	}
	m.recent[qi] = append(m.recent[qi], fr)
	if len(m.recent[qi]) > 4 {
		m.retire(m.recent[qi][:1])
		m.recent[qi] = m.recent[qi][1:]
	}
}

func (m *propModel) check(t *rapid.T) {
	var mem, frames, octets int64
	for qi, q := range m.qs {
		for _, fr := range m.recent[qi] {
			verifyFrame(t, fr.Data)
		}
		wantN := m.enq[qi] - m.del[qi] - m.drop[qi]
		wantO := m.enqOct[qi] - m.delOct[qi] - m.dropOct[qi]
		// Overflow drops not reported yet are still counted as queued by
		// the model: add the pending ones.
		st := q.Stats(m.now)
		wantN -= st.Pending.Frames
		wantO -= st.Pending.Octets
		if q.Len() != wantN || q.Octets() != wantO {
			t.Fatalf("queue %d: len %d octets %d, model %d %d", qi, q.Len(), q.Octets(), wantN, wantO)
		}
		var cf, co, ff, fo int
		for _, c := range st.Classes {
			cf += c.Frames
			co += c.Octets
		}
		for _, f := range st.Flows {
			ff += f.Frames
			fo += f.Octets
		}
		if cf != wantN || ff != wantN || co != wantO || fo != wantO {
			t.Fatalf("queue %d: stats %d/%d flows %d/%d, want %d/%d", qi, cf, co, ff, fo, wantN, wantO)
		}
		if st.Memory != int64(wantO+wantN*FrameOverhead) {
			t.Fatalf("memory %d", st.Memory)
		}
		if st.Memory > int64(m.s.cfg.msLimit()) {
			t.Fatalf("queue %d over its limit: %d", qi, st.Memory)
		}
		mem += st.Memory
		frames += int64(wantN)
		octets += int64(wantO)
	}
	if gm, gf, go_ := m.s.Usage(); gm != mem || gf != frames || go_ != octets {
		t.Fatalf("usage %d/%d/%d, want %d/%d/%d", gm, gf, go_, mem, frames, octets)
	}
	if mem > m.s.cfg.globalLimit() {
		t.Fatalf("over the global limit: %d", mem)
	}
}

var propSAPIs = []uint8{1, 2, 3, 5, 7, 8, 9, 11, 0, 12}

func (m *propModel) enqueue(t *rapid.T) {
	qi := rapid.IntRange(0, 1).Draw(t, "q")
	sapi := rapid.SampledFrom(propSAPIs).Draw(t, "sapi")
	n := rapid.IntRange(8, MaxFrameLen).Draw(t, "len")
	ui := rapid.IntRange(0, 4).Draw(t, "fmt") > 0
	life := rapid.SampledFrom([]uint16{LifetimeInfinite, 0, 5, 50, 200, 1000}).Draw(t, "life")
	m.now += time.Duration(rapid.IntRange(0, 30).Draw(t, "dt")) * time.Millisecond
	b := make([]byte, n)
	b[0] = sapi
	if ui {
		b[1] = 0xc0
	}
	m.nextID++
	id := m.nextID
	fillFrame(b, id)
	if Protected(b) && life == LifetimeInfinite {
		m.protInf[id] = true
	}
	if rapid.Bool().Draw(t, "copy") {
		if err := m.qs[qi].EnqueueCopy(m.now, b, life); err != nil {
			t.Fatal(err)
		}
		m.copies++
		clear(b[6:]) // the caller's buffer is its own again
	} else if err := m.qs[qi].Enqueue(m.now, b, life); err != nil {
		t.Fatal(err)
	}
	m.enq[qi]++
	m.enqOct[qi] += n
}

func (m *propModel) dequeue(t *rapid.T) {
	qi := rapid.IntRange(0, 1).Draw(t, "q")
	m.now += time.Duration(rapid.IntRange(0, 200).Draw(t, "dt")) * time.Millisecond
	fr, ok, d := m.qs[qi].Dequeue(m.now)
	m.discard(qi, d)
	if ok {
		m.deliver(t, qi, fr)
	}
}

func (m *propModel) putBack(t *rapid.T) {
	qi := rapid.IntRange(0, 1).Draw(t, "q")
	r := m.recent[qi]
	if len(r) == 0 {
		t.Skip("nothing to put back")
	}
	k := rapid.IntRange(1, len(r)).Draw(t, "k")
	back := r[len(r)-k:]
	for i := len(back) - 1; i >= 0; i-- {
		fr := back[i]
		id := frameID(fr.Data)
		delete(m.delivered, id)
		m.del[qi]--
		m.delOct[qi] -= len(fr.Data)
		m.lastSAPI[qi][fr.SAPI] = min(m.lastSAPI[qi][fr.SAPI], id-1)
		if fr.Class < ClassData {
			m.lastClass[qi][fr.Class] = min(m.lastClass[qi][fr.Class], id-1)
		}
		m.qs[qi].PutBack(m.now, fr)
	}
	m.recent[qi] = r[:len(r)-k]
}

func (m *propModel) apply(t *rapid.T) {
	cfg := Config{
		CoDel:      rapid.Bool().Draw(t, "codel"),
		Variant:    rapid.SampledFrom([]Variant{VariantRFC, VariantOsmo}).Draw(t, "variant"),
		Interval:   time.Duration(rapid.SampledFrom([]int{0, 1, 5, 10, 100}).Draw(t, "interval")) * 10 * time.Millisecond,
		Hysteresis: rapid.SampledFrom([]uint16{0, 10, 100}).Draw(t, "hyst"),
		Lifetime:   rapid.SampledFrom([]uint16{LifetimeFromSGSN, LifetimeFromSGSN, 100, LifetimeInfinite}).Draw(t, "lifetime"),
		Quantum:    rapid.SampledFrom([]int{0, 64, 300}).Draw(t, "quantum"),
	}
	if !m.noLoss {
		cfg.MSLimit = rapid.SampledFrom([]int{0, 4 * (MaxFrameLen + FrameOverhead), 20000}).Draw(t, "mslimit")
		cfg.GlobalLimit = int64(rapid.SampledFrom([]int{0, 2 * (MaxFrameLen + FrameOverhead), 30000}).Draw(t, "glimit"))
	} else {
		cfg.MSLimit, cfg.GlobalLimit = 1<<30, 1<<40
		if cfg.Lifetime == 100 {
			cfg.Lifetime = LifetimeFromSGSN
		}
	}
	if err := m.s.Apply(cfg); err != nil {
		t.Fatal(err)
	}
}

func (m *propModel) takeOverflowed(t *rapid.T) {
	m.s.TakeOverflowed(func(q *Queue, d Discard) {
		m.discard(q.Owner.(int), d)
	})
}

func (m *propModel) misc(t *rapid.T) {
	qi := rapid.IntRange(0, 1).Draw(t, "q")
	switch rapid.IntRange(0, 3).Draw(t, "what") {
	case 0:
		if rapid.Bool().Draw(t, "stop") {
			m.qs[qi].StopTransmit()
		}
		m.qs[qi].SetTransmitStart(m.now)
	case 1:
		m.qs[qi].SetDrainRate(rapid.SampledFrom([]int{0, 1000, 10000, 59200}).Draw(t, "rate"))
	case 2:
		m.qs[qi].Idle(m.now)
	case 3:
		if m.noLoss {
			t.Skip("no clearing")
		}
		f, o := m.qs[qi].Clear()
		m.drop[qi] += f
		m.dropOct[qi] += o
		m.retire(m.recent[qi])
		m.recent[qi] = nil
	}
}

// TestQueueProperties: random operation sequences on two queues sharing a
// global limit: every frame is delivered or reported dropped exactly once,
// with its octets intact (frames copied into pooled buffers included: with
// poisoning on, a buffer given back too early shows); every pooled buffer
// goes back exactly once;
// FIFO per SAPI and per GMM/TOM class; frame/octet counters equal the
// contents; limits hold. With unlimited memory, protected frames of
// infinite lifetime are all delivered (never AQM-dropped).
func TestQueueProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := &propModel{delivered: map[int]bool{}, protInf: map[int]bool{}}
		m.noLoss = rapid.Bool().Draw(t, "noLoss")
		cfg := DefaultConfig()
		cfg.Lifetime = LifetimeFromSGSN
		if m.noLoss {
			cfg.MSLimit, cfg.GlobalLimit = 1<<30, 1<<40
		}
		var err error
		if m.s, err = NewShared(cfg); err != nil {
			t.Fatal(err)
		}
		m.qs[0], m.qs[1] = m.s.NewQueue(0), m.s.NewQueue(1)
		t.Repeat(map[string]func(*rapid.T){
			"enqueue":        m.enqueue,
			"enqueue2":       m.enqueue,
			"dequeue":        m.dequeue,
			"putBack":        m.putBack,
			"apply":          m.apply,
			"takeOverflowed": m.takeOverflowed,
			"misc":           m.misc,
			"":               m.check,
		})
		// Drain everything and account for every frame.
		m.now += time.Hour
		m.takeOverflowed(t)
		for qi, q := range m.qs {
			for {
				fr, ok, d := q.Dequeue(m.now)
				m.discard(qi, d)
				if !ok {
					break
				}
				m.deliver(t, qi, fr)
			}
			if m.enq[qi] != m.del[qi]+m.drop[qi] || m.enqOct[qi] != m.delOct[qi]+m.dropOct[qi] {
				t.Fatalf("queue %d: enqueued %d/%d, delivered %d/%d, dropped %d/%d", qi,
					m.enq[qi], m.enqOct[qi], m.del[qi], m.delOct[qi], m.drop[qi], m.dropOct[qi])
			}
		}
		m.retire(m.recent[0])
		m.retire(m.recent[1])
		// every pooled buffer went back exactly once (queue drop or Release)
		if ps := m.s.PoolStats(); ps.Made+ps.Reused != uint64(m.copies) || ps.Released != uint64(m.copies) {
			t.Fatalf("pool: %d copies, %+v", m.copies, ps)
		}
		c := m.s.Counters()
		if int(c.Dropped()) != m.drop[0]+m.drop[1] {
			t.Fatalf("llc:dropped %d, reported %d", c.Dropped(), m.drop[0]+m.drop[1])
		}
		if m.noLoss {
			for id := range m.protInf {
				if !m.delivered[id] {
					t.Fatalf("protected frame %d lost", id)
				}
			}
		}
	})
}
