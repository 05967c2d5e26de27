// Package logx gives gopcu Osmocom-style logging on top of log/slog:
// named categories (l1if, rlcmac, tbf, ns, ...) each with its own level
// that can be changed at run time (VTY "logging level l1if debug").
//
// Osmocom levels map onto slog levels: debug=-4, info=0, notice=2,
// error=8, fatal=12.
package logx

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Osmocom log levels as slog levels.
const (
	LevelDebug  = slog.LevelDebug
	LevelInfo   = slog.LevelInfo
	LevelNotice = slog.Level(2)
	LevelError  = slog.LevelError
	LevelFatal  = slog.Level(12)
	// LevelOff is above every level: a category or output at LevelOff
	// logs nothing (libosmocore: category not enabled).
	LevelOff = slog.Level(1 << 30)
)

// Standard categories of gopcu, named as osmo-pcu's VTY names them.
const (
	CatCSN1        = "csn1"
	CatL1IF        = "l1if"
	CatRLCMAC      = "rlcmac"
	CatRLCMACData  = "rlcmacdata"
	CatRLCMACDL    = "rlcmacdl"
	CatRLCMACUL    = "rlcmacul"
	CatRLCMACSched = "rlcmacsched"
	CatRLCMACMeas  = "rlcmacmeas"
	CatMS          = "ms"
	CatTBF         = "tbf"
	CatTBFDL       = "tbfdl"
	CatTBFUL       = "tbful"
	CatNS          = "ns"
	CatPCU         = "pcu"
	CatNACC        = "nacc"
	CatRIM         = "rim"
	CatE1          = "e1"
	CatBSSGP       = "lbssgp"
	CatLNS         = "lns"
	CatLLC         = "llc"
	CatVTY         = "lvty"
	CatStats       = "lstats"
)

// Category describes one logging category.
type Category struct {
	Name        string
	Description string
	Default     slog.Level
	// Enabled is libosmocore's per-category "enabled": a disabled
	// category logs nothing, whatever its level, until a `logging level`
	// command for it (or set-all) enables it. osmo-pcu 1.1.0 starts with
	// csn1 disabled (gprs_debug.cpp), and libosmocore's lmi and lmib.
	Enabled bool
}

// DefaultCategories is osmo-pcu's category list plus the library ones gopcu
// uses, with osmo-pcu 1.1.0's initial levels and enabled flags.
var DefaultCategories = []Category{
	{CatCSN1, "Concrete Syntax Notation One (CSN1)", LevelNotice, false},
	{CatL1IF, "GPRS PCU Layer 1 Interface (L1IF)", LevelNotice, true},
	{CatRLCMAC, "GPRS RLC/MAC layer (RLCMAC)", LevelNotice, true},
	{CatRLCMACData, "GPRS RLC/MAC layer Data (RLCMAC)", LevelNotice, true},
	{CatRLCMACDL, "GPRS RLC/MAC layer Downlink (RLCMAC)", LevelNotice, true},
	{CatRLCMACUL, "GPRS RLC/MAC layer Uplink (RLCMAC)", LevelNotice, true},
	{CatRLCMACSched, "GPRS RLC/MAC layer Scheduling (RLCMAC)", LevelNotice, true},
	{CatRLCMACMeas, "GPRS RLC/MAC layer Measurements (RLCMAC)", LevelNotice, true},
	{CatTBF, "Temporary Block Flow (TBF)", LevelNotice, true},
	{CatTBFDL, "Temporary Block Flow (TBF) Downlink", LevelNotice, true},
	{CatTBFUL, "Temporary Block Flow (TBF) Uplink", LevelNotice, true},
	{CatNS, "GPRS Network Service Protocol (NS)", LevelNotice, true},
	{CatPCU, "GPRS Packet Control Unit (PCU)", LevelNotice, true},
	{CatNACC, "Network Assisted Cell Change (NACC)", LevelNotice, true},
	{CatRIM, "RAN Information Management (RIM)", LevelNotice, true},
	{CatE1, "E1 Input", LevelNotice, true},
	{CatMS, "Mobile Station (MS)", LevelNotice, true},
	{CatLLC, "LLC queue and AQM (LLC)", LevelNotice, true},
	{CatBSSGP, "GPRS BSS Gateway Protocol (BSSGP)", LevelNotice, true},
	{CatLNS, "GPRS Network Service (NS) library", LevelNotice, true},
	{CatVTY, "VTY interface", LevelNotice, true},
	{CatStats, "Statistics messages and logging", LevelNotice, true},
}

