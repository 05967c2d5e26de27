package pcu

import (
	"bytes"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/gopcu/gopcu/bssgp"
	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/rlcmac"
)

// fakeNACCEnv records what the state machine asks for.
type fakeNACCEnv struct {
	neigh    map[neighKey]bssgp.CellID
	local    map[bssgp.CellID]siInfo
	si       map[bssgp.CellID]siInfo
	neighReq []neighKey
	rimReq   []bssgp.CellID
	neighErr error
	rimErr   error
}

func (f *fakeNACCEnv) neighLookup(k neighKey) (bssgp.CellID, bool) { c, ok := f.neigh[k]; return c, ok }
func (f *fakeNACCEnv) neighRequest(k neighKey) error {
	f.neighReq = append(f.neighReq, k)
	return f.neighErr
}
func (f *fakeNACCEnv) localSI(c bssgp.CellID) (siInfo, bool)  { s, ok := f.local[c]; return s, ok }
func (f *fakeNACCEnv) siLookup(c bssgp.CellID) (siInfo, bool) { s, ok := f.si[c]; return s, ok }
func (f *fakeNACCEnv) rimRequest(c bssgp.CellID) error {
	f.rimReq = append(f.rimReq, c)
	return f.rimErr
}
func (f *fakeNACCEnv) timeouts() (time.Duration, time.Duration) { return time.Second, 2 * time.Second }

var (
	naccTgt   = bssgp.CellID{RAI: bssgp.RAI{MCC: 901, MNC: 70, LAC: 2, RAC: 3}, CI: 7000}
	naccTgt2  = bssgp.CellID{RAI: bssgp.RAI{MCC: 901, MNC: 70, LAC: 2, RAC: 3}, CI: 7001}
	quietLog  = slog.New(slog.NewTextHandler(discard{}, nil))
	naccKey1  = neighKey{LocalLAC: 1, LocalCI: 6969, ARFCN: 871, BSIC: 63}
	naccKey2  = neighKey{LocalLAC: 1, LocalCI: 6969, ARFCN: 880, BSIC: 10}
	pccnGSM   = &rlcmac.PacketCellChangeNotification{ARFCN: 871, BSIC: 63}
	pccnGSM2  = &rlcmac.PacketCellChangeNotification{ARFCN: 880, BSIC: 10}
	pccnUTRAN = &rlcmac.PacketCellChangeNotification{Target: rlcmac.PCCNTarget3G, Has3G: true,
		UTRAN: rlcmac.PCCN3GTarget{HasFDD: true, FDDARFCN: 10700}}
	pccnEUTRAN = &rlcmac.PacketCellChangeNotification{Target: rlcmac.PCCNTargetRel8, HasEUTRAN: true,
		EUTRAN: rlcmac.PCCNEUTRANTarget{EARFCN: 6300, PCID: 7}}
)

type discard struct{}

func (discard) Write(b []byte) (int, error) { return len(b), nil }

func seqSI(n int) siInfo {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i + 1)
	}
	return siInfo{buf: b}
}

func newTestFSM(env *fakeNACCEnv) *naccFSM { return newNACCFSM(env, 1, 6969, quietLog) }

func wantState(t *testing.T, f *naccFSM, s naccState) {
	t.Helper()
	if f.state != s {
		t.Fatalf("state %s, want %s", f.state, s)
	}
}

