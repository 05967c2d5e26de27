// Package msemu emulates GPRS mobile stations on top of the BTS emulator:
// RACH and one-phase access, decoding Immediate Assignments and Packet
// Assignments, sending uplink RLC data on its USF, receiving downlink data,
// answering polls with Packet Downlink Ack/Nack and Packet Control Ack,
// and reassembling LLC frames. It runs in virtual time: Cell.Step moves the
// BTS emulator one radio block ahead and feeds the MSs.
//
// It plays the MS side of TS 44.060 for gopcu's system tests and the demo;
// it is no conformance reference. Loss of radio blocks can be simulated per
// direction.
package msemu

import (
	"context"
	"fmt"
	"math/rand"
	"time"

	"github.com/gopcu/gopcu/llc"
	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/rlcmac"
	"github.com/gopcu/gopcu/tests/btsemu"
)

// Air is the radio interface a cell runs over: the BTS emulator on
// gopcu's PCU socket (virtual time), or a real BTS's virtual Um (tests/vum,
// real time). Step returns the downlink blocks of the next radio block;
// CCCH the AGCH/PCH MAC blocks seen since the last call; Send takes a
// RACH_IND or an uplink DATA_IND.
type Air interface {
	FN() uint32
	Step(ctx context.Context, timeout time.Duration) (btsemu.Block, error)
	CCCH() []pcuif.Data
	Send(m pcuif.Message) error
	Info() *pcuif.InfoInd
}

// RealTimeAir is an Air whose clock runs by itself: the cell hands it
// every uplink block as soon as the MS makes it, and the air sends it in
// its frame (the cell does not hold blocks back until their FN).
type RealTimeAir interface {
	Air
	RealTime()
}

// Cell is a set of MSs camping on one emulated BTS.
type Cell struct {
	// BTS is the PCU-socket BTS emulator (nil over another Air).
	BTS    *btsemu.BTS
	air    Air
	rt     bool
	MSs    []*MS
	DLLoss float64 // probability that a DL radio block is not received
	// ULLqualCb is the C/I (cB) the BTS reports for uplink blocks (default 150).
	ULLqualCb int16
	ULLoss    float64 // probability that an UL radio block is lost
	rnd       *rand.Rand
	ul        map[uint32][]pcuif.Data
	arfcn     uint16
	// Blocks counts DL blocks seen per kind.
	Blocks struct{ Data, Control, Dummy, Idle int }
	// IdleTS counts the empty PDTCH answers (nothing sent) per timeslot.
	IdleTS [8]int
	// DataCS counts the DL data blocks addressed to an MS per coding scheme.
	DataCS map[rlcmac.CodingScheme]int
	// OnCCCH, when set, sees every AGCH/PCH MAC block (23 octets).
	OnCCCH func(mac []byte)
}

// NewCell makes a cell over a running BTS emulator (seed makes loss and
// access randomness repeatable).
func NewCell(bts *btsemu.BTS, seed int64) *Cell {
	c := NewCellAir(bts, seed)
	c.BTS = bts
	return c
}

// NewCellAir makes a cell over any Air (see NewCell).
func NewCellAir(air Air, seed int64) *Cell {
	c := &Cell{air: air, rnd: rand.New(rand.NewSource(seed)), ul: map[uint32][]pcuif.Data{}, arfcn: 871, ULLqualCb: 150}
	if _, ok := air.(RealTimeAir); ok {
		c.rt = true
		if info := air.Info(); info != nil && info.TRX[0].ARFCN != 0 {
			c.arfcn = info.TRX[0].ARFCN
		}
	}
	return c
}

// AddMS adds an idle MS.
func (c *Cell) AddMS(tlli uint32, imsi string, class int) *MS {
	m := &MS{cell: c, TLLI: tlli, IMSI: imsi, Class: class, cs: rlcmac.CS1, tai: -1, taPTCCH: -1, taPUAN: -1}
	c.MSs = append(c.MSs, m)
	return m
}

// queueULOffs queues an uplink block whose bursts arrive offs quarter bits
// late (the BTS's burst timing offset in DATA_IND).
func (c *Cell) queueULOffs(fn uint32, trx, ts uint8, payload []byte, offs int16) {
	if c.ULLoss > 0 && c.rnd.Float64() < c.ULLoss {
		return
	}
	d := pcuif.Data{Kind: pcuif.TypeDataInd, SAPI: pcuif.SAPIPDTCH, Payload: payload, FN: fn, ARFCN: c.arfcn, TRX: trx, TS: ts,
		BlockNr: uint8(btsemu.BlockNr(fn)), RSSI: -60, LqualCb: c.ULLqualCb, TAOffsQbits: offs}
	if c.rt {
		c.air.Send(&d)
		return
	}
	c.ul[fn] = append(c.ul[fn], d)
}

// Step runs one radio block: uplink blocks due by now are delivered, the
// BTS emulator requests and collects the downlink blocks, and every MS
// processes them (and the CCCH messages of the block).
func (c *Cell) Step(ctx context.Context) error {
	fn := c.air.FN()
	for f, list := range c.ul {
		if fnDelta(fn, f) >= 0 {
			for i := range list {
				if err := c.air.Send(&list[i]); err != nil {
					return err
				}
			}
			delete(c.ul, f)
		}
	}
	for _, m := range c.MSs {
		m.beforeBlock(fn)
	}
	blk, err := c.air.Step(ctx, 2*time.Second)
	if err != nil {
		return err
	}
	for _, d := range c.air.CCCH() {
		c.ccch(blk.FN, d)
	}
	for _, d := range blk.Answers {
		if d.SAPI == pcuif.SAPIPTCCH {
			for _, m := range c.MSs {
				if !m.Mute {
					m.ptcch(d)
				}
			}
			continue
		}
		if d.SAPI != pcuif.SAPIPDTCH {
			continue
		}
		if len(d.Payload) == 0 {
			c.Blocks.Idle++
			c.IdleTS[d.TS&7]++
			continue
		}
		lost := c.DLLoss > 0 && c.rnd.Float64() < c.DLLoss
		for _, m := range c.MSs {
			m.dlBlock(d, lost)
		}
	}
	return nil
}

// Run steps n blocks.
func (c *Cell) Run(ctx context.Context, n int) error {
	for i := 0; i < n; i++ {
		if err := c.Step(ctx); err != nil {
			return fmt.Errorf("block %d: %w", i, err)
		}
	}
	return nil
}

