package system

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/gopcu/gopcu/internal/emu/btsemu"
	"github.com/gopcu/gopcu/internal/emu/msemu"
	"github.com/gopcu/gopcu/pcu"
	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/rlcmac"
)

func (r *radioRig) dlEGPRS(tlli uint32, imsi string, frame []byte) {
	f := append([]byte(nil), frame...)
	r.eng.Call(func() {
		r.eng.HandleDLUnitdata(0, &pcu.DLUnitdata{TLLI: tlli, IMSI: imsi, Lifetime: 0xffff, MSClass: 12, EGPRS: 12, LLC: f})
	})
}

// eachMCSAndLoss runs f as a subtest per MCS-1..9 and radio block loss
// rate: 0, 1 and 10 % (-short: 0 and 10 %).
func eachMCSAndLoss(t *testing.T, f func(t *testing.T, mcs int, loss float64)) {
	losses := []float64{0, 0.01, 0.10}
	if testing.Short() {
		losses = []float64{0, 0.10}
	}
	for mcs := 1; mcs <= 9; mcs++ {
		for _, loss := range losses {
			t.Run(fmt.Sprintf("MCS-%d/loss=%v", mcs, loss), func(t *testing.T) { f(t, mcs, loss) })
		}
	}
}

// TestEGPRSBulkDownlink: an EGPRS MS receives 1 MB intact and in order at
// each of MCS-1..9 (forced, link adaptation off) at 0 %, 1 % and 10 %
// radio block loss, every data block at the forced MCS (or, for
// lone units of MCS-7/9, the MCS-5/6 that carries one unit of the
// family). -short runs 100 kB and only 0 % and 10 %.
func TestEGPRSBulkDownlink(t *testing.T) {
	eachMCSAndLoss(t, func(t *testing.T, mcs int, loss float64) {
		p := bulkParams()
		p.ForceMCSDL, p.MCSMaxDL, p.CSAdjust = mcs, mcs, false
		r := startEGPRSRadio(t, p, int64(100*mcs)+int64(loss*100))
		r.cell.DLLoss, r.cell.ULLoss = loss, loss
		ms := r.cell.AddMS(0xc0000020, "901700000000020", 12)
		ms.EGPRSClass = 12
		var got [][]byte
		ms.OnLLC = func(f []byte) { got = append(got, f) }
		size := transferSize()
		want := frames(size, 1500)
		for _, f := range want {
			r.dlEGPRS(ms.TLLI, ms.IMSI, f)
		}
		steps := 0
		for ; steps < 400000 && !(len(got) > 0 && bytes.Equal(got[len(got)-1], want[len(want)-1])); steps++ {
			r.step(t)
		}
		checkDelivery(t, got, want, r.btsCtr(pcu.CtrPktDLAckNackFailed))
		cs := rlcmac.MCS1 + rlcmac.CodingScheme(mcs-1)
		for c, n := range r.cell.DataCS {
			switch {
			case c == cs:
			// a lone unit (a retransmission, or the last BSN
			// without a partner) of MCS-7/9 goes in MCS-5/6
			case cs == rlcmac.MCS7 && c == rlcmac.MCS5 && (loss > 0 || n <= 2):
			case cs == rlcmac.MCS9 && c == rlcmac.MCS6 && (loss > 0 || n <= 2):
			default:
				t.Errorf("%d data blocks at %v", n, c)
			}
		}
		if r.cell.DataCS[cs] == 0 {
			t.Fatalf("no data block at %v: %v", cs, r.cell.DataCS)
		}
		t.Logf("%v loss %v: %d octets in %d block periods, blocks %v", cs, loss, size, steps, r.cell.DataCS)
	})
}

// checkFrames fails the test unless got holds the frames of want, in order
// and intact; where (the side, the blocks stepped, the MS's state) goes
// into the message.
func checkFrames(t *testing.T, got, want [][]byte, where string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: got %d of %d frames", where, len(got), len(want))
	}
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("%s: frame %d differs:\n%x\n%x", where, i, got[i], want[i])
		}
	}
}

