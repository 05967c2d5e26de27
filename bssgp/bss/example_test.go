package bss_test

import (
	"context"
	"time"

	"github.com/gopcu/gopcu/bssgp"
	"github.com/gopcu/gopcu/bssgp/bss"
	"github.com/gopcu/gopcu/bssgp/ns/nse"
	"github.com/gopcu/gopcu/bssgp/ns/nsudp"
)

// myEngine stands for the PCU engine: it implements bss.Handler.
type myEngine struct{ gb *bss.Gb }

func (e *myEngine) DLUnitdata(p *bssgp.DLUnitdata, now time.Duration) {
	// Copy p.LLC into the MS's queue (TLLI p.TLLI, lifetime p.PDULifetime cs).
}
func (e *myEngine) PagingPS(p *bssgp.PagingPS, now time.Duration) {}
func (e *myEngine) PagingCS(p *bssgp.PagingCS, now time.Duration) {}
func (e *myEngine) BVCState(up bool, now time.Duration)           {}
func (e *myEngine) FlowControl(now time.Duration) (bss.FlowParams, bool) {
	return bss.ComputeFlowControl(bss.FlowInput{NumPDCH: 4, PeakRatePerPDCH: 1500, MaxSlotsPerMS: 4}), true
}
func (e *myEngine) Other(bvci uint16, p bssgp.PDU, now time.Duration) {}

// Example shows how the engine wires the Gb stack: INFO_IND -> Config,
// UDP sockets whose readers post datagrams to the engine goroutine, and the
// engine loop feeding datagrams and time.
func Example() {
	// From INFO_IND (pcuif_proto.h struct gsm_pcu_if_info_ind).
	eps := nse.EndpointsFromInfoInd([]nse.InfoIndNSVC{
		{NSVCI: 101, LocalPort: 23001, RemotePort: 23000, AddrType: nse.InfoAddrIPv4, RemoteIP: [16]byte{127, 0, 0, 1}},
	})
	cfg := bss.Config{
		NS:     nse.Config{NSEI: 101, Dialect: nse.DialectClassic, Endpoints: eps},
		BVCI:   1800,
		CellID: bssgp.CellID{RAI: bssgp.RAI{MCC: 901, MNC: 70, LAC: 1, RAC: 0}, CI: 6969},
	}
	rx := make(chan nsudp.Datagram, 1024)
	udp, err := nsudp.ListenUDP(nse.BindAddrs(eps), func(d nsudp.Datagram) { rx <- d })
	if err != nil {
		return
	}
	defer udp.Close()
	eng := &myEngine{}
	eng.gb, _ = bss.New(cfg, udp, eng, nil)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	now := func() time.Duration { return time.Since(t0) }
	timer := time.NewTimer(time.Hour)
	eng.gb.Start(now())
	for {
		eng.gb.Tick(now())
		if d, ok := eng.gb.NextDeadline(); ok {
			timer.Reset(max(d-now(), 0))
		}
		select {
		case d := <-rx:
			eng.gb.Input(d.Bind, d.From, d.Data, now())
		case <-timer.C:
		case <-ctx.Done():
			// Elsewhere in the engine: eng.gb.SendULUnitdata(tlli, llc, now()),
			// SendLLCDiscarded, SendSuspend, SendFlowControlMS...
			return
		}
	}
}
