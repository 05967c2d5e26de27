package llc

import (
	"bytes"
	"errors"
	"testing"
	"time"
)

func TestInspect(t *testing.T) {
	cases := []struct {
		name string
		b    []byte
		want Header
		err  error
	}{
		// Dummy command: SAPI 3, C/R 1, UI N(U) 0, PM 1.
		{"dummy", []byte{0x43, 0xc0, 0x01, 0x2b, 0x2b, 0x2b},
			Header{SAPI: 3, CR: true, Format: FormatUI, HeaderLen: 3, PM: true}, nil},
		// UI of SAPI 1 (GMM), N(U) = 0x1ff, E and PM set: c0 = 110 0 0 111, c1 = 111111 1 1.
		{"ui gmm", []byte{0x01, 0xc7, 0xff, 0xaa, 0x01, 0x02, 0x03},
			Header{SAPI: 1, Format: FormatUI, HeaderLen: 3, NU: 0x1ff, E: true, PM: true}, nil},
		// UI with the integrity-protection bit.
		{"ui ip", []byte{0x03, 0xd0, 0x04, 0, 0, 0}, Header{SAPI: 3, Format: FormatUI, HeaderLen: 3, NU: 1, IP: true}, nil},
		// I frame, A = 1, N(S) = 0x155, N(R) = 0x0aa, S1S2 = ACK (1).
		// c0 = 0 1 0 10101, c1 = 0101 0 010, c2 = 101010 01.
		{"i", []byte{0x05, 0x55, 0x52, 0xa9, 0xee, 0, 0, 0},
			Header{SAPI: 5, Format: FormatI, HeaderLen: 4, A: true, NS: 0x155, NR: 0x0aa, Func: 1}, nil},
		// I frame with SACK: K = 1 → two bitmap octets.
		{"i sack", []byte{0x03, 0x00, 0x00, 0x03, 0x01, 0xff, 0xff, 0xee, 0, 0, 0},
			Header{SAPI: 3, Format: FormatI, HeaderLen: 7, Func: 3}, nil},
		// S frame RNR, A = 1, N(R) = 0x1ff: c0 = 10 1 00 111, c1 = 111111 10.
		{"s", []byte{0x09, 0xa7, 0xfe, 0, 0, 0}, Header{SAPI: 9, Format: FormatS, HeaderLen: 3, A: true, NR: 0x1ff, Func: 2}, nil},
		// U frame SABM with P: 111 1 0111.
		{"u sabm", []byte{0x41, 0xf7, 0, 0, 0}, Header{SAPI: 1, CR: true, Format: FormatU, HeaderLen: 2, PF: true, Func: 7}, nil},
		{"empty", nil, Header{}, ErrEmpty},
		{"addr only", []byte{0x03}, Header{SAPI: 3}, ErrTooShort},
		{"i short", []byte{0x03, 0x00, 0x00}, Header{SAPI: 3, Format: FormatI}, ErrTooShort},
		{"i sack short", []byte{0x03, 0x00, 0x00, 0x03, 0x05, 0xff}, Header{SAPI: 3, Format: FormatI, Func: 3, HeaderLen: 4}, ErrTooShort},
		{"ui short", []byte{0x03, 0xc0}, Header{SAPI: 3, Format: FormatUI}, ErrTooShort},
		{"pd", []byte{0x83, 0xc0, 0x01}, Header{SAPI: 3, Format: FormatUI, HeaderLen: 3, PM: true}, ErrPD},
		{"too long", make([]byte, MaxFrameLen+1), Header{}, ErrTooLong},
	}
	for _, c := range cases {
		h, err := Inspect(c.b)
		if !errors.Is(err, c.err) || h != c.want {
			t.Errorf("%s: %+v %v, want %+v %v", c.name, h, err, c.want, c.err)
		}
	}
}

func TestPredicates(t *testing.T) {
	big := func(sapi, c1 byte) []byte { b := make([]byte, 100); b[0], b[1] = sapi, c1; return b }
	cases := []struct {
		b                 []byte
		ui, prot, discard bool
	}{
		{big(3, 0xc0), true, false, true},
		{big(1, 0xc0), true, true, false},
		{big(2, 0xc0), true, true, true},
		{big(7, 0xc0), true, true, true},
		{big(8, 0xc0), true, true, true},
		{big(3, 0x00), false, true, false}, // I frame
		{big(3, 0xe0), false, true, false}, // U frame
		{big(3, 0x80), false, true, false}, // S frame
		{uiFrame(3, 60, ""), true, false, false},
		{uiFrame(3, 61, ""), true, false, true},
		{[]byte{3}, false, true, false},
	}
	for i, c := range cases {
		if IsUI(c.b) != c.ui || Protected(c.b) != c.prot || Discardable(c.b) != c.discard {
			t.Errorf("case %d: ui %v prot %v disc %v", i, IsUI(c.b), Protected(c.b), Discardable(c.b))
		}
	}
}

