// Package statsd is libosmocore's statsd stats reporter (`stats reporter
// statsd`): every reporting interval it sends the rate counters of a
// ratectr.Registry and the process's stat items to a statsd collector over
// UDP, in exactly the lines libosmocore's src/core/stats_statsd.c writes:
//
//	<prefix>.<group>.<index>.<name>:<delta>|c   rate counter (change since the last report)
//	<prefix>.<group>.<index>.<name>:<value>|g   stat item (gauge, negative values sent as 0)
//
// with every ':' of the name turned into '.' ("bts.0.rach.requests"),
// lines joined by '\n' into datagrams of at most mtu-28-1 bytes when an mtu
// is set (one line per datagram otherwise), unchanged values skipped
// except on a flush (the first report after enabling, then every
// flush-period-th report), and groups above the reporter's `level`
// (global < peer < subscriber) left out (libosmocore src/core/stats.c).
//
// NewLog makes the `stats reporter log` variant, which logs the same
// selection as text lines instead.
//
// A Reporter is not safe for concurrent use: the owner (the engine loop)
// calls Report or Tick; counters may move concurrently (ratectr reads are
// atomic).
package statsd

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/gopcu/gopcu/internal/ratectr"
	"github.com/gopcu/gopcu/stats"
)

// Item is a stat item value at report time (stats.Item).
type Item = stats.Item

// Class is a group's level (stats.Class).
type Class = stats.Class

// The classes (stats.Class*).
const (
	ClassUnknown    = stats.ClassUnknown
	ClassGlobal     = stats.ClassGlobal
	ClassPeer       = stats.ClassPeer
	ClassSubscriber = stats.ClassSubscriber
)

// ParseLevel parses a `level (global|peer|subscriber)` argument.
func ParseLevel(s string) (Class, error) { return stats.ParseLevel(s) }

// ClassOf is stats.ClassOf.
func ClassOf(group string, idx uint32) Class { return stats.ClassOf(group, idx) }

// Config is one statsd reporter's settings (a Spec, parsed) plus the
// process-wide `stats interval`.
type Config struct {
	Prefix      string // `prefix`; "" = none
	Level       Class  // `level`; ClassUnknown counts as ClassGlobal
	MTU         int    // `mtu`; 0 = one line per datagram
	FlushPeriod int    // `flush-period`; 0 = only the first report is a full flush
	Interval    int    // `stats interval` in seconds, used by Tick; 0 = Tick never reports
	RemoteIP    string // `remote-ip`
	RemotePort  int    // `remote-port`; 0 = 8125
	LocalIP     string // `local-ip`; "" = any
}

// DefaultPort is the statsd port libosmocore uses when none is configured.
const DefaultPort = 8125

// Spec is one `stats reporter (statsd|log)` node of libosmocore's VTY as
// plain values: the caller copies them out of its configuration (gopcu
// from vty.StatsReporter), so this package needs no VTY.
type Spec struct {
	Type        string // "statsd" or "log"
	Enabled     bool   // `enable`
	Level       string // `level`: "global" (or ""), "peer", "subscriber"
	Prefix      string
	MTU         int
	FlushPeriod int
	RemoteIP    string
	RemotePort  int
	LocalIP     string
}

// ConfigFromSpec converts a reporter node and the `stats interval` into a
// Config.
func ConfigFromSpec(s Spec, interval int) (Config, error) {
	lvl, err := ParseLevel(s.Level)
	if err != nil {
		return Config{}, err
	}
	return Config{Prefix: s.Prefix, Level: lvl, MTU: s.MTU, FlushPeriod: s.FlushPeriod, Interval: interval,
		RemoteIP: s.RemoteIP, RemotePort: s.RemotePort, LocalIP: s.LocalIP}, nil
}

// FromSpecs builds one Reporter per enabled `stats reporter statsd` of
// specs and dials each. Reporters that fail to open are left out with the
// error joined; libosmocore disables those.
func FromSpecs(specs []Spec, interval int, reg *ratectr.Registry, items func() []Item) ([]*Reporter, error) {
	return fromSpecs(specs, interval, "statsd", func(cfg Config) (*Reporter, error) {
		r := New(cfg, reg, items)
		return r, r.Dial()
	})
}

// LogFromSpecs builds one log Reporter per enabled `stats reporter log`.
func LogFromSpecs(specs []Spec, interval int, reg *ratectr.Registry, items func() []Item, logf func(string)) ([]*Reporter, error) {
	return fromSpecs(specs, interval, "log", func(cfg Config) (*Reporter, error) { return NewLog(cfg, reg, items, logf), nil })
}

