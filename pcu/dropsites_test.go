package pcu

import (
	"bufio"
	"errors"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gopcu/gopcu/bssgp/bss"
	"github.com/gopcu/gopcu/bssgp/ns/nse"
	"github.com/gopcu/gopcu/internal/logx"
	"github.com/gopcu/gopcu/llc"
	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/rlcmac"
)

// dropEngine is labCell's engine with its log lines recorded.
func dropEngine(t *testing.T) (*Engine, *BTS, *opRec) {
	t.Helper()
	ii := &pcuif.InfoInd{Version: pcuif.V12, Flags: pcuif.FlagActive | pcuif.FlagCS(1) | pcuif.FlagCS(2) | pcuif.FlagCS(3) | pcuif.FlagCS(4), InitialCS: 2}
	ii.TRX[0].PDCHMask = 0xf0
	ii.TRX[0].ARFCN = 871
	p := DefaultParams()
	p.AllocAlgo = "dynamic"
	p.MultislotDefault = 0
	rec := &opRec{}
	e, bts := configEngine(t, Config{Clock: &fakeClock{}, Params: &p, Logs: logx.New(rec)}, ii)
	e.advance(bts, 0)
	return e, bts, rec
}

// sendULBlock sends UL RLC data block bsn of ul (CS-1, no LI: the data
// continues the LLC frame, which the block with CV 0 ends).
func sendULBlock(t *testing.T, e *Engine, bts *BTS, ul *TBF, tfi uint8, bsn uint8, cv uint8) {
	t.Helper()
	unit := make([]byte, rlcmac.CS1.DataLen())
	var blk [rlcmac.MaxBlockLen]byte
	n, err := rlcmac.EncodeGPRSUL(blk[:], rlcmac.CS1, &rlcmac.GPRSULHeader{CV: cv, TFI: tfi, BSN: bsn, E: true}, unit)
	if err != nil {
		t.Fatal(err)
	}
	e.handleDataInd(bts, &pcuif.Data{SAPI: pcuif.SAPIPDTCH, FN: ulBlockFN(0), TRX: 0, TS: uint8(lowestSlot(ul.slots)), ARFCN: 871, Payload: blk[:n], LqualCb: 100})
}

