package msemu

import (
	"context"
	"fmt"
	"math/rand"
	"time"

	"github.com/gopcu/gopcu/internal/emu/btsemu"
	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/rlcmac"
)

// The cell: the air interface the MSs share, stepped one radio block at a time, and the CCCH.

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
	// EmptyULInds makes the BTS send an empty PDTCH DATA.ind for every
	// uplink block of an active PDCH in which no MS sent anything, as the
	// Osmocom TTCN-3 BTS does (osmo-ttcn3-hacks PCUIF_Components.ttcn
	// as_BTS_CT_TDMASched): osmo-pcu expires its uplink reservations
	// (USF, polls) only at a DATA.ind of their block (pdch_ul_controller.c
	// pdch_ulc_expire_fn, called from pcu_l1_if.cpp pcu_rx_data_ind_pdtch).
	// A block's empty DATA.inds go before the next block's TIME_IND and
	// RTS_REQs, in the TTCN-3 BTS's order (an MS's uplink blocks go, as
	// always here, before their own block's RTS_REQs).
	EmptyULInds bool
	prevFN      uint32              // the block stepped last (EmptyULInds)
	stepped     bool                // prevFN is set
	realUL      map[[2]uint8]uint32 // FN of the last uplink block an MS sent, per TRX/TS (EmptyULInds)
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
	if c.EmptyULInds && c.stepped {
		if err := c.emptyULInds(); err != nil {
			return err
		}
	}
	for f, list := range c.ul {
		if pcuif.FNDelta(fn, f) >= 0 {
			for i := range list {
				if err := c.air.Send(&list[i]); err != nil {
					return err
				}
				if c.EmptyULInds {
					if c.realUL == nil {
						c.realUL = map[[2]uint8]uint32{}
					}
					c.realUL[[2]uint8{list[i].TRX, list[i].TS}] = f
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
	c.prevFN, c.stepped = blk.FN, true
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

// emptyULInds sends an empty DATA.ind for the previous block on every
// active PDCH where no MS sent one.
func (c *Cell) emptyULInds() error {
	info := c.air.Info()
	for trx := range info.TRX {
		for ts := uint8(0); ts < 8; ts++ {
			if f, ok := c.realUL[[2]uint8{uint8(trx), ts}]; info.TRX[trx].PDCHMask&(1<<ts) == 0 || ok && f == c.prevFN {
				continue
			}
			d := pcuif.Data{Kind: pcuif.TypeDataInd, SAPI: pcuif.SAPIPDTCH, FN: c.prevFN, ARFCN: info.TRX[trx].ARFCN,
				TRX: uint8(trx), TS: ts, BlockNr: uint8(btsemu.BlockNr(c.prevFN)), RSSI: -110}
			if err := c.air.Send(&d); err != nil {
				return err
			}
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
