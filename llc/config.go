package llc

import (
	"errors"
	"fmt"
	"time"

	"github.com/gopcu/gopcu/internal/enumname"
)

// Variant selects the CoDel automaton.
type Variant uint8

const (
	// VariantRFC is RFC 8289 CoDel (the default): first drop after one
	// interval above target, count − lastcount re-entry within 16 intervals,
	// exact INTERVAL/√count control law, MAXPACKET per CoDel queue. The
	// user-data SAPIs get one CoDel each, scheduled by DRR.
	VariantRFC Variant = iota
	// VariantOsmo is osmo-pcu's gprs_codel automaton (ACM 2012 "broken up"
	// variant): 2 × interval on a fresh episode, count − 2 re-entry within
	// one interval, 8-bit 256/√n table capped at count 227, target =
	// ⌊interval·13/256⌋ ms, maxpacket 512 octets over the whole MS queue, one
	// FIFO for all user-data SAPIs, CoDel before the lifetime check.
	VariantOsmo
)

var variantNames = map[Variant]string{VariantRFC: "rfc", VariantOsmo: "osmo"}

func (v Variant) String() string { return enumname.String(variantNames, v, "Variant(%d)") }

// ParseVariant parses the VTY keyword ("rfc" or "osmo").
func ParseVariant(s string) (Variant, error) {
	switch s {
	case "rfc":
		return VariantRFC, nil
	case "osmo":
		return VariantOsmo, nil
	}
	return 0, fmt.Errorf("llc: unknown codel variant %q", s)
}

// AQM selects the drop/mark algorithm of the user-data flows while the AQM
// is on (Config.CoDel, osmo-pcu's `queue codel`).
type AQM uint8

const (
	// AQMCoDel is CoDel (RFC 8289, or osmo-pcu's automaton with
	// VariantOsmo). It is the zero value; DefaultConfig chooses AQMRED.
	AQMCoDel AQM = iota
	// AQMPIE is PIE (RFC 8033) with the queue delay estimated from the
	// MS's drain rate, applied at the head of the flow.
	AQMPIE
	// AQMRED is RED per flow with head drop/mark, as Linux SFQ's
	// redflowlimit with headdrop (Floyd and Jacobson 1993): gopcu's
	// default (DefaultConfig; docs/bufferbloat.md "The default").
	AQMRED
)

var aqmNames = map[AQM]string{AQMCoDel: "codel", AQMPIE: "pie", AQMRED: "red"}

func (a AQM) String() string { return enumname.String(aqmNames, a, "AQM(%d)") }

// ParseAQM parses the VTY keyword ("codel", "pie" or "red").
func ParseAQM(s string) (AQM, error) {
	for a := AQMCoDel; a <= AQMRED; a++ {
		if a.String() == s {
			return a, nil
		}
	}
	return 0, fmt.Errorf("llc: unknown AQM %q", s)
}

// Lifetime values of Config.Lifetime (osmo-pcu force_llc_lifetime).
const (
	LifetimeFromSGSN uint16 = 0      // `no queue lifetime`: use the BSSGP PDU Lifetime IE
	LifetimeInfinite uint16 = 0xffff // `queue lifetime infinite`; also the IE value for "infinite"
)

// Defaults.
const (
	DefaultIdleAckDelay  = 10 // centiseconds, `queue idle-ack-delay 10`
	DefaultTarget        = 5 * time.Millisecond
	DefaultMSLimit       = 256 << 10 // memory octets per MS queue
	DefaultGlobalLimit   = 64 << 20  // memory octets over all queues
	FrameOverhead        = 64        // memory octets charged per queued frame on top of its length
	OsmoDefaultInterval  = 4000 * time.Millisecond
	OsmoDefaultMaxPacket = 512
	RFCDefaultMaxPacket  = MaxFrameLen
)