// checkDelivery checks that every frame sent arrived, in order and intact.
// A DL TBF released for N3105 (a run of unanswered polls on a lossy radio,
// TS 44.060 §13.3) puts its unacknowledged frames back into the queue
// (osmo-pcu loses them): a frame the MS had completed without its
// acknowledgement getting through then arrives twice, as a repeat of
// recent frames. Repeats are allowed only after such a release.
func checkDelivery(t *testing.T, got, want [][]byte, n3105Releases uint64) {
	t.Helper()
	j, repeats := 0, 0
	for i := range got {
		if j < len(want) && bytes.Equal(got[i], want[j]) {
			j++
			continue
		}
		repeat := false
		for k := j - 1; k >= 0 && k >= j-200; k-- {
			if bytes.Equal(got[i], want[k]) {
				repeat = true
				break
			}
		}
		if !repeat || n3105Releases == 0 {
			t.Fatalf("frame %d received is neither the next frame (%d) nor a repeat after an N3105 release (%d releases)", i, j, n3105Releases)
		}
		repeats++
	}
	if j != len(want) {
		t.Fatalf("%d of %d frames arrived (%d repeats, %d N3105 releases)", j, len(want), repeats, n3105Releases)
	}
	if repeats > 0 || n3105Releases > 0 {
		t.Logf("%d N3105 releases, %d frames repeated, none lost", n3105Releases, repeats)
	}
}

// checkDeliveryDiscards is checkDelivery for a run in which DL TBFs may
// fail (N3105, T3191): their unacknowledged frames are discarded and
// reported (LLC-DISCARDED, llc:dropped), as osmo-pcu does. The frames
// arrive in order, with gaps; the discarded frames cover the gaps.
func checkDeliveryDiscards(t *testing.T, got, want [][]byte, releases, discarded uint64) {
	t.Helper()
	j, skipped, repeats := 0, 0, 0
	for i := range got {
		if j < len(want) && bytes.Equal(got[i], want[j]) {
			j++
			continue
		}
		k := j
		for k < len(want) && !bytes.Equal(got[i], want[k]) {
			k++
		}
		if k < len(want) {
			skipped += k - j
			j = k + 1
			continue
		}
		repeat := false
		for k := j - 1; k >= 0 && k >= j-200; k-- {
			repeat = repeat || bytes.Equal(got[i], want[k])
		}
		if !repeat || releases == 0 {
			t.Fatalf("frame %d received is neither a later frame (next %d) nor a repeat after a failed TBF (%d)", i, j, releases)
		}
		repeats++
	}
	skipped += len(want) - j
	// A discarded frame may still have reached the MS (its blocks got
	// through, the acknowledgement did not): the discards cover the gaps
	// plus at most one window's frames.
	if uint64(skipped) > discarded || discarded > uint64(skipped)+64 || (skipped > 0 && releases == 0) {
		t.Fatalf("%d of %d frames missing, %d reported discarded, %d failed TBFs", skipped, len(want), discarded, releases)
	}
	t.Logf("%d failed TBFs, %d frames discarded and reported, %d repeated", releases, discarded, repeats)
}

// TestGPRSAndEGPRSShareAPDCH: a GPRS MS (CS-4) and an EGPRS MS (MCS-9)
// with unlimited demand on one PDCH each get at least 45 % of its blocks
// (airtime-fair scheduling: a byte-fair scheduler would give the EGPRS MS
// only a quarter), and each reaches at least 45 % of what it would get
// alone: 50 octets per block for CS-4, 148 for MCS-9.
func TestGPRSAndEGPRSShareAPDCH(t *testing.T) {
	info := btsemu.DefaultInfo(pcuif.V12)
	for n := 1; n <= 9; n++ {
		info.Flags |= pcuif.FlagMCS(n)
	}
	info.TRX[0].PDCHMask = 0x10 // TS 4 only
	p := bulkParams()
	p.ForceCSDL, p.CSMaxDL, p.ForceMCSDL, p.MCSMaxDL, p.CSAdjust = 4, 4, 9, 9, false
	rr := startRadioInfo(t, info, p, 9, 1)
	gprs := rr.cell.AddMS(0xc0002001, "901700000002001", 12)
	egprs := rr.cell.AddMS(0xc0002002, "901700000002002", 12)
	egprs.EGPRSClass = 12
	var got [2]int
	gprs.OnLLC = func(f []byte) { got[0] += len(f) }
	egprs.OnLLC = func(f []byte) { got[1] += len(f) }
	feed := func() {
		for i, ms := range []*msemu.MS{gprs, egprs} {
			var q int
			rr.eng.Call(func() {
				if m, ok := rr.eng.MSViewByTLLI(ms.TLLI); ok {
					q = m.QueueFrames
				}
			})
			for ; q < 8; q++ {
				if i == 0 {
					rr.dl(ms.TLLI, ms.IMSI, llcFrame(q, 1000))
				} else {
					rr.dlEGPRS(ms.TLLI, ms.IMSI, llcFrame(q, 1000))
				}
			}
		}
	}
	blocks, warm := 6000, 1000
	if testing.Short() {
		blocks = 3000
	}
	for s := 0; s < blocks; s++ {
		if s%10 == 0 {
			feed()
		}
		if s == warm {
			got = [2]int{}
		}
		rr.step(t)
	}
	periods := float64(blocks - warm)
	shareG := float64(got[0]) / (periods * 50)
	shareE := float64(got[1]) / (periods * 148)
	t.Logf("GPRS CS-4 %d octets (%.1f %% of its solo rate), EGPRS MCS-9 %d octets (%.1f %%), DL blocks %v",
		got[0], 100*shareG, got[1], 100*shareE, rr.cell.DataCS)
	if shareG < 0.45 || shareE < 0.45 {
		t.Fatalf("shares %.2f (GPRS) and %.2f (EGPRS), want both >= 0.45", shareG, shareE)
	}
}

