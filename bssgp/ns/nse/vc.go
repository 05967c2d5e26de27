package nse

import (
	"context"
	"errors"
	"fmt"
	"github.com/gopcu/gopcu/bssgp/ns"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/gopcu/gopcu/internal/logx"
	"github.com/gopcu/gopcu/stats/counter"
)

// VCState is the state of an NS-VC (TS 48.016 §6.1: blocked/unblocked,
// alive/dead).
type VCState int

// NS-VC states.
const (
	VCDisabled   VCState = iota
	VCResetting          // classic: NS-RESET sent, waiting for NS-RESET-ACK
	VCBlocked            // classic: reset done, NS-UNBLOCK pending or peer blocked us
	VCUnblocked          // usable for NS-UNITDATA
	VCRecovering         // IP-SNS: testing with NS-ALIVE, not yet answered
)

func (s VCState) String() string {
	// libosmogb's NS-VC FSM state names, as "show ns" prints them.
	return [...]string{"UNCONFIGURED", "RESET", "BLOCKED", "UNBLOCKED", "RECOVERING"}[s]
}

// VC is one NS-VC, identified by local bind and remote endpoint.
type VC struct {
	nse     *NSE
	Bind    int
	Remote  netip.AddrPort
	NSVCI   uint16
	classic bool // RESET/BLOCK/UNBLOCK procedures (else ALIVE only)
	// IP-SNS weights (TS 48.016 §10.3.2c).
	SigWeight, DataWeight uint8

	state        VCState
	timer        time.Duration // FSM timer (tns-reset / tns-block / tns-alive while recovering)
	retries      int
	peerBlocked  bool
	aliveTimer   time.Duration // tns-test or tns-alive of the alive procedure
	aliveRetries int
	aliveOut     bool          // NS-ALIVE outstanding
	aliveStart   time.Duration // first NS-ALIVE of the current test round
	aliveDelay   time.Duration // "alive.delay" stat item
	since        time.Duration
	upSince      time.Duration // last entry into UNBLOCKED (start before): "show ns"
	started      bool
	omBlocked    bool // blocked by O&M ("nsvc <nsvci> block") until Unblock
	blockOut     bool // our NS-BLOCK waits for its NS-BLOCK-ACK
	// Ctrs is the NS-VC's "ns:nsvc" counter group: index in allocation
	// order across the NS instance, named after the NS-VC (VCGroupName).
	Ctrs     counter.Group
	ctrIndex uint32
	ctrName  string
}

func newVC(n *NSE, bind int, remote netip.AddrPort, nsvci uint16, classic bool, sw, dw uint8) *VC {
	vc := &VC{nse: n, Bind: bind, Remote: remote, NSVCI: nsvci, classic: classic, SigWeight: sw, DataWeight: dw,
		ctrIndex: *n.cfg.VCIndex, ctrName: VCGroupName(n.cfg.NSEI, n.bindAddr(bind), remote)}
	*n.cfg.VCIndex++
	vc.Ctrs = counter.New(n.cfg.Counters, counter.GroupSpec{Name: "ns:nsvc", Description: "NSVC Peer Statistics",
		Index: vc.ctrIndex, IndexName: vc.ctrName, Descs: CounterDescs})
	return vc
}

// CounterIndex is the index and the name of the NS-VC's "ns:nsvc" group
// (also those of its stat items).
func (vc *VC) CounterIndex() (uint32, string) { return vc.ctrIndex, vc.ctrName }

// VCGroupName is the name libosmogb gives the counter group of an NS-VC
// over UDP that the BSS (or an SGSN) sets up towards a remote
// (ns2_ip_bind_connect): "NSE<nsei:05>-NSVC-UDP-<local>-<remote>",
// addresses as "a.b.c.d:port" / "[v6]:port" with the bind's configured
// local address, then every character libosmocore does not allow in an
// identifier replaced by '_' (osmo_identifier_sanitize_buf), e.g.
// "NSE00101-NSVC-UDP-0_0_0_0:23001-127_0_0_1:23000". statsd then turns
// the ':' into '.'.
func VCGroupName(nsei uint16, local, remote netip.AddrPort) string {
	b := []byte(fmt.Sprintf("NSE%05d-NSVC-UDP-%s-%s", nsei, sockaddrStr(local), sockaddrStr(remote)))
	for i, c := range b {
		if strings.IndexByte(identIllegal, c) >= 0 {
			b[i] = '_'
		}
	}
	return string(b)
}

// identIllegal are the characters libosmocore replaces in identifiers
// (osmo_identifier_illegal_chars).
const identIllegal = "., {}[]()<>|~\\^`'\"?=;/+*&%$#!"

