package nse

import (
	"context"
	"errors"
	"fmt"
	"github.com/gopcu/gopcu/bssgp/ns"
	"log/slog"
	"net/netip"
	"slices"
	"time"

	"github.com/gopcu/gopcu/internal/logx"
	"github.com/gopcu/gopcu/stats/counter"
)

// Dialect selects the NS flavour (osmo-pcu VTY "gb-dialect").
type Dialect int

const (
	// DialectClassic is NS over UDP with NS-RESET/BLOCK/UNBLOCK and ALIVE
	// (libosmogb "ipaccess" dialect); the BSS initiates the reset.
	DialectClassic Dialect = iota
	// DialectIPSNS is 3GPP IP-SNS (TS 48.016 §7.4b, §9.3): SNS-SIZE and
	// SNS-CONFIG, then NS-VCs with ALIVE only.
	DialectIPSNS
)

func (d Dialect) String() string {
	if d == DialectIPSNS {
		return "ip-sns"
	}
	return "classic"
}

// Timers are the NS timers with libosmogb's defaults (VTY "ns" / "timer").
type Timers struct {
	TnsBlock          time.Duration
	TnsBlockRetries   int
	TnsReset          time.Duration
	TnsResetRetries   int
	TnsTest           time.Duration
	TnsAlive          time.Duration
	TnsAliveRetries   int
	TsnsProv          time.Duration
	TsnsSizeRetries   int
	TsnsConfigRetries int
	TsnsProcRetries   int
}

// DefaultTimers returns osmo's defaults (libosmogb gprs_ns2.c gprs_ns2_instantiate()).
func DefaultTimers() Timers {
	return Timers{
		TnsBlock: 3 * time.Second, TnsBlockRetries: 3,
		TnsReset: 3 * time.Second, TnsResetRetries: 3,
		TnsTest: 30 * time.Second, TnsAlive: 3 * time.Second, TnsAliveRetries: 10,
		TsnsProv: 3 * time.Second, TsnsSizeRetries: 3, TsnsConfigRetries: 3, TsnsProcRetries: 3,
	}
}

// Endpoint is one INFO_IND NS-VC entry: local bind (index into the
// transport's sockets; osmo-pcu binds local_port[i] on the wildcard address),
// the SGSN's address, and the NSVCI (classic only).
type Endpoint struct {
	Bind   int
	NSVCI  uint16
	Local  netip.AddrPort // local address announced in SNS-CONFIG (IP-SNS); port is local_port[i]
	Remote netip.AddrPort
}

// Config is the NSE configuration, filled from INFO_IND (pcuif_proto.h struct gsm_pcu_if_info_ind).
type Config struct {
	NSEI      uint16
	Dialect   Dialect
	Endpoints []Endpoint // up to 2 (PCU_IF_NUM_NSVC)
	Timers    Timers     // zero value: DefaultTimers()
	// MaxNSVCs is announced in SNS-SIZE (default 8).
	MaxNSVCs uint16
	// Counters, when set, makes the NSE's "ns:nse" group and the "ns:nsvc"
	// group of each NS-VC while it exists; nil: nothing is counted.
	Counters counter.Registry
	// VCIndex numbers the "ns:nsvc" groups across the NS instance
	// (libosmogb nsvc_rate_ctr_idx: 0, 1, ... in allocation order, never
	// reused); nil: the NSE numbers its own from 0.
	VCIndex *uint32
	// SourceAddr resolves a wildcard local address for the IP-SNS
	// endpoint list: the local address used towards remote (the
	// transport's answer, e.g. nsudp.SourceAddrTowards, the kernel's
	// choice; the NSE does no I/O). nil: a wildcard local address cannot
	// be announced (SNS-SIZE/SNS-CONFIG fail with an error).
	SourceAddr func(remote netip.AddrPort) (netip.Addr, error)
}

// Transport sends one datagram from local bind `bind` to `to`. It must not
// retain b after returning.
type Transport interface {
	Send(bind int, to netip.AddrPort, b []byte) error
}

// Handler receives NS-UNITDATA SDUs and NSE availability changes (the NS
// status indications of TS 48.016 §5.2). sdu is only valid during the call.
type Handler interface {
	NSUnitdata(bvci uint16, sdu []byte, now time.Duration)
	NSAvailable(up bool, now time.Duration)
}

// Errors of the send path.
var (
	ErrNotAvailable = errors.New("ns: no unblocked NS-VC")
	ErrTooLarge     = errors.New("ns: SDU too large")
)