// Config mirrors osmo-pcu's `pcu` node queue commands plus gopcu's
// extensions. Every field applies to existing queues at once when passed to
// Shared.Apply (osmo-pcu applies CoDel settings to new MS objects only):
//
//	queue codel                       CoDel = true,  Interval = 0 (per-MS automatic interval)
//	queue codel interval <1-1000>     CoDel = true,  Interval = N × 10 ms
//	no queue codel                    CoDel = false
//	queue lifetime <1-65534>          Lifetime = N (centiseconds, overrides the SGSN's PDU lifetime)
//	queue lifetime infinite           Lifetime = LifetimeInfinite
//	no queue lifetime                 Lifetime = LifetimeFromSGSN
//	queue hysteresis <1-65535>        Hysteresis = N (centiseconds); no queue hysteresis = 0
//	queue idle-ack-delay <1-65535>    IdleAckDelay = N (centiseconds); no queue idle-ack-delay = 0
//
// Extensions (same style):
//
//	queue codel variant (rfc|osmo)    Variant
//	queue codel target <1-10000000>   Target in microseconds; no queue codel target = automatic
//	queue codel maxpacket <1-65535>   MaxPacket octets; no queue codel maxpacket = variant default
//	queue codel quantum <64-65535>    Quantum (DRR octets); no queue codel quantum = 1543
//	queue limit ms <4096-1073741824>  MSLimit (memory octets)
//	queue limit global <65536-...>    GlobalLimit (memory octets)
//	queue aqm (codel|pie|red)         AQM; no queue aqm = red (DefaultConfig)
//	no queue ecn                      NoECN (queue ecn = default: mark ECN-capable frames)
//	no queue fq                       NoFQ: one FIFO for the data class (queue fq = default)
//	queue pie target <1-10000>        PIE.Target in milliseconds (0: automatic)
//	queue pie tupdate <1-10000>       PIE.TUpdate in milliseconds (0: = target)
//	queue pie max-burst <0-100000>    PIE.MaxBurst in milliseconds (0 ms: none, PIE.MaxBurst < 0); no queue pie max-burst = 10 × target
//	queue red min|max <octets>        RED.Min / RED.Max (0: automatic)
//	queue red probability <1-100>     RED.MaxP in percent (0: 10 %)
//	queue red ewma <1-10>             RED.Wlog: average weight 2^-N (0: 2)
//
// When each one takes effect: CoDel on/off, interval, target, maxpacket and
// variant at the next Dequeue of each queue (a variant change, or turning
// CoDel on, restarts the CoDel states; queued frames are kept and re-sorted);
// Lifetime and Hysteresis at the next Dequeue, for every queued frame (the
// expiry is computed from each frame's enqueue time and PDU lifetime then);
// Quantum at the next DRR round; GlobalLimit at once (Apply drops from the
// fattest queues until the total fits); MSLimit at once for the memory
// octets of every queue (same rule). IdleAckDelay is the engine's: it asks
// for a DL Ack/Nack that long after the last enqueue (pcu pollDL).
type Config struct {
	CoDel        bool
	Interval     time.Duration // 0: automatic (rfc: from the drain rate, osmo: 4 s)
	Variant      Variant
	Target       time.Duration // 0: automatic; else ≥ 1 µs (rfc only; osmo derives it)
	MaxPacket    int           // 0: variant default (rfc 1543 per CoDel queue, osmo 512 per MS)
	Quantum      int           // 0: MaxFrameLen
	Lifetime     uint16        // centiseconds; LifetimeFromSGSN, LifetimeInfinite or 1..65534
	Hysteresis   uint16        // centiseconds
	IdleAckDelay uint16        // centiseconds
	MSLimit      int           // memory octets (frame length + FrameOverhead) per MS; 0: default
	GlobalLimit  int64         // memory octets over all queues of a Shared; 0: default
	AQM          AQM           // algorithm while CoDel (the AQM switch) is on
	NoECN        bool          // drop instead of marking ECN-capable frames
	NoFQ         bool          // rfc variant: one FIFO for all user data instead of flow queues
	PIE          PIEConfig
	RED          REDConfig
}

// PIEConfig holds the PIE extension settings; zero values are automatic.
type PIEConfig struct {
	Target   time.Duration // QDELAY_REF; 0: the automatic CoDel target of the MS's drain rate
	TUpdate  time.Duration // 0: = target
	MaxBurst time.Duration // 0: 10 × target; negative: no burst allowance
}

// REDConfig holds the RED extension settings; zero values are automatic.
type REDConfig struct {
	Min, Max int   // thresholds of the average flow backlog, octets; 0: from the drain rate
	MaxP     int   // max_p in percent; 0: 10
	Wlog     uint8 // EWMA weight 2^-Wlog; 0: 2
}

