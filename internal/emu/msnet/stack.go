package msnet

import (
	"cmp"
	"fmt"
	"net/netip"

	"github.com/gopcu/gopcu/llc/gea"
)

// States of the stack.
const (
	GMMDetached = iota
	GMMAttaching
	GMMAttached
	GMMDetaching
)

// Config of one MS's stack.
type Config struct {
	IMSI, IMEI string
	RAI        RAI    // the cell's routing area (the old RAI of the first attach)
	RadioCap   []byte // MS Radio Access Capability value
	APN        string
	// SIM, when set, answers the network's authentication (a USIM with
	// MILENAGE; without it the MS answers with no SRES, which only an
	// SGSN with auth-policy accept-all takes).
	SIM *Milenage
	// GEA3: the MS announces GEA/3 in its MS network capability and
	// ciphers its LLC with GEA3 when the network selects it (needs SIM).
	// Without it the MS announces no GEA/2..7 and never ciphers.
	GEA3 bool
	// OsmoSGSN: cipher the way Debian's osmo-sgsn 1.9 does where it
	// departs from TS 44.064: it sends IOV-UI in its host's byte order
	// (least significant octet first on x86) and ciphers its downlink
	// N(U) 511 with the OC of the next cycle (see rxOCOf).
	OsmoSGSN bool
	NSAPI    uint8 // default 5
	LLCSAPI  uint8 // default 3
	N201U    int   // default 500
}

// Stack is one MS's LLC, GMM, SM and SNDCP. It is not safe for concurrent
// use: the radio loop calls it.
type Stack struct {
	cfg Config
	// Send hands an LLC frame to RLC/MAC.
	Send func(frame []byte)
	// SetTLLI changes the TLLI the MS uses on the radio.
	SetTLLI func(tlli uint32)
	// OnIP receives each downlink IP packet of the PDP context.
	OnIP func(pkt []byte)
	// Log, when set, sees what the stack does.
	Log func(format string, args ...any)
	// Debug logs every overtaken LLC frame and every lost N-PDU.
	Debug bool
	// Trace logs every UI frame received.
	Trace bool

	TLLI     uint32
	GMM      int
	PTMSI    uint32
	HasPTMSI bool
	RAI      RAI
	PDPUp    bool
	// RAUs counts Routing Area Update Accepts.
	RAUs int
	// Auths counts authentications answered with the SIM's keys.
	Auths int
	Addr  netip.Addr
	// Err is the last reject or protocol error.
	Err error

	vu   [16]uint16 // N(U) to send, per SAPI
	rx   [16]uiWindow
	ciph cipherState
	tx   SNDCPTx
	snd  SNDCPRx
	ti   uint8

	// Counters.
	XIDs, DupUI, LateUI, BadFCS, ULIP, DLIP int
	// SNDCPLost counts N-PDUs dropped for a missing segment.
	SNDCPLost int
	// Ciphering: UL frames ciphered, DL frames deciphered, DL ciphered
	// frames dropped (no key, or a bad FCS once deciphered).
	Ciphered, Deciphered, CipherDrops int
}

// New makes a stack with a random TLLI from r.
func New(cfg Config, randomTLLI uint32) *Stack {
	cfg.NSAPI = cmp.Or(cfg.NSAPI, 5)
	cfg.LLCSAPI = cmp.Or(cfg.LLCSAPI, 3)
	cfg.N201U = cmp.Or(cfg.N201U, 500)
	s := &Stack{cfg: cfg, TLLI: RandomTLLI(randomTLLI), RAI: cfg.RAI}
	s.tx = SNDCPTx{NSAPI: cfg.NSAPI, N201U: cfg.N201U}
	return s
}

func (s *Stack) logf(format string, args ...any) {
	if s.Log != nil {
		s.Log(format, args...)
	}
}