func (c *Cell) ccch(fn uint32, d pcuif.Data) {
	var mac []byte
	switch d.SAPI {
	case pcuif.SAPIAGCH:
		mac = d.Payload
	case pcuif.SAPIPCH:
		if len(d.Payload) == pcuif.PCHLegacyLen {
			mac = d.Payload[3:]
		}
	case pcuif.SAPIAGCH2:
		var a pcuif.AGCH2
		if a.Unmarshal(d.Payload) == nil {
			mac = a.MAC[:]
		}
	case pcuif.SAPIPCH2:
		var p pcuif.PCH2
		if p.Unmarshal(d.Payload) == nil {
			mac = p.MAC[:]
		}
	}
	if c.OnCCCH != nil && len(mac) > 0 {
		c.OnCCCH(mac)
	}
	if len(mac) < 3 || mac[2] != rlcmac.RRImmediateAssignment {
		return
	}
	var ia rlcmac.ImmediateAssignment
	if err := rlcmac.DecodeImmediateAssignment(mac, &ia); err != nil {
		return
	}
	for _, m := range c.MSs {
		if m.immAss(fn, &ia) {
			return
		}
	}
}

// MS is one emulated mobile station.
type MS struct {
	cell  *Cell
	TLLI  uint32
	IMSI  string
	Class int
	// EGPRSClass > 0 makes the MS EGPRS capable: DL TBFs assigned with an
	// EGPRS window are received as MCS-1..9 blocks and acknowledged with
	// EGPRS Packet Downlink Ack/Nack.
	EGPRSClass int
	cs         rlcmac.CodingScheme

	// OnLLC receives every downlink LLC frame (LLC UI dummies removed).
	OnLLC func(frame []byte)
	// SplitBlocks counts the EGPRS split (SPB) blocks addressed to the MS.
	SplitBlocks int
	// NoReuse keeps the MS from asking for its next UL TBF in the final
	// Packet Uplink Ack/Nack's poll (TS 44.060 §9.3.3.3); it then sends a
	// Packet Control Ack and asks again later (DL Ack/Nack or RACH).
	NoReuse bool
	// ULReuses counts the Packet Resource Requests sent in final-ack polls.
	ULReuses int
	// ULSplitBlocks counts the EGPRS split (SPB) blocks the MS sent: it
	// resegments units when the network commands an MCS below the unit's
	// family (TS 44.060 Table 8.1.1.1, RESEGMENT = 1).
	ULSplitBlocks int
	// TwoPhase makes the MS ask for a single block (RA 0x70..0x77) and
	// send a Packet Resource Request in it (two-phase access).
	TwoPhase bool
	// Mute makes the MS deaf and silent (it left the cell or lost
	// coverage): timers and N counters of the PCU then run out.
	Mute bool
	// BeforeControl, when set, sees every decoded downlink control
	// message on the MS's PDCHs before the MS acts on it; setting Mute
	// in it makes the MS fall silent before it answers that message.
	BeforeControl func(msg rlcmac.Message)
	// BeforeFinalData is BeforeControl for the GPRS data block of the MS's
	// DL TBF that has the final block indicator (FBI) set.
	BeforeFinalData func()
	// DLQuality is the Channel Quality Report of its Packet Downlink
	// Ack/Nacks (TS 44.060 §11.2.6; zero by default).
	DLQuality rlcmac.ChannelQualityReport
	// DistanceQbits is the MS's round-trip distance in quarter bits: its
	// RACH shows it, and its bursts arrive DistanceQbits - 4*TA late.
	DistanceQbits int

	ta      uint8
	tai     int
	taiTS   uint8
	taPTCCH int
	taPUAN  int

	ulQueue [][]byte // LLC frames waiting for an UL TBF

	rachRA   uint16 // 8-bit RA, or the 11-bit EGPRS Packet Channel Request
	rach11   bool
	rachFN   uint32
	rachWait bool
	waitPUA  uint32 // two-phase: FN until which a Packet Uplink Assignment is awaited (0: none)
	sbaTS    uint8  // two-phase: the PDCH of the single block, listened to for the assignment
	sbaTRX   uint8

	dl dlState
	ul ulState

	// NACC: Packet Cell Change Notification out, Neighbour Cell Data and
	// Cell Change Continue in (nacc.go).
	NACC NACC

	// ULReassigned counts Packet Uplink Assignments that moved a running
	// UL TBF to another TFI (real-time air only).
	ULReassigned int
	// Aborted counts TBFs the MS gave up after TBFWatchdog (real-time
	// air only).
	Aborted int
	// ulHeard and dlHeard are the FNs of the last USF for the MS's UL TBF
	// and of the last data block of its DL TBF (real-time air only).
	ulHeard, dlHeard uint32

	// Statistics.
	DLFrames, DLOctets, ULFrames, ULOctets int
	Polls, Acks                            int
}

type dlState struct {
	active      bool
	egprs       bool
	trx         uint8
	tfi         uint8
	slots       uint8
	rw          rlcmac.ReceiveWindow
	units       [rlcmac.EGPRSSNS][]byte
	hdr         [rlcmac.EGPRSSNS]unitHdr
	llcBuf      []byte
	finalRx     bool
	waitRelease bool           // the final Ack/Nack was sent: T3192 runs
	releaseFN   uint32         // T3192 ends (its SI13 default, 1500 ms)
	spbHalf     map[int][]byte // first halves of split units by BSN
}

type ulState struct {
	active     bool
	assigned   bool // may send (after IA or PUA ack)
	trx        uint8
	tfi        uint8
	slots      uint8
	usf        [8]uint8
	sw         rlcmac.SendWindow
	blocks     [][]byte // pre-segmented RLC data units
	hdrs       []rlcmac.GPRSULHeader
	next       int // next new block index
	contention bool
	done       bool
	cvStarted  bool                  // a block with CV < 15 was sent: no more data joins
	egprs      bool                  // EGPRS TBF: MCS blocks, EGPRS window and Ack/Nack
	mcs        []rlcmac.CodingScheme // per block: the (M)CS it was segmented for
	reseg      bool                  // RESEGMENT of the last assignment or Ack/Nack
	spbSecond  int                   // index+1 of a split unit whose second half is due
}

// SendLLC queues an uplink LLC frame; the MS requests an UL TBF for it.
func (m *MS) SendLLC(frame []byte) {
	m.ulQueue = append(m.ulQueue, append([]byte(nil), frame...))
}

// Busy reports whether the MS has a TBF or pending access.
func (m *MS) Busy() bool { return m.dl.active || m.ul.active || m.rachWait }

// ULPending is the number of LLC frames not yet handed to an UL TBF.
func (m *MS) ULPending() int { return len(m.ulQueue) }