// TestEGPRSBulkUplink: an EGPRS MS accesses with an 11-bit EGPRS Packet
// Channel Request, gets an EGPRS UL TBF (LH 00 Immediate Assignment) and
// sends 1 MB (one uplink slot) at each MCS with 0, 1
// and 10 % block loss: the SGSN side gets every frame intact and in order.
// MCS-7..9 blocks carry two units. -short: 100 kB, 0 and 10 %.
func TestEGPRSBulkUplink(t *testing.T) {
	eachMCSAndLoss(t, func(t *testing.T, mcs int, loss float64) {
		p := bulkParams()
		p.ForceMCSUL, p.MCSMaxUL = mcs, mcs
		r := startEGPRSRadio(t, p, int64(200*mcs)+int64(loss*100))
		r.cell.DLLoss, r.cell.ULLoss = loss, loss
		r.cell.ULLqualCb = 300 // 30 dB: above every MCS's window, so the forced MCS stays
		ms := r.cell.AddMS(0xc0000030, "901700000000030", 12)
		ms.EGPRSClass = 12
		size := transferSize()
		want := frames(size, 1500)
		got, steps := r.ulTransfer(t, ms, want, maxULSteps)
		checkFrames(t, got, want, fmt.Sprintf("SGSN after %d blocks (decode errors %d)\nMS: %s", steps, r.btsCtr(pcu.CtrDecodeErrors), ms.Debug()))
		cs := rlcmac.MCS1 + rlcmac.CodingScheme(mcs-1)
		if n := r.btsCtr(pcu.CtrEGPRSULMCS1 + mcs - 1); n == 0 {
			t.Fatalf("no UL block counted at %v", cs)
		}
		if n := r.btsCtr(pcu.CtrRACHRequests11Bit); n == 0 {
			t.Fatal("no 11-bit RACH counted")
		}
		t.Logf("%v loss %v: %d octets in %d block periods", cs, loss, size, steps)
	})
}

var maxULSteps = 100000