// ui sends a UI frame: ciphered once the MS has a GEA3 key, except the
// GMM messages that go in clear.
func (s *Stack) ui(sapi uint8, info []byte) {
	nu := s.vu[sapi]
	var f []byte
	if s.ciph.algo == GEA3 && (sapi != SAPIGMM || gmmCipherable(info)) {
		f = CipherUI(sapi, nu, info, s.ciph.kc, s.ciph.iovUI, s.ciph.txOC[sapi], gea.Uplink, false)
		s.Ciphered++
	} else {
		f = UI(sapi, nu, info)
	}
	s.vu[sapi] = (nu + 1) & 0x1ff
	if s.vu[sapi] == 0 {
		s.ciph.txOC[sapi] += 512 // TS 44.064 Annex A.2.1
	}
	s.Send(f)
}

// Ciphering reports the GEA algorithm in use (GEA0 or GEA3).
func (s *Stack) Ciphering() int { return int(s.ciph.algo) }

func (s *Stack) gmm(msg []byte) { s.ui(SAPIGMM, msg) }

// accept decodes an Attach or RAU Accept b with parse and takes its RAI
// and the P-TMSI it allocates, if any (newPTMSI, answered with
// complete); a decode error is the stack's error. It reports whether b
// was decoded.
func (s *Stack) accept(b []byte, parse func([]byte) (Accept, error), complete []byte) bool {
	a, err := parse(b)
	if err != nil {
		s.Err = err
		return false
	}
	s.RAI = a.RAI
	if a.HasPTMSI {
		s.newPTMSI(a.PTMSI, complete)
	}
	return true
}

// newPTMSI takes the P-TMSI the network allocated and answers with
// complete. The Complete goes in the TBF that runs under the old TLLI;
// later frames under the new, local TLLI (osmo-sgsn drops the old TLLI
// when the Complete arrives).
func (s *Stack) newPTMSI(ptmsi uint32, complete []byte) {
	s.PTMSI, s.HasPTMSI = ptmsi, true
	s.gmm(complete)
	s.setTLLI(LocalTLLI(ptmsi))
}

func (s *Stack) setTLLI(t uint32) {
	s.TLLI = t
	if s.SetTLLI != nil {
		s.SetTLLI(t)
	}
}

// Attach starts a GPRS attach: with the IMSI, or with the P-TMSI (and its
// foreign TLLI) when the MS has one.
func (s *Stack) Attach() {
	a := AttachRequest{NetCap: DefaultNetCap, Type: 1, CKSN: 7, OldRAI: s.RAI, RadioCap: s.cfg.RadioCap}
	if s.cfg.GEA3 {
		a.NetCap = NetCapGEA3
	}
	// CKSN 7: the MS has no key; the network authenticates again
	s.ciph.algo, s.ciph.kc = GEA0, [8]byte{}
	if s.HasPTMSI {
		a.ID = TMSIIdentity(s.PTMSI)
		s.setTLLI(ForeignTLLI(s.PTMSI))
	} else {
		a.ID = DigitsIdentity(IDIMSI, s.cfg.IMSI)
	}
	s.GMM = GMMAttaching
	s.logf("attach request (tlli %08x)", s.TLLI)
	s.gmm(a.Marshal())
}

// RoutingAreaUpdate sends a RAU Request (periodic or RA change) with the
// P-TMSI.
func (s *Stack) RoutingAreaUpdate(periodic bool) {
	s.logf("routing area update request (periodic %v)", periodic)
	s.gmm(RAURequest(s.RAI, s.cfg.RadioCap, s.PTMSI, periodic))
}

// Detach sends a GPRS detach (not power off: the network answers).
func (s *Stack) Detach() {
	s.GMM = GMMDetaching
	s.gmm(DetachRequest(false, s.PTMSI, s.HasPTMSI))
}

// ActivatePDP asks for a PDP context with a dynamic IPv4 address.
func (s *Stack) ActivatePDP() {
	r := ActivatePDPRequest{TI: s.ti, NSAPI: s.cfg.NSAPI, LLCSAPI: s.cfg.LLCSAPI, QoS: DefaultQoS, APN: s.cfg.APN}
	s.logf("activate PDP context request (nsapi %d, apn %q)", s.cfg.NSAPI, s.cfg.APN)
	s.gmm(r.Marshal())
}

// SendIP sends an uplink IP packet in the PDP context.
func (s *Stack) SendIP(pkt []byte) error {
	if !s.PDPUp {
		return fmt.Errorf("msnet: no PDP context")
	}
	segs, err := s.tx.Segment(pkt)
	if err != nil {
		return err
	}
	for _, seg := range segs {
		s.ui(s.cfg.LLCSAPI, seg)
	}
	s.ULIP++
	return nil
}