// blockedGb is the adapter over a bss.Gb never started: its PTP BVC is
// blocked and its signalling BVC not reset.
func blockedGb(t *testing.T) gbAdapter {
	t.Helper()
	drop := nse.TransportFunc(func(int, netip.AddrPort, []byte) error { return nil })
	g, err := bss.New(bss.Config{NS: nse.Config{NSEI: 101, Endpoints: []nse.Endpoint{{NSVCI: 101, Remote: netip.MustParseAddrPort("127.0.0.1:23000")}}}, BVCI: 1800}, drop, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return gbAdapter{gb: g, now: func() time.Duration { return 0 }}
}

// TestDropSites enumerates the places where the engine drops a frame or a
// message: each is counted and logged at NOTICE (the level an operator
// sees by default), and the lines of one kind are rate-limited (one every
// opEventInterval, the next saying how many were held back).
//
// Not drop sites, and so not here: an empty DATA_IND (the BTS's lost
// radio block, no data), an RLC block received again or outside the
// receive window (ARQ: the MS sends it again or already did, TS 44.060
// §9.1.8), a split-block half of a BSN received already.
func TestDropSites(t *testing.T) {
	const tlli = 0xc0000001
	// a complete UL LLC frame: the access block (TLLI, 16 octets), BSN 1 with CV 0 (20)
	// (by a new MS each time: the one of a TLLI unset by force is lost)
	var seq uint32 // (reset by each site)
	ulFrame := func(t *testing.T, e *Engine, bts *BTS, unsetTLLI bool) {
		ul := onePhaseAccess(t, e, bts, tlli+seq)
		seq++
		if unsetTLLI {
			ul.ms.TLLI = TLLIUnset
		}
		sendULBlock(t, e, bts, ul, ul.tfi, 1, 0)
	}
	sites := []struct {
		name    string
		drop    func(t *testing.T, e *Engine, bts *BTS)
		counter func(e *Engine, bts *BTS) uint64
		line    string // the start of the NOTICE line ("cat LEVEL text")
	}{
		{"UL frame, no Gb", func(t *testing.T, e *Engine, bts *BTS) { ulFrame(t, e, bts, false) },
			func(e *Engine, _ *BTS) uint64 { return e.l1ctr.Value(L1GbULUnitdataDropped) },
			"lbssgp NOTICE MS(TLLI=0xc0000001) UL LLC frame of 36 octets dropped: not sent to the SGSN: pcu: no Gb"},
		{"UL frame, BVC blocked (gbadapter.go)", func(t *testing.T, e *Engine, bts *BTS) {
			e.gb = blockedGb(t)
			ulFrame(t, e, bts, false)
		}, func(e *Engine, _ *BTS) uint64 { return e.l1ctr.Value(L1GbULUnitdataDropped) },
			"lbssgp NOTICE MS(TLLI=0xc0000001) UL LLC frame of 36 octets dropped: not sent to the SGSN: " + bss.ErrBVCBlocked.Error()},
		{"UL frame, MS without TLLI", func(t *testing.T, e *Engine, bts *BTS) {
			e.SetGb(&discardGb{frames: map[uint32]int{}})
			ulFrame(t, e, bts, true)
		}, func(e *Engine, _ *BTS) uint64 { return e.l1ctr.Value(L1ULLLCNoTLLI) },
			"tbful NOTICE TBF(UL TFI=0 TRX=0 TS=01000000 FLOW MS(#1 TLLI=unknown)) UL LLC frame of 36 octets dropped: the MS has not sent its TLLI"},
		{"LLC-DISCARDED, no Gb", func(t *testing.T, e *Engine, bts *BTS) {
			e.reportDiscard(e.newMS(bts, tlli), llc.Discard{Frames: 2, Lifetime: 2, Octets: 100})
		}, func(e *Engine, _ *BTS) uint64 { return e.l1ctr.Value(L1GbLLCDiscardedDropped) },
			"lbssgp NOTICE MS(TLLI=0xc0000001) LLC-DISCARDED (2 frames, 100 octets) dropped: not sent to the SGSN: pcu: no Gb"},
		{"LLC-DISCARDED, signalling BVC not reset (gbadapter.go)", func(t *testing.T, e *Engine, bts *BTS) {
			e.gb = blockedGb(t)
			e.reportDiscard(e.newMS(bts, tlli), llc.Discard{Frames: 2, Lifetime: 2, Octets: 100})
		}, func(e *Engine, _ *BTS) uint64 { return e.l1ctr.Value(L1GbLLCDiscardedDropped) },
			"lbssgp NOTICE MS(TLLI=0xc0000001) LLC-DISCARDED (2 frames, 100 octets) dropped: not sent to the SGSN: " + bss.ErrBVCBlocked.Error()},
		{"UL data block for no TBF", func(t *testing.T, e *Engine, bts *BTS) {
			ul := onePhaseAccess(t, e, bts, tlli)
			sendULBlock(t, e, bts, ul, ul.tfi^1, 1, 15)
		}, func(e *Engine, _ *BTS) uint64 { return e.l1ctr.Value(L1ULDataNoTBF) },
			"tbf NOTICE UL data block for no TBF dropped: TFI=1 TS=6 egprs=false"},
		{"UL block of a reserved payload type", func(t *testing.T, e *Engine, bts *BTS) {
			e.handleDataInd(bts, &pcuif.Data{SAPI: pcuif.SAPIPDTCH, FN: ulBlockFN(0), TS: 4, ARFCN: 871, Payload: append([]byte{0x80}, make([]byte, 22)...)})
		}, func(_ *Engine, bts *BTS) uint64 { return bts.Ctr.Value(CtrDecodeErrors) },
			"tbf NOTICE UL block of reserved payload type 2 dropped"},
		{"PAG_REQ with an IMEI", func(t *testing.T, e *Engine, bts *BTS) {
			e.onPagReq(bts, &pcuif.PagReq{Identity: []byte{0x0a, 0x21, 0x43, 0x65, 0x87, 0x09, 0x21, 0x43}})
		}, func(e *Engine, _ *BTS) uint64 { return e.l1ctr.Value(L1PagReqDropped) },
			"l1if NOTICE PAG_REQ dropped: Mobile Identity type 2, neither TMSI nor IMSI"},
		{"PAG_REQ with a short TMSI", func(t *testing.T, e *Engine, bts *BTS) {
			e.onPagReq(bts, &pcuif.PagReq{Identity: []byte{0xf4, 1, 2}})
		}, func(e *Engine, _ *BTS) uint64 { return e.l1ctr.Value(L1PagReqDropped) },
			"l1if NOTICE PAG_REQ dropped: TMSI identity of 3 octets, not 5"},
		{"undecodable EGPRS UL data block", func(t *testing.T, e *Engine, bts *BTS) {
			e.handleDataInd(bts, &pcuif.Data{SAPI: pcuif.SAPIPDTCH, FN: ulBlockFN(0), TS: 4, ARFCN: 871, Payload: make([]byte, 27)})
		}, func(_ *Engine, bts *BTS) uint64 { return bts.Ctr.Value(CtrDecodeErrors) },
			"tbf NOTICE undecodable EGPRS UL data block dropped"},
	}
	for _, s := range sites {
		t.Run(s.name, func(t *testing.T) {
			e, bts, rec := dropEngine(t)
			seq = 0
			before := s.counter(e, bts)
			rec.take("")
			s.drop(t, e, bts)
			n1 := s.counter(e, bts) - before
			lines := rec.take(" dropped")
			if n1 == 0 || len(lines) != 1 || !strings.HasPrefix(lines[0], s.line) {
				t.Fatalf("counted %d, lines %q, want one starting %q", n1, lines, s.line)
			}
			// again within opEventInterval: counted, not logged
			s.drop(t, e, bts)
			n2 := s.counter(e, bts) - before - n1
			if lines := rec.take(" dropped"); n2 == 0 || len(lines) != 0 {
				t.Fatalf("again: counted %d, lines %q", n2, lines)
			}
			// after it, logged again with the number held back
			e.now += opEventInterval
			s.drop(t, e, bts)
			if lines := rec.take(" dropped"); len(lines) != 1 || !strings.HasSuffix(lines[0], suppressedNote(int(n2))) {
				t.Fatalf("after %v: lines %q, want one ending %q", opEventInterval, lines, suppressedNote(int(n2)))
			}
		})
	}
}

// TestGbAdapterErrors: the adapter returns bss.Gb's errors (it used to
// discard them).
func TestGbAdapterErrors(t *testing.T) {
	a := blockedGb(t)
	if err := a.ULUnitdata(0, 0xc0000001, []byte{0x41}); !errors.Is(err, bss.ErrBVCBlocked) {
		t.Errorf("ULUnitdata: %v", err)
	}
	if err := a.LLCDiscarded(0, 0xc0000001, 1, 10); !errors.Is(err, bss.ErrBVCBlocked) {
		t.Errorf("LLCDiscarded: %v", err)
	}
}

// ioDiscard matches "_ = x.Send(...)"-like statements: a result of a call
// whose name says it sends, writes or does I/O, or posts to the engine
// goroutine (Engine.Do, Engine.Call), thrown away.
var ioDiscard = regexp.MustCompile(`(^|[\s;{(])_(\s*,\s*_)*\s*=\s*[\w.()\[\]*&]*?\b(?i:\w*send\w*|write\w*|\w*flush|output|deliver|\w*notify|handle|transmit\w*|enqueue\w*|readbyte|read|do|call)\(`)

// notIO are the packages whose Write is not I/O: rlcmac's bit vectors
// (Write and WriteBit append bits to a buffer sized beforehand).
var notIO = []string{"rlcmac/"}

// TestNoUnexplainedDiscards: no result of a send, write or I/O call is
// thrown away with "_ =" in the module's non-test Go files unless the line
// says why and where it is counted: a "// dropped: <reason, where counted>"
// comment on the line or the line before.
func TestNoUnexplainedDiscards(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatal(err)
	}
	var bad []string
	seen := 0
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		for _, p := range notIO {
			if strings.HasPrefix(filepath.ToSlash(rel), p) {
				return nil
			}
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		explained := false // by the comment lines just above
		for ln := 1; sc.Scan(); ln++ {
			line := sc.Text()
			if strings.HasPrefix(strings.TrimSpace(line), "//") {
				explained = explained || strings.Contains(line, "// dropped: ")
				continue
			}
			code, _, _ := strings.Cut(line, "//")
			if ioDiscard.MatchString(code) {
				seen++
				if !explained && !strings.Contains(line, "// dropped: ") {
					bad = append(bad, rel+":"+strconv.Itoa(ln)+": "+strings.TrimSpace(line))
				}
			}
			explained = false
		}
		return sc.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen == 0 {
		t.Fatal("the pattern matched nothing: is it still right?")
	}
	if len(bad) > 0 {
		t.Errorf("results of send/write/I-O calls thrown away without a \"// dropped: <reason, where counted>\" comment:\n%s", strings.Join(bad, "\n"))
	}
}