// TestNACCFullRun: resolution over the BSC, SI over RIM, four Packet
// Neighbour Cell Data for SI1+SI3+SI13 (63 octets: 16 + 18 + 18 + 11), the
// Continue, its poll lost once, then acknowledged.
func TestNACCFullRun(t *testing.T) {
	env := &fakeNACCEnv{}
	f := newTestFSM(env)
	f.rxNotification(pccnGSM, 0)
	wantState(t, f, naccWaitResolve)
	if len(env.neighReq) != 1 || env.neighReq[0] != naccKey1 {
		t.Fatalf("resolution requests %+v", env.neighReq)
	}
	f.rxRACCI(naccKey2, &naccTgt2, 10*time.Millisecond) // another key: not ours
	wantState(t, f, naccWaitResolve)
	f.rxRACCI(naccKey1, &naccTgt, 20*time.Millisecond)
	wantState(t, f, naccWaitSI)
	if len(env.rimReq) != 1 || env.rimReq[0] != naccTgt {
		t.Fatalf("RIM requests %+v", env.rimReq)
	}
	f.rxSI(naccTgt2, seqSI(5), 30*time.Millisecond) // another cell
	wantState(t, f, naccWaitSI)
	si := seqSI(63)
	f.rxSI(naccTgt, si, 40*time.Millisecond)
	wantState(t, f, naccTxNeighbourData)
	f.tick(10 * time.Second) // no timer runs in TX_NEIGHBOUR_DATA
	wantState(t, f, naccTxNeighbourData)

	tfi := rlcmac.GlobalTFI{Downlink: true, TFI: 3}
	var got []byte
	for i, want := range []struct {
		cd  byte
		n   int
		max int
	}{{31, 16, 17}, {31, 18, 19}, {31, 18, 19}, {11, 11, 19}} {
		if !f.rts() {
			t.Fatalf("message %d: not ready", i)
		}
		m := f.neighbourData(tfi, time.Second)
		if m.ContainerIndex != uint8(i) || m.HasID != (i == 0) || m.GlobalTFI != tfi {
			t.Fatalf("message %d: %+v", i, m)
		}
		if i == 0 && (m.ARFCN != 871 || m.BSIC != 63) {
			t.Fatalf("first message ARFCN/BSIC %d/%d", m.ARFCN, m.BSIC)
		}
		c := m.Container[:want.max]
		if c[0] != want.cd {
			t.Fatalf("message %d: PD/CD_LENGTH %#x, want %#x", i, c[0], want.cd)
		}
		got = append(got, c[1:1+want.n]...)
		for _, z := range c[1+want.n:] {
			if z != 0 {
				t.Fatalf("message %d: padding %x", i, c)
			}
		}
	}
	if !bytes.Equal(got, si.buf) {
		t.Fatalf("SI sent %x, want %x", got, si.buf)
	}
	wantState(t, f, naccTxContinue)
	c := f.cellChangeContinue(tfi)
	if !c.HasID || c.ARFCN != 871 || c.BSIC != 63 || c.ContainerID != 0 || c.GlobalTFI != tfi {
		t.Fatalf("continue %+v", c)
	}
	f.continueSent(1234, 5, time.Second)
	wantState(t, f, naccWaitContinueAck)
	if f.rts() || f.expectsAck(1234, 4) || f.expectsAck(1230, 5) || !f.expectsAck(1234, 5) {
		t.Fatal("poll matching")
	}
	f.continueTimeout(2 * time.Second) // X12-style: resent on a missed poll
	wantState(t, f, naccTxContinue)
	f.continueSent(1300, 5, 2*time.Second)
	f.rxControlAck(3 * time.Second)
	wantState(t, f, naccDone)
	if f.terminated {
		t.Fatal("regular end marked as error")
	}
}

// TestNACCExactFit: SI filling the containers exactly needs one more,
// empty, Packet Neighbour Cell Data (CD_LENGTH 0).
func TestNACCExactFit(t *testing.T) {
	env := &fakeNACCEnv{neigh: map[neighKey]bssgp.CellID{naccKey1: naccTgt}, si: map[bssgp.CellID]siInfo{naccTgt: seqSI(34)}}
	f := newTestFSM(env)
	f.rxNotification(pccnGSM, 0)
	wantState(t, f, naccTxNeighbourData) // both caches hit
	if len(env.neighReq) != 0 || len(env.rimReq) != 0 {
		t.Fatal("requests despite cache hits")
	}
	var cds []byte
	for f.state == naccTxNeighbourData {
		m := f.neighbourData(rlcmac.GlobalTFI{}, 0)
		cds = append(cds, m.Container[0])
	}
	if !bytes.Equal(cds, []byte{31, 31, 0}) {
		t.Fatalf("CD_LENGTHs %v", cds)
	}
}

