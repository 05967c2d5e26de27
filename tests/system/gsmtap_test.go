package system

import (
	"bytes"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gopcu/gopcu/gsmtap"
	"github.com/gopcu/gopcu/gsmtap/gsmtapudp"
	"github.com/gopcu/gopcu/internal/emu/btsemu"
	"github.com/gopcu/gopcu/internal/emu/msemu"
	"github.com/gopcu/gopcu/internal/testutil"
	"github.com/gopcu/gopcu/pcu"
	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/rlcmac"
)

// TestGSMTAPSession: with `gsmtap-remote-host` and every category enabled,
// a whole session (RACH, IMM ASS, UL data, DL data with polls, acks) is
// tapped; tshark decodes the capture with no malformed packet.
func TestGSMTAPSession(t *testing.T) { gsmtapSession(t, false, 0, false, false) }

// TestGSMTAPSessionHopping: the same on frequency-hopping PDCHs: the
// Immediate Assignment and the Packet Downlink/Uplink Assignments carry
// MAIO, HSN and the Mobile Allocation (direct encoding 1).
func TestGSMTAPSessionHopping(t *testing.T) { gsmtapSession(t, false, 0, true, false) }

// TestGSMTAPSessionEGPRS: the same with an EGPRS MS (11-bit access, EGPRS
// UL and DL data blocks at MCS-9 and MCS-6, EGPRS Ack/Nacks).
func TestGSMTAPSessionEGPRS(t *testing.T) { gsmtapSession(t, true, 0, false, false) }

// TestGSMTAPSessionEGPRSLossy: the same on a radio losing 45 % of the DL
// blocks, so the link adaptation steps down and units are resent in split
// (SPB) blocks; tshark decodes those too.
func TestGSMTAPSessionEGPRSLossy(t *testing.T) { gsmtapSession(t, true, 0.45, false, false) }

// TestGSMTAPSessionEGPRSPoorUplink: an EGPRS session whose uplink is at
// 4 dB: the UL link adaptation commands MCS-1 and the MS resends its MCS-6
// units as split MCS-3 blocks (SPB 2/3); tshark decodes those too.
func TestGSMTAPSessionEGPRSPoorUplink(t *testing.T) { gsmtapSession(t, true, 0, false, true) }

func gsmtapSession(t *testing.T, egprs bool, loss float64, hop, poorUL bool) {
	sink := listenGSMTAP(t)
	r := startGSMTAPRadio(t, egprs, hop)
	r.cell.DLLoss = loss
	ms, got, want, wantUL := gsmtapTraffic(r, egprs, loss, poorUL)
	for s := 0; s < 4000 && (*got < want || len(r.gb.frames(ms.TLLI)) < wantUL); s++ {
		r.step(t)
	}
	if egprs && (r.btsCtr(pcu.CtrEGPRSULMCS1+5) == 0 || r.btsCtr(pcu.CtrEGPRSDLMCS1+8) == 0 || r.btsCtr(pcu.CtrRACHRequests11Bit) == 0) {
		t.Fatalf("not an EGPRS session: UL MCS-6 %d, DL MCS-9 %d, 11-bit RACH %d", r.btsCtr(pcu.CtrEGPRSULMCS1+5),
			r.btsCtr(pcu.CtrEGPRSDLMCS1+8), r.btsCtr(pcu.CtrRACHRequests11Bit))
	}
	if loss > 0 && r.btsCtr(pcu.CtrSPBDLFirstSegment) == 0 {
		t.Fatalf("no split block in the lossy session (DL blocks %v)", r.cell.DataCS)
	}
	if poorUL && (r.btsCtr(pcu.CtrSPBULFirstSegment) == 0 || r.btsCtr(pcu.CtrSPBULSecondSegment) == 0 || len(r.gb.frames(ms.TLLI)) != wantUL) {
		t.Fatalf("poor uplink: %d/%d split halves, %d of %d frames\n%s\n%s", r.btsCtr(pcu.CtrSPBULFirstSegment),
			r.btsCtr(pcu.CtrSPBULSecondSegment), len(r.gb.frames(ms.TLLI)), wantUL, ms.Debug(), r.show("show tbf all"))
	}
	var sent uint64
	r.eng.Call(func() { sent = r.eng.GSMTAPSent() })
	testutil.Eventually(t, 5*time.Second, func() bool { // the last datagrams on loopback
		sink.mu.Lock()
		defer sink.mu.Unlock()
		return uint64(len(sink.pkts)) >= sent
	}, "GSMTAP: %d datagrams sent, fewer received", sent)
	sink.mu.Lock()
	defer sink.mu.Unlock()
	tap := readGSMTAP(t, sink.pkts, egprs, hop)
	if hop && (tap.hopPDA == 0 || tap.hopIA == 0) {
		t.Fatalf("hopping: %d Packet Downlink Assignments and %d Immediate Assignments with the hopping parameters", tap.hopPDA, tap.hopIA)
	}
	for _, ch := range []uint8{gsmtap.ChannelRACH, gsmtap.ChannelAGCH, gsmtap.ChannelPCH, gsmtap.ChannelPDTCH, gsmtap.ChannelPACCH} {
		if tap.seen[ch] == 0 {
			t.Errorf("no GSMTAP packet of channel 0x%02x (seen %v)", ch, tap.seen)
		}
	}
	tsharkClean(t, tap.pcap.Bytes())
	t.Logf("%d GSMTAP packets, by channel %v; %d UL and %d DL split halves not given to tshark", len(sink.pkts), tap.seen, tap.ulHalves, tap.dlHalves)
}