const maxPDU = 1600 + 4

// NSE is the BSS side of one NS entity with its NS-VCs. It is not safe for
// concurrent use: one owner goroutine calls every method, passing the
// monotonic time `now`.
type NSE struct {
	cfg   Config
	tx    Transport
	h     Handler
	log   *slog.Logger
	vcs   []*VC
	up    bool
	since time.Duration // last availability change
	sns   *snsFSM
	buf   [maxPDU]byte
	rx    ns.Unitdata // decode target of NS-UNITDATA, the traffic
	// Ctrs is the "ns:nse" counter group (libosmogb names), index NSEI.
	// Every NS-VC event counts on it and on the NS-VC's own group.
	Ctrs counter.Group
}

// Counters of the "ns:nse" group, in libosmogb's order.
const (
	CtrPktsIn = iota
	CtrPktsOut
	CtrPktsOutDrop
	CtrBytesIn
	CtrBytesOut
	CtrBytesOutDrop
	CtrBlocked
	CtrUnblocked
	CtrDead
	CtrReplaced
	CtrNSEIChg
	CtrInvNSVCI
	CtrInvNSEI
	CtrLostAlive
	CtrLostReset
)

// CounterDescs are the NS counters (libosmogb ns_ctr_description).
var CounterDescs = []counter.Desc{
	{Name: "packets:in", Description: "Packets at NS Level  ( In)"},
	{Name: "packets:out", Description: "Packets at NS Level  (Out)"},
	{Name: "packets:out:drop", Description: "Dropped Packets      (Out)"},
	{Name: "bytes:in", Description: "Bytes at NS Level    ( In)"},
	{Name: "bytes:out", Description: "Bytes at NS Level    (Out)"},
	{Name: "bytes:out:drop", Description: "Dropped Bytes        (Out)"},
	{Name: "blocked", Description: "NS-VC Block count         "},
	{Name: "unblocked", Description: "NS-VC Unblock count       "},
	{Name: "dead", Description: "NS-VC gone dead count     "},
	{Name: "replaced", Description: "NS-VC replaced other count"},
	{Name: "nsei-chg", Description: "NS-VC changed NSEI count  "},
	{Name: "inv-nsvci", Description: "NS-VCI was invalid count  "},
	{Name: "inv-nsei", Description: "NSEI was invalid count    "},
	{Name: "lost:alive", Description: "ALIVE ACK missing count   "},
	{Name: "lost:reset", Description: "RESET ACK missing count   "},
}

// NewNSE builds an NSE. log may be nil.
func NewNSE(cfg Config, tx Transport, h Handler, log *slog.Logger) (*NSE, error) {
	if len(cfg.Endpoints) == 0 || len(cfg.Endpoints) > 2 {
		return nil, fmt.Errorf("ns: need 1 or 2 endpoints, have %d", len(cfg.Endpoints))
	}
	if cfg.Dialect == DialectIPSNS && cfg.SourceAddr == nil {
		for _, ep := range cfg.Endpoints {
			if ep.Local.Addr().IsUnspecified() {
				return nil, errNoSourceAddr
			}
		}
	}
	if cfg.Timers == (Timers{}) {
		cfg.Timers = DefaultTimers()
	}
	if cfg.MaxNSVCs == 0 {
		cfg.MaxNSVCs = 8
	}
	if cfg.VCIndex == nil {
		cfg.VCIndex = new(uint32)
	}
	if log == nil {
		log = logx.Discard().Logger(logx.CatNS)
	}
	n := &NSE{cfg: cfg, tx: tx, h: h, log: log.With("nsei", cfg.NSEI),
		Ctrs: counter.New(cfg.Counters, counter.GroupSpec{Name: "ns:nse", Description: "NSE Peer Statistics",
			Index: uint32(cfg.NSEI), Descs: CounterDescs})}
	if cfg.Dialect == DialectClassic {
		for _, ep := range cfg.Endpoints {
			n.vcs = append(n.vcs, newVC(n, ep.Bind, ep.Remote, ep.NSVCI, true, 1, 1))
		}
	} else {
		n.sns = newSNS(n)
	}
	return n, nil
}

// errNoSourceAddr: a wildcard local address to resolve and no resolver.
var errNoSourceAddr = errors.New("nse: wildcard local address and no Config.SourceAddr to resolve it")