// sockaddrStr formats an address as osmo_sockaddr_to_str: no port when 0.
func sockaddrStr(a netip.AddrPort) string {
	if !a.IsValid() {
		return "NULL"
	}
	s := a.Addr().String()
	if a.Addr().Is6() {
		s = "[" + s + "]"
	}
	if a.Port() != 0 {
		s += ":" + strconv.Itoa(int(a.Port()))
	}
	return s
}

// AliveDelay is the NS-VC's "alive.delay" stat item (libosmogb
// NS_STAT_ALIVE_DELAY, in ms on statsd): how long the SGSN took to answer
// the last test procedure, from its first NS-ALIVE to the NS-ALIVE-ACK;
// 0 again when the NS-VC is reset or declared dead.
func (vc *VC) AliveDelay() time.Duration { return vc.aliveDelay }

// inc and add count on the NS-VC and its NSE (libosmogb RATE_CTR_INC_NS).
func (vc *VC) inc(ctr int) {
	vc.Ctrs.Inc(ctr)
	vc.nse.Ctrs.Inc(ctr)
}

func (vc *VC) add(ctr int, v uint64) {
	vc.Ctrs.Add(ctr, v)
	vc.nse.Ctrs.Add(ctr, v)
}

// State returns the current state and since when (monotonic time).
func (vc *VC) State() (VCState, time.Duration) { return vc.state, vc.since }

func (vc *VC) weight(sig bool) int {
	if vc.classic {
		return 1
	}
	if sig {
		return int(vc.SigWeight)
	}
	return int(vc.DataWeight)
}

func (vc *VC) setState(s VCState, now time.Duration) {
	if s == vc.state {
		return
	}
	vc.nse.log.Log(context.Background(), logx.LevelInfo, "NS-VC state change", "nsvci", vc.NSVCI, "remote", vc.Remote,
		"from", vc.state.String(), "to", s.String())
	// Every entry into UNBLOCKED or BLOCKED counts, from RESET too
	// (libosmogb ns2_st_unblocked_on_enter, ns2_st_blocked_onenter).
	switch s {
	case VCUnblocked:
		vc.inc(CtrUnblocked)
	case VCBlocked:
		vc.inc(CtrBlocked)
	}
	vc.state = s
	vc.since = now
	if s == VCUnblocked || !vc.started {
		vc.upSince, vc.started = now, true
	}
	vc.nse.updateAvailability(now)
}

// ErrAlready is returned by Block and Unblock when there is nothing to do.
var ErrAlready = errors.New("ns: already in that state")

// Block blocks the NS-VC by O&M ("nsvc <nsvci> block", TS 48.016 §7.2):
// it carries no NS-UNITDATA from now on, a classic NS-VC tells the peer
// with NS-BLOCK (cause O&M intervention, repeated on Tns-block), and it
// stays blocked until Unblock. ErrAlready if it is blocked by O&M already
// (libosmogb ns2_vc_block).
func (vc *VC) Block(now time.Duration) error {
	if vc.omBlocked {
		return ErrAlready
	}
	vc.omBlocked = true
	switch vc.state {
	case VCUnblocked, VCBlocked, VCRecovering:
		vc.setState(VCBlocked, now)
		if vc.classic {
			vc.retries = 0
			vc.sendBlock(now)
		} else {
			vc.timer = 0
		}
	}
	return nil
}

// Unblock ends an O&M block ("nsvc <nsvci> unblock"): a classic NS-VC runs
// the unblock procedure (NS-UNBLOCK until NS-UNBLOCK-ACK), an IP-SNS one
// the test procedure. ErrAlready if it is not blocked by O&M.
func (vc *VC) Unblock(now time.Duration) error {
	if !vc.omBlocked {
		return ErrAlready
	}
	vc.omBlocked, vc.blockOut = false, false
	if vc.state != VCBlocked {
		return nil // RESET running: it unblocks when done
	}
	if !vc.classic {
		vc.startAliveOnly(now)
		return nil
	}
	if !vc.peerBlocked {
		vc.retries = 0
		vc.sendUnblock(now)
	}
	return nil
}

// Reset runs the NS-RESET procedure again ("nsvc <nsvci> reset", cause
// O&M intervention); an IP-SNS NS-VC restarts its test procedure. An O&M
// block stays.
func (vc *VC) Reset(now time.Duration) {
	vc.blockOut = false
	vc.startReset(now)
}

func (vc *VC) sendBlock(now time.Duration) {
	vc.tx(&ns.Block{Cause: ns.CauseOMIntervention, NSVCI: vc.NSVCI})
	vc.blockOut = true
	vc.timer = now + vc.nse.cfg.Timers.TnsBlock
}

