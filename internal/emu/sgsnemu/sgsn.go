// Package sgsnemu is a small SGSN emulator for system tests and the demo:
// the SGSN side of NS (classic RESET/UNBLOCK/ALIVE and a basic IP-SNS) and
// of the BVC procedures (answers BVC-RESET/UNBLOCK/FLOW-CONTROL/SUSPEND/
// RESUME), delivers UL-UNITDATA to a callback and sends DL-UNITDATA and
// PAGING on request. It needs no osmo-sgsn.
//
// SGSN is single-goroutine with injected time (Input/Tick/NextDeadline),
// like the BSS side in package bssgp; Server wraps it with a UDP socket and
// its own goroutine.
package sgsnemu

import (
	"cmp"
	"errors"
	"net/netip"
	"time"

	"github.com/gopcu/gopcu/bssgp"
	"github.com/gopcu/gopcu/bssgp/ns"
	"github.com/gopcu/gopcu/bssgp/ns/nse"
	"github.com/gopcu/gopcu/rlcmac"
)

// Callbacks are invoked on the owner goroutine. PDU pointers and slices are
// only valid during the call.
type Callbacks struct {
	// ULUnitdata gets every UL-UNITDATA from the BSS.
	ULUnitdata func(bvci uint16, ul *bssgp.ULUnitdata, now time.Duration)
	// PDU gets every other BSSGP PDU from the BSS (after the emulator's own
	// answer, e.g. FLOW-CONTROL-BVC-ACK).
	PDU func(bvci uint16, p bssgp.PDU, now time.Duration)
	// BVCState reports a BVC becoming unblocked (or reset/blocked).
	BVCState func(bvci uint16, unblocked bool, now time.Duration)
}

// Config of the emulator.
type Config struct {
	// Listen is the SGSN's NS endpoint, announced in SNS-CONFIG.
	Listen netip.AddrPort
	// Tns-test interval of the SGSN's own ALIVE procedure (0 = 30 s).
	TnsTest time.Duration
	// DLLifetime is the PDU lifetime (centiseconds) of DL-UNITDATA (0 = 1000).
	DLLifetime uint16
	// Echo sends every UL-UNITDATA LLC PDU back to the same TLLI as
	// DL-UNITDATA (a traffic source for demos).
	Echo bool
	// HoldUnblockAck leaves the BSS's BVC-UNBLOCK unanswered (the test
	// sends the BVC-UNBLOCK-ACK itself, e.g. after other PTP PDUs that
	// overtake it); the BVC counts as unblocked on the SGSN side at once.
	HoldUnblockAck bool
}

// BVC is what the emulator knows of one BVC of the BSS.
type BVC struct {
	BVCI      uint16
	NSEI      uint16
	CellID    bssgp.CellID
	HasCellID bool
	Unblocked bool
	LastFCBVC bssgp.FlowControlBVC
}

type vc struct {
	remote    netip.AddrPort
	nsvci     uint16
	nsei      uint16
	unblocked bool
	sns       bool
	aliveAt   time.Duration
}

// SGSN is the emulator core. Not safe for concurrent use.
type SGSN struct {
	cfg  Config
	tx   nse.Transport
	cb   Callbacks
	vcs  []*vc
	bvcs map[uint16]*BVC
	srn  uint8
	buf  [ns.HeaderLen + 2048]byte
	// SNS state of the (single) BSS.
	snsNSEI     uint16
	snsRemote   netip.AddrPort
	snsBSS      []ns.IPElement
	snsSentConf bool
	snsTID      uint8
	// SNSAcks collects the SNS-ACKs the BSS sent for SNSAdd/SNSDelete/
	// SNSChangeWeight (transaction ID, cause, IP elements).
	SNSAcks []SNSAck
	// SNSSizeIP4 / SNSSizeIP6 are the endpoint counts of the BSS's last
	// SNS-SIZE (-1: IE absent).
	SNSSizeIP4, SNSSizeIP6 int
	rac                    map[uint32][]byte // MS Radio Access Capability per TLLI
}

// SetMSRAC makes DL-UNITDATA for tlli carry the MS Radio Access Capability
// rac (TS 48.018 §11.3.22), as an SGSN does once the MS attached.
func (s *SGSN) SetMSRAC(tlli uint32, rac []byte) {
	if s.rac == nil {
		s.rac = map[uint32][]byte{}
	}
	s.rac[tlli] = append([]byte(nil), rac...)
}

// MultislotRAC encodes an MS Radio Access Capability (TS 24.008
// §10.5.5.12a) of one access technology (DCS 1800) with a GPRS multislot
// class.
func MultislotRAC(class int) []byte { return rlcmac.EncodeMultislotRAC(class, 0) }

