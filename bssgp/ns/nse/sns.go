package nse

import (
	"context"
	"github.com/gopcu/gopcu/bssgp/ns"
	"net/netip"
	"slices"
	"time"

	"github.com/gopcu/gopcu/internal/logx"
)

type snsState int

const (
	snsIdle       snsState = iota
	snsSize                // SNS-SIZE sent
	snsConfigBSS           // our SNS-CONFIG sent
	snsConfigSGSN          // waiting for the SGSN's SNS-CONFIG
	snsConfigured
)

func (s snsState) String() string {
	return [...]string{"IDLE", "SIZE", "CONFIG_BSS", "CONFIG_SGSN", "CONFIGURED"}[s]
}

// snsFSM is the BSS side of the IP-SNS procedures (TS 48.016 §7.4b):
// SNS-SIZE, SNS-CONFIG in both directions, then SNS-ADD / SNS-DELETE /
// SNS-CHANGEWEIGHT from the SGSN at run time.
type snsFSM struct {
	n        *NSE
	state    snsState
	timer    time.Duration
	retries  int
	initial  int // index into cfg.Endpoints of the SGSN endpoint used for SNS signalling
	remote4  []ns.IPElement
	remote6  []ns.IPElement
	ackedOur bool
	gotEnd   bool
	// local4/local6 are our endpoints as announced in the last SNS-SIZE
	// (and then in SNS-CONFIG).
	local4, local6 []ns.IPElement
}

func newSNS(n *NSE) *snsFSM { return &snsFSM{n: n} }

func (s *snsFSM) ep() Endpoint { return s.n.cfg.Endpoints[s.initial] }

func (s *snsFSM) tx(p ns.PDU) {
	ep := s.ep()
	s.n.send(ep.Bind, ep.Remote, p)
}

func (s *snsFSM) setState(st snsState, now time.Duration) {
	s.n.log.Log(context.Background(), logx.LevelInfo, "SNS state change", "from", s.state.String(), "to", st.String())
	s.state = st
	s.retries = 0
}

// localElements lists our endpoints for SNS-SIZE/SNS-CONFIG, one per local
// bind of the family (TS 48.016 §10.3.2c, §10.3.2d). A bind on the
// wildcard address (how osmo-pcu binds INFO_IND's local_port) announces
// the source address the kernel picks towards the SGSN endpoint used for
// the SNS signalling, as libosmogb's ns2_sns_compute_local_ep_from_binds
// does (gprs_ns2_sns.c); a bind whose address cannot be resolved that way
// is left out, as there.
func (s *snsFSM) localElements(v6 bool) []ns.IPElement {
	var l []ns.IPElement
	seen := map[int]bool{}
	for _, ep := range s.n.cfg.Endpoints {
		a := ep.Local
		if !a.IsValid() || seen[ep.Bind] || a.Addr().Unmap().Is4() == v6 {
			continue
		}
		seen[ep.Bind] = true
		addr := a.Addr().Unmap()
		if addr.IsUnspecified() {
			remote := s.ep().Remote
			if remote.Addr().Unmap().Is4() == v6 {
				continue
			}
			r, err := s.n.sourceAddr(remote)
			if err != nil {
				s.n.log.Log(context.Background(), logx.LevelError, "no local address towards the SGSN for IP-SNS",
					"bind", a, "sgsn", remote, "err", err)
				continue
			}
			addr = r.Unmap()
		}
		l = append(l, ns.IPElement{Addr: addr, Port: a.Port(), SigWeight: 1, DataWeight: 1})
	}
	return l
}

func (s *snsFSM) start(now time.Duration) {
	s.remote4, s.remote6 = nil, nil
	s.ackedOur, s.gotEnd = false, false
	s.setState(snsSize, now)
	s.sendSize(now)
}

// restart drops every NS-VC and runs SNS-SIZE again (libosmogb does the
// same when the NSE fails or the SGSN lost our configuration).
func (s *snsFSM) restart(now time.Duration) {
	for _, vc := range s.n.vcs {
		vc.state, vc.timer, vc.aliveTimer = VCDisabled, 0, 0
	}
	s.n.replaceVCs(nil)
	s.n.updateAvailability(now)
	s.start(now)
}

// vcDead is called when an IP-SNS NS-VC failed its ALIVE procedure: when
// none is left alive, the whole SNS configuration is redone.
func (s *snsFSM) vcDead(now time.Duration) {
	if s.state != snsConfigured {
		return
	}
	for _, vc := range s.n.vcs {
		if vc.state == VCUnblocked {
			return
		}
	}
	s.restart(now)
}

