package tcplab

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/gopcu/gopcu/internal/emu/demo"
	"github.com/gopcu/gopcu/internal/emu/msemu"
	"github.com/gopcu/gopcu/internal/pcapw"
	"github.com/gopcu/gopcu/llc"
)

func ipPacket(n int, proto byte, seed int64) []byte {
	p := make([]byte, n)
	rand.New(rand.NewSource(seed)).Read(p)
	p[0], p[9] = 0x45, proto
	p[2], p[3] = byte(n>>8), byte(n)
	p[10], p[11] = 0, 0
	binary.BigEndian.PutUint16(p[10:], pcapw.Fold(pcapw.Sum(0, p[:20])))
	return p
}

// A packet that fits N201-U is one LLC UI frame on SAPI 3 with the
// SN-UNITDATA header of TS 44.065 §7.2 and a correct FCS; the PCU's flow
// isolation sees its IP 5-tuple.
func TestEncodeOneFrame(t *testing.T) {
	var e Encoder
	ip := ipPacket(1400, 6, 1)
	frames, err := e.Encode(ip)
	if err != nil || len(frames) != 1 {
		t.Fatalf("frames %d, err %v", len(frames), err)
	}
	f := frames[0]
	if len(f) != 3+4+1400+3 || !msemu.CheckFCS(f) {
		t.Fatalf("frame length %d or FCS wrong", len(f))
	}
	// LLC UI, SAPI 3, N(U) 0; SNDCP: F=1 T=1 M=0 NSAPI 5, no compression, segment 0, N-PDU 0
	if want := []byte{0x03, 0xc0, 0x01, 0x65, 0x00, 0x00, 0x00}; !bytes.Equal(f[:7], want) {
		t.Fatalf("header % x, want % x", f[:7], want)
	}
	if _, nsapi, kind := llc.FlowKey(f); kind != llc.KeyIP || nsapi != NSAPI {
		t.Fatalf("flow key kind %d nsapi %d", kind, nsapi)
	}
	f2, _ := e.Encode(ip)
	if f2[0][2] != 0x05 || f2[0][6] != 0x01 { // N(U) 1, N-PDU 1
		t.Fatalf("second frame header % x", f2[0][:7])
	}
}

// Longer packets are segmented (TS 44.065 §6.9) and reassembled exactly;
// a lost segment discards the N-PDU only.
func TestSegmentationRoundTrip(t *testing.T) {
	e := Encoder{N201U: 500}
	var d Decoder
	for _, n := range []int{20, 496, 497, 993, 1500, 4000} {
		ip := ipPacket(n, 17, int64(n))
		frames, err := e.Encode(ip)
		if err != nil {
			t.Fatal(err)
		}
		wantSeg := 1
		if n > 496 {
			wantSeg += (n - 496 + 496) / 497
		}
		if len(frames) != wantSeg {
			t.Fatalf("%d octets: %d segments, want %d", n, len(frames), wantSeg)
		}
		for i, f := range frames {
			if len(f)-6 > 500 {
				t.Fatalf("segment %d info %d > N201-U", i, len(f)-6)
			}
			got, err := d.Decode(f)
			if err != nil {
				t.Fatal(err)
			}
			if (got != nil) != (i == len(frames)-1) {
				t.Fatalf("%d octets: packet after segment %d of %d", n, i, len(frames))
			}
			if got != nil && !bytes.Equal(got, ip) {
				t.Fatalf("%d octets: reassembly differs", n)
			}
		}
	}
	// lose the middle segment of a 3-segment N-PDU, then a whole packet
	frames, _ := e.Encode(ipPacket(1200, 6, 9))
	d.Decode(frames[0])
	if got, _ := d.Decode(frames[2]); got != nil {
		t.Fatal("N-PDU with a missing segment delivered")
	}
	ip := ipPacket(300, 6, 10)
	frames, _ = e.Encode(ip)
	if got, err := d.Decode(frames[0]); err != nil || !bytes.Equal(got, ip) {
		t.Fatalf("next packet after a loss: %v", err)
	}
	if _, err := e.Encode(make([]byte, 16*497)); !errors.Is(err, ErrTooLong) {
		t.Fatalf("17 segments: %v", err)
	}
}