// SNSAck is one received SNS-ACK.
type SNSAck struct {
	TransactionID uint8
	Cause         ns.Cause
	HasCause      bool
	IP4, IP6      []ns.IPElement
}

// SNSBSSEndpoints returns the endpoints the BSS announced in SNS-CONFIG.
func (s *SGSN) SNSBSSEndpoints() []ns.IPElement { return append([]ns.IPElement(nil), s.snsBSS...) }

// New builds an emulator that sends through tx from bind 0.
func New(cfg Config, tx nse.Transport, cb Callbacks) *SGSN {
	cfg.TnsTest = cmp.Or(cfg.TnsTest, 30*time.Second)
	cfg.DLLifetime = cmp.Or(cfg.DLLifetime, 1000)
	return &SGSN{cfg: cfg, tx: tx, cb: cb, bvcs: map[uint16]*BVC{}}
}

// ErrNoBVC is returned when the BVC is not (yet) unblocked or NS is down.
var ErrNoBVC = errors.New("sgsnemu: BVC not unblocked / NS down")

func (s *SGSN) find(from netip.AddrPort) *vc {
	for _, v := range s.vcs {
		if v.remote == from {
			return v
		}
	}
	return nil
}

func (s *SGSN) sendNS(to netip.AddrPort, p ns.PDU) {
	b, err := ns.Marshal(p)
	if err == nil {
		s.tx.Send(0, to, b)
	}
}

// NSUp reports whether an NS-VC is unblocked.
func (s *SGSN) NSUp() bool { return s.upVC(0) != nil }

func (s *SGSN) upVC(nsei uint16) *vc {
	for _, v := range s.vcs {
		if v.unblocked && (nsei == 0 || v.nsei == nsei) {
			return v
		}
	}
	return nil
}

// BVC returns the state of a BVC (nil if never reset).
func (s *SGSN) BVC(bvci uint16) *BVC { return s.bvcs[bvci] }

// Input processes one datagram from the BSS.
func (s *SGSN) Input(from netip.AddrPort, b []byte, now time.Duration) {
	p, err := ns.Parse(b)
	if err != nil {
		c, _ := ns.CauseOf(err)
		if len(b) > 0 && ns.PDUType(b[0]) != ns.PDUStatus {
			s.sendNS(from, &ns.Status{Cause: c, ErrPDU: b, HasErrPDU: true})
		}
		return
	}
	if p.Type().IsSNS() {
		s.inputSNS(from, p, now)
		return
	}
	v := s.find(from)
	if p, ok := p.(*ns.Reset); ok {
		if v == nil {
			v = &vc{remote: from}
			s.vcs = append(s.vcs, v)
		}
		v.nsvci, v.nsei, v.unblocked = p.NSVCI, p.NSEI, false
		s.sendNS(from, &ns.ResetAck{NSVCI: p.NSVCI, NSEI: p.NSEI})
		s.sendNS(from, &ns.Alive{})
		v.aliveAt = now + s.cfg.TnsTest
		s.nsDown(v.nsei, now)
		return
	}
	if v == nil {
		switch p.(type) {
		case *ns.Status, *ns.AliveAck, *ns.ResetAck:
		default:
			s.sendNS(from, &ns.Status{Cause: ns.CausePDUNotCompatible, ErrPDU: b, HasErrPDU: true})
		}
		return
	}
	switch p := p.(type) {
	case *ns.Alive:
		s.sendNS(from, &ns.AliveAck{})
		if v.sns && !v.unblocked {
			v.unblocked = true
		}
	case *ns.AliveAck:
		if v.sns {
			v.unblocked = true
		}
	case *ns.Unblock:
		v.unblocked = true
		s.sendNS(from, &ns.UnblockAck{})
	case *ns.Block:
		v.unblocked = false
		s.sendNS(from, &ns.BlockAck{NSVCI: p.NSVCI})
		s.nsDown(v.nsei, now)
	case *ns.Unitdata:
		if !v.unblocked {
			st := &ns.Status{Cause: ns.CauseNSVCBlocked}
			st.NSVCI, st.HasNSVCI = v.nsvci, true
			s.sendNS(from, st)
			return
		}
		s.bssgpIn(v, p.BVCI, p.SDU, now)
	}
}

func (s *SGSN) nsDown(nsei uint16, now time.Duration) {
	if s.upVC(nsei) != nil {
		return
	}
	for _, b := range s.bvcs {
		if b.NSEI == nsei && b.Unblocked {
			b.Unblocked = false
			if s.cb.BVCState != nil {
				s.cb.BVCState(b.BVCI, false, now)
			}
		}
	}
}