// gsmtapSink collects the GSMTAP datagrams sent to 127.0.0.1:4729.
type gsmtapSink struct {
	mu   sync.Mutex
	pkts [][]byte
}

// listenGSMTAP listens on the GSMTAP port until the test ends.
func listenGSMTAP(t *testing.T) *gsmtapSink {
	lc, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: gsmtap.UDPPort})
	if err != nil {
		t.Skipf("needs a free UDP port 4729 on 127.0.0.1: %v", err)
	}
	t.Cleanup(func() { lc.Close() })
	sink := &gsmtapSink{}
	go func() {
		buf := make([]byte, 2048)
		for {
			n, err := lc.Read(buf)
			if err != nil {
				return
			}
			sink.mu.Lock()
			sink.pkts = append(sink.pkts, append([]byte(nil), buf[:n]...))
			sink.mu.Unlock()
		}
	}()
	return sink
}

// startGSMTAPRadio starts a cell with every GSMTAP category sent to
// 127.0.0.1: EGPRS at MCS-9 DL and MCS-6 UL, or hopping PDCHs, if asked.
func startGSMTAPRadio(t *testing.T, egprs, hop bool) *radioRig {
	p := bulkParams()
	p.GSMTAPCategories = 0xffffffff
	info := btsemu.DefaultInfo(pcuif.V12)
	if egprs {
		p.ForceMCSDL, p.MCSMaxDL, p.ForceMCSUL, p.MCSMaxUL = 9, 9, 6, 6
		for n := 1; n <= 9; n++ {
			info.Flags |= pcuif.FlagMCS(n)
		}
	}
	if hop {
		for ts := 4; ts < 8; ts++ {
			s := &info.TRX[0].TS[ts]
			s.Hopping, s.HSN, s.MAIO, s.MABitLen = true, 12, uint8(ts-4), 4
			s.MA[7] = 0x0f // four ARFCNs of the cell allocation
		}
	}
	return startRadioInfo(t, info, p, 4, 4)
}

// gsmtapTraffic adds the session's MS and queues its uplink and downlink
// frames; got counts the DL frames it receives, want and wantUL are the
// frames the session waits for.
func gsmtapTraffic(r *radioRig, egprs bool, loss float64, poorUL bool) (ms *msemu.MS, got *int, want, wantUL int) {
	ms = r.cell.AddMS(0xc0003001, "901700000003001", 12)
	got = new(int)
	ms.OnLLC = func([]byte) { *got++ }
	ms.SendLLC(llcFrame(1, 300))
	if egprs {
		ms.EGPRSClass = 12
		r.dlEGPRS(ms.TLLI, ms.IMSI, llcFrame(2, 600))
		if loss > 0 {
			// long enough for the link adaptation to step below the
			// MCS family's middle, so units are resent split
			for i := 3; i < 24; i++ {
				r.dlEGPRS(ms.TLLI, ms.IMSI, llcFrame(i, 1500))
			}
		}
	} else {
		r.dl(ms.TLLI, ms.IMSI, llcFrame(2, 600))
	}
	wantUL = 1
	if poorUL {
		r.cell.ULLqualCb = 40
		for i := 3; i < 9; i++ {
			ms.SendLLC(llcFrame(i, 1500))
		}
		wantUL = 7
	}
	want = 1
	if loss > 0 {
		want = 22
	}
	return ms, got, want, wantUL
}