func TestDecodeRejects(t *testing.T) {
	var d Decoder
	ip := ipPacket(100, 1, 3)
	var e Encoder
	frames, _ := e.Encode(ip)
	bad := bytes.Clone(frames[0])
	bad[10] ^= 1
	if _, err := d.Decode(bad); !errors.Is(err, ErrFCS) {
		t.Fatalf("bad FCS: %v", err)
	}
	if _, err := d.Decode(msemu.UIFrame(1, 0, []byte{1, 2, 3, 4})); !errors.Is(err, ErrNotUserData) {
		t.Fatalf("GMM frame: %v", err)
	}
	if _, err := d.Decode(msemu.UIFrame(3, 0, []byte{0x65, 0x01, 0, 0, 1})); !errors.Is(err, ErrCompressed) {
		t.Fatalf("compressed: %v", err)
	}
	for i := 0; i < 10; i++ {
		d.Decode(frames[0][:i]) // no panic on short input
	}
}

func TestParsePing(t *testing.T) {
	out := `PING 10.0.0.1 (10.0.0.1) 56(84) bytes of data.
[1764496000.500000] 64 bytes from 10.0.0.1: icmp_seq=1 ttl=64 time=412 ms
[1764496001.400250] 64 bytes from 10.0.0.1: icmp_seq=2 ttl=64 time=312.5 ms

--- 10.0.0.1 ping statistics ---
3 packets transmitted, 2 received, 33.3333% packet loss, time 2003ms
`
	r := parsePing(out)
	if len(r) != 2 || r[0].seq != 1 || r[0].rtt != 412*time.Millisecond || r[1].rtt != 312500*time.Microsecond {
		t.Fatalf("%+v", r)
	}
	if got := r[1].at.Sub(r[0].at); got < 900*time.Millisecond || got > 901*time.Millisecond {
		t.Fatalf("timestamps %v apart", got)
	}
	if tx, rx := pingTotals(out); tx != 3 || rx != 2 {
		t.Fatalf("totals %d %d", tx, rx)
	}
	// request 3 went at start+2 s: lost if ping ran on long enough after it
	start := time.Unix(1764496000, 0)
	if n := lostPings(3, r, start, start.Add(2500*time.Millisecond), time.Second); n != 1 {
		t.Fatalf("lost %d, want 1", n)
	}
	if n := lostPings(3, r, start, start.Add(1500*time.Millisecond), time.Second); n != 0 {
		t.Fatalf("lost %d, want 0 (still on its way)", n)
	}
	snmp := "Tcp: RtoAlgorithm RetransSegs InErrs\nTcp: 1 17 0\nTcpExt: SyncookiesSent TCPTimeouts\nTcpExt: 0 3\n"
	if snmpValue(snmp, "Tcp:", "RetransSegs") != 17 || snmpValue(snmp, "TcpExt:", "TCPTimeouts") != 3 {
		t.Fatal("snmp counters")
	}
}