// inputSNS is the SGSN side of IP-SNS (TS 48.016 §7.4b): answers SNS-SIZE
// and SNS-CONFIG, then announces its own endpoint with SNS-CONFIG.
func (s *SGSN) inputSNS(from netip.AddrPort, p ns.PDU, now time.Duration) {
	switch p := p.(type) {
	case *ns.SNSSize:
		s.snsNSEI, s.snsRemote, s.snsBSS, s.snsSentConf = p.NSEI, from, nil, false
		s.SNSSizeIP4, s.SNSSizeIP6 = -1, -1
		if p.HasNumIP4EP {
			s.SNSSizeIP4 = int(p.NumIP4EP)
		}
		if p.HasNumIP6EP {
			s.SNSSizeIP6 = int(p.NumIP6EP)
		}
		s.vcs = nil
		s.sendNS(from, &ns.SNSSizeAck{NSEI: p.NSEI})
	case *ns.SNSConfig:
		s.snsBSS = append(s.snsBSS, p.IP4...)
		s.snsBSS = append(s.snsBSS, p.IP6...)
		s.sendNS(from, &ns.SNSConfigAck{NSEI: p.NSEI})
		if p.EndFlag {
			el := ns.IPElement{Addr: s.cfg.Listen.Addr(), Port: s.cfg.Listen.Port(), SigWeight: 1, DataWeight: 1}
			c := &ns.SNSConfig{EndFlag: true, NSEI: p.NSEI}
			if el.Addr.Is4() {
				c.IP4, c.HasIP4 = []ns.IPElement{el}, true
			} else {
				c.IP6, c.HasIP6 = []ns.IPElement{el}, true
			}
			s.sendNS(from, c)
			s.snsSentConf = true
		}
	case *ns.SNSAck:
		s.SNSAcks = append(s.SNSAcks, SNSAck{TransactionID: p.TransactionID, Cause: p.Cause, HasCause: p.HasCause,
			IP4: append([]ns.IPElement(nil), p.IP4...), IP6: append([]ns.IPElement(nil), p.IP6...)})
	case *ns.SNSConfigAck:
		if !s.snsSentConf {
			return
		}
		for _, e := range s.snsBSS {
			r := e.AddrPort()
			if s.find(r) == nil {
				// An IP-SNS NS-VC has no blocking procedure: it carries
				// traffic once configured (libosmogb sends BVC-RESET
				// before its first NS-ALIVE).
				s.vcs = append(s.vcs, &vc{remote: r, nsei: s.snsNSEI, sns: true, unblocked: true, aliveAt: now + s.cfg.TnsTest})
				s.sendNS(r, &ns.Alive{})
			}
		}
	}
}

func (s *SGSN) sendBSSGP(v *vc, bvci uint16, p bssgp.PDU) error {
	n, err := bssgp.MarshalTo(p, s.buf[ns.HeaderLen:])
	if err != nil {
		return err
	}
	pkt := s.buf[:ns.HeaderLen+n]
	pkt[0], pkt[1], pkt[2], pkt[3] = byte(ns.PDUUnitdata), 0, byte(bvci>>8), byte(bvci)
	return s.tx.Send(0, v.remote, pkt)
}