func (s *snsFSM) sendSize(now time.Duration) {
	s.local4, s.local6 = s.localElements(false), s.localElements(true)
	v4, v6 := s.local4, s.local6
	p := &ns.SNSSize{NSEI: s.n.cfg.NSEI, ResetFlag: true, MaxNSVCs: s.n.cfg.MaxNSVCs}
	if len(v4) > 0 {
		p.NumIP4EP, p.HasNumIP4EP = uint16(len(v4)), true
	}
	if len(v6) > 0 {
		p.NumIP6EP, p.HasNumIP6EP = uint16(len(v6)), true
	}
	s.tx(p)
	s.timer = now + s.n.cfg.Timers.TsnsProv
}

func (s *snsFSM) sendConfig(now time.Duration) {
	v4, v6 := s.local4, s.local6
	p := &ns.SNSConfig{EndFlag: true, NSEI: s.n.cfg.NSEI}
	if len(v4) > 0 {
		p.IP4, p.HasIP4 = v4, true
	} else {
		p.IP6, p.HasIP6 = v6, true
	}
	s.tx(p)
	s.timer = now + s.n.cfg.Timers.TsnsProv
}

func (s *snsFSM) tick(now time.Duration) {
	if s.timer == 0 || now < s.timer {
		return
	}
	s.timer = 0
	t := &s.n.cfg.Timers
	switch s.state {
	case snsSize:
		s.retries++
		if s.retries > t.TsnsSizeRetries {
			// Try the next initial SGSN endpoint (osmo: next "sns remote").
			s.initial = (s.initial + 1) % len(s.n.cfg.Endpoints)
			s.retries = 0
		}
		s.sendSize(now)
	case snsConfigBSS, snsConfigSGSN:
		s.retries++
		if s.retries > t.TsnsConfigRetries {
			s.start(now)
			return
		}
		if s.state == snsConfigBSS {
			s.sendConfig(now) // ours again
		} else {
			s.timer = now + t.TsnsProv // still waiting for the SGSN's
		}
	}
}

func (s *snsFSM) ack(bind int, to netip.AddrPort, tid uint8, cause *ns.Cause, v4, v6 []ns.IPElement) {
	p := ns.SNSAck{NSEI: s.n.cfg.NSEI, TransactionID: tid}
	if cause != nil {
		p.Cause, p.HasCause = *cause, true
	}
	if len(v4) > 0 {
		p.IP4, p.HasIP4 = v4, true
	}
	if len(v6) > 0 {
		p.IP6, p.HasIP6 = v6, true
	}
	s.n.send(bind, to, &p)
}

// input handles an SNS PDU from the SGSN (TS 48.016 §7.4b).
func (s *snsFSM) input(bind int, from netip.AddrPort, p ns.PDU, raw []byte, now time.Duration) {
	if nseiOf(p) != s.n.cfg.NSEI {
		s.n.sendStatus(bind, from, ns.CauseProtocolErrorUnspec, raw, nil)
		return
	}
	switch p := p.(type) {
	case *ns.SNSSizeAck:
		s.onSizeAck(p, now)
	case *ns.SNSConfigAck:
		s.onConfigAck(p, now)
	case *ns.SNSConfig:
		s.onConfig(bind, from, p, now)
	case *ns.SNSAdd, *ns.SNSDelete, *ns.SNSChangeWeight:
		if s.state != snsConfigured {
			return
		}
		var cause *ns.Cause
		var v4, v6 []ns.IPElement
		var tid uint8
		switch p := p.(type) {
		case *ns.SNSAdd:
			tid = p.TransactionID
			cause, v4, v6 = s.onAdd(p, now)
		case *ns.SNSDelete:
			tid = p.TransactionID
			cause, v4, v6 = s.onDelete(p)
		case *ns.SNSChangeWeight:
			tid = p.TransactionID
			cause, v4, v6 = s.onChangeWeight(p)
		}
		s.ack(bind, from, tid, cause, v4, v6)
		if _, del := p.(*ns.SNSDelete); del {
			s.n.updateAvailability(now)
		}
	case *ns.SNSAck, *ns.SNSSize:
		// The BSS starts no ADD/DELETE/CHANGEWEIGHT and receives no SIZE.
		s.n.sendStatus(bind, from, ns.CausePDUNotCompatible, raw, nil)
	}
}

// onSizeAck: the SGSN accepted our SNS-SIZE, our SNS-CONFIG follows; a
// refusal is retried on Tsns-prov.
func (s *snsFSM) onSizeAck(p *ns.SNSSizeAck, now time.Duration) {
	if s.state != snsSize {
		return
	}
	if p.HasCause {
		s.n.log.Log(context.Background(), logx.LevelNotice, "SNS-SIZE rejected", "cause", p.Cause.String())
		return
	}
	s.setState(snsConfigBSS, now)
	s.sendConfig(now)
}