// ParseLevel parses an Osmocom level name.
func ParseLevel(s string) (slog.Level, error) {
	switch strings.ToLower(s) {
	case "debug", "everything":
		return LevelDebug, nil
	case "info":
		return LevelInfo, nil
	case "notice":
		return LevelNotice, nil
	case "error":
		return LevelError, nil
	case "fatal":
		return LevelFatal, nil
	}
	return 0, fmt.Errorf("logx: unknown level %q", s)
}

// levelRank is the Osmocom level l falls in: 0 DEBUG, 1 INFO, 2 NOTICE,
// 3 ERROR, 4 FATAL.
func levelRank(l slog.Level) int {
	switch {
	case l <= LevelDebug:
		return 0
	case l <= LevelInfo:
		return 1
	case l <= LevelNotice:
		return 2
	case l <= LevelError:
		return 3
	}
	return 4
}

var levelNames = [...]string{"DEBUG", "INFO", "NOTICE", "ERROR", "FATAL"}

// LevelName gives the Osmocom name of a level.
func LevelName(l slog.Level) string { return levelNames[levelRank(l)] }

type catState struct {
	desc    Category
	level   atomic.Int64 // base level (SetLevel)
	enabled atomic.Bool  // base enabled flag
	// eff is the level loggers check: the lowest of the base level (or
	// LevelOff while disabled) and every demand (SetDemand).
	eff atomic.Int64
}

// Registry holds the categories and their levels. It is safe for
// concurrent use: loggers check their level with one atomic load, so a
// record no output wants costs one load and a compare.
//
// A category's effective level is the lowest of its base level (SetLevel,
// SetAll, SetEnabled; set by whoever owns the process's outputs) and the
// levels of all demands (SetDemand: further outputs such as telnet
// sessions that run `logging enable`). The handler behind the registry
// gets every record any of them wants and must filter for each output.
type Registry struct {
	mu      sync.Mutex
	cats    map[string]*catState
	demands map[any]map[string]slog.Level
	out     atomic.Pointer[slog.Handler]
}

// New makes a registry with DefaultCategories writing to h.
func New(h slog.Handler) *Registry {
	r := &Registry{cats: map[string]*catState{}, demands: map[any]map[string]slog.Level{}}
	r.SetHandler(h)
	for _, c := range DefaultCategories {
		r.add(c)
	}
	return r
}

// NewText is New with a text handler on w that lets every level through
// (the per-category levels do the filtering).
func NewText(w io.Writer) *Registry {
	return New(slog.NewTextHandler(w, HandlerOptions()))
}

// Discard returns a registry whose loggers write nothing.
func Discard() *Registry { return New(discardHandler{}) }

// add registers a category; r.mu is held (or r not yet shared).
func (r *Registry) add(c Category) *catState {
	s := &catState{desc: c}
	s.level.Store(int64(c.Default))
	s.enabled.Store(c.Enabled)
	r.cats[c.Name] = s
	r.update(s)
	return s
}

// update recomputes the effective level of s; r.mu is held.
func (r *Registry) update(s *catState) {
	eff := LevelOff
	if s.enabled.Load() {
		eff = slog.Level(s.level.Load())
	}
	for _, d := range r.demands {
		if l, ok := d[s.desc.Name]; ok && l < eff {
			eff = l
		}
	}
	s.eff.Store(int64(eff))
}

// SetHandler replaces the output handler for all loggers.
func (r *Registry) SetHandler(h slog.Handler) { r.out.Store(&h) }

func (r *Registry) state(cat string) *catState {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.cats[cat]
	if !ok {
		s = r.add(Category{Name: cat, Description: cat, Default: LevelNotice, Enabled: true})
	}
	return s
}

// Logger returns the logger of a category (created on first use).
func (r *Registry) Logger(cat string) *slog.Logger {
	return slog.New(&handler{r: r, s: r.state(cat)})
}

// SetLevel sets a category's base level and enables it (libosmocore's
// `logging level CAT LEVEL`); unknown categories are an error.
func (r *Registry) SetLevel(cat string, l slog.Level) error {
	return r.set(cat, func(s *catState) {
		s.level.Store(int64(l))
		s.enabled.Store(true)
	})
}

// SetEnabled enables or disables a category's base output without
// changing its level; unknown categories are an error.
func (r *Registry) SetEnabled(cat string, on bool) error {
	return r.set(cat, func(s *catState) { s.enabled.Store(on) })
}