func (m *MS) beforeBlock(fn uint32) {
	if m.Mute {
		return
	}
	// Over a real BTS a TBF the network dropped (its assignment lost, N3101
	// or N3105 run out) must not hold the MS for ever: with no USF and no
	// data block for TBFWatchdog the MS returns to packet idle (as T3182 /
	// T3190 would end the TBF, TS 44.060 §13.1); the frames of the UL TBF
	// are lost to the layers above.
	if m.cell.rt && m.ul.active && fnDelta(fn, m.ulHeard) > tbfWatchdogFrames {
		m.ul = ulState{}
		m.Aborted++
	}
	if m.cell.rt && m.dl.active && fnDelta(fn, m.dlHeard) > tbfWatchdogFrames {
		m.dl = dlState{}
		m.Aborted++
	}
	if m.dl.waitRelease && fnDelta(fn, m.dl.releaseFN) >= 0 {
		m.dl.waitRelease = false // T3192 expired: packet idle
	}
	// Access: RACH when data waits, no UL TBF exists and the MS is not in
	// downlink transfer (then it asks in the DL Ack/Nack instead).
	if m.waitPUA != 0 && fnDelta(fn, m.waitPUA) > 0 {
		m.waitPUA = 0 // T3168 expired: access again
	}
	if m.rachWait && fnDelta(fn, m.rachFN) > rachGiveUpFrames {
		m.rachWait = false // no (usable) assignment: access again, as after T3146
	}
	if len(m.ulQueue) > 0 && !m.ul.active && !m.rachWait && !m.dl.active && m.waitPUA == 0 {
		m.rachRA = 0x78 | uint16(m.cell.rnd.Intn(8))
		if m.cell.rt && m.rachRA == 0x7f {
			// osmo-bts takes RA 0x7f for a CS request (it is no packet
			// access RA in osmo-bts's L1SAP_IS_PACKET_RACH) and
			// passes it to the BSC
			m.rachRA = 0x7e
		}
		m.rach11 = false
		switch {
		case m.TwoPhase && m.EGPRSClass > 0:
			// EGPRS Packet Channel Request, Two Phase Access: 110000 <priority:2> <random:3>
			m.rachRA = 0b110000<<5 | uint16(m.cell.rnd.Intn(8))
			m.rach11 = true
		case m.TwoPhase:
			m.rachRA = 0x70 | uint16(m.cell.rnd.Intn(8))
		case m.EGPRSClass > 0:
			// EGPRS Packet Channel Request, One Phase Access (TS 44.060
			// §11.2.5a): 0 <multislot class - 1:5> <priority:2> <random:3>
			m.rachRA = uint16((m.EGPRSClass-1)&0x1f)<<5 | uint16(m.cell.rnd.Intn(8))
			m.rach11 = true
		}
		m.rachFN = fn
		m.rachWait = true
		burst := uint8(1) // ACCESS_0
		if m.rach11 {
			burst = 2 // ACCESS_1: EGPRS access burst
		}
		m.cell.air.Send(&pcuif.RACHInd{SAPI: pcuif.SAPIRACH, RA: m.rachRA, Is11Bit: m.rach11, FN: fn % 42432, ARFCN: m.cell.arfcn,
			BurstType: burst, QTA: int16(m.DistanceQbits)})
	}
}

// rachGiveUpFrames is how long an MS waits for the answer to its channel
// request before it accesses again (5 s; a real MS gives up after T3146
// or waits T3122 after an IMMEDIATE ASSIGNMENT REJECT, TS 44.018 §3.3.1.1.3):
// without it an MS whose request went unanswered (or was rejected) under
// overload would never send again.
const rachGiveUpFrames = int(5 * time.Second / (120 * time.Millisecond / 26))

// immAss handles an Immediate Assignment; it reports whether it was ours.
func (m *MS) immAss(fn uint32, ia *rlcmac.ImmediateAssignment) bool {
	switch ia.Rest.Kind {
	case rlcmac.IAREGPRSPacketUpl:
		if !m.rachWait || !m.rach11 || ia.ReqRef.RA != 0x7f || !ia.Rest.HasExtRA || ia.Rest.ExtRA != uint8(m.rachRA&0x1f) {
			return false
		}
		if !m.refMatches(ia) {
			return false
		}
		m.rachWait = false
		m.iaTA(ia)
		if !ia.Rest.Dynamic {
			m.resourceRequest(ia) // multi block: two-phase access
			return true
		}
		m.cs = rlcmac.CSFromCommand(ia.Rest.ChannelCoding, true)
		var usf [8]uint8
		usf[ia.TN] = ia.Rest.USF
		m.startULWS(m.cell.iaTRX(ia), ia.Rest.TFI, 1<<ia.TN, usf, false, rlcmac.EGPRSWindowSize(ia.Rest.WindowSize))
		return true
	case rlcmac.IARPacketUplink:
		if !m.rachWait || m.rach11 || uint16(ia.ReqRef.RA) != m.rachRA {
			return false
		}
		if !m.refMatches(ia) {
			return false
		}
		m.rachWait = false
		m.iaTA(ia)
		if !ia.Rest.Dynamic {
			m.resourceRequest(ia)
			return true
		}
		m.cs = rlcmac.CSFromCommand(ia.Rest.ChannelCoding, false)
		var usf [8]uint8
		usf[ia.TN] = ia.Rest.USF
		m.startUL(m.cell.iaTRX(ia), ia.Rest.TFI, 1<<ia.TN, usf, false)
		return true
	case rlcmac.IARPacketDownlink:
		if ia.Rest.TLLI != m.TLLI {
			return false
		}
		ws := 0
		if ia.Rest.HasEGPRS {
			ws = rlcmac.EGPRSWindowSize(ia.Rest.WindowSize)
		}
		m.iaTA(ia)
		m.startDL(m.cell.iaTRX(ia), ia.Rest.TFI, 1<<ia.TN, ws)
		return true
	}
	return false
}

// refMatches reports whether the Request Reference of ia names our RACH's FN.
func (m *MS) refMatches(ia *rlcmac.ImmediateAssignment) bool {
	var rr rlcmac.RequestReference
	rr.SetFN(m.rachFN)
	return rr.T1 == ia.ReqRef.T1 && rr.T2 == ia.ReqRef.T2 && rr.T3 == ia.ReqRef.T3
}

// resourceRequest sends the Packet Resource Request of two-phase access in
// the single (or multi) block an Immediate Assignment allocated at its
// starting time (TS 44.018 §10.5.2.38), with the MS Radio Access
// Capability, and waits for the Packet Uplink Assignment.
func (m *MS) resourceRequest(ia *rlcmac.ImmediateAssignment) {
	fn := startFN(m.rachFN, ia.Rest.T1, ia.Rest.T3, ia.Rest.T2)
	prr := &rlcmac.PacketResourceRequest{ID: rlcmac.ULID{IsTLLI: true, TLLI: m.TLLI},
		ChanReq: rlcmac.ChannelRequestDescription{RLCOctetCount: 1000}}
	if m.Class > 0 {
		prr.HasRAC = true
		prr.RAC = msRAC(m.Class, m.EGPRSClass)
	}
	m.sbaTRX, m.sbaTS = m.cell.iaTRX(ia), ia.TN
	m.sendCtrl(fn, m.sbaTRX, ia.TN, prr)
	m.waitPUA = (fn + 4*217) % pcuif.MaxFN // T3168 ~4 s
}