func TestDummy(t *testing.T) {
	for _, c := range []struct{ n, want int }{{0, 6}, {6, 6}, {23, 23}, {79, 79}, {200, 79}} {
		b := AppendDummy(nil, c.n)
		if len(b) != c.want || !IsDummy(b) || !bytes.Equal(b[:6], []byte{0x43, 0xc0, 0x01, 0x2b, 0x2b, 0x2b}) {
			t.Errorf("n %d: % x", c.n, b)
		}
		h, err := Inspect(b)
		if err != nil || !h.UI() || h.SAPI != 3 {
			t.Errorf("dummy inspects as %+v %v", h, err)
		}
	}
	if IsDummy([]byte{0x43, 0xc0, 0x01, 0x2b, 0x2b, 0x00}) || IsDummy(uiFrame(3, 20, "")) {
		t.Error("non-dummy accepted")
	}
}

// FuzzInspect: the inspector never panics, its header length fits the
// frame, and it agrees with the fast predicates.
func FuzzInspect(f *testing.F) {
	f.Add([]byte{0x43, 0xc0, 0x01, 0x2b, 0x2b, 0x2b})
	f.Add([]byte{0x03, 0x00, 0x00, 0x03, 0x01, 0xff, 0xff})
	f.Add([]byte{0x09, 0xa7, 0xfe})
	f.Add([]byte{0x41, 0xf7})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := Inspect(b)
		if err == nil || errors.Is(err, ErrPD) {
			if h.HeaderLen > len(b) || h.HeaderLen < 2 {
				t.Fatalf("header length %d of %d", h.HeaderLen, len(b))
			}
			if h.UI() != IsUI(b) {
				t.Fatalf("UI %v vs IsUI %v", h.UI(), IsUI(b))
			}
		}
		if len(b) > 0 && len(b) <= MaxFrameLen && h.SAPI != SAPI(b) {
			t.Fatal("SAPI")
		}
		_ = Protected(b)
		_ = Discardable(b)
		_ = IsDummy(b)
	})
}

// FuzzQueueOps drives a queue with operations decoded from the input and
// checks that frames are conserved.
func FuzzQueueOps(f *testing.F) {
	f.Add([]byte{0, 3, 200, 1, 50, 0, 1, 100, 2, 1})
	f.Add([]byte{3, 1, 0, 9, 255, 0, 2, 10, 1, 255, 1, 255, 4})
	f.Fuzz(func(t *testing.T, ops []byte) {
		s, _ := NewShared(Config{CoDel: true, Interval: 100 * time.Millisecond, MSLimit: 20000, GlobalLimit: 30000})
		qs := [2]*Queue{s.NewQueue(0), s.NewQueue(1)}
		var now time.Duration
		var enq, out [2]int
		for i := 0; i+2 < len(ops); i += 3 {
			op, a, b := ops[i], ops[i+1], ops[i+2]
			qi := int(a & 1)
			now += time.Duration(b) * time.Millisecond
			switch op % 6 {
			case 0, 1:
				fr := make([]byte, 8+int(b)*5)
				fr[0] = a >> 4
				if a&2 != 0 {
					fr[1] = 0xc0
				}
				qs[qi].Enqueue(now, fr, uint16(b)*4)
				enq[qi]++
			case 2:
				_, ok, d := qs[qi].Dequeue(now)
				out[qi] += d.Frames
				if ok {
					out[qi]++
				}
			case 3:
				cfg := Config{CoDel: a&4 != 0, Hysteresis: uint16(b), MSLimit: 4000 + int(b)*100, GlobalLimit: 30000}
				if a&8 != 0 {
					cfg.Variant = VariantOsmo
				}
				s.Apply(cfg)
			case 4:
				qs[qi].SetTransmitStart(now)
				qs[qi].SetDrainRate(int(b) * 100)
			case 5:
				n, _ := qs[qi].Clear()
				out[qi] += n
			}
		}
		s.TakeOverflowed(func(q *Queue, d Discard) { out[q.Owner.(int)] += d.Frames })
		for qi, q := range qs {
			if enq[qi] != out[qi]+q.Len() {
				t.Fatalf("queue %d: %d in, %d out, %d queued", qi, enq[qi], out[qi], q.Len())
			}
		}
	})
}