// TestEGPRSAccessTypes: the kinds of 11-bit access bursts (TS 44.060
// §11.2.5a, osmo-pcu bts.cpp parse_egprs_pkt_ch_req()) get osmo-pcu's answers: one-phase an
// EGPRS dynamic assignment, two-phase a multi block assignment, emergency
// and ACCESS_0 bursts an IMM ASS REJ with RA 0x7F and the Extended RA.
func TestEGPRSAccessTypes(t *testing.T) {
	r := startEGPRSRadio(t, bulkParams(), 3)
	var ias []rlcmac.ImmediateAssignment
	var rejs []rlcmac.ImmediateAssignmentReject
	r.cell.OnCCCH = func(mac []byte) {
		switch mac[2] {
		case rlcmac.RRImmediateAssignment:
			var ia rlcmac.ImmediateAssignment
			if rlcmac.DecodeImmediateAssignment(mac, &ia) == nil {
				ias = append(ias, ia)
			}
		case rlcmac.RRImmediateAssignmentRej:
			var rej rlcmac.ImmediateAssignmentReject
			if rlcmac.DecodeImmediateAssignmentReject(mac, &rej) == nil {
				rejs = append(rejs, rej)
			}
		}
	}
	send := func(ra uint16, burst uint8) {
		t.Helper()
		ias, rejs = nil, nil
		if err := r.bts.Send(&pcuif.RACHInd{SAPI: pcuif.SAPIRACH, RA: ra, Is11Bit: true, BurstType: burst, FN: r.bts.FN() % 42432, ARFCN: 871}); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 60 && len(ias)+len(rejs) == 0; i++ {
			r.step(t)
		}
	}
	// One Phase Access Request, multislot class 12 (field 11), priority 0, random 5
	send(11<<5|5, 2)
	if len(ias) != 1 || ias[0].Rest.Kind != rlcmac.IAREGPRSPacketUpl || !ias[0].Rest.Dynamic || ias[0].ReqRef.RA != 0x7f ||
		ias[0].Rest.ExtRA != (11<<5|5)&0x1f || rlcmac.EGPRSWindowSize(ias[0].Rest.WindowSize) < 64 {
		t.Fatalf("one phase: %+v / rejects %+v", ias, rejs)
	}
	// Two Phase Access Request '110000' <priority 01> <random 011>
	send(0b110000<<5|0b01<<3|0b011, 3)
	if len(ias) != 1 || ias[0].Rest.Kind != rlcmac.IAREGPRSPacketUpl || ias[0].Rest.Dynamic || !ias[0].Rest.HasStartTime {
		t.Fatalf("two phase: %+v / rejects %+v", ias, rejs)
	}
	// Emergency call '110111' <random 11001>
	send(0x6f9, 2)
	if len(rejs) != 1 || rejs[0].Ref[0].RA != 0x7f || !rejs[0].HasExtRA[0] || rejs[0].ExtRA[0] != 0x19 {
		t.Fatalf("emergency: rejects %+v, assignments %+v", rejs, ias)
	}
	// an 11-bit burst on ACCESS_0 (PBCCH Packet Channel Request)
	send(11<<5|5, 1)
	if len(rejs) != 1 {
		t.Fatalf("ACCESS_0: rejects %+v, assignments %+v", rejs, ias)
	}
	// the one-phase MS's TBF and MS as the VTY shows them
	tbf := r.show("show tbf all")
	if !strings.Contains(tbf, "DIR=UL") || !strings.Contains(tbf, " CS=MCS-") ||
		!strings.Contains(tbf, " TS_alloc=6! ") { // class 12 on TS 4-7: UL on TS 6 (osmo-pcu's algorithm B)
		t.Fatalf("show tbf all:\n%s", tbf)
	}
	ms := r.show("show ms all")
	if !strings.Contains(ms, "  Mode:                   EGPRS\r\n") || !strings.Contains(ms, "  EGPRS MS class:         12\r\n") {
		t.Fatalf("show ms all:\n%s", ms)
	}
	var tai []int8 // (osmo-pcu 1.1.0's show ms has no TAI)
	r.eng.Call(func() {
		for _, m := range r.eng.MSViews(0, nil) {
			tai = append(tai, m.TAI)
		}
	})
	if len(tai) != 1 || tai[0] != 0 {
		t.Fatalf("TAIs %v, want the one-phase MS's 0", tai)
	}
	for _, c := range []struct{ ctr, want int }{
		{pcu.CtrRACHRequests11Bit, 4}, {pcu.CtrRACHRequestsOnePhase, 1}, {pcu.CtrRACHRequestsTwoPhase, 1},
		{pcu.CtrRACHRequestsUnexpected, 2}, {pcu.CtrSBAAllocated, 1}, {pcu.CtrImmAssRej, 2}} {
		if got := r.btsCtr(c.ctr); got != uint64(c.want) {
			t.Errorf("counter %d = %d, want %d", c.ctr, got, c.want)
		}
	}
}

// show runs a VTY command (enable mode) against the engine.
func (r *radioRig) show(cmd string) string {
	s := r.engineVTY(false, nil)
	defer s.Release()
	s.Feed([]byte("enable\r"))
	return string(s.Feed([]byte(cmd + "\r")))
}