// DefaultConfig is osmo-pcu's default (`queue idle-ack-delay 10`,
// `queue codel`: the AQM on) with gopcu's defaults for the extensions:
// RED per flow inside the flow queues (SFQ-RED), ECN marks. SFQ-RED is
// the default because on the real Osmocom network it holds the download's
// own queue at about 0.6 s (p50) where FQ-CoDel left 2.2 s, for the same
// busy ping and download time (docs/bufferbloat.md "The default").
func DefaultConfig() Config {
	return Config{CoDel: true, IdleAckDelay: DefaultIdleAckDelay, AQM: AQMRED}
}

// Errors returned by Validate.
var ErrConfig = errors.New("llc: invalid queue configuration")

// Validate checks the ranges of the VTY commands.
func (c Config) Validate() error {
	switch {
	case c.Interval != 0 && (c.Interval < 10*time.Millisecond || c.Interval > 10*time.Second):
		return fmt.Errorf("%w: codel interval %v outside 10ms..10s", ErrConfig, c.Interval)
	case c.Target < 0 || (c.Target != 0 && c.Target < time.Microsecond) || c.Target > 10*time.Second:
		return fmt.Errorf("%w: codel target %v outside 1µs..10s", ErrConfig, c.Target)
	case c.Variant > VariantOsmo:
		return fmt.Errorf("%w: variant %v", ErrConfig, c.Variant)
	case c.MaxPacket < 0 || c.MaxPacket > 65535:
		return fmt.Errorf("%w: maxpacket %d", ErrConfig, c.MaxPacket)
	case c.Quantum != 0 && (c.Quantum < 64 || c.Quantum > 65535):
		return fmt.Errorf("%w: quantum %d", ErrConfig, c.Quantum)
	case c.MSLimit != 0 && (c.MSLimit < MaxFrameLen+FrameOverhead || c.MSLimit > 1<<30):
		return fmt.Errorf("%w: per-MS limit %d", ErrConfig, c.MSLimit)
	case c.GlobalLimit != 0 && c.GlobalLimit < MaxFrameLen+FrameOverhead:
		return fmt.Errorf("%w: global limit %d", ErrConfig, c.GlobalLimit)
	case c.AQM > AQMRED:
		return fmt.Errorf("%w: aqm %v", ErrConfig, c.AQM)
	case c.CoDel && c.AQM != AQMCoDel && c.Variant == VariantOsmo:
		return fmt.Errorf("%w: the osmo variant is CoDel only (queue aqm %v)", ErrConfig, c.AQM)
	case c.PIE.Target < 0 || c.PIE.Target > 10*time.Second || c.PIE.TUpdate < 0 || c.PIE.TUpdate > 10*time.Second ||
		c.PIE.MaxBurst > 100*time.Second:
		return fmt.Errorf("%w: pie target %v, tupdate %v, max-burst %v", ErrConfig, c.PIE.Target, c.PIE.TUpdate, c.PIE.MaxBurst)
	case c.RED.Min < 0 || c.RED.Max < 0 || c.RED.Min > 1<<30 || c.RED.Max > 1<<30 || (c.RED.Max != 0 && c.RED.Min >= c.RED.Max):
		return fmt.Errorf("%w: red min %d max %d (min must be below max)", ErrConfig, c.RED.Min, c.RED.Max)
	case c.RED.MaxP < 0 || c.RED.MaxP > 100 || c.RED.Wlog > 10:
		return fmt.Errorf("%w: red probability %d%%, ewma %d", ErrConfig, c.RED.MaxP, c.RED.Wlog)
	}
	return nil
}

func (c Config) msLimit() int {
	if c.MSLimit == 0 {
		return DefaultMSLimit
	}
	return c.MSLimit
}

func (c Config) globalLimit() int64 {
	if c.GlobalLimit == 0 {
		return DefaultGlobalLimit
	}
	return c.GlobalLimit
}

func (c Config) quantum() int32 {
	if c.Quantum == 0 {
		return MaxFrameLen
	}
	return int32(c.Quantum)
}