// iaTA applies the timing advance (and TAI, on the assigned TN) of an
// Immediate Assignment.
func (m *MS) iaTA(ia *rlcmac.ImmediateAssignment) {
	m.ta = ia.TA
	if ia.Rest.HasTAI {
		m.tai, m.taiTS = int(ia.Rest.TAI), ia.TN
	}
}

// unitHdr is what reassembly needs of a received data unit's header.
type unitHdr struct{ e, fbi bool }

// startDL starts a DL TBF; ws > 0 is an EGPRS window.
func (m *MS) startDL(trx, tfi, slots uint8, ws int) {
	m.dl = dlState{active: true, trx: trx, tfi: tfi, slots: slots, egprs: ws > 0}
	m.dlHeard = m.cell.air.FN()
	if ws > 0 {
		m.dl.rw.Reset(true, ws)
	} else {
		m.dl.rw.Reset(false, rlcmac.GPRSWS)
	}
}

// startUL begins an UL TBF and segments the queued frames into blocks.
func (m *MS) startUL(trx, tfi, slots uint8, usf [8]uint8, contentionDone bool) {
	m.startULWS(trx, tfi, slots, usf, contentionDone, 0)
}

// startULWS starts an UL TBF; ws > 0 makes it EGPRS with that window.
func (m *MS) startULWS(trx, tfi, slots uint8, usf [8]uint8, contentionDone bool, ws int) {
	m.ul = ulState{active: true, assigned: true, trx: trx, tfi: tfi, slots: slots, usf: usf, contention: contentionDone, egprs: ws > 0}
	m.ulHeard = m.cell.air.FN()
	if ws > 0 {
		m.ul.sw.Reset(true, ws)
	} else {
		m.ul.sw.Reset(false, rlcmac.GPRSWS)
	}
	m.segmentUL()
}

// segmentUL turns the queued frames into RLC data units (TS 44.060
// §10.4.14). The first blocks carry the TLLI (TI=1) until contention
// resolution; we put it in every block before the first PUAN arrives, which
// the segmentation cannot know, so all blocks get TI when contention is not
// done yet (allowed: §7.1.2.3).
func (m *MS) segmentUL() {
	frames := m.ulQueue
	m.ulQueue = nil
	dl := m.cs.DataLen()
	var cur []byte
	open := false // cur's frame is not closed yet (EGPRS: a unit it filled exactly)
	fi := 0
	for fi < len(frames) || open {
		// The TLLI rides in the first blocks until contention resolution
		// (TS 44.060 §7.1.2.3); eight copies survive any realistic loss.
		ti := !m.ul.contention && len(m.ul.blocks) < 8
		space := dl
		if ti {
			space -= 4
		}
		buf := make([]byte, space)
		var u rlcmac.DLUnit
		u.Reset(buf, m.ul.egprs)
		for {
			if !open {
				if fi == len(frames) {
					break
				}
				cur = frames[fi]
				open = true
				fi++
				m.ULFrames++
				m.ULOctets += len(cur)
			}
			// never "last": frames queued later may still join this TBF
			n, res := u.Append(cur, false)
			cur = cur[n:]
			if res == rlcmac.NeedMoreBlocks {
				break // (EGPRS: a frame that filled the unit exactly is closed in the next)
			}
			open = false
			if res == rlcmac.CompletedBlockFilled {
				break
			}
		}
		if u.Space() > 0 {
			u.Pad()
		}
		unit := make([]byte, 0, dl)
		unit = append(unit, buf[:u.NumLI()]...)
		if ti && m.ul.egprs {
			// EGPRS data units carry the TLLI least significant octet first
			unit = append(unit, byte(m.TLLI), byte(m.TLLI>>8), byte(m.TLLI>>16), byte(m.TLLI>>24))
		} else if ti {
			unit = append(unit, byte(m.TLLI>>24), byte(m.TLLI>>16), byte(m.TLLI>>8), byte(m.TLLI))
		}
		unit = append(unit, buf[u.NumLI():]...)
		m.ul.blocks = append(m.ul.blocks, unit)
		m.ul.hdrs = append(m.ul.hdrs, rlcmac.GPRSULHeader{TFI: m.ul.tfi, TI: ti, E: u.E()})
		m.ul.mcs = append(m.ul.mcs, m.cs)
	}
	for i := range m.ul.hdrs {
		m.ul.hdrs[i].BSN = uint8(i % rlcmac.GPRSSNS) // EGPRS: i % 2048 at transmission
	}
}

// ulTransmit sends one UL data block at fn on ts (our USF was seen).
func (m *MS) ulTransmit(fn uint32, ts uint8) {
	if m.naccTx(fn, ts) {
		return
	}
	u := &m.ul
	if !u.cvStarted && len(m.ulQueue) > 0 {
		m.segmentUL() // TS 44.060 §9.3.1: data may join until the countdown starts
	}
	if u.spbSecond > 0 { // the second half of a split unit follows its first
		idx := u.spbSecond - 1
		u.spbSecond = 0
		m.ulSplit(fn, ts, idx, m.txMCS(idx), 3)
		return
	}
	idx := u.pickBlock(true)
	if idx < 0 {
		return
	}
	if u.egprs {
		m.ulTransmitEGPRS(fn, ts, idx)
		return
	}
	out := make([]byte, u.mcs[idx].BlockLen(true))
	h := u.hdrs[idx]
	h.SI = u.sw.Stalled() // stall indicator (TS 44.060 §9.1.3.3)
	h.CV = u.cv(idx)
	u.hdrs[idx].CV = h.CV
	if _, err := rlcmac.EncodeGPRSUL(out, u.mcs[idx], &h, u.blocks[idx]); err != nil {
		panic(err)
	}
	m.cell.queueULOffs(fn, u.trx, ts, out, m.burstOffset())
}

// pickBlock chooses the next block to send: a NACKed one, else a new one,
// else (when stalled or all sent, if oldest) the oldest unacknowledged.
func (u *ulState) pickBlock(oldest bool) int {
	if b := u.sw.ResendNeeded(); b >= 0 {
		u.sw.MarkSent(b)
		return u.blockIndex(b)
	}
	if u.next < len(u.blocks) {
		if _, ok := u.sw.SendNew(); ok {
			u.next++
			return u.next - 1
		}
	}
	if oldest && u.sw.MarkForResend() > 0 {
		b := u.sw.ResendNeeded()
		u.sw.MarkSent(b)
		return u.blockIndex(b)
	}
	return -1
}