// fromSpecs makes a Reporter with mk for every enabled reporter of type
// typ; the ones whose config or mk fails are left out, their errors joined.
func fromSpecs(specs []Spec, interval int, typ string, mk func(Config) (*Reporter, error)) ([]*Reporter, error) {
	var out []*Reporter
	var errs []error
	for _, s := range specs {
		if s.Type != typ || !s.Enabled {
			continue
		}
		cfg, err := ConfigFromSpec(s, interval)
		if err == nil {
			var r *Reporter
			if r, err = mk(cfg); err == nil {
				out = append(out, r)
			}
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	return out, errors.Join(errs...)
}

// defaultBufLen is libosmocore's STATS_DEFAULT_BUFLEN: the line buffer when
// no mtu is set.
const defaultBufLen = 256

// ctrState is what a reporter remembers of one counter group.
type ctrState struct {
	names []string // full sanitised line heads "TTCN3.bts.0.rach.requests:"
	prev  []uint64
	class Class
	seen  uint64
}

type itemKey struct {
	group     string
	index     uint32
	indexName string
	name      string
}

type itemState struct {
	head     string
	last     int64
	reported bool
	seen     uint64
	max      int64 // highest value sampled since the last report
	hasMax   bool
}

// Stats are a reporter's own counters.
type Stats struct {
	Reports   uint64 // Report calls
	Packets   uint64 // datagrams handed to the sender
	Bytes     uint64
	SendErrs  uint64 // sender errors
	Oversized uint64 // lines longer than a datagram (dropped, EMSGSIZE in libosmocore)
}

// Reporter is one statsd reporter.
type Reporter struct {
	cfg   Config
	reg   *ratectr.Registry
	items func() []Item

	bufLen int  // datagram payload limit + 1 (snprintf's NUL)
	agg    bool // mtu set: lines aggregated into datagrams
	buf    []byte
	line   []byte

	send func([]byte) error
	conn *net.UDPConn
	logf func(string) // log reporter: one line per value

	groups map[*ratectr.Group]*ctrState
	itemSt map[itemKey]*itemState
	gen    uint64

	forceFlush bool
	flushCount int
	lastReport time.Time
	haveReport bool
	st         Stats
}

// New makes a reporter over reg's groups and the items returned by items
// (nil: none). It sends nothing until Dial or SetSender; the first report
// is a full flush, as after libosmocore's `enable`.
func New(cfg Config, reg *ratectr.Registry, items func() []Item) *Reporter {
	if cfg.Level == ClassUnknown {
		cfg.Level = ClassGlobal
	}
	r := &Reporter{cfg: cfg, reg: reg, items: items, bufLen: defaultBufLen,
		groups: map[*ratectr.Group]*ctrState{}, itemSt: map[itemKey]*itemState{}, forceFlush: true}
	// libosmocore stats.c osmo_stats_reporter_udp_open: buffer = mtu - 20 (IP) - 8 (UDP).
	if cfg.MTU > 0 {
		r.bufLen = cfg.MTU - 20 - 8
		r.agg = true
	}
	r.buf = make([]byte, 0, r.bufLen)
	return r
}

// Config returns the reporter's settings.
func (r *Reporter) Config() Config { return r.cfg }

// Stats returns the reporter's own counters.
func (r *Reporter) Stats() Stats { return r.st }

// NewLog makes a `stats reporter log`: the same selection as the statsd
// reporter (level, skipping unchanged values, flush-period), each value
// given to logf as libosmocore's log reporter formats it (stats.c
// osmo_stats_reporter_log_send, logged in category DLSTATS at INFO):
//
//	stats t=c p=<prefix> g=<group> i=<index> n=<counter> v=<total> u=
//	stats t=i p=<prefix> g=<group> i=<index> n=<item> v=<value> u=<unit>
//
// Names are not sanitised and counters show their total, not the delta.
// Config's network and mtu fields are unused.
func NewLog(cfg Config, reg *ratectr.Registry, items func() []Item, logf func(line string)) *Reporter {
	r := New(cfg, reg, items)
	r.logf = logf
	return r
}

func (r *Reporter) logLine(t byte, group string, idx uint32, name string, v int64, unit string) {
	b := append(r.line[:0], "stats t="...)
	b = append(b, t)
	b = append(b, " p="...)
	b = append(b, r.cfg.Prefix...)
	b = append(b, " g="...)
	b = append(b, group...)
	b = append(b, " i="...)
	b = strconv.AppendUint(b, uint64(idx), 10)
	b = append(b, " n="...)
	b = append(b, name...)
	b = append(b, " v="...)
	b = strconv.AppendInt(b, int64(int32(v)), 10) // an int in libosmocore
	b = append(b, " u="...)
	b = append(b, unit...)
	r.line = b
	r.logf(string(b))
}

// SetSender replaces the transport: send gets each datagram (the slice is
// reused after send returns).
func (r *Reporter) SetSender(send func([]byte) error) { r.send = send }

// Dial opens the UDP socket to remote-ip:remote-port, bound to local-ip if
// set, and makes it the sender. Sends never block (a full socket buffer is
// a send error, as libosmocore's MSG_DONTWAIT).
func (r *Reporter) Dial() error {
	port := r.cfg.RemotePort
	if port == 0 {
		port = DefaultPort
	}
	rip, err := netip.ParseAddr(r.cfg.RemoteIP)
	if err != nil {
		return fmt.Errorf("statsd: remote-ip: %w", err)
	}
	var laddr *net.UDPAddr
	if r.cfg.LocalIP != "" {
		lip, err := netip.ParseAddr(r.cfg.LocalIP)
		if err != nil {
			return fmt.Errorf("statsd: local-ip: %w", err)
		}
		laddr = net.UDPAddrFromAddrPort(netip.AddrPortFrom(lip, 0))
	}
	c, err := net.DialUDP("udp", laddr, net.UDPAddrFromAddrPort(netip.AddrPortFrom(rip, uint16(port))))
	if err != nil {
		return fmt.Errorf("statsd: %w", err)
	}
	if r.conn != nil {
		r.conn.Close()
	}
	r.conn = c
	r.send = func(b []byte) error {
		// A UDP write on Linux does not block for long: the datagram is
		// queued or dropped. Bound it anyway so Report never stalls the owner.
		c.SetWriteDeadline(time.Now().Add(10 * time.Millisecond))
		_, err := c.Write(b)
		return err
	}
	return nil
}

// LocalAddr is the socket's address after Dial.
func (r *Reporter) LocalAddr() netip.AddrPort {
	if r.conn == nil {
		return netip.AddrPort{}
	}
	return r.conn.LocalAddr().(*net.UDPAddr).AddrPort()
}

// Close sends what is buffered and closes the socket.
func (r *Reporter) Close() error {
	r.flushBuf()
	if r.conn == nil {
		return nil
	}
	err := r.conn.Close()
	r.conn, r.send = nil, nil
	return err
}

// ForceFlush makes the next report send every value (libosmocore sets this
// when a reporter is (re)configured).
func (r *Reporter) ForceFlush() { r.forceFlush = true }

// Tick reports when `stats interval` seconds have passed since the last
// report (libosmocore's stats timer; the first Tick reports at once).
// Interval 0 disables periodic reports: only `stats report` (Report) sends.
// now is the owner's monotonic clock.
func (r *Reporter) Tick(now time.Time) bool {
	if r.cfg.Interval <= 0 {
		return false
	}
	if r.haveReport && now.Sub(r.lastReport) < time.Duration(r.cfg.Interval)*time.Second {
		r.sample()
		return false
	}
	r.Report(now)
	return true
}

// itemState is the reporter's state of stat item it, made on first sight.
func (r *Reporter) itemState(it *Item) *itemState {
	k := itemKey{it.Group, it.Index, it.IndexName, it.Name}
	st := r.itemSt[k]
	if st == nil {
		st = &itemState{head: r.head(it.Group, it.Index, it.IndexName, it.Name)}
		r.itemSt[k] = st
	}
	return st
}

// sample notes the stat items' values between reports: a report sends the
// highest value of its interval, as libosmocore's stat items do.
func (r *Reporter) sample() {
	if r.items == nil {
		return
	}
	for _, it := range r.items() {
		st := r.itemState(&it)
		if !st.hasMax || it.Value > st.max {
			st.max, st.hasMax = it.Value, true
		}
	}
}

// Report sends one report now (libosmocore osmo_stats_report): changed
// counters as deltas, changed stat items, everything on a flush.
func (r *Reporter) Report(now time.Time) {
	r.lastReport, r.haveReport = now, true
	r.st.Reports++
	r.gen++
	force := r.forceFlush
	if r.reg != nil {
		for _, g := range r.reg.Groups() {
			st := r.groups[g]
			if st == nil {
				st = r.newGroupState(g)
				r.groups[g] = st
			}
			st.seen = r.gen
			send := st.class <= r.cfg.Level
			for i := range st.prev {
				cur := g.Value(i)
				prev := st.prev[i]
				if cur < prev {
					// `stats reset` zeroed it (libosmocore rate_ctr_reset clears previous too).
					prev = 0
				}
				st.prev[i] = cur
				delta := cur - prev
				if !send || (delta == 0 && !force) {
					continue
				}
				if r.logf != nil {
					r.logLine('c', g.Name, g.Index, g.Descs[i].Name, int64(cur), "")
					continue
				}
				r.emit(st.names[i], int64(delta), 'c')
			}
		}
		if len(r.groups) > 0 {
			for g, st := range r.groups {
				if st.seen != r.gen {
					delete(r.groups, g)
				}
			}
		}
	}
	if r.items != nil {
		for _, it := range r.items() {
			st := r.itemState(&it)
			st.seen = r.gen
			val := it.Value
			if st.hasMax && st.max > val {
				val = st.max
			}
			st.hasMax = false
			unchanged := st.reported && st.last == val
			st.last, st.reported = val, true
			cls := it.Class
			if cls == ClassUnknown {
				cls = ClassOf(it.Group, it.Index)
			}
			if (unchanged && !force) || cls > r.cfg.Level {
				continue
			}
			if r.logf != nil {
				r.logLine('i', it.Group, it.Index, it.Name, val, it.Unit)
				continue
			}
			v := val
			if v < 0 { // stats_statsd.c: gauges are never negative
				v = 0
			}
			r.emit(st.head, v, 'g')
		}
		for k, st := range r.itemSt {
			if st.seen != r.gen {
				delete(r.itemSt, k)
			}
		}
	}
	r.flushBuf()
	// stats.c flush_all_reporters: the forced flush is one-shot, then
	// re-armed every flush-period-th report.
	r.forceFlush = false
	if r.cfg.FlushPeriod > 0 {
		r.flushCount++
		if r.flushCount >= r.cfg.FlushPeriod {
			r.forceFlush = true
			r.flushCount = 0
		}
	}
}

func (r *Reporter) newGroupState(g *ratectr.Group) *ctrState {
	st := &ctrState{names: make([]string, len(g.Descs)), prev: make([]uint64, len(g.Descs)),
		class: ClassOf(g.Name, g.Index)}
	for i, d := range g.Descs {
		st.names[i] = r.head(g.Name, g.Index, g.IndexName, d.Name)
	}
	return st
}

// head is the sanitised "<prefix>.<group>.<index>.<name>:" of a line.
// stats_statsd.c osmo_stats_reporter_sanitize_name turns every ':' before
// the value separator into '.', the prefix included.
func (r *Reporter) head(group string, idx uint32, idxName, name string) string {
	var b strings.Builder
	if r.cfg.Prefix != "" {
		b.WriteString(r.cfg.Prefix)
		b.WriteByte('.')
	}
	b.WriteString(group)
	b.WriteByte('.')
	if idxName != "" {
		b.WriteString(idxName)
	} else {
		b.WriteString(strconv.FormatUint(uint64(idx), 10))
	}
	b.WriteByte('.')
	b.WriteString(name)
	return strings.ReplaceAll(b.String(), ":", ".") + ":"
}

// emit appends one line, sending the buffer first when the line does not
// fit (stats_statsd.c osmo_stats_reporter_statsd_send: snprintf into the
// tailroom, a line fits when it is shorter than the room left).
func (r *Reporter) emit(head string, v int64, unit byte) {
	r.line = append(r.line[:0], head...)
	r.line = strconv.AppendInt(r.line, v, 10)
	r.line = append(r.line, '|', unit)
	if !r.agg {
		if len(r.line) >= r.bufLen {
			r.st.Oversized++
			return
		}
		r.buf = append(r.buf[:0], r.line...)
		r.flushBuf()
		return
	}
	sep := 0
	if len(r.buf) > 0 {
		sep = 1
	}
	if len(r.buf)+sep+len(r.line) >= r.bufLen {
		r.flushBuf()
		sep = 0
		if len(r.line) >= r.bufLen {
			r.st.Oversized++
			return
		}
	}
	if sep == 1 {
		r.buf = append(r.buf, '\n')
	}
	r.buf = append(r.buf, r.line...)
}

func (r *Reporter) flushBuf() {
	if len(r.buf) == 0 {
		return
	}
	if r.send != nil {
		r.st.Packets++
		r.st.Bytes += uint64(len(r.buf))
		if err := r.send(r.buf); err != nil {
			r.st.SendErrs++
		}
	}
	r.buf = r.buf[:0]
}