// sourceAddr is Config.SourceAddr's answer (the transport's: the NSE does
// no I/O itself).
func (n *NSE) sourceAddr(remote netip.AddrPort) (netip.Addr, error) {
	if n.cfg.SourceAddr != nil {
		return n.cfg.SourceAddr(remote)
	}
	return netip.Addr{}, errNoSourceAddr
}

// Close unregisters the NSE's counter groups (libosmogb frees them with
// the NSE and its NS-VCs). Call Stop first.
func (n *NSE) Close() {
	n.replaceVCs(nil)
	counter.Free(n.cfg.Counters, n.Ctrs)
}

// replaceVCs makes keep the NS-VCs; those left out are gone, with their
// counter groups.
func (n *NSE) replaceVCs(keep []*VC) {
	for _, vc := range n.vcs {
		gone := true
		for _, k := range keep {
			if k == vc {
				gone = false
				break
			}
		}
		if gone {
			counter.Free(n.cfg.Counters, vc.Ctrs)
		}
	}
	n.vcs = keep
}

// bindAddr is the local address of a bind as configured (osmo-pcu binds the
// wildcard address for the classic dialect, the resolved one for IP-SNS).
func (n *NSE) bindAddr(bind int) netip.AddrPort {
	for _, ep := range n.cfg.Endpoints {
		if ep.Bind == bind {
			return ep.Local
		}
	}
	return netip.AddrPort{}
}

// Config returns the configuration in use.
func (n *NSE) Config() Config { return n.cfg }

// Binds returns the local binds (sockets) of the configuration in
// ascending order: libosmogb's "ns.bind" stat item groups, numbered in
// creation order as the binds of INFO_IND are.
func (n *NSE) Binds() []int {
	var out []int
	for _, ep := range n.cfg.Endpoints {
		if !slices.Contains(out, ep.Bind) {
			out = append(out, ep.Bind)
		}
	}
	slices.Sort(out)
	return out
}

// VCs returns the NS-VCs (for VTY "show ns").
func (n *NSE) VCs() []*VC { return n.vcs }

// Available reports whether at least one NS-VC is unblocked.
func (n *NSE) Available() bool { return n.up }

// Start begins the NS procedures: NS-RESET on every NS-VC (classic) or
// SNS-SIZE (IP-SNS).
func (n *NSE) Start(now time.Duration) {
	if n.sns != nil {
		n.sns.start(now)
		return
	}
	for _, vc := range n.vcs {
		vc.startReset(now)
	}
}

// Stop takes every NS-VC down without sending anything.
func (n *NSE) Stop(now time.Duration) {
	for _, vc := range n.vcs {
		vc.state = VCDisabled
		vc.timer, vc.aliveTimer = 0, 0
	}
	if n.sns != nil {
		n.sns.timer = 0
	}
	n.updateAvailability(now)
}

// send encodes p and transmits it.
func (n *NSE) send(bind int, to netip.AddrPort, p ns.PDU) {
	l, err := ns.MarshalTo(p, n.buf[:])
	if err != nil {
		n.log.Error("encode failed", "pdu", p.Type(), "err", err)
		return
	}
	if err := n.txCount(n.findVC(bind, to), bind, to, n.buf[:l]); err != nil {
		n.log.Log(context.Background(), logx.LevelNotice, "send failed", "pdu", p.Type(), "to", to, "err", err)
	}
}

// sendStatus answers a bad PDU (TS 48.016 §7.5); never for an NS-STATUS.
func (n *NSE) sendStatus(bind int, to netip.AddrPort, cause ns.Cause, bad []byte, vc *VC) {
	if len(bad) > 0 && ns.PDUType(bad[0]) == ns.PDUStatus {
		return
	}
	st := ns.Status{Cause: cause}
	switch cause {
	case ns.CauseNSVCBlocked, ns.CauseNSVCUnknown:
		if vc != nil {
			st.NSVCI, st.HasNSVCI = vc.NSVCI, true
		}
	case ns.CauseBVCIUnknown:
	default:
		if len(bad) > 256 {
			bad = bad[:256]
		}
		st.ErrPDU, st.HasErrPDU = bad, true
	}
	n.send(bind, to, &st)
}

func (n *NSE) findVC(bind int, from netip.AddrPort) *VC {
	for _, vc := range n.vcs {
		if vc.Bind == bind && vc.Remote == from {
			return vc
		}
	}
	return nil
}