func (s *SGSN) bssgpIn(v *vc, bvci uint16, sdu []byte, now time.Duration) {
	p, err := bssgp.Parse(sdu)
	if err != nil {
		c, _ := bssgp.CauseOf(err)
		if len(sdu) > 0 && bssgp.PDUType(sdu[0]) != bssgp.PDUStatus {
			s.sendBSSGP(v, 0, &bssgp.Status{Cause: c, PDUInError: sdu})
		}
		return
	}
	if bvci != 0 {
		// PTP PDUs on an unknown or blocked BVC (TS 48.018 §8.7, as libosmogb).
		if b := s.bvcs[bvci]; b == nil {
			s.sendBSSGP(v, 0, &bssgp.Status{Cause: bssgp.CauseUnknownBVCI, BVCI: bvci, HasBVCI: true, PDUInError: sdu})
			return
		} else if !b.Unblocked {
			s.sendBSSGP(v, 0, &bssgp.Status{Cause: bssgp.CauseBVCIBlocked, BVCI: bvci, HasBVCI: true, PDUInError: sdu})
			return
		}
	}
	switch m := p.(type) {
	case *bssgp.BVCReset:
		if m.BVCI != 0 {
			b := s.bvcs[m.BVCI]
			if b == nil {
				b = &BVC{BVCI: m.BVCI}
				s.bvcs[m.BVCI] = b
			}
			b.NSEI, b.CellID, b.HasCellID = v.nsei, m.CellID, m.HasCellID
			s.setBVC(b, false, now)
		} else {
			for _, b := range s.bvcs {
				if b.NSEI == v.nsei {
					s.setBVC(b, false, now)
				}
			}
		}
		s.sendBSSGP(v, 0, &bssgp.BVCResetAck{BVCI: m.BVCI})
	case *bssgp.BVCUnblock:
		b := s.bvcs[m.BVCI]
		if b == nil {
			s.sendBSSGP(v, 0, &bssgp.Status{Cause: bssgp.CauseUnknownBVCI, BVCI: m.BVCI, HasBVCI: true, PDUInError: sdu})
			return
		}
		if !s.cfg.HoldUnblockAck {
			s.sendBSSGP(v, 0, &bssgp.BVCUnblockAck{BVCI: m.BVCI})
		}
		s.setBVC(b, true, now)
	case *bssgp.BVCBlock:
		if b := s.bvcs[m.BVCI]; b != nil {
			s.setBVC(b, false, now)
		}
		s.sendBSSGP(v, 0, &bssgp.BVCBlockAck{BVCI: m.BVCI})
	case *bssgp.FlowControlBVC:
		if b := s.bvcs[bvci]; b != nil {
			b.LastFCBVC = *m
		}
		s.sendBSSGP(v, bvci, &bssgp.FlowControlBVCAck{Tag: m.Tag})
	case *bssgp.FlowControlMS:
		s.sendBSSGP(v, bvci, &bssgp.FlowControlMSAck{TLLI: m.TLLI, Tag: m.Tag})
	case *bssgp.Suspend:
		s.srn++
		s.sendBSSGP(v, 0, &bssgp.SuspendAck{TLLI: m.TLLI, RAI: m.RAI, SRN: s.srn})
	case *bssgp.Resume:
		s.sendBSSGP(v, 0, &bssgp.ResumeAck{TLLI: m.TLLI, RAI: m.RAI})
	case *bssgp.ULUnitdata:
		if s.cb.ULUnitdata != nil {
			s.cb.ULUnitdata(bvci, m, now)
		}
		if s.cfg.Echo {
			// m.LLC aliases the receive buffer, s.buf is separate: no overlap.
			s.SendDLUnitdata(bvci, m.TLLI, "", m.LLC, now)
		}
		return
	}
	if s.cb.PDU != nil {
		s.cb.PDU(bvci, p, now)
	}
}

func (s *SGSN) setBVC(b *BVC, up bool, now time.Duration) {
	if b.Unblocked == up {
		return
	}
	b.Unblocked = up
	if s.cb.BVCState != nil {
		s.cb.BVCState(b.BVCI, up, now)
	}
}

func (s *SGSN) vcFor(bvci uint16) (*vc, error) {
	b := s.bvcs[bvci]
	if bvci != 0 && (b == nil || !b.Unblocked) {
		return nil, ErrNoBVC
	}
	nsei := uint16(0)
	if b != nil {
		nsei = b.NSEI
	}
	v := s.upVC(nsei)
	if v == nil {
		return nil, ErrNoBVC
	}
	return v, nil
}

// SendDLUnitdata sends llc to tlli on a PTP BVC (TS 48.018 §10.2.1) with
// the configured PDU lifetime; imsi may be "" (no IMSI IE).
func (s *SGSN) SendDLUnitdata(bvci uint16, tlli uint32, imsi string, llc []byte, now time.Duration) error {
	v, err := s.vcFor(bvci)
	if err != nil {
		return err
	}
	dl := &bssgp.DLUnitdata{TLLI: tlli, PDULifetime: s.cfg.DLLifetime, Alignment: -1, LLC: llc, MSRAC: s.rac[tlli]}
	if imsi != "" {
		if dl.IMSI, err = bssgp.EncodeIMSI(imsi); err != nil {
			return err
		}
	}
	return s.sendBSSGP(v, bvci, dl)
}

// SendPDU sends any BSSGP PDU on bvci.
func (s *SGSN) SendPDU(bvci uint16, p bssgp.PDU) error {
	v, err := s.vcFor(bvci)
	if err != nil && bvci != 0 {
		return err
	}
	if v == nil {
		if v = s.upVC(0); v == nil {
			return ErrNoBVC
		}
	}
	return s.sendBSSGP(v, bvci, p)
}