// VTYLines returns the osmo-pcu `show running-config` lines of the queue
// commands, in osmo-pcu's order (lifetime, hysteresis, idle-ack-delay,
// codel), each with its leading space.
func (c Config) VTYLines() []string {
	var l []string
	switch c.Lifetime {
	case LifetimeFromSGSN:
	case LifetimeInfinite:
		l = append(l, " queue lifetime infinite")
	default:
		l = append(l, fmt.Sprintf(" queue lifetime %d", c.Lifetime))
	}
	if c.Hysteresis != 0 {
		l = append(l, fmt.Sprintf(" queue hysteresis %d", c.Hysteresis))
	}
	if c.IdleAckDelay != 0 {
		l = append(l, fmt.Sprintf(" queue idle-ack-delay %d", c.IdleAckDelay))
	}
	switch {
	case !c.CoDel:
		l = append(l, " no queue codel")
	case c.Interval == 0:
		l = append(l, " queue codel")
	default:
		l = append(l, fmt.Sprintf(" queue codel interval %d", c.Interval/(10*time.Millisecond)))
	}
	return l
}

// VTYExtLines returns the `show running-config` lines of gopcu's extensions
// that differ from their defaults.
func (c Config) VTYExtLines() []string {
	var l []string
	if c.Variant != VariantRFC {
		l = append(l, " queue codel variant "+c.Variant.String())
	}
	if c.Target != 0 {
		l = append(l, fmt.Sprintf(" queue codel target %d", c.Target/time.Microsecond))
	}
	if c.MaxPacket != 0 {
		l = append(l, fmt.Sprintf(" queue codel maxpacket %d", c.MaxPacket))
	}
	if c.Quantum != 0 {
		l = append(l, fmt.Sprintf(" queue codel quantum %d", c.Quantum))
	}
	if c.MSLimit != 0 {
		l = append(l, fmt.Sprintf(" queue limit ms %d", c.MSLimit))
	}
	if c.GlobalLimit != 0 {
		l = append(l, fmt.Sprintf(" queue limit global %d", c.GlobalLimit))
	}
	if c.AQM != AQMRED && c.Variant != VariantOsmo { // (the osmo variant is CoDel)
		l = append(l, " queue aqm "+c.AQM.String())
	}
	if c.NoECN {
		l = append(l, " no queue ecn")
	}
	if c.NoFQ {
		l = append(l, " no queue fq")
	}
	if c.PIE.Target != 0 {
		l = append(l, fmt.Sprintf(" queue pie target %d", c.PIE.Target/time.Millisecond))
	}
	if c.PIE.TUpdate != 0 {
		l = append(l, fmt.Sprintf(" queue pie tupdate %d", c.PIE.TUpdate/time.Millisecond))
	}
	if c.PIE.MaxBurst != 0 {
		l = append(l, fmt.Sprintf(" queue pie max-burst %d", max(c.PIE.MaxBurst, 0)/time.Millisecond))
	}
	if c.RED.Min != 0 {
		l = append(l, fmt.Sprintf(" queue red min %d", c.RED.Min))
	}
	if c.RED.Max != 0 {
		l = append(l, fmt.Sprintf(" queue red max %d", c.RED.Max))
	}
	if c.RED.MaxP != 0 {
		l = append(l, fmt.Sprintf(" queue red probability %d", c.RED.MaxP))
	}
	if c.RED.Wlog != 0 {
		l = append(l, fmt.Sprintf(" queue red ewma %d", c.RED.Wlog))
	}
	return l
}

// fq reports whether the data class is split into flows (RFC 8290 flow
// queueing): the rfc variant unless `no queue fq`.
func (c *Config) fq() bool { return c.Variant == VariantRFC && !c.NoFQ }

// Params are the CoDel parameters in force for one MS queue.
type Params struct {
	Interval  time.Duration
	Target    time.Duration
	MaxPacket int // octets
}