// Input processes one datagram received on local bind `bind` from `from`.
// b is not retained after the call.
//
// A datagram counts (packets:in, bytes:in) on the NS-VC it came on and the
// NSE (libosmogb ns2_recv_vc); IP-SNS signalling from an SGSN endpoint
// without NS-VC counts on the NSE only, anything else from an unknown
// peer nowhere.
func (n *NSE) Input(bind int, from netip.AddrPort, b []byte, now time.Duration) {
	vc := n.findVC(bind, from)
	n.count(vc, CtrPktsIn, CtrBytesIn, len(b))
	p, err := n.parse(b)
	if err != nil {
		n.log.Log(context.Background(), logx.LevelNotice, "bad NS PDU", "from", from, "err", err)
		c, _ := ns.CauseOf(err)
		n.sendStatus(bind, from, c, b, vc)
		return
	}
	if p.Type().IsSNS() {
		if n.sns == nil {
			n.sendStatus(bind, from, ns.CausePDUNotCompatible, b, nil)
			return
		}
		n.sns.input(bind, from, p, b, now)
		return
	}
	if vc == nil {
		switch p.(type) {
		case *ns.Status, *ns.AliveAck, *ns.ResetAck: // TS 48.016 §7.3.1, §7.4.1, §7.5.1: ignore
		default:
			n.sendStatus(bind, from, ns.CausePDUNotCompatible, b, nil)
		}
		return
	}
	vc.input(p, b, now)
}

// parse decodes b: NS-UNITDATA, the traffic, into n.rx without
// allocating, any other PDU into a new struct of its type.
func (n *NSE) parse(b []byte) (ns.PDU, error) {
	if len(b) > 0 && ns.PDUType(b[0]) == ns.PDUUnitdata {
		return &n.rx, n.rx.Unmarshal(b)
	}
	return ns.Parse(b)
}

// Tick runs every expired timer.
func (n *NSE) Tick(now time.Duration) {
	if n.sns != nil {
		n.sns.tick(now)
	}
	for _, vc := range n.vcs {
		vc.tick(now)
	}
}

// NextDeadline returns the earliest pending timer, if any.
func (n *NSE) NextDeadline() (time.Duration, bool) {
	var d time.Duration
	ok := false
	take := func(t time.Duration) {
		if t != 0 && (!ok || t < d) {
			d, ok = t, true
		}
	}
	if n.sns != nil {
		take(n.sns.timer)
	}
	for _, vc := range n.vcs {
		take(vc.timer)
		take(vc.aliveTimer)
	}
	return d, ok
}

func (n *NSE) updateAvailability(now time.Duration) {
	up := false
	for _, vc := range n.vcs {
		if vc.state == VCUnblocked {
			up = true
		}
	}
	if up != n.up {
		n.up = up
		n.since = now
		n.log.Log(context.Background(), logx.LevelInfo, "NSE availability changed", "available", up)
		if n.h != nil {
			n.h.NSAvailable(up, now)
		}
	}
}

// pickVC selects an unblocked NS-VC for the link selection parameter lsp
// (TS 48.016 §4.4.1 load sharing): the same LSP always maps to the same
// NS-VC while the set of NS-VCs is unchanged, weighted by the data weight
// (signalling weight for BVCI 0 under IP-SNS).
func (n *NSE) pickVC(lsp uint32, sig bool) *VC {
	total := 0
	for _, vc := range n.vcs {
		if vc.state == VCUnblocked {
			total += vc.weight(sig)
		}
	}
	if total == 0 {
		return nil
	}
	k := int(lsp % uint32(total))
	for _, vc := range n.vcs {
		if vc.state != VCUnblocked {
			continue
		}
		if w := vc.weight(sig); k < w {
			return vc
		} else {
			k -= w
		}
	}
	return nil
}

// SendUnitdata sends sdu as NS-UNITDATA on bvci over the NS-VC that the
// link selection parameter lsp (TLLI for MS traffic, 0 for signalling)
// selects. The SDU is copied.
func (n *NSE) SendUnitdata(bvci uint16, lsp uint32, sdu []byte) error {
	if len(sdu)+ns.HeaderLen > len(n.buf) {
		return ErrTooLarge
	}
	copy(n.buf[ns.HeaderLen:], sdu)
	return n.SendUnitdataInPlace(bvci, lsp, n.buf[:ns.HeaderLen+len(sdu)])
}