// cv is the countdown value of block idx (TS 44.060 §9.3.1).
func (u *ulState) cv(idx int) uint8 {
	cv := uint8(min(15, len(u.blocks)-idx-1))
	if cv < 15 {
		u.cvStarted = true
	}
	return cv
}

// txMCS is the MCS block idx goes out with now: the one it was segmented
// for, or, when the network commands another, the retransmission MCS of
// TS 44.060 Tables 8.1.1.1/8.1.1.2 (same unit size; MCS-1..3 halves when
// resegmenting below the family). MCS-8 units stay MCS-8 (no padding here).
func (m *MS) txMCS(idx int) rlcmac.CodingScheme {
	init := m.ul.mcs[idx]
	if init == rlcmac.MCS8 {
		return init
	}
	return rlcmac.RetxMCS(init, m.cs, m.ul.reseg)
}

// ulTransmitEGPRS sends an EGPRS UL block: one unit (MCS-1..6) or two
// (MCS-7..9; a unit without partner is sent twice, as the network does),
// or the first half of a unit resegmented into two MCS-1..3 blocks.
func (m *MS) ulTransmitEGPRS(fn uint32, ts uint8, idx int) {
	u := &m.ul
	cs := m.txMCS(idx)
	if cs.DataLen() < len(u.blocks[idx]) {
		m.ulSplit(fn, ts, idx, cs, 2)
		u.spbSecond = idx + 1
		return
	}
	idx2 := idx
	if cs.DataUnits() == 2 {
		if j := u.pickBlock(false); j >= 0 {
			if m.txMCS(j) == cs {
				idx2 = j
			} else {
				u.sw.MarkResend(j % u.sw.SNS()) // not a partner: it goes alone later
			}
		}
	}
	h := rlcmac.EGPRSULHeader{TFI: u.tfi, SI: u.sw.Stalled(), BSN1: uint16(idx % rlcmac.EGPRSSNS), BSN2: uint16(idx2 % rlcmac.EGPRSSNS),
		E: [2]bool{u.hdrs[idx].E, u.hdrs[idx2].E}, TI: [2]bool{u.hdrs[idx].TI, u.hdrs[idx2].TI}}
	h.CV = min(u.cv(idx), u.cv(idx2))
	h.CPS, _ = rlcmac.EncodeCPS(cs, 0, 0, false)
	var u2 []byte
	if cs.DataUnits() == 2 {
		u2 = u.blocks[idx2]
	}
	out := make([]byte, cs.BlockLen(true))
	if _, err := rlcmac.EncodeEGPRSUL(out, cs, &h, u.blocks[idx], u2); err != nil {
		panic(err)
	}
	m.cell.queueULOffs(fn, u.trx, ts, out, m.burstOffset())
}

// ulSplit sends half spb (2 first, 3 second) of unit idx as an MCS-1..3
// block (TS 44.060 §9.3.2.1, §10.4.8b).
func (m *MS) ulSplit(fn uint32, ts uint8, idx int, cs rlcmac.CodingScheme, spb uint8) {
	u := &m.ul
	hl := cs.DataLen()
	h := rlcmac.EGPRSULHeader{TFI: u.tfi, SI: u.sw.Stalled(), BSN1: uint16(idx % rlcmac.EGPRSSNS), SPB: spb,
		E: [2]bool{u.hdrs[idx].E}, TI: [2]bool{u.hdrs[idx].TI}}
	h.CV = u.cv(idx)
	h.CPS, _ = rlcmac.EncodeCPS(cs, 0, 0, false)
	off := 0
	if spb == 3 {
		off = hl
	}
	out := make([]byte, cs.BlockLen(true))
	if _, err := rlcmac.EncodeEGPRSUL(out, cs, &h, u.blocks[idx][off:off+hl], nil); err != nil {
		panic(err)
	}
	m.ULSplitBlocks++
	m.cell.queueULOffs(fn, u.trx, ts, out, m.burstOffset())
}

// blockIndex maps a BSN back to the block index (the TBF sends at most a
// window beyond V(A), so the index near next with that BSN is it).
func (u *ulState) blockIndex(bsn int) int {
	sns := u.sw.SNS()
	for i := u.next - 1; i >= 0 && i >= u.next-sns; i-- {
		if i%sns == bsn {
			return i
		}
	}
	return -1
}

// dlBlock processes one downlink block on the MS's timeslots.
func (m *MS) dlBlock(d pcuif.Data, lost bool) {
	if m.Mute {
		return
	}
	ts := d.TS
	listening := (m.dl.active || m.dl.waitRelease) && m.dl.trx == d.TRX && m.dl.slots&(1<<ts) != 0 ||
		m.ul.active && m.ul.trx == d.TRX && m.ul.slots&(1<<ts) != 0 ||
		m.waitPUA != 0 && d.TRX == m.sbaTRX && ts == m.sbaTS
	if !listening {
		return
	}
	if lost {
		return
	}
	b := d.Payload
	// USF: every block carries it in octet 0.
	if m.ul.active && m.ul.assigned && !m.ul.done && m.ul.trx == d.TRX && m.ul.slots&(1<<ts) != 0 && b[0]&7 == m.ul.usf[ts] {
		m.ulHeard = d.FN
		m.ulTransmit(ulBlockFN(d.FN), ts)
	}
	if len(b) != rlcmac.ControlBlockLen && rlcmac.CSFromDLLen(len(b)).IsEGPRS() {
		m.dlDataEGPRS(d)
		return
	}
	switch b[0] >> 6 {
	case rlcmac.PTData:
		m.cell.Blocks.Data++
		m.dlData(d)
	case rlcmac.PTControl, rlcmac.PTControlOpt:
		m.dlControl(d)
	}
}

func (m *MS) dlData(d pcuif.Data) {
	if !m.dl.active || m.dl.trx != d.TRX || m.dl.slots&(1<<d.TS) == 0 {
		return
	}
	var h rlcmac.GPRSDLHeader
	if err := h.Unmarshal(d.Payload); err != nil || h.TFI != m.dl.tfi {
		return
	}
	m.dlHeard = d.FN
	cs := rlcmac.CSFromDLLen(len(d.Payload))
	if !cs.IsGPRS() {
		return
	}
	if h.FBI && m.BeforeFinalData != nil {
		m.BeforeFinalData()
		if m.Mute {
			return
		}
	}
	m.receiveUnit(int(h.BSN), d.Payload[3:3+cs.DataLen()], unitHdr{h.E, h.FBI})
	if h.FBI {
		m.dl.finalRx = true
	}
	if h.SP && !m.dl.egprs {
		final := m.dl.finalRx && m.dl.rw.Complete()
		a := rlcmac.PacketDownlinkAckNack{DownlinkTFI: m.dl.tfi, AckNack: m.dl.rw.GPRSAckNack(final), Quality: m.DLQuality}
		a.HasChanReq, a.ChanReq = m.chanReq(d, h.RRBP)
		m.sendAck(d, h.RRBP, &a, final)
	}
}