// TestLabShort is the real-TCP lab in CI mode (root, curl and ping needed;
// it skips otherwise): a 60 kB HTTP download by Linux's TCP with a ping
// every second, through gopcu over the emulated radio in real time, with
// AQM off and with gopcu's default, then a 30 kB download with SNDCP
// segmentation. The downloads must complete byte-exact and the pings be
// answered, and with gopcu's default the busy ping p50 must stay within
// 1.5 x the idle ping and the goodput within 95 % of AQM off (about 50 s).
func TestLabShort(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a run without -short (about 50 s of real time)")
	}
	if err := Check(); err != nil {
		t.Skip(strings.TrimPrefix(err.Error(), ErrSkip.Error()+": "))
	}
	CleanStale()
	cfg := DefaultConfig()
	cfg.FileBytes = 60 << 10
	// Ping every 1.05 s, not 1 s: the lab is deterministic enough that a
	// 1 s ping locks to two radio cycles, and one run then measures one
	// phase of each instead of their mean. The keep-open DL TBF is polled
	// every 200 ms (an idle ping's uplink request waits for that poll),
	// and a busy ping's reply waits for the bulk LLC frame already in the
	// RLC window (1404 octets: ~240 ms at 48 kbit/s, about 4 per second).
	// With 1 s pings a run gave 1.0-1.35 x or, one run in four, 1.8 x; a
	// 1.05 s ping steps through both cycles (50 and 70-90 ms a ping).
	cfg.PingInterval = 1050 * time.Millisecond
	cfg.IdlePings = 5
	cfg.MaxTime = 60 * time.Second
	cfg.Dir = t.TempDir()
	scs := demo.Scenarios()
	var rows []Row
	var lag time.Duration
	run := func(sc demo.Scenario) Row {
		t.Helper()
		r, err := Run(context.Background(), cfg, sc)
		if err != nil {
			t.Fatal(err)
		}
		row := Summarize(r, cfg)
		if !row.AllDone || !row.Exact {
			t.Fatalf("%s: download incomplete or not byte-exact", sc.Name)
		}
		if row.IdlePings == 0 || row.BusyPings == 0 {
			t.Fatalf("%s: pings unanswered (idle %d, busy %d of %d sent)", sc.Name, row.IdlePings, row.BusyPings, row.PingsSent)
		}
		if r.TUNDrops != 0 {
			t.Errorf("%s: the lab dropped %d packets itself", sc.Name, r.TUNDrops)
		}
		t.Logf("%s: radio clock lagged the wall clock by %v at most", sc.Name, r.MaxLag)
		lag = max(lag, r.MaxLag)
		return row
	}
	for _, sc := range []demo.Scenario{scs[0], scs[2]} {
		rows = append(rows, run(sc))
	}
	// The same with the TS 44.064 default N201-U of SAPI 3 (500 octets):
	// every full TCP segment travels as three SNDCP segments (TS 44.065
	// §6.9) through gopcu's flow-isolating queue.
	seg := cfg
	seg.FileBytes, seg.IdlePings, seg.N201U = 30<<10, 1, 500
	r, err := Run(context.Background(), seg, scs[2])
	if err != nil {
		t.Fatal(err)
	}
	row := Summarize(r, seg)
	row.Scenario += ", N201-U 500"
	if !row.AllDone || !row.Exact || row.BusyPings == 0 {
		t.Fatalf("segmented: download done %v, exact %v, busy pings %d", row.AllDone, row.Exact, row.BusyPings)
	}
	var tbl strings.Builder
	WriteTable(&tbl, append(rows, row))
	t.Logf("\n%s", tbl.String())
	off, gop := rows[0], rows[1]
	judge := func(gop Row) (ratio, good float64, ok bool) {
		ratio, good = float64(gop.BusyP50)/float64(gop.IdleP50), gop.GoodputKbps/off.GoodputKbps
		t.Logf("gopcu default: busy ping p50 = %.2f x idle (target <= 1.5), goodput = %.1f %% of AQM off (target >= 95 %%)", ratio, 100*good)
		return ratio, good, ratio <= 1.5 && good >= 0.95
	}
	// The two criteria, on a machine that kept the radio in real
	// time (a radio clock behind the wall clock distorts every RTT). A
	// real-time run on a shared machine can be disturbed once: a miss is
	// run again, and the second run decides.
	ratio, good, ok := judge(gop)
	if !ok && lag <= 100*time.Millisecond {
		t.Logf("missed the targets; running gopcu's default once more")
		ratio, good, ok = judge(run(scs[2]))
	}
	if lag > 100*time.Millisecond {
		t.Logf("radio clock lagged by %v: criteria not judged", lag)
	} else if !ok {
		t.Errorf("gopcu default: busy ping p50 %.2f x idle (<= 1.5), goodput %.1f %% of AQM off (>= 95 %%)", ratio, 100*good)
	}
	if out, _ := exec.Command("ip", "netns", "list").Output(); strings.Contains(string(out), fmt.Sprintf("%s%d-", nsPrefix, os.Getpid())) {
		t.Errorf("namespaces left behind:\n%s", out)
	}
}

// FuzzDecode: the decoder never panics, and whatever the encoder makes at
// any N201-U comes back exactly.
func FuzzDecode(f *testing.F) {
	var e Encoder
	fr, _ := e.Encode(ipPacket(100, 6, 1))
	f.Add(fr[0], 500, []byte{1, 2, 3})
	f.Add([]byte{0x03, 0xc0, 0x01, 0x45, 0x00, 0x10, 0x00}, 20, make([]byte, 300))
	f.Fuzz(func(t *testing.T, frame []byte, n201 int, payload []byte) {
		var d Decoder
		d.Decode(frame)
		e := Encoder{N201U: 20 + (n201&0x7ff)%1500}
		frames, err := e.Encode(payload)
		if err != nil {
			return
		}
		var got []byte
		for _, fr := range frames {
			if len(fr)-6 > e.N201U {
				t.Fatalf("frame info %d > N201-U %d", len(fr)-6, e.N201U)
			}
			p, err := d.Decode(fr)
			if err != nil {
				t.Fatal(err)
			}
			if p != nil {
				got = p
			}
		}
		if !bytes.Equal(got, payload) && !(len(got) == 0 && len(payload) == 0) {
			t.Fatalf("round trip: %d octets in, %d out", len(payload), len(got))
		}
	})
}
