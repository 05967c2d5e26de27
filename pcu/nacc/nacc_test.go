package nacc

import (
	"bytes"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/gopcu/gopcu/bssgp"
	"github.com/gopcu/gopcu/rlcmac"
)

// fakeNACCEnv records what the state machine asks for.
type fakeNACCEnv struct {
	neigh    map[Key]bssgp.CellID
	local    map[bssgp.CellID]SI
	si       map[bssgp.CellID]SI
	neighReq []Key
	rimReq   []bssgp.CellID
	neighErr error
	rimErr   error
}

func (f *fakeNACCEnv) NeighLookup(k Key) (bssgp.CellID, bool) { c, ok := f.neigh[k]; return c, ok }
func (f *fakeNACCEnv) NeighRequest(k Key) error {
	f.neighReq = append(f.neighReq, k)
	return f.neighErr
}
func (f *fakeNACCEnv) LocalSI(c bssgp.CellID) (SI, bool)  { s, ok := f.local[c]; return s, ok }
func (f *fakeNACCEnv) SILookup(c bssgp.CellID) (SI, bool) { s, ok := f.si[c]; return s, ok }
func (f *fakeNACCEnv) RIMRequest(c bssgp.CellID) error {
	f.rimReq = append(f.rimReq, c)
	return f.rimErr
}
func (f *fakeNACCEnv) Timeouts() (time.Duration, time.Duration) { return time.Second, 2 * time.Second }

var (
	naccTgt   = bssgp.CellID{RAI: bssgp.RAI{MCC: 901, MNC: 70, LAC: 2, RAC: 3}, CI: 7000}
	naccTgt2  = bssgp.CellID{RAI: bssgp.RAI{MCC: 901, MNC: 70, LAC: 2, RAC: 3}, CI: 7001}
	quietLog  = slog.New(slog.NewTextHandler(discard{}, nil))
	naccKey1  = Key{LocalLAC: 1, LocalCI: 6969, ARFCN: 871, BSIC: 63}
	naccKey2  = Key{LocalLAC: 1, LocalCI: 6969, ARFCN: 880, BSIC: 10}
	pccnGSM   = &rlcmac.PacketCellChangeNotification{ARFCN: 871, BSIC: 63}
	pccnGSM2  = &rlcmac.PacketCellChangeNotification{ARFCN: 880, BSIC: 10}
	pccnUTRAN = &rlcmac.PacketCellChangeNotification{Target: rlcmac.PCCNTarget3G, Has3G: true,
		UTRAN: rlcmac.PCCN3GTarget{HasFDD: true, FDDARFCN: 10700}}
	pccnEUTRAN = &rlcmac.PacketCellChangeNotification{Target: rlcmac.PCCNTargetRel8, HasEUTRAN: true,
		EUTRAN: rlcmac.PCCNEUTRANTarget{EARFCN: 6300, PCID: 7}}
)

type discard struct{}

func (discard) Write(b []byte) (int, error) { return len(b), nil }

func seqSI(n int) SI {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i + 1)
	}
	return SI{Buf: b}
}

func newTestFSM(env *fakeNACCEnv) *FSM { return New(env, 1, 6969, quietLog) }