// chanReq is the Channel Request Description of a DL Ack/Nack (sent on
// the PDCH of d in the block RRBP names): asked for when UL data waits, no
// UL TBF exists and no request is pending. It starts T3168 (TS 44.060
// §8.1.2.5): the MS asks again only once T3168 expires without a Packet
// Uplink Assignment, not in every DL Ack/Nack (after a Packet Resource
// Request in the final Packet Uplink Ack/Nack's poll, osmo-pcu 1.1.0
// assigned a second UL TBF for a second request).
func (m *MS) chanReq(d pcuif.Data, rrbp uint8) (bool, rlcmac.ChannelRequestDescription) {
	if len(m.ulQueue) == 0 || m.ul.active || m.waitPUA != 0 {
		return false, rlcmac.ChannelRequestDescription{}
	}
	m.sbaTRX, m.sbaTS = d.TRX, d.TS
	m.waitPUA = (rrbpFN(d.FN, rrbp) + 4*217) % pcuif.MaxFN // T3168
	return true, rlcmac.ChannelRequestDescription{RLCOctetCount: uint16(min(len(m.ulQueue[0]), 0xffff))}
}

// sendAck answers a DL poll with the Ack/Nack a; after the final one the
// MS keeps listening on the PACCH for a new assignment (T3192).
func (m *MS) sendAck(d pcuif.Data, rrbp uint8, a rlcmac.Message, final bool) {
	fn := rrbpFN(d.FN, rrbp)
	m.sendCtrl(fn, d.TRX, d.TS, a)
	m.Polls++
	if final {
		// TS 44.060 §9.3.2.4: T3192 starts, the MS keeps listening on
		// the TBF's PDCHs for a new assignment until it ends
		m.dl.active = false
		m.dl.waitRelease = true
		m.dl.releaseFN = (fn + t3192Frames) % pcuif.MaxFN
	}
}

// receiveUnit stores a DL data unit in the receive window and delivers
// the LLC frames V(Q) passes.
func (m *MS) receiveUnit(bsn int, data []byte, h unitHdr) {
	if ok, dup := m.dl.rw.Receive(bsn); ok && !dup {
		m.dl.units[bsn] = append([]byte(nil), data...)
		m.dl.hdr[bsn] = h
		from := m.dl.rw.VQ()
		for n := m.dl.rw.RaiseVQ(); n > 0; n-- {
			m.reassembleDL(from)
			from = (from + 1) % m.dl.rw.SNS()
		}
	}
}

// dlDataEGPRS receives an EGPRS DL data block (one or two units).
func (m *MS) dlDataEGPRS(d pcuif.Data) {
	if !m.dl.active || !m.dl.egprs || m.dl.trx != d.TRX || m.dl.slots&(1<<d.TS) == 0 {
		return
	}
	var blk rlcmac.EGPRSDLBlock
	if err := blk.Parse(d.Payload); err != nil || blk.Header.TFI != m.dl.tfi {
		return
	}
	m.cell.Blocks.Data++
	if m.cell.DataCS == nil {
		m.cell.DataCS = map[rlcmac.CodingScheme]int{}
	}
	m.cell.DataCS[blk.CS]++
	h := &blk.Header
	dl := blk.CS.DataLen()
	if h.SPB != 0 {
		// half of a resegmented unit (SPB 2 first, 3 second, §10.4.8b)
		bsn := int(h.BSN1)
		if h.SPB == 2 {
			if m.dl.spbHalf == nil {
				m.dl.spbHalf = map[int][]byte{}
			}
			m.dl.spbHalf[bsn] = append([]byte(nil), blk.Data[0][:dl]...)
		} else if first, ok := m.dl.spbHalf[bsn]; ok && h.SPB == 3 {
			delete(m.dl.spbHalf, bsn)
			if h.FBI[0] {
				m.dl.finalRx = true
			}
			m.receiveUnit(bsn, append(first, blk.Data[0][:dl]...), unitHdr{h.E[0], h.FBI[0]})
		}
		m.SplitBlocks++
	}
	for i := 0; i < blk.NUnits && h.SPB == 0; i++ {
		bsn := int(h.BSN1)
		if i == 1 {
			bsn = int(h.BSN2)
		}
		if h.FBI[i] {
			m.dl.finalRx = true
		}
		m.receiveUnit(bsn, blk.Data[i][:dl], unitHdr{h.E[i], h.FBI[i]})
	}
	if h.ESP != 0 {
		final := m.dl.finalRx && m.dl.rw.Complete()
		a := rlcmac.EGPRSPacketDownlinkAckNack{DownlinkTFI: m.dl.tfi}
		// room for the bitmap after the other fields of the 23-octet block
		a.AckNack = m.dl.rw.EGPRSAckNack(final, 120)
		a.HasChanReq, a.ChanReq = m.chanReq(d, h.RRBP)
		m.sendAck(d, h.RRBP, &a, final)
	}
}

func (m *MS) reassembleDL(bsn int) {
	h := m.dl.hdr[bsn]
	data := m.dl.units[bsn]
	var u rlcmac.ULUnit
	if err := rlcmac.ParseULUnit(data, m.dl.egprs, h.e, false, false, h.fbi, &u); err != nil {
		return
	}
	for i := 0; i < u.N; i++ {
		c := u.Chunks[i]
		m.dl.llcBuf = append(m.dl.llcBuf, data[c.Off:c.Off+c.Len]...)
		if !c.Complete {
			continue
		}
		f := m.dl.llcBuf
		m.dl.llcBuf = nil
		if len(f) == 0 || llc.IsDummy(f) {
			continue
		}
		m.DLFrames++
		m.DLOctets += len(f)
		if m.OnLLC != nil {
			m.OnLLC(f)
		}
	}
}

func (m *MS) sendCtrl(fn uint32, trx, ts uint8, msg rlcmac.Message) {
	out := make([]byte, rlcmac.ControlBlockLen)
	if _, err := rlcmac.EncodeUL(out, &rlcmac.ULCtrlHeader{}, msg); err != nil {
		panic(err)
	}
	m.cell.queueULOffs(fn, trx, ts, out, m.burstOffset())
}