// afterReset enters BLOCKED after a reset and unblocks unless blocked by
// O&M (then the peer learns the block).
func (vc *VC) afterReset(now time.Duration) {
	vc.retries = 0
	vc.setState(VCBlocked, now)
	if vc.omBlocked {
		vc.sendBlock(now)
	} else {
		vc.sendUnblock(now)
	}
	vc.startAlive(now)
}

func (vc *VC) tx(p ns.PDU) { vc.nse.send(vc.Bind, vc.Remote, p) }

// startReset runs the NS-RESET procedure (TS 48.016 §7.3).
func (vc *VC) startReset(now time.Duration) {
	if !vc.classic {
		vc.startAliveOnly(now)
		return
	}
	vc.aliveTimer, vc.aliveOut, vc.peerBlocked = 0, false, false
	vc.aliveDelay = 0
	vc.retries = 0
	vc.setState(VCResetting, now)
	vc.tx(&ns.Reset{Cause: ns.CauseOMIntervention, NSVCI: vc.NSVCI, NSEI: vc.nse.cfg.NSEI})
	vc.timer = now + vc.nse.cfg.Timers.TnsReset
}

// startAliveOnly brings up an IP-SNS NS-VC: NS-ALIVE until answered.
func (vc *VC) startAliveOnly(now time.Duration) {
	vc.setState(VCRecovering, now)
	vc.timer = 0
	vc.startAlive(now)
}

// startAlive starts the test procedure with a fresh retry count (§7.4).
func (vc *VC) startAlive(now time.Duration) {
	vc.aliveRetries = 0
	vc.aliveStart = now
	vc.sendAlive(now)
}

func (vc *VC) sendAlive(now time.Duration) {
	vc.tx(&ns.Alive{})
	vc.aliveOut = true
	vc.aliveTimer = now + vc.nse.cfg.Timers.TnsAlive
}

// startTest (re)arms the periodic test procedure (TS 48.016 §7.4: Tns-test).
func (vc *VC) startTest(now time.Duration) {
	vc.aliveOut = false
	vc.aliveRetries = 0
	vc.aliveTimer = now + vc.nse.cfg.Timers.TnsTest
}

func (vc *VC) sendUnblock(now time.Duration) {
	vc.tx(&ns.Unblock{})
	vc.timer = now + vc.nse.cfg.Timers.TnsBlock
}

func (vc *VC) dead(now time.Duration) {
	vc.nse.log.Log(context.Background(), logx.LevelNotice, "NS-VC dead: no NS-ALIVE-ACK", "nsvci", vc.NSVCI)
	vc.inc(CtrDead)
	vc.aliveDelay = 0
	if vc.classic {
		vc.startReset(now)
		return
	}
	vc.aliveRetries = 0
	vc.aliveStart = now
	vc.setState(VCRecovering, now)
	vc.sendAlive(now)
	if vc.nse.sns != nil {
		vc.nse.sns.vcDead(now)
	}
}

func (vc *VC) tick(now time.Duration) {
	t := &vc.nse.cfg.Timers
	if vc.timer != 0 && now >= vc.timer {
		vc.timer = 0
		switch vc.state {
		case VCResetting:
			// Tns-reset expiry: repeat NS-RESET (§7.3); after the configured
			// retries keep trying, one NS-RESET per Tns-reset.
			vc.retries++
			vc.inc(CtrLostReset)
			if vc.retries > t.TnsResetRetries {
				vc.nse.log.Log(context.Background(), logx.LevelNotice, "NS-RESET unanswered", "nsvci", vc.NSVCI, "tries", vc.retries)
			}
			vc.tx(&ns.Reset{Cause: ns.CauseOMIntervention, NSVCI: vc.NSVCI, NSEI: vc.nse.cfg.NSEI})
			vc.timer = now + t.TnsReset
		case VCBlocked:
			if vc.omBlocked {
				if vc.blockOut && vc.classic {
					// §7.2: NS-BLOCK repeated on Tns-block; unanswered
					// after the retries, the NS-VC stays blocked here
					vc.retries++
					if vc.retries <= t.TnsBlockRetries {
						vc.sendBlock(now)
					} else {
						vc.blockOut = false
					}
				}
				break
			}
			if vc.peerBlocked {
				break
			}
			vc.retries++
			if vc.retries > t.TnsBlockRetries {
				vc.startReset(now) // §7.2: unblock failed -> reset
				return
			}
			vc.sendUnblock(now)
		}
	}
	if vc.aliveTimer != 0 && now >= vc.aliveTimer {
		vc.aliveTimer = 0
		if !vc.aliveOut {
			vc.aliveStart = now
			vc.sendAlive(now) // Tns-test expired: test the NS-VC
		} else {
			vc.aliveRetries++
			vc.inc(CtrLostAlive)
			if vc.aliveRetries >= t.TnsAliveRetries {
				vc.dead(now)
				return
			}
			vc.sendAlive(now)
		}
	}
}