// TestNACCPSI: PSI are sent with PD 001.
func TestNACCPSI(t *testing.T) {
	env := &fakeNACCEnv{local: map[bssgp.CellID]siInfo{naccTgt: {psi: true, buf: make([]byte, 22)}},
		neigh: map[neighKey]bssgp.CellID{naccKey1: naccTgt}}
	f := newTestFSM(env)
	f.rxNotification(pccnGSM, 0)
	wantState(t, f, naccTxNeighbourData) // a local cell: no RIM
	m := f.neighbourData(rlcmac.GlobalTFI{}, 0)
	if m.Container[0] != 1<<5|31 {
		t.Fatalf("PD/CD %#x", m.Container[0])
	}
	m = f.neighbourData(rlcmac.GlobalTFI{}, 0)
	if m.Container[0] != 1<<5|6 {
		t.Fatalf("PD/CD %#x", m.Container[0])
	}
	wantState(t, f, naccTxContinue)
}

// TestNACCTimeouts: X1 and X2 expire into TX_CELL_CHG_CONTINUE, the
// Continue still names the GSM target.
func TestNACCTimeouts(t *testing.T) {
	env := &fakeNACCEnv{}
	f := newTestFSM(env)
	f.rxNotification(pccnGSM, 100*time.Millisecond)
	f.tick(100*time.Millisecond + 999*time.Millisecond)
	wantState(t, f, naccWaitResolve)
	f.tick(1100 * time.Millisecond) // X1 = 1 s
	wantState(t, f, naccTxContinue)
	if c := f.cellChangeContinue(rlcmac.GlobalTFI{}); !c.HasID || c.ARFCN != 871 {
		t.Fatalf("continue %+v", c)
	}
	// a late answer changes nothing
	f.rxRACCI(naccKey1, &naccTgt, 1200*time.Millisecond)
	wantState(t, f, naccTxContinue)

	env = &fakeNACCEnv{neigh: map[neighKey]bssgp.CellID{naccKey1: naccTgt}}
	f = newTestFSM(env)
	f.rxNotification(pccnGSM, 0)
	wantState(t, f, naccWaitSI)
	f.tick(1500 * time.Millisecond)
	wantState(t, f, naccWaitSI)
	f.tick(2 * time.Second) // X2 = 2 s here
	wantState(t, f, naccTxContinue)
	f.rxSI(naccTgt, seqSI(21), 3*time.Second)
	wantState(t, f, naccTxContinue)
}

// TestNACCFailures: a failed request, a failed resolution, an RIM send
// error all go straight to TX_CELL_CHG_CONTINUE.
func TestNACCFailures(t *testing.T) {
	f := newTestFSM(&fakeNACCEnv{neighErr: errors.New("no BTS")})
	f.rxNotification(pccnGSM, 0)
	wantState(t, f, naccTxContinue)

	f = newTestFSM(&fakeNACCEnv{})
	f.rxNotification(pccnGSM, 0)
	f.rxRACCI(naccKey1, nil, 0)
	wantState(t, f, naccTxContinue)

	f = newTestFSM(&fakeNACCEnv{neigh: map[neighKey]bssgp.CellID{naccKey1: naccTgt}, rimErr: errors.New("no Gb")})
	f.rxNotification(pccnGSM, 0)
	wantState(t, f, naccTxContinue)

	// RAN-INFORMATION-ERROR from another cell: ignored; from the target: Continue
	f = newTestFSM(&fakeNACCEnv{neigh: map[neighKey]bssgp.CellID{naccKey1: naccTgt}})
	f.rxNotification(pccnGSM, 0)
	f.rxSIError(naccTgt2, 0)
	wantState(t, f, naccWaitSI)
	f.rxSIError(naccTgt, 0)
	wantState(t, f, naccTxContinue)
}