// burstOffset is how late the MS's bursts arrive: its distance minus the
// timing advance it applies (quarter bits).
func (m *MS) burstOffset() int16 { return int16(m.DistanceQbits - 4*int(m.ta)) }

// TA is the timing advance the MS applies; TAI its Timing Advance Index
// (-1: none) and TAFromPTCCH the last TA it read in its PTCCH/D slot (-1:
// none).
func (m *MS) TA() int          { return int(m.ta) }
func (m *MS) TAI() int         { return m.tai }
func (m *MS) TAFromPTCCH() int { return m.taPTCCH }

// TAFromAck is the TA of the last Packet Uplink Ack/Nack (-1: none).
func (m *MS) TAFromAck() int { return m.taPUAN }

// setTA applies a Packet Timing Advance IE.
func (m *MS) setTA(t *rlcmac.PacketTimingAdvance) {
	if t.HasValue {
		m.ta = t.Value
	}
	if t.HasIndex {
		m.tai, m.taiTS = int(t.Index), t.TN
	}
}

// ptcch reads the MS's slot of a PTCCH/D block.
func (m *MS) ptcch(d pcuif.Data) {
	if m.tai < 0 || d.TS != m.taiTS || len(d.Payload) < 16 {
		return
	}
	if v := d.Payload[m.tai]; v != 0x7f {
		m.ta, m.taPTCCH = v&0x3f, int(v&0x3f)
	}
}

func (m *MS) dlControl(d pcuif.Data) {
	h, msg, err := rlcmac.DecodeDL(d.Payload)
	if err != nil {
		return
	}
	if m.BeforeControl != nil {
		if _, dummy := msg.(*rlcmac.PacketDownlinkDummyControlBlock); !dummy {
			m.BeforeControl(msg)
			if m.Mute {
				return
			}
		}
	}
	switch x := msg.(type) {
	case *rlcmac.PacketDownlinkDummyControlBlock:
		m.cell.Blocks.Dummy++
		return
	case *rlcmac.PacketUplinkAckNack:
		m.cell.Blocks.Control++
		if !m.ul.active || m.ul.trx != d.TRX || x.UplinkTFI != m.ul.tfi {
			return
		}
		if x.HasContentionTLLI && x.ContentionTLLI == m.TLLI {
			m.ul.contention = true
		}
		if x.HasTA {
			m.setTA(&x.TA)
			if x.TA.HasValue {
				m.taPUAN = int(x.TA.Value)
			}
		}
		final := x.AckNack.FinalAck
		if x.EGPRS {
			// the MCS for new blocks and retransmissions (TS 44.060 §8.1.1.2)
			if cs := rlcmac.CSFromCommand(x.ChannelCoding, true); cs != rlcmac.CSUnknown {
				m.cs = cs
			}
			m.ul.reseg = x.Resegment
			m.ul.sw.ApplyEGPRSAckNack(&x.EGPRSAckNack)
			final = x.EGPRSAckNack.FinalAck
		} else {
			m.ul.sw.ApplyGPRSAckNack(&x.AckNack)
		}
		if final {
			m.ul.done = true
			m.ul = ulState{}
			if !h.SP {
				break
			}
			fn := rrbpFN(d.FN, h.RRBP)
			if len(m.ulQueue) > 0 && x.TBFEst && !m.NoReuse {
				// data came during the countdown: ask for the next TBF in
				// the final ack's poll (TS 44.060 §9.3.3.3) and listen here
				// for its assignment
				prr := &rlcmac.PacketResourceRequest{ID: rlcmac.ULID{IsTLLI: true, TLLI: m.TLLI},
					ChanReq: rlcmac.ChannelRequestDescription{RLCOctetCount: uint16(min(len(m.ulQueue[0]), 0xffff))}}
				if m.Class > 0 {
					prr.HasRAC = true
					prr.RAC = msRAC(m.Class, m.EGPRSClass)
				}
				m.sbaTRX, m.sbaTS = d.TRX, d.TS
				m.sendCtrl(fn, d.TRX, d.TS, prr)
				m.waitPUA = (fn + 4*217) % pcuif.MaxFN // T3168
				m.ULReuses++
				break
			}
			m.sendCtrl(fn, d.TRX, d.TS, &rlcmac.PacketControlAck{TLLI: m.TLLI, CtrlAck: 3})
		}
	case *rlcmac.PacketDownlinkAssignment:
		m.cell.Blocks.Control++
		if !m.addressed(&x.ID, d.TRX) {
			return
		}
		slots := reverse(x.TimeslotAlloc)
		m.setTA(&x.TA)
		ws := 0
		if x.HasEGPRS {
			ws = rlcmac.EGPRSWindowSize(x.WindowSize)
		}
		m.startDL(m.cell.freqTRX(x.HasFreq, &x.Freq, d.TRX), x.DownlinkTFI, slots, ws)
		if h.SP {
			m.sendCtrl(rrbpFN(d.FN, h.RRBP), d.TRX, d.TS, &rlcmac.PacketControlAck{TLLI: m.TLLI, CtrlAck: 3})
		}
	case *rlcmac.PacketUplinkAssignment:
		m.cell.Blocks.Control++
		if !m.addressed(&x.ID, d.TRX) {
			return
		}
		if m.ul.active {
			// the network repeats the assignment of the TBF the MS already
			// uses (its Control Ack was lost): acknowledge it again
			if x.Dynamic.HasUplinkTFI && x.Dynamic.UplinkTFI == m.ul.tfi && h.SP {
				m.sendCtrl(rrbpFN(d.FN, h.RRBP), d.TRX, d.TS, &rlcmac.PacketControlAck{TLLI: m.TLLI, CtrlAck: 3})
			}
			// Over a real BTS only: a new TFI reassigns the running TBF
			// (TS 44.060 §8.1.1.1.2: the MS acts on the latest
			// assignment; osmo-pcu 1.1.0 sends a second assignment when
			// the MS asked twice, in a Packet Resource Request and in a
			// DL Ack/Nack).
			if m.cell.rt && x.Dynamic.HasUplinkTFI && x.Dynamic.UplinkTFI != m.ul.tfi {
				var slots uint8
				for ts := 0; ts < 8; ts++ {
					if x.Dynamic.HasUSF[ts] {
						slots |= 1 << ts
						m.ul.usf[ts] = x.Dynamic.USF[ts]
					}
				}
				m.ul.tfi, m.ul.slots = x.Dynamic.UplinkTFI, slots
				m.ulHeard = d.FN
				m.ul.trx = m.cell.freqTRX(x.HasFreq, &x.Freq, d.TRX)
				m.ULReassigned++
				if h.SP {
					m.sendCtrl(rrbpFN(d.FN, h.RRBP), d.TRX, d.TS, &rlcmac.PacketControlAck{TLLI: m.TLLI, CtrlAck: 3})
				}
			}
			return
		}
		var slots uint8
		var usf [8]uint8
		for ts := 0; ts < 8; ts++ {
			if x.Dynamic.HasUSF[ts] {
				slots |= 1 << ts
				usf[ts] = x.Dynamic.USF[ts]
			}
		}
		m.cs = rlcmac.CSFromCommand(x.ChannelCoding, x.EGPRS)
		m.waitPUA = 0
		m.setTA(&x.TA)
		ws := 0
		if x.EGPRS {
			ws = rlcmac.EGPRSWindowSize(x.WindowSize)
		}
		m.startULWS(m.cell.freqTRX(x.HasFreq, &x.Freq, d.TRX), x.Dynamic.UplinkTFI, slots, usf, true, ws)
		m.ul.reseg = x.Resegment
		if h.SP {
			m.sendCtrl(rrbpFN(d.FN, h.RRBP), d.TRX, d.TS, &rlcmac.PacketControlAck{TLLI: m.TLLI, CtrlAck: 3})
		}
	default:
		m.cell.Blocks.Control++
		m.naccDL(d, h, msg)
	}
}