func (vc *VC) input(p ns.PDU, raw []byte, now time.Duration) {
	n := vc.nse
	switch p := p.(type) {
	case *ns.Alive:
		vc.tx(&ns.AliveAck{})
	case *ns.AliveAck:
		if vc.aliveOut {
			vc.aliveDelay = now - vc.aliveStart
			vc.startTest(now)
		}
		if vc.state == VCRecovering && !vc.omBlocked {
			vc.setState(VCUnblocked, now)
		}
	case *ns.Unitdata:
		if vc.state != VCUnblocked {
			n.sendStatus(vc.Bind, vc.Remote, ns.CauseNSVCBlocked, raw, vc)
			return
		}
		if n.h != nil {
			n.h.NSUnitdata(p.BVCI, p.SDU, now)
		}
	case *ns.Status:
		n.log.Log(context.Background(), logx.LevelNotice, "NS-STATUS received", "nsvci", vc.NSVCI, "cause", p.Cause.String())
		switch p.Cause {
		case ns.CausePDUNotCompatible, ns.CauseNSVCUnknown:
			// The peer lost our NS-VC (e.g. SGSN restart): start over.
			if vc.classic {
				vc.startReset(now)
			} else if n.sns != nil {
				n.sns.restart(now)
			}
		case ns.CauseNSVCBlocked:
			// The peer holds the NS-VC blocked while we think it is unblocked
			// (a lost NS-RESET/BLOCK): resynchronise with NS-RESET (§7.3).
			if vc.classic && vc.state == VCUnblocked {
				vc.startReset(now)
			}
		}
	default:
		if !vc.classic {
			n.sendStatus(vc.Bind, vc.Remote, ns.CausePDUNotCompatible, raw, vc)
			return
		}
		vc.inputClassic(p, raw, now)
	}
}

func (vc *VC) inputClassic(p ns.PDU, raw []byte, now time.Duration) {
	n := vc.nse
	switch p := p.(type) {
	case *ns.Reset:
		// SGSN-initiated reset (§7.3): acknowledge, then unblock.
		if p.NSVCI != vc.NSVCI {
			vc.inc(CtrInvNSVCI)
		}
		if p.NSEI != n.cfg.NSEI {
			vc.inc(CtrInvNSEI)
		}
		if p.NSVCI != vc.NSVCI || p.NSEI != n.cfg.NSEI {
			n.sendStatus(vc.Bind, vc.Remote, ns.CauseNSVCUnknown, raw, vc)
			return
		}
		vc.tx(&ns.ResetAck{NSVCI: vc.NSVCI, NSEI: n.cfg.NSEI})
		vc.peerBlocked = false
		vc.afterReset(now)
	case *ns.ResetAck:
		if vc.state != VCResetting {
			return // §7.3.1: unexpected RESET-ACK is ignored
		}
		if p.NSVCI != vc.NSVCI || p.NSEI != n.cfg.NSEI {
			n.sendStatus(vc.Bind, vc.Remote, ns.CauseNSVCUnknown, raw, vc)
			return
		}
		vc.afterReset(now)
	case *ns.Block:
		if p.NSVCI != vc.NSVCI {
			n.sendStatus(vc.Bind, vc.Remote, ns.CauseNSVCUnknown, raw, vc)
			return
		}
		vc.tx(&ns.BlockAck{NSVCI: vc.NSVCI})
		if vc.state == VCUnblocked || vc.state == VCBlocked {
			vc.peerBlocked = true
			vc.timer = 0
			vc.setState(VCBlocked, now)
		}
	case *ns.BlockAck:
		if vc.blockOut && p.NSVCI == vc.NSVCI {
			vc.blockOut = false
			vc.timer = 0
		}
	case *ns.Unblock:
		if vc.state == VCResetting {
			n.sendStatus(vc.Bind, vc.Remote, ns.CausePDUNotCompatible, raw, vc)
			return
		}
		vc.tx(&ns.UnblockAck{})
		vc.peerBlocked = false
		if vc.omBlocked {
			vc.retries = 0
			vc.sendBlock(now) // blocked by O&M: the peer learns it again
			return
		}
		vc.timer = 0
		vc.setState(VCUnblocked, now)
	case *ns.UnblockAck:
		if vc.state == VCBlocked && !vc.peerBlocked && !vc.omBlocked {
			vc.timer = 0
			vc.setState(VCUnblocked, now)
		}
	default:
		n.sendStatus(vc.Bind, vc.Remote, ns.CausePDUNotCompatible, raw, vc)
	}
}