// set changes the base state of a known category with f and updates
// what its loggers check; unknown categories are an error.
func (r *Registry) set(cat string, f func(*catState)) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.cats[cat]
	if !ok {
		return fmt.Errorf("logx: unknown category %q", cat)
	}
	f(s)
	r.update(s)
	return nil
}

// SetAll sets the base level of every category and enables it
// (`logging level set-all`).
func (r *Registry) SetAll(l slog.Level) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.cats {
		s.level.Store(int64(l))
		s.enabled.Store(true)
		r.update(s)
	}
}

// SetDemand records the lowest level per category that the output(s)
// named by key want (categories missing from levels: none); a nil or
// empty map removes the demand. Loggers then emit a record when the base
// level or any demand wants it.
func (r *Registry) SetDemand(key any, levels map[string]slog.Level) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(levels) == 0 {
		if _, ok := r.demands[key]; !ok {
			return
		}
		delete(r.demands, key)
	} else {
		r.demands[key] = levels
	}
	for _, s := range r.cats {
		r.update(s)
	}
}

// Level reports a category's base level.
func (r *Registry) Level(cat string) (slog.Level, bool) {
	return r.load(cat, func(s *catState) int64 { return s.level.Load() })
}

// Effective reports the lowest level a category's loggers emit (LevelOff:
// none): the base level or a demand, whichever is lower.
func (r *Registry) Effective(cat string) (slog.Level, bool) {
	return r.load(cat, func(s *catState) int64 { return s.eff.Load() })
}

// load reads a level of a known category with f (ok false: unknown).
func (r *Registry) load(cat string, f func(*catState) int64) (slog.Level, bool) {
	r.mu.Lock()
	s, ok := r.cats[cat]
	r.mu.Unlock()
	if !ok {
		return 0, false
	}
	return slog.Level(f(s)), true
}

// Categories lists the categories sorted by name, with their base level
// (as Default) and enabled flag.
func (r *Registry) Categories() []Category {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Category, 0, len(r.cats))
	for _, s := range r.cats {
		c := s.desc
		c.Default = slog.Level(s.level.Load())
		c.Enabled = s.enabled.Load()
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

type handler struct {
	r     *Registry
	s     *catState
	attrs []slog.Attr
	group string
}

func (h *handler) Enabled(_ context.Context, l slog.Level) bool {
	return l >= slog.Level(h.s.eff.Load())
}

func (h *handler) Handle(ctx context.Context, rec slog.Record) error {
	out := *h.r.out.Load()
	rec.AddAttrs(slog.String("cat", h.s.desc.Name))
	if len(h.attrs) > 0 {
		out = out.WithAttrs(h.attrs)
	}
	if h.group != "" {
		out = out.WithGroup(h.group)
	}
	return out.Handle(ctx, rec)
}

func (h *handler) WithAttrs(as []slog.Attr) slog.Handler {
	n := *h
	n.attrs = append(append([]slog.Attr(nil), h.attrs...), as...)
	return &n
}

func (h *handler) WithGroup(g string) slog.Handler {
	n := *h
	n.group = g
	return &n
}

type discardHandler struct{}

func (discardHandler) Enabled(context.Context, slog.Level) bool  { return false }
func (discardHandler) Handle(context.Context, slog.Record) error { return nil }
func (d discardHandler) WithAttrs([]slog.Attr) slog.Handler      { return d }
func (d discardHandler) WithGroup(string) slog.Handler           { return d }

// Notice logs at Osmocom's NOTICE level (between INFO and ERROR).
// The record's source position is Notice's caller.
func Notice(l *slog.Logger, msg string, args ...any) {
	ctx := context.Background()
	if !l.Enabled(ctx, LevelNotice) {
		return
	}
	var pc [1]uintptr
	runtime.Callers(2, pc[:])
	r := slog.NewRecord(time.Now(), LevelNotice, msg, pc[0])
	r.Add(args...)
	// dropped: a line no output took; the Fanout counts its targets'
	// failures (Fanout.Errors), as slog.Logger.Log drops the handler's error
	_ = l.Handler().Handle(ctx, r)
}

// HandlerOptions are slog handler options that let every record through
// (categories filter) and print Osmocom level names (NOTICE, not INFO+2).
func HandlerOptions() *slog.HandlerOptions {
	return &slog.HandlerOptions{
		Level: slog.Level(-100),
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if a.Key == slog.LevelKey && len(groups) == 0 {
				if l, ok := a.Value.Any().(slog.Level); ok {
					a.Value = slog.StringValue(LevelName(l))
				}
			}
			return a
		},
	}
}