// SendPagingPS pages imsi on the BVC (TS 48.018 §10.3.1), on the
// signalling BVC as osmo-sgsn does.
func (s *SGSN) SendPagingPS(bvci uint16, imsi string, ptmsi uint32, hasPTMSI bool) error {
	id, err := bssgp.EncodeIMSI(imsi)
	if err != nil {
		return err
	}
	return s.SendPDU(0, &bssgp.PagingPS{IMSI: id, Area: bssgp.PagingArea{BVCI: bvci, HasBVCI: true},
		PTMSI: ptmsi, HasTMSI: hasPTMSI})
}

// ResetBVC starts an SGSN-initiated BVC-RESET (VTY "bssgp bvc ... reset").
func (s *SGSN) ResetBVC(bvci uint16, now time.Duration) error {
	b := s.bvcs[bvci]
	var nsei uint16
	if b != nil {
		nsei = b.NSEI
		s.setBVC(b, false, now)
	}
	v := s.upVC(nsei)
	if v == nil {
		return ErrNoBVC
	}
	r := &bssgp.BVCReset{BVCI: bvci, Cause: bssgp.CauseOMIntervention}
	if b != nil && b.HasCellID {
		r.CellID, r.HasCellID = b.CellID, true
	}
	return s.sendBSSGP(v, 0, r)
}

// ResetNSVC sends NS-RESET on every NS-VC (VTY "nsvc N reset").
func (s *SGSN) ResetNSVC(now time.Duration) {
	for _, v := range s.vcs {
		if !v.sns {
			v.unblocked = false
			s.sendNS(v.remote, &ns.Reset{Cause: ns.CauseOMIntervention, NSVCI: v.nsvci, NSEI: v.nsei})
		}
	}
	for _, v := range s.vcs {
		s.nsDown(v.nsei, now)
	}
}

// Tick runs the SGSN's ALIVE procedure.
func (s *SGSN) Tick(now time.Duration) {
	for _, v := range s.vcs {
		if v.aliveAt != 0 && now >= v.aliveAt {
			s.sendNS(v.remote, &ns.Alive{})
			v.aliveAt = now + s.cfg.TnsTest
		}
	}
}

// NextDeadline returns the next ALIVE time.
func (s *SGSN) NextDeadline() (time.Duration, bool) {
	var d time.Duration
	ok := false
	for _, v := range s.vcs {
		if v.aliveAt != 0 && (!ok || v.aliveAt < d) {
			d, ok = v.aliveAt, true
		}
	}
	return d, ok
}

func (s *SGSN) snsProcedure(t ns.PDUType, el []ns.IPElement, addr netip.Addr) (uint8, error) {
	if !s.snsRemote.IsValid() {
		return 0, ErrNoBVC
	}
	s.snsTID++
	var ip4, ip6 []ns.IPElement
	for _, e := range el {
		if e.Addr.Is4() {
			ip4 = append(ip4, e)
		} else {
			ip6 = append(ip6, e)
		}
	}
	nsei, tid, has4, has6 := s.snsNSEI, s.snsTID, ip4 != nil, ip6 != nil
	var p ns.PDU
	switch t {
	case ns.PDUSNSAdd:
		p = &ns.SNSAdd{NSEI: nsei, TransactionID: tid, IP4: ip4, HasIP4: has4, IP6: ip6, HasIP6: has6}
	case ns.PDUSNSDelete:
		p = &ns.SNSDelete{NSEI: nsei, TransactionID: tid, IPAddr: addr, IP4: ip4, HasIP4: has4, IP6: ip6, HasIP6: has6}
	default:
		p = &ns.SNSChangeWeight{NSEI: nsei, TransactionID: tid, IP4: ip4, HasIP4: has4, IP6: ip6, HasIP6: has6}
	}
	s.sendNS(s.snsRemote, p)
	return s.snsTID, nil
}

// SNSAdd announces additional SGSN endpoints (TS 48.016 §7.4b.3 SNS-ADD);
// returns the transaction ID to look for in SNSAcks.
func (s *SGSN) SNSAdd(el ...ns.IPElement) (uint8, error) {
	return s.snsProcedure(ns.PDUSNSAdd, el, netip.Addr{})
}

// SNSDelete removes SGSN endpoints (SNS-DELETE with an IP list).
func (s *SGSN) SNSDelete(el ...ns.IPElement) (uint8, error) {
	return s.snsProcedure(ns.PDUSNSDelete, el, netip.Addr{})
}

// SNSChangeWeight changes the weights of SGSN endpoints (SNS-CHANGEWEIGHT).
func (s *SGSN) SNSChangeWeight(el ...ns.IPElement) (uint8, error) {
	return s.snsProcedure(ns.PDUSNSChangeWeight, el, netip.Addr{})
}