// TestNACCRetransmissions: a duplicate PCCN changes nothing, a new GSM
// target restarts the resolution, a UTRAN target jumps to the Continue.
func TestNACCRetransmissions(t *testing.T) {
	env := &fakeNACCEnv{neigh: map[neighKey]bssgp.CellID{naccKey1: naccTgt}}
	f := newTestFSM(env)
	f.rxNotification(pccnGSM, 0)
	wantState(t, f, naccWaitSI)
	f.rxNotification(pccnGSM, 100*time.Millisecond)
	wantState(t, f, naccWaitSI)
	if len(env.rimReq) != 1 {
		t.Fatalf("duplicate PCCN re-requested SI: %d", len(env.rimReq))
	}
	f.rxNotification(pccnGSM2, 200*time.Millisecond)
	wantState(t, f, naccWaitResolve)
	if len(env.neighReq) != 1 || env.neighReq[0] != naccKey2 || f.key != naccKey2 {
		t.Fatalf("new target not resolved: %+v", env.neighReq)
	}
	// X1 restarted with the new target
	f.tick(1100 * time.Millisecond)
	wantState(t, f, naccWaitResolve)
	f.tick(1200 * time.Millisecond)
	wantState(t, f, naccTxContinue)
	// a UTRAN target while sending the Continue: nothing changes (osmo-pcu
	// refuses TX_CELL_CHG_CONTINUE -> itself)
	f.rxNotification(pccnUTRAN, 2*time.Second)
	wantState(t, f, naccTxContinue)
	f.continueSent(100, 2, 2*time.Second)
	f.rxNotification(pccnUTRAN, 3*time.Second)
	wantState(t, f, naccTxContinue)
	if c := f.cellChangeContinue(rlcmac.GlobalTFI{}); !c.HasID || c.ARFCN != 880 {
		t.Fatalf("continue after UTRAN PCCN %+v (osmo-pcu keeps the last GSM target)", c)
	}
}

// TestNACCOtherRAT: UTRAN and E-UTRAN targets get no SI: the Continue at
// once, without ARFCN/BSIC (TS 48.018 §8c.6.1); no target at all ends the
// state machine.
func TestNACCOtherRAT(t *testing.T) {
	for _, m := range []*rlcmac.PacketCellChangeNotification{pccnUTRAN, pccnEUTRAN} {
		env := &fakeNACCEnv{}
		f := newTestFSM(env)
		f.rxNotification(m, 0)
		wantState(t, f, naccTxContinue)
		if c := f.cellChangeContinue(rlcmac.GlobalTFI{}); c.HasID {
			t.Fatalf("continue names a GSM cell: %+v", c)
		}
		if len(env.neighReq)+len(env.rimReq) != 0 {
			t.Fatal("requests for a non-GSM target")
		}
	}
	f := newTestFSM(&fakeNACCEnv{})
	f.rxNotification(&rlcmac.PacketCellChangeNotification{Target: rlcmac.PCCNTargetRel8}, 0)
	wantState(t, f, naccDone)
	if !f.terminated {
		t.Fatal("invalid target not an error")
	}
}

// TestNACCCaches: entries live their keep-time, read at lookup (a `timer
// X10`/`X11` change applies to existing entries).
func TestNACCCaches(t *testing.T) {
	var n neighCache
	n.add(naccKey1, naccTgt, time.Second)
	if c, ok := n.lookup(naccKey1, 5*time.Second, 5*time.Second); !ok || c != naccTgt {
		t.Fatal("fresh entry missing")
	}
	if _, ok := n.lookup(naccKey1, 3*time.Second, 2*time.Second); ok {
		t.Fatal("entry outlived a shortened keep-time")
	}
	n.add(naccKey1, naccTgt, 0)
	n.expire(6*time.Second, 5*time.Second)
	if len(n.m) != 0 {
		t.Fatal("expired entry kept")
	}
	var s siCache
	s.add(naccTgt, seqSI(21), 0)
	three := naccTgt
	three.RAI.MNC3Digits = false
	if _, ok := s.lookup(three, 4*time.Second, 5*time.Second); !ok {
		t.Fatal("SI missing")
	}
	if _, ok := s.lookup(naccTgt, 5*time.Second, 5*time.Second); ok {
		t.Fatal("SI outlived X11")
	}
}

