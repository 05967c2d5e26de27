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
	"time"

	"github.com/gopcu/gopcu/internal/emu/btsemu"
	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/rlcmac"
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
	// Trace, if set, is told of the steps of each uplink transfer (lab
	// timelines: tests/labnet labms -ul-trace): "ulq" an LLC frame queued
	// (n: octets), "rach" an access burst, "crd" a Channel Request
	// Description in a DL Ack/Nack, "ia" an UL TBF on CCCH, "pua" a Packet
	// Uplink Assignment (n: UL slots), "ul" an UL data block sent (n: its
	// index in the TBF, resends included), "dlf" a DL LLC frame (n:
	// octets); fn is the frame number.
	Trace func(ev string, n int, fn uint32)
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
	// IgnoreDLAssignment makes the MS neither act on nor answer a Packet
	// Downlink Assignment (its poll goes unanswered; osmo-ttcn3-hacks
	// PCU_Tests.ttcn TC_x2001_pacch_pkt_dl_ass_unanswered_timeout).
	IgnoreDLAssignment bool
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
	// Aborted counts the TBFs the MS gave up: a DL TBF after T3190, an
	// UL TBF after TBFWatchdog without USF (real-time air only).
	Aborted int
	// IgnoredDLImmAss counts the IMMEDIATE ASSIGNMENTs on CCCH for a
	// downlink TBF of the MS that came while it was in packet transfer
	// mode (a DL or UL TBF running) and that it did not act on.
	IgnoredDLImmAss int
	// ulHeard and dlHeard are the FNs of the last USF for the MS's UL TBF
	// (real-time air only) and of its DL TBF's assignment or last data
	// block (T3190).
	ulHeard, dlHeard uint32

	// Statistics. ULFrames and ULOctets count frames when they are
	// segmented into a TBF's blocks; ULBlocks counts the uplink radio
	// blocks that carried data (an MCS-7..9 block with two units counts
	// once, a unit split in two SPB blocks twice); ULResent counts the
	// RLC data units sent again.
	DLFrames, DLOctets, ULFrames, ULOctets int
	ULBlocks, ULResent                     int
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
	cvStarted  bool                         // a block with CV < 15 was sent: no more data joins
	egprs      bool                         // EGPRS TBF: MCS blocks, EGPRS window and Ack/Nack
	mcs        []rlcmac.CodingScheme        // per block: the (M)CS it was segmented for
	reseg      bool                         // RESEGMENT of the last assignment or Ack/Nack
	spbSecond  int                          // index+1 of a split unit whose second half is due
	putBack    [rlcmac.EGPRSSNS / 64]uint64 // BSNs taken as new, put back unsent (ULResent)
}

// SendLLC queues an uplink LLC frame; the MS requests an UL TBF for it.
func (m *MS) SendLLC(frame []byte) {
	m.ulQueue = append(m.ulQueue, append([]byte(nil), frame...))
	m.trace("ulq", len(frame))
}

// trace tells Trace of ev.
func (m *MS) trace(ev string, n int) {
	if m.Trace != nil {
		m.Trace(ev, n, m.cell.air.FN())
	}
}

// Busy reports whether the MS has a TBF or pending access.
func (m *MS) Busy() bool { return m.dl.active || m.ul.active || m.rachWait }

// ULPending is the number of LLC frames not yet handed to an UL TBF.
func (m *MS) ULPending() int { return len(m.ulQueue) }

// TA is the timing advance the MS applies; TAI its Timing Advance Index
// (-1: none) and TAFromPTCCH the last TA it read in its PTCCH/D slot (-1:
// none).
func (m *MS) TA() int          { return int(m.ta) }
func (m *MS) TAI() int         { return m.tai }
func (m *MS) TAFromPTCCH() int { return m.taPTCCH }

// TAFromAck is the TA of the last Packet Uplink Ack/Nack (-1: none).
func (m *MS) TAFromAck() int { return m.taPUAN }

// Debug summarises the MS's state (for test failure messages).
func (m *MS) Debug() string {
	return fmt.Sprintf("ul{active=%v tfi=%d next=%d/%d vs=%d va=%d contention=%v} dl{active=%v egprs=%v tfi=%d slots=%#x vq=%d vr=%d final=%v waitRelease=%v} rach=%v queue=%d polls=%d",
		m.ul.active, m.ul.tfi, m.ul.next, len(m.ul.blocks), m.ul.sw.VS(), m.ul.sw.VA(), m.ul.contention,
		m.dl.active, m.dl.egprs, m.dl.tfi, m.dl.slots, m.dl.rw.VQ(), m.dl.rw.VR(), m.dl.finalRx, m.dl.waitRelease, m.rachWait, len(m.ulQueue), m.Polls)
}

// ULActive reports whether the MS has an uplink TBF.
func (m *MS) ULActive() bool { return m.ul.active }

// msRAC is an MS Radio Access Capability with a GPRS multislot class.
func msRAC(class, egprsClass int) rlcmac.MSRadioAccessCapability {
	return rlcmac.NewMultislotRAC(class, egprsClass)
}

// ULCS is the (M)CS the network last commanded for the MS's uplink.
func (m *MS) ULCS() rlcmac.CodingScheme { return m.cs }