// RxLLC takes one downlink LLC frame.
func (s *Stack) RxLLC(b []byte) {
	if isCipheredUI(b) {
		if s.ciph.algo != GEA3 || len(b) < 6 {
			s.CipherDrops++
			s.logf("llc: ciphered UI frame on SAPI %d dropped (no key)", b[0]&0x0f)
			return
		}
		sapi, nu := b[0]&0x0f, uint16(b[1]&7)<<6|uint16(b[2]>>2)
		b = DecipherUI(b, s.ciph.kc, s.ciph.iovUI, s.rxOCOf(sapi, nu), gea.Downlink)
		if _, err := ParseFrame(b); err != nil {
			s.CipherDrops++
			s.logf("llc: ciphered UI frame SAPI %d N(U) %d: %v after deciphering", sapi, nu, err)
			return
		}
		s.Deciphered++
	}
	f, err := ParseFrame(b)
	if err != nil {
		s.BadFCS++
		s.logf("llc: %v", err)
		return
	}
	switch f.Kind {
	case KindXID:
		if f.CR { // a command from the SGSN
			s.xid(f)
		}
	case KindUI:
		if s.Trace {
			s.logf("llc: rx SAPI %d N(U) %d %x", f.SAPI, f.NU, f.Info[:min(4, len(f.Info))])
		}
		if back := (s.rx[f.SAPI].vur - f.NU) & 0x1ff; back > 0 && back <= 32 {
			s.LateUI++
			if s.Debug {
				s.logf("llc: SAPI %d N(U) %d arrived %d late (V(UR) %d)", f.SAPI, f.NU, back, s.rx[f.SAPI].vur)
			}
		}
		vur := s.rx[f.SAPI].vur
		if !s.rx[f.SAPI].accept(f.NU) {
			s.DupUI++
			s.LateUI--
			return
		}
		s.rxAdvanced(f.SAPI, f.NU, vur)
		switch {
		case f.SAPI == SAPIGMM:
			s.l3(f.Info)
		case f.SAPI == s.cfg.LLCSAPI:
			before := s.snd.Lost
			_, pdu, err := s.snd.Receive(f.Info)
			if s.snd.Lost != before {
				s.SNDCPLost += s.snd.Lost - before
				if s.Debug {
					s.logf("sndcp: N-PDU given up at N(U) %d", f.NU)
				}
			}
			if err != nil {
				s.logf("sndcp: %v", err)
			} else if pdu != nil {
				s.DLIP++
				if s.OnIP != nil {
					s.OnIP(pdu)
				}
			}
		}
	}
}

// xid answers an XID command: a Reset sets the N(U) state and the OCs of
// every LLE to 0 and IOV-UI back to its default 0 (TS 44.064 §8.5.3.1),
// an IOV-UI parameter sets the ciphering input of UI frames (§8.9; the
// SGSN sends it on SAPI 1 with a Reset); the response takes the command's
// parameters except Reset and the IOVs, and declines SNDCP compression
// with an empty Layer-3 parameter field (TS 44.065 §6.8).
func (s *Stack) xid(f Frame) {
	s.XIDs++
	ps, err := ParseXID(f.Info)
	if err != nil {
		s.logf("llc: bad XID: %v", err)
		return
	}
	for _, p := range ps {
		if p.Type == XIDReset { // before the other parameters, wherever it stands
			s.vu, s.rx = [16]uint16{}, [16]uiWindow{}
			s.ciph.txOC, s.ciph.rxOC, s.ciph.iovUI = [16]uint32{}, [16]uint32{}, 0
		}
	}
	var resp []XIDParam
	for _, p := range ps {
		switch p.Type {
		case XIDReset:
		case XIDIOVUI:
			if v, ok := iovUIValue(p.Value, s.cfg.OsmoSGSN); ok {
				s.ciph.iovUI = v
				s.logf("llc: IOV-UI %08x", v)
			}
		case XIDIOVI:
		case XIDL3:
			resp = append(resp, XIDParam{Type: XIDL3})
		default:
			resp = append(resp, p)
		}
	}
	s.logf("llc: XID command on SAPI %d: %d params", f.SAPI, len(ps))
	s.Send(XIDResponse(f.SAPI, f.PF, AppendXID(nil, resp)))
}