// gsmtapCapture is what readGSMTAP found in the datagrams.
type gsmtapCapture struct {
	pcap               bytes.Buffer  // the datagrams for tshark
	seen               map[uint8]int // packets by GSMTAP channel
	hopPDA, hopIA      int           // assignments with the hopping parameters
	ulHalves, dlHalves int           // EGPRS split halves kept from tshark
}

// readGSMTAP checks the GSMTAP headers and writes the datagrams to a pcap
// for tshark, but for the EGPRS split halves.
func readGSMTAP(t *testing.T, pkts [][]byte, egprs, hop bool) *gsmtapCapture {
	c := &gsmtapCapture{seen: map[uint8]int{}}
	w, err := gsmtap.NewPcapWriter(&c.pcap)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range pkts {
		var h gsmtap.Header
		n, err := h.Unmarshal(b)
		if err != nil {
			t.Fatalf("bad GSMTAP header: %v", err)
		}
		c.seen[h.SubType]++
		if hop && h.SubType == gsmtap.ChannelPACCH && !h.Uplink {
			if _, msg, err := rlcmac.DecodeDL(b[n:]); err == nil {
				if a, ok := msg.(*rlcmac.PacketDownlinkAssignment); ok && a.HasFreq && a.Freq.Kind == 2 && a.Freq.HSN == 12 &&
					a.Freq.MALen == 4 && a.Freq.MA[0] == 0xf0 {
					c.hopPDA++
				}
			}
		}
		if hop && h.SubType == gsmtap.ChannelAGCH {
			var ia rlcmac.ImmediateAssignment
			if rlcmac.DecodeImmediateAssignment(b[n:], &ia) == nil && ia.Hopping && ia.HSN == 12 {
				c.hopIA++
			}
		}
		if h.Uplink && h.SubType == gsmtap.ChannelPDTCH {
			// Wireshark dissects an UL split half (SPB 2/3) as a whole unit
			// and calls it malformed when an LI points past the half; the
			// MS emulator sends these, gopcu only receives them.
			var ub rlcmac.EGPRSULBlock
			if ub.Parse(b[n:]) == nil && ub.Header.SPB != 0 {
				c.ulHalves++
				continue
			}
		}
		if egprs && !h.Uplink && h.SubType == gsmtap.ChannelPDTCH {
			// the same for a DL split half: whether Wireshark flags it
			// depends on the data (which blocks the lossy radio drops)
			var db rlcmac.EGPRSDLBlock
			if db.Parse(b[n:]) == nil && db.Header.SPB != 0 {
				c.dlHalves++
				continue
			}
		}
		if err := w.Write(time.Now(), &h, b[n:]); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// tsharkClean has tshark decode the pcap and fails on a malformed packet
// or an expert error; it skips the test without tshark. It returns the
// verbose dissection.
func tsharkClean(t *testing.T, pcap []byte) string {
	testutil.NeedBinaries(t, "tshark")
	out := testutil.Tshark(t, pcap, "-n", "-V")
	for _, bad := range []string{"Malformed", "[Expert Info (Error"} {
		if i := strings.Index(out, bad); i >= 0 {
			t.Fatalf("tshark reports %q: ...%s", bad, out[max(0, i-4000):i+200])
		}
	}
	return out
}

// dialGSMTAP opens the GSMTAP socket towards 127.0.0.1 (the composition
// layer's job in gopcu: internal/app) when the test's parameters enable a
// GSMTAP category, nil otherwise.
func dialGSMTAP(t *testing.T, p *pcu.Params) pcu.GSMTAPSink {
	if p == nil || p.GSMTAPCategories == 0 {
		return nil
	}
	s, err := gsmtapudp.DialUDP("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