// TestNACCTable drives every event in every state (the env answers
// nothing by itself, so no entry action moves on) and checks the state
// reached and the timer running, against osmo-pcu nacc_fsm.c's
// transitions written out here one by one.
func TestNACCTable(t *testing.T) {
	const (
		I, R, S, N, C, A, D = naccInitial, naccWaitResolve, naccWaitSI, naccTxNeighbourData, naccTxContinue, naccWaitContinueAck, naccDone
	)
	// want[state][event]; events in naccEvent order: NEW_TARGET,
	// SAME_TARGET, NO_SI_TARGET, NO_TARGET, RAC_CI_RESOLVED, RAC_CI_FAILED,
	// SI_RECEIVED, SI_FAILED, TIMEOUT, NEIGHBOUR_DATA_SENT, CONTINUE_SENT,
	// CTRL_ACK, POLL_TIMEOUT, ABORT
	want := map[naccState][naccEvCount]naccState{
		I: {R, I, C, D, I, I, I, I, I, I, I, I, I, I},
		R: {R, R, C, C, S, C, R, R, C, R, R, R, R, D},
		S: {R, S, C, C, S, S, N, C, C, S, S, S, S, D},
		N: {R, N, C, C, N, N, N, N, N, C, N, N, N, D},
		C: {R, C, C, C, C, C, C, C, C, C, A, C, C, D},
		A: {R, A, C, C, A, A, A, A, A, A, A, D, C, D},
		D: {D, D, D, D, D, D, D, D, D, D, D, D, D, D},
	}
	timer := map[naccState]int{R: 1, S: 2}
	for from, row := range want {
		for ev := naccEvent(0); ev < naccEvCount; ev++ {
			f := newTestFSM(&fakeNACCEnv{})
			f.state, f.key, f.keyPresent = from, naccKey1, true
			f.fire(ev, &naccArg{key: naccKey2, cgi: naccTgt, si: seqSI(3)}, 0)
			if f.state != row[ev] {
				t.Errorf("%s + %s: %s, want %s", from, ev, f.state, row[ev])
				continue
			}
			moved := f.state != from || ev == naccEvNewTarget && from == R
			if wantX := timer[f.state]; moved && (f.timerOn != (wantX != 0) || f.timerOn && f.timerX != wantX) {
				t.Errorf("%s + %s -> %s: timer on %v X%d, want X%d", from, ev, f.state, f.timerOn, f.timerX, wantX)
			}
		}
	}
	// what the events carry lands in the machine
	f := newTestFSM(&fakeNACCEnv{})
	f.fire(naccEvNewTarget, &naccArg{key: naccKey2}, 0)
	f.fire(naccEvResolved, &naccArg{cgi: naccTgt2}, 0)
	f.fire(naccEvSI, &naccArg{si: seqSI(5)}, 0)
	if f.key != naccKey2 || !f.cgi.Equal(naccTgt2) || len(f.si.buf) != 5 || f.state != N || f.terminated {
		t.Fatalf("key %v cgi %v si %d state %s", f.key, f.cgi, len(f.si.buf), f.state)
	}
	f.fire(naccEvAbort, nil, 0)
	if !f.terminated {
		t.Fatal("ABORT does not mark the machine terminated")
	}
}

// TestNACCPaddedNeighAddrCnf: a NEIGH_ADDR_CNF padded to the PCUIF union
// size (1007 octets), as the Osmocom TTCN-3 suite's BTS sends every
// message (TC_nacc_outbound_success), resolves the neighbour; it was
// discarded as a bad CONTAINER length.
func TestNACCPaddedNeighAddrCnf(t *testing.T) {
	e, _ := fsmEngine(t, &fakeClock{}, nil)
	cnf := pcuif.NeighAddrCnf{Req: pcuif.NeighAddrReq{LocalLAC: 1, LocalCI: 6969, TgtARFCN: 871, TgtBSIC: 63},
		MCC: 901, MNC: 70, LAC: 2, RAC: 3, CellID: 7000}
	b := make([]byte, pcuif.V12.FullSize())
	copy(b, []byte{byte(pcuif.TypeContainer), 0, 0, 0, pcuif.ContNeighAddrCnf, 0, 0, 18})
	copy(b[8:], cnf.Marshal())
	e.handleMessage(b)
	got, ok := e.naccState().neigh.lookup(naccKey1, e.now, time.Hour)
	if !ok || got != naccTgt {
		t.Fatalf("neighbour cache %+v %v, want %+v", got, ok, naccTgt)
	}
}