func wantState(t *testing.T, f *FSM, s State) {
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
	f.RxNotification(pccnGSM, 0)
	wantState(t, f, WaitResolve)
	if len(env.neighReq) != 1 || env.neighReq[0] != naccKey1 {
		t.Fatalf("resolution requests %+v", env.neighReq)
	}
	f.RxRACCI(naccKey2, &naccTgt2, 10*time.Millisecond) // another key: not ours
	wantState(t, f, WaitResolve)
	f.RxRACCI(naccKey1, &naccTgt, 20*time.Millisecond)
	wantState(t, f, WaitSI)
	if len(env.rimReq) != 1 || env.rimReq[0] != naccTgt {
		t.Fatalf("RIM requests %+v", env.rimReq)
	}
	f.RxSI(naccTgt2, seqSI(5), 30*time.Millisecond) // another cell
	wantState(t, f, WaitSI)
	si := seqSI(63)
	f.RxSI(naccTgt, si, 40*time.Millisecond)
	wantState(t, f, TxNeighbourData)
	f.Tick(10 * time.Second) // no timer runs in TX_NEIGHBOUR_DATA
	wantState(t, f, TxNeighbourData)

	tfi := rlcmac.GlobalTFI{Downlink: true, TFI: 3}
	var got []byte
	for i, want := range []struct {
		cd  byte
		n   int
		max int
	}{{31, 16, 17}, {31, 18, 19}, {31, 18, 19}, {11, 11, 19}} {
		if !f.RTS() {
			t.Fatalf("message %d: not ready", i)
		}
		m := f.NeighbourData(tfi, time.Second)
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
	if !bytes.Equal(got, si.Buf) {
		t.Fatalf("SI sent %x, want %x", got, si.Buf)
	}
	wantState(t, f, TxContinue)
	c := f.CellChangeContinue(tfi)
	if !c.HasID || c.ARFCN != 871 || c.BSIC != 63 || c.ContainerID != 0 || c.GlobalTFI != tfi {
		t.Fatalf("continue %+v", c)
	}
	f.ContinueSent(1234, 5, time.Second)
	wantState(t, f, WaitContinueAck)
	if f.RTS() || f.ExpectsAck(1234, 4) || f.ExpectsAck(1230, 5) || !f.ExpectsAck(1234, 5) {
		t.Fatal("poll matching")
	}
	f.ContinueTimeout(2 * time.Second) // X12-style: resent on a missed poll
	wantState(t, f, TxContinue)
	f.ContinueSent(1300, 5, 2*time.Second)
	f.RxControlAck(3 * time.Second)
	wantState(t, f, Done)
	if f.terminated {
		t.Fatal("regular end marked as error")
	}
}

// TestNACCExactFit: SI filling the containers exactly needs one more,
// empty, Packet Neighbour Cell Data (CD_LENGTH 0).
func TestNACCExactFit(t *testing.T) {
	env := &fakeNACCEnv{neigh: map[Key]bssgp.CellID{naccKey1: naccTgt}, si: map[bssgp.CellID]SI{naccTgt: seqSI(34)}}
	f := newTestFSM(env)
	f.RxNotification(pccnGSM, 0)
	wantState(t, f, TxNeighbourData) // both caches hit
	if len(env.neighReq) != 0 || len(env.rimReq) != 0 {
		t.Fatal("requests despite cache hits")
	}
	var cds []byte
	for f.state == TxNeighbourData {
		m := f.NeighbourData(rlcmac.GlobalTFI{}, 0)
		cds = append(cds, m.Container[0])
	}
	if !bytes.Equal(cds, []byte{31, 31, 0}) {
		t.Fatalf("CD_LENGTHs %v", cds)
	}
}

// TestNACCPSI: PSI are sent with PD 001.
func TestNACCPSI(t *testing.T) {
	env := &fakeNACCEnv{local: map[bssgp.CellID]SI{naccTgt: {PSI: true, Buf: make([]byte, 22)}},
		neigh: map[Key]bssgp.CellID{naccKey1: naccTgt}}
	f := newTestFSM(env)
	f.RxNotification(pccnGSM, 0)
	wantState(t, f, TxNeighbourData) // a local cell: no RIM
	m := f.NeighbourData(rlcmac.GlobalTFI{}, 0)
	if m.Container[0] != 1<<5|31 {
		t.Fatalf("PD/CD %#x", m.Container[0])
	}
	m = f.NeighbourData(rlcmac.GlobalTFI{}, 0)
	if m.Container[0] != 1<<5|6 {
		t.Fatalf("PD/CD %#x", m.Container[0])
	}
	wantState(t, f, TxContinue)
}

// TestNACCTimeouts: X1 and X2 expire into TX_CELL_CHG_CONTINUE, the
// Continue still names the GSM target.
func TestNACCTimeouts(t *testing.T) {
	env := &fakeNACCEnv{}
	f := newTestFSM(env)
	f.RxNotification(pccnGSM, 100*time.Millisecond)
	f.Tick(100*time.Millisecond + 999*time.Millisecond)
	wantState(t, f, WaitResolve)
	f.Tick(1100 * time.Millisecond) // X1 = 1 s
	wantState(t, f, TxContinue)
	if c := f.CellChangeContinue(rlcmac.GlobalTFI{}); !c.HasID || c.ARFCN != 871 {
		t.Fatalf("continue %+v", c)
	}
	// a late answer changes nothing
	f.RxRACCI(naccKey1, &naccTgt, 1200*time.Millisecond)
	wantState(t, f, TxContinue)

	env = &fakeNACCEnv{neigh: map[Key]bssgp.CellID{naccKey1: naccTgt}}
	f = newTestFSM(env)
	f.RxNotification(pccnGSM, 0)
	wantState(t, f, WaitSI)
	f.Tick(1500 * time.Millisecond)
	wantState(t, f, WaitSI)
	f.Tick(2 * time.Second) // X2 = 2 s here
	wantState(t, f, TxContinue)
	f.RxSI(naccTgt, seqSI(21), 3*time.Second)
	wantState(t, f, TxContinue)
}

// TestNACCFailures: a failed request, a failed resolution, an RIM send
// error all go straight to TX_CELL_CHG_CONTINUE.
func TestNACCFailures(t *testing.T) {
	f := newTestFSM(&fakeNACCEnv{neighErr: errors.New("no BTS")})
	f.RxNotification(pccnGSM, 0)
	wantState(t, f, TxContinue)

	f = newTestFSM(&fakeNACCEnv{})
	f.RxNotification(pccnGSM, 0)
	f.RxRACCI(naccKey1, nil, 0)
	wantState(t, f, TxContinue)

	f = newTestFSM(&fakeNACCEnv{neigh: map[Key]bssgp.CellID{naccKey1: naccTgt}, rimErr: errors.New("no Gb")})
	f.RxNotification(pccnGSM, 0)
	wantState(t, f, TxContinue)

	// RAN-INFORMATION-ERROR from another cell: ignored; from the target: Continue
	f = newTestFSM(&fakeNACCEnv{neigh: map[Key]bssgp.CellID{naccKey1: naccTgt}})
	f.RxNotification(pccnGSM, 0)
	f.RxSIError(naccTgt2, 0)
	wantState(t, f, WaitSI)
	f.RxSIError(naccTgt, 0)
	wantState(t, f, TxContinue)
}

// TestNACCRetransmissions: a duplicate PCCN changes nothing, a new GSM
// target restarts the resolution, a UTRAN target jumps to the Continue.
func TestNACCRetransmissions(t *testing.T) {
	env := &fakeNACCEnv{neigh: map[Key]bssgp.CellID{naccKey1: naccTgt}}
	f := newTestFSM(env)
	f.RxNotification(pccnGSM, 0)
	wantState(t, f, WaitSI)
	f.RxNotification(pccnGSM, 100*time.Millisecond)
	wantState(t, f, WaitSI)
	if len(env.rimReq) != 1 {
		t.Fatalf("duplicate PCCN re-requested SI: %d", len(env.rimReq))
	}
	f.RxNotification(pccnGSM2, 200*time.Millisecond)
	wantState(t, f, WaitResolve)
	if len(env.neighReq) != 1 || env.neighReq[0] != naccKey2 || f.key != naccKey2 {
		t.Fatalf("new target not resolved: %+v", env.neighReq)
	}
	// X1 restarted with the new target
	f.Tick(1100 * time.Millisecond)
	wantState(t, f, WaitResolve)
	f.Tick(1200 * time.Millisecond)
	wantState(t, f, TxContinue)
	// a UTRAN target while sending the Continue: nothing changes (osmo-pcu
	// refuses TX_CELL_CHG_CONTINUE -> itself)
	f.RxNotification(pccnUTRAN, 2*time.Second)
	wantState(t, f, TxContinue)
	f.ContinueSent(100, 2, 2*time.Second)
	f.RxNotification(pccnUTRAN, 3*time.Second)
	wantState(t, f, TxContinue)
	if c := f.CellChangeContinue(rlcmac.GlobalTFI{}); !c.HasID || c.ARFCN != 880 {
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
		f.RxNotification(m, 0)
		wantState(t, f, TxContinue)
		if c := f.CellChangeContinue(rlcmac.GlobalTFI{}); c.HasID {
			t.Fatalf("continue names a GSM cell: %+v", c)
		}
		if len(env.neighReq)+len(env.rimReq) != 0 {
			t.Fatal("requests for a non-GSM target")
		}
	}
	f := newTestFSM(&fakeNACCEnv{})
	f.RxNotification(&rlcmac.PacketCellChangeNotification{Target: rlcmac.PCCNTargetRel8}, 0)
	wantState(t, f, Done)
	if !f.terminated {
		t.Fatal("invalid target not an error")
	}
}

// TestNACCCaches: entries live their keep-time, read at lookup (a `timer
// X10`/`X11` change applies to existing entries).
func TestNACCCaches(t *testing.T) {
	var n NeighCache
	n.Add(naccKey1, naccTgt, time.Second)
	if c, ok := n.Lookup(naccKey1, 5*time.Second, 5*time.Second); !ok || c != naccTgt {
		t.Fatal("fresh entry missing")
	}
	if _, ok := n.Lookup(naccKey1, 3*time.Second, 2*time.Second); ok {
		t.Fatal("entry outlived a shortened keep-time")
	}
	n.Add(naccKey1, naccTgt, 0)
	n.Expire(6*time.Second, 5*time.Second)
	if len(n.m) != 0 {
		t.Fatal("expired entry kept")
	}
	var s SICache
	s.Add(naccTgt, seqSI(21), 0)
	three := naccTgt
	three.RAI.MNC3Digits = false
	if _, ok := s.Lookup(three, 4*time.Second, 5*time.Second); !ok {
		t.Fatal("SI missing")
	}
	if _, ok := s.Lookup(naccTgt, 5*time.Second, 5*time.Second); ok {
		t.Fatal("SI outlived X11")
	}
}

// TestNACCTable drives every event in every state (the env answers
// nothing by itself, so no entry action moves on) and checks the state
// reached and the timer running, against osmo-pcu nacc_fsm.c's
// transitions written out here one by one.
func TestNACCTable(t *testing.T) {
	const (
		I, R, S, N, C, A, D = Initial, WaitResolve, WaitSI, TxNeighbourData, TxContinue, WaitContinueAck, Done
	)
	// want[state][event]; events in Event order: NEW_TARGET,
	// SAME_TARGET, NO_SI_TARGET, NO_TARGET, RAC_CI_RESOLVED, RAC_CI_FAILED,
	// SI_RECEIVED, SI_FAILED, TIMEOUT, NEIGHBOUR_DATA_SENT, CONTINUE_SENT,
	// CTRL_ACK, POLL_TIMEOUT, ABORT
	want := map[State][evCount]State{
		I: {R, I, C, D, I, I, I, I, I, I, I, I, I, I},
		R: {R, R, C, C, S, C, R, R, C, R, R, R, R, D},
		S: {R, S, C, C, S, S, N, C, C, S, S, S, S, D},
		N: {R, N, C, C, N, N, N, N, N, C, N, N, N, D},
		C: {R, C, C, C, C, C, C, C, C, C, A, C, C, D},
		A: {R, A, C, C, A, A, A, A, A, A, A, D, C, D},
		D: {D, D, D, D, D, D, D, D, D, D, D, D, D, D},
	}
	timer := map[State]int{R: 1, S: 2}
	for from, row := range want {
		for ev := Event(0); ev < evCount; ev++ {
			f := newTestFSM(&fakeNACCEnv{})
			f.state, f.key, f.keyPresent = from, naccKey1, true
			f.fire(ev, &eventArg{key: naccKey2, cgi: naccTgt, si: seqSI(3)}, 0)
			if f.state != row[ev] {
				t.Errorf("%s + %s: %s, want %s", from, ev, f.state, row[ev])
				continue
			}
			moved := f.state != from || ev == EvNewTarget && from == R
			if wantX := timer[f.state]; moved && (f.timerOn != (wantX != 0) || f.timerOn && f.timerX != wantX) {
				t.Errorf("%s + %s -> %s: timer on %v X%d, want X%d", from, ev, f.state, f.timerOn, f.timerX, wantX)
			}
		}
	}
	// what the events carry lands in the machine
	f := newTestFSM(&fakeNACCEnv{})
	f.fire(EvNewTarget, &eventArg{key: naccKey2}, 0)
	f.fire(EvResolved, &eventArg{cgi: naccTgt2}, 0)
	f.fire(EvSI, &eventArg{si: seqSI(5)}, 0)
	if f.key != naccKey2 || !f.cgi.Equal(naccTgt2) || len(f.si.Buf) != 5 || f.state != N || f.terminated {
		t.Fatalf("key %v cgi %v si %d state %s", f.key, f.cgi, len(f.si.Buf), f.state)
	}
	f.fire(EvAbort, nil, 0)
	if !f.terminated {
		t.Fatal("ABORT does not mark the machine terminated")
	}
}