// TestEGPRSResegmentation: on a bad radio the link adaptation takes an
// MS's downlink from MCS-9 down to MCS-1..4; units first sent at MCS-9/7/6/5
// are then resent in the lower MCSs of their family: with ARQ type I
// (`egprs dl arq-type spb`, the default) split in two blocks (SPB), with
// `arq2` whole. Every frame arrives in order either way.
func TestEGPRSResegmentation(t *testing.T) {
	for _, arq2 := range []bool{false, true} {
		t.Run(fmt.Sprintf("arq2=%v", arq2), func(t *testing.T) {
			p := bulkParams()
			p.ForceMCSDL, p.MCSMaxDL, p.DLArq2 = 9, 9, arq2
			r := startEGPRSRadio(t, p, 77)
			r.cell.DLLoss = 0.45
			ms := r.cell.AddMS(0xc0000040, "901700000000040", 12)
			ms.EGPRSClass = 12
			var got [][]byte
			ms.OnLLC = func(f []byte) { got = append(got, f) }
			want := frames(150<<10, 1500)
			for _, f := range want {
				r.dlEGPRS(ms.TLLI, ms.IMSI, f)
			}
			// A failed TBF (N3105 at 45 % loss) discards its frames and
			// the MS gets no new TBF until new data: the loop ends when
			// the last frame arrived or every frame is accounted for
			// (the queue's rest is reported after X2030).
			accounted := func() bool {
				return len(got) > 0 && bytes.Equal(got[len(got)-1], want[len(want)-1]) ||
					uint64(len(got))+r.btsCtr(pcu.CtrLLCFrameDropped) >= uint64(len(want)) && r.btsCtr(pcu.CtrLLCFrameDropped) > 0
			}
			for s := 0; s < 200000 && (s%500 != 0 || !accounted()); s++ {
				r.step(t)
			}
			checkDeliveryDiscards(t, got, want, r.btsCtr(pcu.CtrPktDLAckNackFailed), r.btsCtr(pcu.CtrLLCFrameDropped))
			first, second := r.btsCtr(pcu.CtrSPBDLFirstSegment), r.btsCtr(pcu.CtrSPBDLSecondSegment)
			t.Logf("split blocks %d/%d (MS saw %d), DL blocks by MCS %v", first, second, ms.SplitBlocks, r.cell.DataCS)
			if arq2 {
				if first+second != 0 || ms.SplitBlocks != 0 {
					t.Fatalf("arq2 sent %d/%d split blocks", first, second)
				}
			} else if first == 0 || second == 0 || ms.SplitBlocks == 0 {
				t.Fatalf("no split blocks: %d/%d", first, second)
			}
			if r.cell.DataCS[rlcmac.MCS9] == 0 || r.cell.DataCS[rlcmac.MCS6]+r.cell.DataCS[rlcmac.MCS3] == 0 {
				t.Fatalf("no MCS-9 or no family-A retransmission: %v", r.cell.DataCS)
			}
		})
	}
}

// TestEGPRSTwoPhase: an EGPRS MS doing two-phase access (11-bit Two Phase
// Access Request, multi block assignment, Packet Resource Request with an
// EGPRS multislot class) gets an EGPRS UL TBF on 4 slots in the Packet
// Uplink Assignment and sends 200 kB at MCS-6 intact. (Its multislot class
// is 14, type 2: the allocation follows the GPRS class, and a type 1 class
// such as 12 gets at most 2 uplink slots, as in osmo-pcu.)
func TestEGPRSTwoPhase(t *testing.T) {
	p := bulkParams()
	p.ForceMCSUL, p.MCSMaxUL = 6, 6
	r := startEGPRSRadio(t, p, 41)
	r.cell.ULLqualCb = 300 // 30 dB: MCS-6 stays
	ms := r.cell.AddMS(0xc0000050, "901700000000050", 14)
	ms.EGPRSClass, ms.TwoPhase = 14, true
	want := frames(200<<10, 1500)
	for _, f := range want {
		ms.SendLLC(f)
	}
	tbf := ""
	steps := 0
	for ; steps < 40000 && len(r.gb.frames(ms.TLLI)) < len(want); steps++ {
		r.step(t)
		if steps == 300 {
			tbf = r.show("show tbf all")
		}
	}
	got := r.gb.frames(ms.TLLI)
	checkFrames(t, got, want, fmt.Sprintf("SGSN\nMS: %s", ms.Debug()))
	if !strings.Contains(tbf, "TS_alloc=4! 5 6 7  TRX_ID=0 CS=MCS-6 WS=") {
		t.Fatalf("UL TBF:\n%s", tbf)
	}
	if r.btsCtr(pcu.CtrRACHRequestsTwoPhase) != 1 || r.btsCtr(pcu.CtrEGPRSULMCS1+5) == 0 {
		t.Fatalf("two-phase %d, MCS-6 UL blocks %d", r.btsCtr(pcu.CtrRACHRequestsTwoPhase), r.btsCtr(pcu.CtrEGPRSULMCS1+5))
	}
	t.Logf("200 kB in %d block periods", steps)
}

