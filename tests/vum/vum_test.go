package vum

import (
	"context"
	"net"
	"net/netip"
	"os/exec"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gopcu/gopcu/gsmtap"
	"github.com/gopcu/gopcu/internal/emu/btsemu"
	"github.com/gopcu/gopcu/internal/testutil/netnstest"
	"github.com/gopcu/gopcu/pcu/pcuif"
)

// fakeBTS plays osmo-bts-virtual's side of the air in a namespace: it sends
// downlink frames to the MS group in real time and reads the BTS group.
type fakeBTS struct {
	tx *net.UDPConn
	rx *net.UDPConn
}

func (b *fakeBTS) send(t *testing.T, fn uint32, ts, ch uint8, payload []byte) {
	h := gsmtap.Header{Type: gsmtap.TypeUM, Timeslot: ts, ARFCN: 871, FrameNumber: fn, SubType: ch, SignalDBm: 63}
	if _, err := b.tx.Write(h.Append(nil, payload)); err != nil {
		t.Fatal(err)
	}
}

type ulSeen struct {
	h       gsmtap.Header
	payload []byte
	at      uint32 // the BTS's FN when it arrived
}

// air is a fake osmo-bts-virtual in a namespace of its own (lo only) and
// an Um attached to it with cfg: the BTS sends downlink frames in real time
// (PDTCH blocks on TS 6 at every block start, a CCCH block at frame 6 of
// the 51-multiframe, PTCCH/D labelled PDTCH in idle frame 12) for 200
// frames from FN 5200; every uplink frame the BTS group gets comes out of
// the returned channel with the BTS's FN at its arrival.
func air(t *testing.T, cfg Config) (*Um, <-chan ulSeen) {
	t.Helper()
	n := netnstest.New(t)
	if out, err := exec.Command("ip", "-n", n.Name, "route", "add", "224.0.0.0/4", "dev", "lo").CombinedOutput(); err != nil {
		t.Fatalf("route: %v %s", err, out)
	}
	var um *Um
	var bts fakeBTS
	err := n.Do(func() (err error) {
		if um, err = Open(cfg, nil); err != nil {
			return err
		}
		if bts.rx, err = listenGroup(netip.MustParseAddrPort("239.193.23.2:4729"), netip.MustParseAddr("127.0.0.1")); err != nil {
			return err
		}
		bts.tx, err = dialGroup(netip.MustParseAddrPort("239.193.23.1:4729"), netip.MustParseAddr("127.0.0.1"))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bts.rx.Close() })
	t.Cleanup(func() { bts.tx.Close() })
	t.Cleanup(um.Close)

	// The BTS's clock: frame fn at start + (fn-first) * 4.615 ms; PDTCH
	// blocks on TS 6 at every block start, a CCCH block at frame 6 of the
	// 51-multiframe, PTCCH/D (labelled PDTCH) in idle frame 12.
	const first = 52 * 100
	start := time.Now()
	var cur atomic.Uint32
	cur.Store(first)
	stop := make(chan struct{})
	clockDone := make(chan struct{})
	go func() {
		defer close(clockDone)
		for fn := uint32(first); fn < first+200; fn++ {
			select {
			case <-stop:
				return
			case <-time.After(time.Until(start.Add(time.Duration(fn-first) * btsemu.FramePeriod))):
			}
			if btsemu.BlockNr(fn) >= 0 {
				bts.send(t, fn, 6, gsmtap.ChannelPDTCH, []byte{0x40 | byte(btsemu.BlockNr(fn))})
			}
			if fn%52 == 12 {
				bts.send(t, fn, 6, gsmtap.ChannelPDTCH, []byte{0x7f})
			}
			if fn%51 == 6 {
				mac := make([]byte, 23)
				mac[0] = byte(fn)
				bts.send(t, fn, 0, gsmtap.ChannelPCH, mac)
			}
			cur.Store(fn)
		}
	}()
	t.Cleanup(func() { close(stop); <-clockDone })
	ul := make(chan ulSeen, 1024)
	go func() {
		buf := make([]byte, 512)
		for {
			k, err := bts.rx.Read(buf)
			if err != nil {
				return
			}
			var h gsmtap.Header
			off, err := h.Unmarshal(buf[:k])
			if err != nil {
				continue
			}
			ul <- ulSeen{h, append([]byte(nil), buf[off:k]...), cur.Load()}
		}
	}()
	return um, ul
}