// SendUnitdataInPlace is SendUnitdata for a buffer whose first HeaderLen
// octets are headroom the NS header is written into (no copy).
func (n *NSE) SendUnitdataInPlace(bvci uint16, lsp uint32, pkt []byte) error {
	vc := n.pickVC(lsp, bvci == 0)
	if vc == nil {
		n.Ctrs.Inc(CtrPktsOutDrop)
		n.Ctrs.Add(CtrBytesOutDrop, uint64(len(pkt)))
		return ErrNotAvailable
	}
	pkt[0], pkt[1], pkt[2], pkt[3] = byte(ns.PDUUnitdata), 0, byte(bvci>>8), byte(bvci)
	return n.txCount(vc, vc.Bind, vc.Remote, pkt)
}

// txCount sends b and counts it on vc and the NSE (libosmogb ns_vc_tx); with
// no NS-VC, IP-SNS signalling counts on the NSE only and anything else (an
// NS-STATUS to a stranger) nowhere.
func (n *NSE) txCount(vc *VC, bind int, to netip.AddrPort, b []byte) error {
	pkts, bytes := CtrPktsOut, CtrBytesOut
	err := n.tx.Send(bind, to, b)
	if err != nil {
		pkts, bytes = CtrPktsOutDrop, CtrBytesOutDrop
	}
	n.count(vc, pkts, bytes, len(b))
	return err
}

// count counts one datagram of size octets on vc and the NSE; without an
// NS-VC, on the NSE only under IP-SNS (its signalling), else nowhere.
func (n *NSE) count(vc *VC, pkts, bytes, size int) {
	switch {
	case vc != nil:
		vc.inc(pkts)
		vc.add(bytes, uint64(size))
	case n.sns != nil:
		n.Ctrs.Inc(pkts)
		n.Ctrs.Add(bytes, uint64(size))
	}
}

// Reconfigure applies a new configuration from a later INFO_IND while
// keeping what still matches (osmo-pcu gprs_bssgp_pcu.c gprs_ns_update_config()): classic keeps the
// NS-VCs whose bind, remote and NSVCI are unchanged, drops the others and
// starts new ones; IP-SNS keeps everything when one of the new remotes is
// the current initial SNS endpoint, else it starts over. NSEI or dialect
// changes cannot be applied in place: Reconfigure returns false and the
// caller builds a new NSE.
func (n *NSE) Reconfigure(cfg Config, now time.Duration) bool {
	if cfg.NSEI != n.cfg.NSEI || cfg.Dialect != n.cfg.Dialect || len(cfg.Endpoints) == 0 || len(cfg.Endpoints) > 2 {
		return false
	}
	if cfg.Timers == (Timers{}) {
		cfg.Timers = n.cfg.Timers
	}
	if cfg.MaxNSVCs == 0 {
		cfg.MaxNSVCs = n.cfg.MaxNSVCs
	}
	cfg.Counters = n.cfg.Counters // the groups stay where they are
	if cfg.VCIndex == nil {
		cfg.VCIndex = n.cfg.VCIndex
	}
	if cfg.SourceAddr == nil {
		cfg.SourceAddr = n.cfg.SourceAddr
	}
	if n.sns != nil {
		cur := n.sns.ep().Remote
		n.cfg = cfg
		for i, ep := range cfg.Endpoints {
			if ep.Remote == cur {
				n.sns.initial = i
				return true
			}
		}
		n.sns.initial = 0
		n.sns.restart(now)
		return true
	}
	n.cfg = cfg
	var keep []*VC
	var fresh []*VC
	for _, ep := range cfg.Endpoints {
		var found *VC
		for _, vc := range n.vcs {
			if vc.Bind == ep.Bind && vc.Remote == ep.Remote && vc.NSVCI == ep.NSVCI {
				found = vc
			}
		}
		if found == nil {
			found = newVC(n, ep.Bind, ep.Remote, ep.NSVCI, true, 1, 1)
			fresh = append(fresh, found)
		}
		keep = append(keep, found)
	}
	for _, vc := range n.vcs {
		gone := true
		for _, k := range keep {
			if k == vc {
				gone = false
			}
		}
		if gone {
			vc.state, vc.timer, vc.aliveTimer = VCDisabled, 0, 0
		}
	}
	n.replaceVCs(keep)
	n.updateAvailability(now)
	for _, vc := range fresh {
		vc.startReset(now)
	}
	return true
}

// TransportFunc adapts a function to Transport (e.g. an in-memory link that
// copies b and posts it to the peer's goroutine).
type TransportFunc func(bind int, to netip.AddrPort, b []byte) error

// Send implements Transport.
func (f TransportFunc) Send(bind int, to netip.AddrPort, b []byte) error { return f(bind, to, b) }