func (s *Stack) l3(b []byte) {
	if len(b) < 2 {
		return
	}
	switch b[0] & 0x0f {
	case PDGMM:
		s.rxGMM(b[1], b[2:])
	case PDSM:
		s.rxSM(b[0], b[1], b[2:])
	}
}

func (s *Stack) rxGMM(typ byte, b []byte) {
	switch typ {
	case GMMIdentityRequest:
		if len(b) < 1 {
			return
		}
		var id []byte
		switch b[0] & 7 {
		case IDIMSI:
			id = DigitsIdentity(IDIMSI, s.cfg.IMSI)
		case IDIMEI:
			id = DigitsIdentity(IDIMEI, s.cfg.IMEI)
		case IDIMEISV:
			id = DigitsIdentity(IDIMEISV, s.cfg.IMEI[:14]+"00")
		default:
			id = TMSIIdentity(s.PTMSI)
		}
		s.logf("identity request type %d", b[0]&7)
		s.gmm(IdentityResponse(id))
	case GMMAuthCipherRequest:
		s.authCipher(b)
	case GMMAttachAccept:
		if !s.accept(b, ParseAttachAccept, AttachComplete()) {
			return
		}
		s.GMM = GMMAttached
		s.logf("attach accept: P-TMSI %08x, TLLI %08x", s.PTMSI, s.TLLI)
	case GMMAttachReject:
		s.GMM = GMMDetached
		s.Err = fmt.Errorf("attach reject, cause %v", b)
	case GMMRAUAccept:
		if !s.accept(b, ParseRAUAccept, RAUComplete()) {
			return
		}
		s.RAUs++
		s.logf("routing area update accept")
	case GMMRAUReject:
		s.Err = fmt.Errorf("routing area update reject, cause %v", b)
	case GMMPTMSIReallocCmd:
		if len(b) > 1 {
			if id, err := ParseIdentity(b[1 : 1+int(b[0])]); err == nil && id.Type == IDTMSI {
				s.newPTMSI(id.TMSI, PTMSIReallocComplete())
				return
			}
		}
		s.gmm(PTMSIReallocComplete())
	case GMMDetachRequest: // from the network
		s.GMM, s.PDPUp = GMMDetached, false
		s.gmm(DetachAccept())
	case GMMDetachAccept:
		s.GMM, s.PDPUp = GMMDetached, false
		s.logf("detach accept")
	case GMMInformation, GMMStatus:
	}
}

func (s *Stack) rxSM(pdti, typ byte, b []byte) {
	switch typ {
	case SMActivatePDPAccept:
		a, err := ParseActivatePDPAccept(b)
		if err != nil {
			s.Err = err
			return
		}
		s.Addr, s.PDPUp = a.Addr, true
		s.logf("PDP context active: %v (LLC SAPI %d)", a.Addr, a.LLCSAPI)
	case SMActivatePDPReject:
		s.Err = fmt.Errorf("activate PDP context reject, cause %v", b)
	case SMDeactivatePDPRequest:
		s.PDPUp = false
		s.gmm(DeactivatePDPAccept(pdti))
	case SMDeactivatePDPAccept:
		s.PDPUp = false
	}
}

// uiWindow is the receive side of unacknowledged LLC operation (TS 44.064
// §8.4.2): V(UR) is the N(U) expected next; a frame whose N(U) lies in
// the 32 below V(UR) is accepted once (it was overtaken) and discarded as
// a duplicate when it came before; any other N(U) moves V(UR) past it.
type uiWindow struct {
	vur  uint16
	seen [512]bool
}

func (w *uiWindow) accept(nu uint16) bool {
	nu &= 0x1ff
	if back := (w.vur - nu) & 0x1ff; back > 0 && back <= 32 {
		if w.seen[nu] {
			return false
		}
		w.seen[nu] = true
		return true
	}
	// N(U)s that fall out of the 32 below the new V(UR) are forgotten
	for k := w.vur; k != (nu+1)&0x1ff; k = (k + 1) & 0x1ff {
		w.seen[(k-32)&0x1ff] = false
		w.seen[k] = false
	}
	w.seen[nu] = true
	w.vur = (nu + 1) & 0x1ff
	return true
}