// onConfigAck: the SGSN took our endpoints; configured once its own
// SNS-CONFIG (with the End Flag) came too. A refusal starts over.
func (s *snsFSM) onConfigAck(p *ns.SNSConfigAck, now time.Duration) {
	if s.state != snsConfigBSS {
		return
	}
	if p.HasCause {
		s.n.log.Log(context.Background(), logx.LevelNotice, "SNS-CONFIG rejected", "cause", p.Cause.String())
		s.start(now)
		return
	}
	s.ackedOur = true
	s.setState(snsConfigSGSN, now)
	s.timer = now + s.n.cfg.Timers.TsnsProv
	if s.gotEnd {
		s.configured(now)
	}
}

// onConfig takes the SGSN's endpoints of an SNS-CONFIG and acknowledges
// them (or refuses them with SNS-CONFIG-ACK's cause).
func (s *snsFSM) onConfig(bind int, from netip.AddrPort, p *ns.SNSConfig, now time.Duration) {
	ack := ns.SNSConfigAck{NSEI: s.n.cfg.NSEI}
	switch {
	case s.state != snsConfigBSS && s.state != snsConfigSGSN:
		ack.Cause, ack.HasCause = ns.CausePDUNotCompatible, true
	case !s.addRemotes(p.IP4, p.IP6):
		ack.Cause, ack.HasCause = ns.CauseInvalidNumIP4Endpoints, true
		if len(p.IP6) > 0 {
			ack.Cause = ns.CauseInvalidNumIP6Endpoints
		}
	}
	s.n.send(bind, from, &ack)
	if ack.HasCause || !p.EndFlag {
		return
	}
	s.gotEnd = true
	if s.ackedOur {
		s.configured(now)
	}
}

// onAdd adds the SGSN endpoints of an SNS-ADD with their NS-VCs and
// returns the SNS-ACK's cause and elements. An endpoint that is already
// configured (in the SGSN's list or twice in this PDU) is refused with
// "Protocol error - unspecified" and nothing of the PDU is applied (TS
// 48.016 §7.4b.3.2; libosmogb ns2_sns_st_configured_add rolls back the
// elements added before the offending one).
func (s *snsFSM) onAdd(p *ns.SNSAdd, now time.Duration) (*ns.Cause, []ns.IPElement, []ns.IPElement) {
	var seen []ns.IPElement
	for _, x := range append(p.IP4, p.IP6...) {
		if knownEP(s.remote4, x) || knownEP(s.remote6, x) || knownEP(seen, x) {
			return causeRef(ns.CauseProtocolErrorUnspec), nil, nil
		}
		seen = append(seen, x)
	}
	// then the bound on NS-VCs an SGSN can make us keep
	if !s.addRemotes(p.IP4, p.IP6) {
		return causeRef(ns.CauseInvalidNumNSVCs), p.IP4, p.IP6
	}
	for _, e := range append(p.IP4, p.IP6...) {
		s.addVCs(e, now)
	}
	return nil, nil, nil
}

// onDelete drops the SGSN endpoints an SNS-DELETE names (by IP Address or
// IP Elements) with their NS-VCs. The acknowledgement echoes the deleted
// elements (libosmogb ns2_sns_st_configured_delete; none for an IP
// Address IE); any unknown one makes it "Unknown IP endpoint".
// The NSE's availability follows after the acknowledgement.
func (s *snsFSM) onDelete(p *ns.SNSDelete) (*ns.Cause, []ns.IPElement, []ns.IPElement) {
	unknown := false
	if p.IPAddr.IsValid() {
		unknown = !s.deleteWhere(func(e ns.IPElement) bool { return e.Addr == p.IPAddr })
	}
	for _, x := range append(p.IP4, p.IP6...) {
		if !s.deleteWhere(func(e ns.IPElement) bool { return e.Addr == x.Addr && e.Port == x.Port }) {
			unknown = true
		}
	}
	if unknown {
		return causeRef(ns.CauseUnknownIPEndpoint), p.IP4, p.IP6
	}
	return nil, p.IP4, p.IP6
}

// deleteWhere drops the SGSN endpoints that match, and the NS-VCs towards
// them; false if none matched.
func (s *snsFSM) deleteWhere(match func(ns.IPElement) bool) bool {
	n := len(s.remote4) + len(s.remote6)
	s.remote4 = slices.DeleteFunc(s.remote4, match)
	s.remote6 = slices.DeleteFunc(s.remote6, match)
	var vcs []*VC
	for _, vc := range s.n.vcs {
		if !match(ns.IPElement{Addr: vc.Remote.Addr(), Port: vc.Remote.Port()}) {
			vcs = append(vcs, vc)
		}
	}
	s.n.replaceVCs(vcs)
	return len(s.remote4)+len(s.remote6) < n
}