// addressed reports whether a Global TFI (TFIs are per TRX) / TLLI in a
// message received on trx identifies this MS.
func (m *MS) addressed(id *rlcmac.MSID, trx uint8) bool {
	switch id.Kind {
	case rlcmac.IDTLLI:
		return id.TLLI == m.TLLI
	case rlcmac.IDGlobalTFI:
		if id.GlobalTFI.Downlink {
			return (m.dl.active || m.dl.waitRelease) && m.dl.trx == trx && id.GlobalTFI.TFI == m.dl.tfi
		}
		return m.ul.active && m.ul.trx == trx && id.GlobalTFI.TFI == m.ul.tfi
	}
	return false
}

// iaTRX is the TRX an Immediate Assignment's packet channel is on: the
// one with its ARFCN (a hopping channel: the first TRX).
func (c *Cell) iaTRX(ia *rlcmac.ImmediateAssignment) uint8 {
	if ia.Hopping {
		return 0
	}
	return c.trxOf(ia.ARFCN, 0)
}

// freqTRX is the TRX a Packet Assignment's Frequency Parameters name (an
// ARFCN); without them, or hopping, the TRX the message came on (def).
func (c *Cell) freqTRX(has bool, f *rlcmac.FrequencyParameters, def uint8) uint8 {
	if !has || f.Kind != 0 {
		return def
	}
	return c.trxOf(f.ARFCN, def)
}

func (c *Cell) trxOf(arfcn uint16, def uint8) uint8 {
	info := c.air.Info()
	for i := range info.TRX {
		if info.TRX[i].PDCHMask != 0 && info.TRX[i].ARFCN == arfcn {
			return uint8(i)
		}
	}
	return def
}

func reverse(x uint8) uint8 {
	var r uint8
	for i := 0; i < 8; i++ {
		if x&(0x80>>i) != 0 {
			r |= 1 << i
		}
	}
	return r
}

// Frame arithmetic (TS 45.002), mirrored from the BTS emulator.

func ulBlockFN(fn uint32) uint32 { return btsemu.NextBlockFN(fn) }

// tbfWatchdogFrames is 5 s of frames (see beforeBlock).
const tbfWatchdogFrames = 5000 * 26 / 120

// t3192Frames is T3192's SI13 default, 1500 ms, in TDMA frames.
const t3192Frames = 1500 * 26 / 120

func rrbpFN(fn uint32, rrbp uint8) uint32 {
	add := func(d uint32) uint32 { return (fn + d) % pcuif.MaxFN }
	switch rrbp {
	case 0:
		return add(13)
	case 1:
		if f := add(17); btsemu.BlockNr(f) >= 0 {
			return f
		}
		return add(18)
	case 2:
		if f := add(21); btsemu.BlockNr(f) >= 0 {
			return f
		}
		return add(22)
	}
	return add(26)
}

func fnDelta(a, b uint32) int {
	d := (int64(a) - int64(b)) % pcuif.MaxFN
	if d > pcuif.MaxFN/2 {
		d -= pcuif.MaxFN
	} else if d <= -pcuif.MaxFN/2 {
		d += pcuif.MaxFN
	}
	return int(d)
}

// Debug summarises the MS's state (for test failure messages).
func (m *MS) Debug() string {
	return fmt.Sprintf("ul{active=%v tfi=%d next=%d/%d vs=%d va=%d contention=%v} dl{active=%v egprs=%v tfi=%d slots=%#x vq=%d vr=%d final=%v waitRelease=%v} rach=%v queue=%d polls=%d",
		m.ul.active, m.ul.tfi, m.ul.next, len(m.ul.blocks), m.ul.sw.VS(), m.ul.sw.VA(), m.ul.contention,
		m.dl.active, m.dl.egprs, m.dl.tfi, m.dl.slots, m.dl.rw.VQ(), m.dl.rw.VR(), m.dl.finalRx, m.dl.waitRelease, m.rachWait, len(m.ulQueue), m.Polls)
}

// ULActive reports whether the MS has an uplink TBF.
func (m *MS) ULActive() bool { return m.ul.active }

// startFN finds the frame at or after from whose T1'/T3/T2 are given
// (TS 44.018 §10.5.2.38: the starting time is an RFN).
func startFN(from uint32, t1, t3, t2 uint8) uint32 {
	for d := uint32(0); d < 42432; d++ {
		f := (from + d) % pcuif.MaxFN
		a, b, c := rlcmac.StartingTimeFromFN(f)
		if a == t1 && b == t3 && c == t2 {
			return f
		}
	}
	return from
}

// msRAC is an MS Radio Access Capability with a GPRS multislot class.
func msRAC(class, egprsClass int) rlcmac.MSRadioAccessCapability {
	var r rlcmac.MSRadioAccessCapability
	r.N = 1
	r.Values[0].AccessTech = 3 // DCS 1800
	r.Values[0].RFPowerCap = 1
	r.Values[0].HasMultislot = true
	r.Values[0].Multislot.HasGPRS = true
	r.Values[0].Multislot.GPRSClass = uint8(class)
	if egprsClass > 0 {
		r.Values[0].Multislot.HasEGPRS = true
		r.Values[0].Multislot.EGPRSClass = uint8(egprsClass)
	}
	return r
}

// ULCS is the (M)CS the network last commanded for the MS's uplink.
func (m *MS) ULCS() rlcmac.CodingScheme { return m.cs }