// TestVirtualUm: in a namespace with only lo, an Um follows a fake BTS's
// frame numbers; Step hands over one radio block's PDTCH blocks (PTCCH/D
// in idle frame 12 as PTCCH) and the CCCH blocks; the first Step sends an
// empty PDTCH block (the PCU's clock primer); a RACH goes out at once
// with one octet; an uplink block waits for its frame.
func TestVirtualUm(t *testing.T) {
	um, ul := air(t, Config{})
	ctx := context.Background()
	// first Step: starts at the first block start seen
	blk, err := um.Step(ctx, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if btsemu.BlockNr(blk.FN) < 0 {
		t.Fatalf("first block at FN %d (no block start)", blk.FN)
	}
	select {
	case p := <-ul:
		if p.h.SubType != gsmtap.ChannelPDTCH || len(p.payload) != 0 || !p.h.Uplink || p.h.ARFCN != 871 || btsemu.BlockNr(p.h.FrameNumber) < 0 {
			t.Errorf("primer: %+v %x", p.h, p.payload)
		}
	case <-time.After(time.Second):
		t.Fatal("no clock primer")
	}
	var ptcch, pdtch, ccch int
	var last uint32
	for i := 0; i < 20; i++ {
		blk, err := um.Step(ctx, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 && blk.FN != btsemu.NextBlockFN(last) {
			t.Fatalf("block %d at FN %d after %d", i, blk.FN, last)
		}
		last = blk.FN
		for _, d := range blk.Answers {
			switch {
			case d.SAPI == pcuif.SAPIPTCCH && d.FN%52 == 12:
				ptcch++
			case d.SAPI == pcuif.SAPIPDTCH && d.FN == blk.FN && d.TS == 6 && d.Payload[0] == 0x40|byte(blk.BlockNr):
				pdtch++
			default:
				t.Errorf("block %d (FN %d): unexpected %+v", i, blk.FN, d)
			}
		}
		for _, d := range um.CCCH() {
			if d.FN%51 != 6 || len(d.Payload) != 23 || d.Payload[0] != byte(d.FN) {
				t.Errorf("CCCH %+v", d)
			}
			ccch++
		}
	}
	if pdtch < 19 || ptcch < 1 || ccch < 1 {
		t.Errorf("%d PDTCH, %d PTCCH, %d CCCH blocks in 20 radio blocks", pdtch, ptcch, ccch)
	}
	// RACH at once; an uplink block 26 frames ahead waits for its frame
	now, _ := um.Now()
	if err := um.Send(&pcuif.RACHInd{SAPI: pcuif.SAPIRACH, RA: 0x79, FN: now}); err != nil {
		t.Fatal(err)
	}
	target := btsemu.NextBlockFN(now + 26)
	if err := um.Send(&pcuif.Data{SAPI: pcuif.SAPIPDTCH, TS: 6, FN: target, Payload: []byte{1, 2, 3}}); err != nil {
		t.Fatal(err)
	}
	for got := 0; got < 2; {
		select {
		case p := <-ul:
			switch p.h.SubType {
			case gsmtap.ChannelRACH:
				if len(p.payload) != 1 || p.payload[0] != 0x79 || p.h.Timeslot != 0 {
					t.Errorf("RACH %+v %x", p.h, p.payload)
				}
			case gsmtap.ChannelPDTCH:
				if p.h.FrameNumber != target || p.h.Timeslot != 6 {
					t.Errorf("UL block %+v", p.h)
				}
				if d := int(target) - int(p.at); d > 3 || d < -2 {
					t.Errorf("UL block for FN %d sent at the BTS's FN %d", target, p.at)
				}
			}
			got++
		case <-time.After(2 * time.Second):
			t.Fatalf("uplink: %d of 2 frames", got)
		}
	}
	if s := um.Stats(); s.RACHs != 1 || s.ULFrames != 3 {
		t.Errorf("stats %+v", s)
	}
}

// TestVirtualUmFill: with Fill, every uplink radio block on every PDCH
// reaches the BTS once, as a BTS's PHY reports each block: the MS's own
// block where it sent one, an empty PDTCH block (the PHY's "nothing
// decoded", passed on as an empty DATA.ind) everywhere else, a few frames
// after the block began; the idle frames carry none.
func TestVirtualUmFill(t *testing.T) {
	um, ul := air(t, Config{Fill: true})
	ctx := context.Background()
	if _, err := um.Step(ctx, time.Second); err != nil {
		t.Fatal(err)
	}
	now, _ := um.Now()
	own := btsemu.NextBlockFN(btsemu.NextBlockFN(now + 8))
	if err := um.Send(&pcuif.Data{SAPI: pcuif.SAPIPDTCH, TS: 5, FN: own, Payload: []byte{1, 2, 3}}); err != nil {
		t.Fatal(err)
	}
	type key struct {
		fn uint32
		ts uint8
	}
	seen := map[key]int{}
	var first, last uint32
	deadline := time.After(600 * time.Millisecond) // 130 frames
	for done := false; !done; {
		select {
		case p := <-ul:
			if p.h.SubType != gsmtap.ChannelPDTCH || !p.h.Uplink {
				t.Errorf("uplink frame %+v", p.h)
				continue
			}
			k := key{p.h.FrameNumber, p.h.Timeslot}
			seen[k]++
			if btsemu.BlockNr(k.fn) < 0 || 0xf0&(1<<k.ts) == 0 {
				t.Errorf("uplink block at FN %d TS %d: not a radio block of a PDCH", k.fn, k.ts)
			}
			if k == (key{own, 5}) {
				if string(p.payload) != "\x01\x02\x03" {
					t.Errorf("own block %x", p.payload)
				}
			} else if len(p.payload) != 0 {
				t.Errorf("filler at FN %d TS %d: %x", k.fn, k.ts, p.payload)
			} else if d := int(p.at) - int(k.fn); d < 0 || d > 6 {
				t.Errorf("filler for FN %d sent at the BTS's FN %d", k.fn, p.at)
			}
			if first == 0 || pcuif.FNDelta(k.fn, first) < 0 {
				first = k.fn
			}
			if pcuif.FNDelta(k.fn, last) > 0 {
				last = k.fn
			}
		case <-deadline:
			done = true
		}
	}
	// every block between the first and the last filled, on TS 4-7, once
	// (the primer of the first Step may add one more)
	blocks := 0
	for fn := btsemu.NextBlockFN(first); pcuif.FNDelta(fn, last) < 0; fn = btsemu.NextBlockFN(fn) {
		blocks++
		for ts := uint8(4); ts < 8; ts++ {
			if n := seen[key{fn, ts}]; n != 1 {
				t.Errorf("FN %d TS %d: %d uplink blocks, want 1", fn, ts, n)
			}
		}
	}
	if blocks < 20 || seen[key{own, 5}] != 1 {
		t.Errorf("%d radio blocks filled; own block seen %d times", blocks, seen[key{own, 5}])
	}
	if s := um.Stats(); s.Fill < 4*blocks {
		t.Errorf("stats %+v, %d blocks", s, blocks)
	}
}