// onChangeWeight applies the weights of an SNS-CHANGEWEIGHT; the elements
// it does not know go back with "Unknown IP endpoint".
func (s *snsFSM) onChangeWeight(p *ns.SNSChangeWeight) (*ns.Cause, []ns.IPElement, []ns.IPElement) {
	unknown := func(l []ns.IPElement) (bad []ns.IPElement) {
		for _, x := range l {
			if !s.reweight(x) {
				bad = append(bad, x)
			}
		}
		return bad
	}
	bad4, bad6 := unknown(p.IP4), unknown(p.IP6)
	if bad4 != nil || bad6 != nil {
		return causeRef(ns.CauseUnknownIPEndpoint), bad4, bad6
	}
	return nil, nil, nil
}

func causeRef(c ns.Cause) *ns.Cause { return &c }

// nseiOf is the NSEI of an IP-SNS PDU, a mandatory IE of each (TS 48.016
// §9.3).
func nseiOf(p ns.PDU) uint16 {
	switch p := p.(type) {
	case *ns.SNSAck:
		return p.NSEI
	case *ns.SNSAdd:
		return p.NSEI
	case *ns.SNSChangeWeight:
		return p.NSEI
	case *ns.SNSConfig:
		return p.NSEI
	case *ns.SNSConfigAck:
		return p.NSEI
	case *ns.SNSDelete:
		return p.NSEI
	case *ns.SNSSize:
		return p.NSEI
	case *ns.SNSSizeAck:
		return p.NSEI
	}
	return 0
}

// knownEP reports whether l holds the endpoint (address and port) of x.
func knownEP(l []ns.IPElement, x ns.IPElement) bool {
	for _, e := range l {
		if e.Addr == x.Addr && e.Port == x.Port {
			return true
		}
	}
	return false
}

// addRemotes adds SGSN endpoints (SNS-CONFIG, SNS-ADD). A known endpoint
// is not added twice; the list holds at most MaxNSVCs endpoints (each
// endpoint gets at least one NS-VC, and the BSS announced no more than
// MaxNSVCs in SNS-SIZE, TS 48.016 §9.3.1.1): a PDU that would go beyond is
// refused as a whole, so a peer repeating SNS-ADD cannot grow the lists.
func (s *snsFSM) addRemotes(v4, v6 []ns.IPElement) bool {
	n := len(s.remote4) + len(s.remote6)
	for _, e := range v4 {
		if !knownEP(s.remote4, e) {
			n++
		}
	}
	for _, e := range v6 {
		if !knownEP(s.remote6, e) {
			n++
		}
	}
	if n > int(s.n.cfg.MaxNSVCs) {
		return false
	}
	for _, e := range v4 {
		if !knownEP(s.remote4, e) {
			s.remote4 = append(s.remote4, e)
		}
	}
	for _, e := range v6 {
		if !knownEP(s.remote6, e) {
			s.remote6 = append(s.remote6, e)
		}
	}
	return true
}

// reweight sets the weights of the SGSN endpoint x and of the NS-VCs
// towards it; false if x is unknown.
func (s *snsFSM) reweight(x ns.IPElement) bool {
	found := false
	for _, l := range [][]ns.IPElement{s.remote4, s.remote6} {
		for i := range l {
			if l[i].Addr == x.Addr && l[i].Port == x.Port {
				l[i].SigWeight, l[i].DataWeight = x.SigWeight, x.DataWeight
				found = true
			}
		}
	}
	for _, vc := range s.n.vcs {
		if vc.Remote.Addr() == x.Addr && vc.Remote.Port() == x.Port {
			vc.SigWeight, vc.DataWeight = x.SigWeight, x.DataWeight
		}
	}
	return found
}

// addVCs creates one NS-VC per local bind of the same IP family towards e
// (full mesh, TS 48.016 §6.2.2), up to MaxNSVCs.
func (s *snsFSM) addVCs(e ns.IPElement, now time.Duration) {
	for _, ep := range s.n.cfg.Endpoints {
		if ep.Local.IsValid() && ep.Local.Addr().Unmap().Is4() != e.Addr.Unmap().Is4() {
			continue
		}
		if len(s.n.vcs) >= int(s.n.cfg.MaxNSVCs) {
			return
		}
		remote := netip.AddrPortFrom(e.Addr.Unmap(), e.Port)
		if s.n.findVC(ep.Bind, remote) != nil {
			continue
		}
		vc := newVC(s.n, ep.Bind, remote, 0, false, e.SigWeight, e.DataWeight)
		s.n.vcs = append(s.n.vcs, vc)
		vc.startAliveOnly(now)
	}
}

func (s *snsFSM) configured(now time.Duration) {
	s.setState(snsConfigured, now)
	s.timer = 0
	s.n.replaceVCs(nil)
	for _, e := range s.remote4 {
		s.addVCs(e, now)
	}
	for _, e := range s.remote6 {
		s.addVCs(e, now)
	}
}