// TestEGPRSUplinkLinkAdaptation: the UL MCS follows the C/I of the blocks
// with the `mcs link-quality-ranges` windows (osmo-pcu gprs_ms.c ms_update_cs_ul()). At 4 dB
// an MS that starts at MCS-9 is commanded down to MCS-1; it resegments its
// MCS-9 units into two MCS-3 blocks each (SPB 2 and 3, TS 44.060 Table
// 8.1.1.1, RESEGMENT = 1 in every Packet Uplink Ack/Nack), with 10 % of
// the blocks lost, and every frame arrives intact. At 30 dB an MS that
// starts at MCS-1 is commanded up to `mcs max` UL (7) and no further, and
// its next TBF, assigned on a Packet Resource Request, starts there.
func TestEGPRSUplinkLinkAdaptation(t *testing.T) {
	t.Run("down", func(t *testing.T) {
		p := bulkParams()
		p.ForceMCSUL = 9
		r := startEGPRSRadio(t, p, 91)
		r.cell.ULLqualCb = 40
		r.cell.ULLoss = 0.1
		ms := r.cell.AddMS(0xc0000091, "901700000000091", 12)
		ms.EGPRSClass = 12
		want := frames(60<<10, 1500)
		got, _ := r.ulTransfer(t, ms, want, 60000)
		checkFrames(t, got, want, fmt.Sprintf("SGSN\nMS: %s", ms.Debug()))
		first, second := r.btsCtr(pcu.CtrSPBULFirstSegment), r.btsCtr(pcu.CtrSPBULSecondSegment)
		t.Logf("MS sent %d split blocks; PCU counted %d first and %d second halves; MCS-9 %d, MCS-3 %d blocks",
			ms.ULSplitBlocks, first, second, r.btsCtr(pcu.CtrEGPRSULMCS1+8), r.btsCtr(pcu.CtrEGPRSULMCS1+2))
		if ms.ULCS() != rlcmac.MCS1 {
			t.Fatalf("commanded UL MCS %v, want MCS-1", ms.ULCS())
		}
		if first == 0 || second == 0 || first+second > uint64(ms.ULSplitBlocks) {
			t.Fatalf("split halves counted %d/%d, MS sent %d", first, second, ms.ULSplitBlocks)
		}
		if r.btsCtr(pcu.CtrEGPRSULMCS1+8) == 0 || r.btsCtr(pcu.CtrEGPRSULMCS1+2) == 0 {
			t.Fatal("no MCS-9 or no MCS-3 block counted")
		}
	})
	t.Run("up", func(t *testing.T) {
		p := bulkParams()
		p.ForceMCSUL, p.MCSMaxUL = 1, 7
		r := startEGPRSRadio(t, p, 92)
		r.cell.ULLqualCb = 300
		ms := r.cell.AddMS(0xc0000092, "901700000000092", 12)
		ms.EGPRSClass = 12
		send := func(n int) {
			want := len(r.gb.frames(ms.TLLI)) + n
			for i := 0; i < n; i++ {
				ms.SendLLC(llcFrame(i, 1000))
			}
			for s := 0; s < 20000 && (len(r.gb.frames(ms.TLLI)) < want || ms.ULActive()); s++ {
				r.step(t)
			}
			if got := len(r.gb.frames(ms.TLLI)); got != want {
				t.Fatalf("SGSN got %d of %d frames", got, want)
			}
		}
		send(20)
		if ms.ULCS() != rlcmac.MCS7 {
			t.Fatalf("commanded UL MCS %v, want MCS-7 (mcs max UL)", ms.ULCS())
		}
		if m, _ := msView(r.eng, ms.TLLI); m.MCSUL.String() != "MCS-7" {
			t.Fatalf("MS UL MCS %s", m.MCSUL)
		}
		before := r.btsCtr(pcu.CtrEGPRSULMCS1 + 6)
		// a new TBF assigned to the known MS (two-phase access: the Packet
		// Resource Request names its TLLI) starts at the MS's MCS
		ms.TwoPhase = true
		send(5)
		if n := r.btsCtr(pcu.CtrEGPRSULMCS1+6) - before; n == 0 {
			t.Fatal("the second TBF sent no MCS-7 block")
		}
		if n := r.btsCtr(pcu.CtrEGPRSULMCS1+7) + r.btsCtr(pcu.CtrEGPRSULMCS1+8); n != 0 {
			t.Fatalf("%d blocks above mcs max UL", n)
		}
	})
}