// Bounds of the automatic (plain `queue codel`) RFC parameters. A GPRS
// path has a round trip of several hundred milliseconds even with empty
// queues (block period, DL Ack/Nack polling, uplink TBF establishment for
// the TCP acks; osmo-pcu's commit measured ~400 ms idle ping on a real
// phone). TCP keeps the air interface busy only if the standing queue can
// hold about one such round trip (RFC 8289 §4.3: interval ~ the worst
// RTT), so the target never goes below AutoMinTarget and the interval is
// AutoIntervalFactor targets: a sparse flow (ping, DNS, TCP handshake)
// does not wait behind that queue anyway, thanks to the flow isolation.
const (
	AutoMTU            = 1500 // octets: IP MTU whose drain time sets the target
	AutoMinTarget      = 500 * time.Millisecond
	AutoMaxTarget      = 2 * time.Second
	AutoIntervalFactor = 8
	AutoMaxInterval    = 10 * time.Second
	// AutoDefaultRate is assumed while the engine has not reported a drain
	// rate: CS-1 on one timeslot (20 octets × 50 blocks/s).
	AutoDefaultRate = 1000
)

// Automatic CoDel parameters for ECN-capable flows. A mark costs the sender
// no retransmission, only the window reduction it would make for a drop
// (RFC 3168 §6.1.2), so the reason for the long automatic target and
// interval (drops on a slow link cost retransmission timeouts) does not
// hold: an ECN-capable flow is controlled with target = one MTU-time (at
// least ECNMinTarget) and interval = 2.5 targets (at least ECNMinInterval),
// both at most the automatic values. The bufferbloat demo chose the rule
// (docs/bufferbloat.md, "ECN"): on CS-2 × 4 the download's own queue delay
// p50 went from 2.6 s to 0.36 s with the same download time; without ECN
// the same numbers cost 4-25 % of the goodput.
const (
	ECNMinTarget   = 150 * time.Millisecond
	ECNMinInterval = 500 * time.Millisecond
)

// ParamsECNFor resolves the CoDel parameters for ECN-capable frames of a
// queue draining at rate octets per second: the automatic ECN rule above,
// or ParamsFor's when the target or interval is set (`queue codel interval
// N`, `queue codel target`) or the variant is osmo.
func (c Config) ParamsECNFor(rate int) Params {
	p := c.ParamsFor(rate)
	if c.Variant == VariantOsmo || c.Interval != 0 || c.Target != 0 {
		return p
	}
	if rate <= 0 {
		rate = AutoDefaultRate
	}
	mtu := time.Duration(int64(AutoMTU) * int64(time.Second) / int64(rate))
	t := min(max(mtu, ECNMinTarget), p.Target)
	p.Interval = min(max(t*5/2, ECNMinInterval), p.Interval)
	p.Target = t
	return p
}

// DrainRate is the LLC payload rate of a DL TBF in octets per second: LLC
// octets per radio block × 50 blocks per second per PDCH (one block per
// 20 ms on average, TS 45.002 §6.3.2) × assigned DL timeslots. Examples:
// CS-1 (20 octets) × 1 TS = 1000; CS-4 (50) × 4 = 10000; MCS-9 (2 × 74) × 4
// = 29600.
func DrainRate(llcOctetsPerBlock, slots int) int {
	return llcOctetsPerBlock * 50 * slots
}

// ParamsFor resolves the CoDel parameters of a queue draining at rate
// octets per second (0 = unknown). See the package documentation for the
// rule.
func (c Config) ParamsFor(rate int) Params {
	if c.Variant == VariantOsmo {
		iv := c.Interval
		if iv == 0 {
			iv = OsmoDefaultInterval
		}
		ms := int64(iv / time.Millisecond)
		p := Params{Interval: time.Duration(ms) * time.Millisecond,
			Target: time.Duration(ms*13/256) * time.Millisecond, MaxPacket: OsmoDefaultMaxPacket}
		if c.MaxPacket != 0 {
			p.MaxPacket = c.MaxPacket
		}
		return p
	}
	if rate <= 0 {
		rate = AutoDefaultRate
	}
	p := Params{MaxPacket: RFCDefaultMaxPacket, Target: c.Target, Interval: c.Interval}
	if c.MaxPacket != 0 {
		p.MaxPacket = c.MaxPacket
	}
	mtu := time.Duration(int64(AutoMTU) * int64(time.Second) / int64(rate))
	if p.Target == 0 {
		p.Target = min(max(AutoMinTarget, mtu*3/2), AutoMaxTarget)
		if p.Interval != 0 {
			p.Target = min(p.Target, p.Interval/2)
		}
	}
	if p.Interval == 0 {
		p.Interval = min(max(AutoIntervalFactor*p.Target, 100*time.Millisecond), AutoMaxInterval)
	}
	return p
}