// authCipher answers an Authentication and Ciphering Request (TS 24.008
// §9.4.9) with the A&C reference number and, with a SIM, the response to
// its RAND: with an AUTN (UMTS AKA) the 8-octet RES, its first four octets
// in the SRES IE and the rest in the extension (§9.4.10, IEI 0x29); else
// (GSM authentication) the SRES the SIM derives from RES (TS 33.102 c2).
// An IMEISV asked for goes along. The MS does not verify AUTN.
func (s *Stack) authCipher(b []byte) {
	if len(b) < 2 {
		return
	}
	ref := b[1] >> 4
	imeisv := (b[0]>>4)&7 == 1
	var rand []byte
	var autn bool
	for i := 2; i < len(b); {
		switch iei := b[i]; {
		case iei == 0x21 && i+17 <= len(b): // RAND, TV
			rand = b[i+1 : i+17]
			i += 17
		case iei>>4 == 0x8: // GPRS ciphering key sequence number, TV 1/2
			i++
		case iei == 0x28 && i+1 < len(b): // AUTN, TLV
			autn = true
			i += 2 + int(b[i+1])
		case iei>>4 == 0x9 || iei>>4 == 0xa || iei>>4 == 0xb: // other half-octet TVs
			i++
		case i+1 < len(b): // any other TLV
			i += 2 + int(b[i+1])
		default:
			i = len(b)
		}
	}
	r := []byte{PDGMM, GMMAuthCipherResponse, ref & 0x0f}
	switch {
	case s.cfg.SIM == nil || rand == nil:
		s.logf("authentication and ciphering request (no SIM keys: answered without SRES)")
	default:
		var rnd [16]byte
		copy(rnd[:], rand)
		a := s.cfg.SIM.Compute(rnd, [6]byte{}, [2]byte{})
		if autn {
			r = append(r, 0x22)
			r = append(r, a.RES[:4]...)
		} else {
			sres, _ := a.GSM()
			r = append(r, 0x22)
			r = append(r, sres[:]...)
		}
		s.Auths++
		s.logf("authentication and ciphering request: answered (UMTS AKA %v)", autn)
	}
	if imeisv {
		id := DigitsIdentity(IDIMEISV, s.cfg.IMEI[:14]+"00")
		r = append(r, 0x23, byte(len(id)))
		r = append(r, id...)
	}
	if s.cfg.SIM != nil && rand != nil && autn {
		r = append(r, 0x29, 4)
		var rnd [16]byte
		copy(rnd[:], rand)
		a := s.cfg.SIM.Compute(rnd, [6]byte{}, [2]byte{})
		r = append(r, a.RES[4:]...)
	}
	s.gmm(r) // in clear: the new key applies from the next frame on
	s.startCiphering(b[0]&7, rand)
}

// startCiphering takes the ciphering algorithm of an Authentication and
// Ciphering Request (TS 24.008 §10.5.5.3) into use: GEA/3 with the Kc
// the SIM derives from RAND (c3 of CK and IK, TS 33.102 §6.8.1.2, the Kc
// osmo-hlr's MILENAGE vectors carry), or no ciphering.
func (s *Stack) startCiphering(alg uint8, rand []byte) {
	switch {
	case alg == GEA0:
		s.ciph.algo = GEA0
	case alg == GEA3 && s.cfg.GEA3 && s.cfg.SIM != nil && rand != nil:
		var rnd [16]byte
		copy(rnd[:], rand)
		a := s.cfg.SIM.Compute(rnd, [6]byte{}, [2]byte{})
		_, s.ciph.kc = a.GSM()
		s.ciph.algo = GEA3
		s.logf("ciphering: GEA/3 (Kc %x, IOV-UI %08x)", s.ciph.kc, s.ciph.iovUI)
	default:
		s.ciph.algo = GEA0
		s.Err = fmt.Errorf("network selected GEA/%d, which this MS does not offer", alg)
		s.logf("ciphering: %v", s.Err)
	}
}
