package system

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/gopcu/gopcu/bssgp"
	"github.com/gopcu/gopcu/internal/testutil"
	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/rlcmac"
)

// TestPagingOnPACCH: a CS paging from the BTS (PAG_REQ, TMSI) for a
// phone in packet transfer goes out as a Packet Paging Request on the
// PACCH of its TBF (TS 44.060 §11.2.10; osmo-pcu bts.cpp bts_add_paging()).
func TestPagingOnPACCH(t *testing.T) {
	r := startRadio(t, pcuif.V12, bulkParams(), 5)
	var mu sync.Mutex
	var pages []rlcmac.PacketPagingRequest
	r.bts.OnDataReq(func(d pcuif.Data) {
		if d.SAPI != pcuif.SAPIPDTCH || len(d.Payload) < 2 || d.Payload[0]>>6 != rlcmac.PTControl {
			return
		}
		if _, m, err := rlcmac.DecodeDL(d.Payload); err == nil {
			if p, ok := m.(*rlcmac.PacketPagingRequest); ok {
				mu.Lock()
				pages = append(pages, *p)
				mu.Unlock()
			}
		}
	})
	ms := r.cell.AddMS(0xc0005001, "901700000005001", 12)
	for i := 0; i < 20; i++ {
		r.dl(ms.TLLI, ms.IMSI, llcFrame(i, 1500))
	}
	for s := 0; s < 40; s++ {
		r.step(t)
	}
	if err := r.bts.Send(&pcuif.PagReq{ChanNeeded: 1, Identity: []byte{0xf4, 0x12, 0x34, 0x56, 0x78}}); err != nil {
		t.Fatal(err)
	}
	for s := 0; s < 40; s++ {
		r.step(t)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(pages) != 1 || pages[0].N != 1 || pages[0].Pages[0].UseMI || pages[0].Pages[0].TMSI != 0x12345678 ||
		!pages[0].Pages[0].ForRR || pages[0].Pages[0].ChanNeeded != 1 {
		t.Fatalf("pages on PACCH: %+v", pages)
	}
}

// TestSuspend: SUSP_REQ from the BTS ends the MS's TBFs and reaches the
// SGSN as BSSGP SUSPEND with the TLLI and routing area.
func TestSuspend(t *testing.T) {
	g := startGb(t, pcuif.V12)
	var mu sync.Mutex
	var got *bssgp.Suspend
	g.mu.Lock()
	g.sgsnPDU = func(p bssgp.PDU) {
		if s, ok := p.(*bssgp.Suspend); ok {
			mu.Lock()
			c := *s
			got = &c
			mu.Unlock()
		}
	}
	g.mu.Unlock()
	ms := g.cell.AddMS(0xc0005002, "901700000005002", 12)
	g.dl(ms.TLLI, ms.IMSI, llcFrame(1, 1500))
	for s := 0; s < 10; s++ {
		g.cell.Step(context.Background())
	}
	raid := [6]byte{0x09, 0xf1, 0x07, 0x00, 0x01, 0x00} // 901-70-1-0
	if err := g.bts.Send(&pcuif.SuspReq{TLLI: ms.TLLI, RAID: raid}); err != nil {
		t.Fatal(err)
	}
	var s *bssgp.Suspend
	testutil.Eventually(t, 3*time.Second, func() bool {
		mu.Lock()
		defer mu.Unlock()
		s = got
		return s != nil
	}, "no SUSPEND at the SGSN")
	if s.TLLI != ms.TLLI || s.RAI.MCC != 901 || s.RAI.MNC != 70 || s.RAI.LAC != 1 {
		t.Fatalf("SUSPEND %+v", s)
	}
	if m, ok := msView(g.eng, ms.TLLI); ok && (m.UL != nil || m.DL != nil) {
		t.Fatal("TBFs kept after suspend")
	}
}
