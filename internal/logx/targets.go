package logx

// Log targets: libosmocore's "log stderr", "log file", "log syslog" and
// "log gsmtap" outputs, each with its own category levels, filter and
// line format, fed by one fan-out slog.Handler (Fanout).

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gopcu/gopcu/gsmtap"
)

// FileMode says whether and how a log line names its source file
// (`logging print file (0|1|basename)`).
type FileMode int

// File name modes.
const (
	FileNone     FileMode = iota // "0"
	FilePath                     // "1": the source file and line
	FileBasename                 // "basename": base name and line
)

// ParseFileMode parses the argument of `logging print file`.
func ParseFileMode(s string) FileMode {
	switch s {
	case "1":
		return FilePath
	case "basename":
		return FileBasename
	}
	return FileNone
}

// Format is the line layout of a target (libosmocore's print_* flags).
type Format struct {
	Timestamp    bool // ctime-style local time, "Mon Nov 30 09:51:17 2026 "
	ExtTimestamp bool // "YYYYMMDDhhmmssmmm " (takes precedence over Timestamp)
	ThreadID     bool // process id (Go has no thread ids)
	Category     bool // "DPCU "
	CategoryHex  bool // "<000e> "
	Level        bool // "NOTICE "
	File         FileMode
	FileLast     bool // source " (file.go:12)" after the message instead of before
	Color        bool
}

// Entry is one log record as a target sees it.
type Entry struct {
	Time  time.Time
	Cat   string // category name ("pcu"); "" if the record carried none
	Level slog.Level
	Msg   string // message followed by " key=value" for every attribute
	File  string // source file ("" if unknown)
	Line  int
}

// Sink is where a target's lines go. Sinks must be safe for concurrent use.
type Sink interface {
	// Output writes one entry; line is the entry formatted by the
	// target's Format (AppendLine). The sink must not keep line.
	Output(e *Entry, line []byte) error
	Close() error
}

// SourceSink is a Sink that sends each entry's source file and line
// whatever its target's Format says (GSMTAP's log header has them,
// internal/logx/netsink).
type SourceSink interface {
	Sink
	NeedsSource() bool
}

// Target is one log output with its own filtering and format. A target
// must not be changed after it was given to Fanout.Configure.
type Target struct {
	Name string // for error messages, "file /tmp/x"
	// Levels are the per-category minimum levels; categories not listed
	// use Default.
	Levels  map[string]slog.Level
	Default slog.Level
	// Disabled are the categories the target does not log at all
	// (libosmocore: category not enabled; checked before the levels and
	// force-all).
	Disabled map[string]bool
	// Force, when set, replaces every category level ("logging level
	// force-all").
	Force    bool
	ForceAll slog.Level
	// FilterAll is "logging filter all 1". osmo-pcu has a filter function
	// (NS-VC/BVC filters), so a target with "filter all 0" and no other
	// filter logs nothing.
	FilterAll bool
	Format    Format
	// CatIndex gives the number printed by "print category-hex".
	CatIndex map[string]int
	// Colors are the per-category color escapes (libosmocore's cat color).
	Colors map[string]string
	Sink   Sink
}

// Wants reports whether the target logs a record of the category and level
// (libosmocore should_log_to_target: enabled, then the forced or the
// category level, then the filter).
func (t *Target) Wants(cat string, l slog.Level) bool {
	return l >= t.MinLevel(cat)
}

// MinLevel is the lowest level the target logs for a category; LevelOff
// when it logs none of it (category disabled, or no `logging filter all
// 1`).
func (t *Target) MinLevel(cat string) slog.Level {
	if !t.FilterAll || t.Disabled[cat] {
		return LevelOff
	}
	if t.Force {
		return t.ForceAll
	}
	if l, ok := t.Levels[cat]; ok {
		return l
	}
	return t.Default
}

// Osmocom (libosmocore LOGL_*) numeric levels.
const (
	OsmoDebug  = 1
	OsmoInfo   = 3
	OsmoNotice = 5
	OsmoError  = 7
	OsmoFatal  = 8
)

// OsmoLevel gives libosmocore's number of a level.
func OsmoLevel(l slog.Level) uint8 {
	switch {
	case l <= LevelDebug:
		return OsmoDebug
	case l <= LevelInfo:
		return OsmoInfo
	case l <= LevelNotice:
		return OsmoNotice
	case l <= LevelError:
		return OsmoError
	}
	return OsmoFatal
}

// CategoryColors are osmo-pcu's category colors (gprs_debug.c) and
// libosmocore 1.7's library category colors (256-color palette; lglobal
// has none); gopcu's own categories have none.
var CategoryColors = map[string]string{
	CatCSN1: "\033[1;31m", CatL1IF: "\033[1;32m", CatRLCMAC: "\033[0;33m",
	CatRLCMACData: "\033[0;33m", CatRLCMACDL: "\033[1;33m", CatRLCMACUL: "\033[1;36m",
	CatRLCMACSched: "\033[0;36m", CatRLCMACMeas: "\033[1;31m", CatMS: "\033[1;34m",
	CatTBF: "\033[1;34m", CatTBFDL: "\033[1;34m", CatTBFUL: "\033[1;34m",
	CatNS: "\033[1;34m", CatPCU: "\033[1;35m", CatNACC: "\033[1;37m",
	CatRIM: "\033[1;38m", CatE1: "\033[1;31m",
	"llapd": "\033[38;5;12m", "linp": "\033[38;5;23m", "lmux": "\033[38;5;25m",
	"lmi": "\033[38;5;27m", "lmib": "\033[38;5;29m", "lsms": "\033[38;5;31m",
	"lctrl": "\033[38;5;33m", "lgtp": "\033[38;5;35m", CatStats: "\033[38;5;37m",
	"lgsup": "\033[38;5;39m", "loap": "\033[38;5;41m", "lss7": "\033[38;5;43m",
	"lsccp": "\033[38;5;45m", "lsua": "\033[38;5;47m", "lm3ua": "\033[38;5;49m",
	"lmgcp": "\033[38;5;51m", "ljibuf": "\033[38;5;53m", "lrspro": "\033[38;5;55m",
	CatLNS: "\033[38;5;57m", CatBSSGP: "\033[38;5;59m", "lnsdata": "\033[38;5;61m",
	"lnssignal": "\033[38;5;63m", "liuup": "\033[38;5;65m", "lpfcp": "\033[38;5;51m",
}

const colorEnd = "\033[0;m"

// levelColors are the colors of the levels by levelRank: blue DEBUG,
// green INFO, yellow NOTICE, red ERROR and FATAL.
var levelColors = [...]string{"\033[1;34m", "\033[1;32m", "\033[1;33m", "\033[1;31m", "\033[1;31m"}

func levelColor(l slog.Level) string { return levelColors[levelRank(l)] }

// CatPrefix is the libosmocore name of a category: "pcu" -> "DPCU".
func CatPrefix(cat string) string { return "D" + strings.ToUpper(cat) }

// AppendLine appends e formatted by the target's Format (libosmocore's
// log line layout) to b: it ends in "\n", followed by the color reset when
// the line is colored (libosmocore appends it after the message's "\n").
func (t *Target) AppendLine(b []byte, e *Entry) []byte {
	f := &t.Format
	subsysColor := ""
	if f.Color {
		subsysColor = t.Colors[e.Cat]
		b = append(b, subsysColor...)
	}
	switch {
	case f.ExtTimestamp:
		lt := e.Time.Local()
		b = lt.AppendFormat(b, "20060102150405")
		b = fmt.Appendf(b, "%03d ", lt.Nanosecond()/1e6)
	case f.Timestamp:
		b = e.Time.Local().AppendFormat(b, "Mon Jan _2 15:04:05 2006 ")
	}
	if f.ThreadID {
		b = strconv.AppendInt(b, int64(os.Getpid()), 10)
		b = append(b, ' ')
	}
	colored := func(s string) {
		if f.Color {
			b = append(b, levelColor(e.Level)...)
		}
		b = append(b, s...)
		if f.Color {
			b = append(b, colorEnd...)
		}
		b = append(b, subsysColor...)
		b = append(b, ' ')
	}
	if f.Category && e.Cat != "" {
		colored(CatPrefix(e.Cat))
	}
	if f.Level {
		colored(LevelName(e.Level))
	}
	if f.CategoryHex {
		b = fmt.Appendf(b, "<%04x> ", t.CatIndex[e.Cat])
	}
	// `print file 1` is libosmocore's __FILE__, which in osmo-pcu's
	// build is the bare file name ("osmobts_sock.c:228"); a Go binary
	// knows its files by module or build path
	// ("github.com/gopcu/gopcu/pcu/driver/loop_linux.go"), which says nothing more
	// to an operator: both modes print "loop_linux.go:293".
	src := ""
	if e.File != "" && f.File != FileNone {
		src = filepath.Base(e.File) + ":" + strconv.Itoa(e.Line)
	}
	if src != "" && !f.FileLast {
		b = append(b, src...)
		b = append(b, ' ')
	}
	b = append(b, e.Msg...)
	if src != "" && f.FileLast {
		b = append(b, " ("...)
		b = append(b, src...)
		b = append(b, ')')
	}
	b = append(b, '\n')
	if f.Color && subsysColor != "" {
		b = append(b, colorEnd...)
	}
	return b
}

// WriterSink writes lines to a writer (stderr).
type WriterSink struct {
	mu sync.Mutex
	W  io.Writer
}

// Output writes the line.
func (s *WriterSink) Output(_ *Entry, line []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, err := s.W.Write(line)
	return err
}

// Close does nothing: the writer belongs to the caller.
func (s *WriterSink) Close() error { return nil }

// FileSink appends lines to a file ("log file FILENAME").
type FileSink struct {
	mu   sync.Mutex
	path string
	f    *os.File
}

// OpenFile opens (creates) path for appending.
func OpenFile(path string) (*FileSink, error) {
	s := &FileSink{path: path}
	if err := s.Reopen(); err != nil {
		return nil, err
	}
	return s, nil
}

// Path is the file name.
func (s *FileSink) Path() string { return s.path }

// Reopen closes and reopens the file (after log rotation).
func (s *FileSink) Reopen() error {
	f, err := os.OpenFile(s.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o666)
	if err != nil {
		return err
	}
	s.mu.Lock()
	old := s.f
	s.f = f
	s.mu.Unlock()
	if old != nil {
		old.Close()
	}
	return nil
}

// Output appends the line.
func (s *FileSink) Output(_ *Entry, line []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return os.ErrClosed
	}
	_, err := s.f.Write(line)
	return err
}

// Close closes the file.
func (s *FileSink) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return nil
	}
	err := s.f.Close()
	s.f = nil
	return err
}

// GSMTAP constants of the log encapsulation (libosmocore gsmtap.h).
const (
	GSMTAPPort = gsmtap.UDPPort
	// GSMTAPLogHdrLen is the size of struct gsmtap_osmocore_log_hdr.
	GSMTAPLogHdrLen = 8 + 16 + 4 + 1 + 3 + 16 + 32 + 4
	gsmtapMaxMsg    = 4096
)

// AppendGSMTAPLog appends one GSMTAP datagram of type OSMOCORE_LOG: the
// GSMTAP v2 header, the log header (timestamp, process name, pid, level,
// subsystem without its leading "D", source base name and line) and the
// message with its "\n" (as libosmocore sends it, without NUL). The
// GSMTAP header is the gsmtap package's (all fields but the type zero).
func AppendGSMTAPLog(b []byte, ident string, pid uint32, e *Entry) []byte {
	var l [GSMTAPLogHdrLen]byte
	us := e.Time.UnixMicro()
	binary.BigEndian.PutUint32(l[0:], uint32(us/1e6))
	binary.BigEndian.PutUint32(l[4:], uint32(us%1e6))
	putStr(l[8:24], ident)
	binary.BigEndian.PutUint32(l[24:], pid)
	l[28] = OsmoLevel(e.Level)
	putStr(l[32:48], strings.ToUpper(e.Cat))
	if e.File != "" {
		putStr(l[48:80], filepath.Base(e.File))
	}
	binary.BigEndian.PutUint32(l[80:], uint32(e.Line))
	h := gsmtap.Header{Type: gsmtap.TypeOsmocoreLog}
	b = h.Append(b, l[:])
	msg := e.Msg
	if len(msg) > gsmtapMaxMsg-1 {
		msg = msg[:gsmtapMaxMsg-1]
	}
	b = append(b, msg...)
	return append(b, '\n')
}

// putStr copies s into a fixed char array, always leaving a final NUL.
func putStr(dst []byte, s string) {
	n := copy(dst[:len(dst)-1], s)
	clear(dst[n:])
}

// Fanout is a slog.Handler that sends each record to a set of targets,
// each with its own filter and format, and (optionally) to a default
// handler (gopcu's stderr text output). Configure swaps the set at any
// time; Handle never blocks on it.
type Fanout struct {
	def   slog.Handler
	state atomic.Pointer[fanState]
	mu    sync.Mutex // Configure
}

type fanState struct {
	cfg       FanoutConfig
	needSrc   bool
	errs      atomic.Int64
	lastError atomic.Pointer[string]
}

// FanoutConfig is the set of outputs of a Fanout.
type FanoutConfig struct {
	Targets []*Target
	// Default sends records to the default handler too.
	Default bool
	// DefaultLevels filter what the default handler gets (nil: all that
	// reaches the fan-out).
	DefaultLevels map[string]slog.Level
}

// NewFanout makes a fan-out whose only output is def (no targets).
func NewFanout(def slog.Handler) *Fanout {
	f := &Fanout{def: def}
	f.state.Store(&fanState{cfg: FanoutConfig{Default: true}})
	return f
}

// Configure installs a new set of outputs. Sinks of the previous set that
// are not in the new one are closed.
func (f *Fanout) Configure(c FanoutConfig) {
	f.mu.Lock()
	defer f.mu.Unlock()
	st := &fanState{cfg: c}
	keep := map[Sink]bool{}
	for _, t := range c.Targets {
		keep[t.Sink] = true
		if ss, ok := t.Sink.(SourceSink); ok && ss.NeedsSource() || t.Format.File != FileNone {
			st.needSrc = true
		}
	}
	old := f.state.Swap(st)
	for _, t := range old.cfg.Targets {
		if !keep[t.Sink] {
			keep[t.Sink] = true // close once
			t.Sink.Close()
		}
	}
}

// Config returns the installed outputs.
func (f *Fanout) Config() FanoutConfig { return f.state.Load().cfg }

// Errors reports how many outputs failed and the last error.
func (f *Fanout) Errors() (int64, error) {
	st := f.state.Load()
	n := st.errs.Load()
	if p := st.lastError.Load(); p != nil {
		return n, errors.New(*p)
	}
	return n, nil
}

// Reopen reopens the files of all file targets (after log rotation,
// libosmocore's log_targets_reopen).
func (f *Fanout) Reopen() error {
	var errs []error
	for _, t := range f.state.Load().cfg.Targets {
		if fs, ok := t.Sink.(*FileSink); ok {
			if err := fs.Reopen(); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", t.Name, err))
			}
		}
	}
	return errors.Join(errs...)
}

// Close closes every sink and leaves only the default output.
func (f *Fanout) Close() { f.Configure(FanoutConfig{Default: true}) }

// Enabled lets everything through: the Registry's category levels (kept
// at the lowest level any target wants) filter before.
func (f *Fanout) Enabled(context.Context, slog.Level) bool { return true }

// Handle sends the record to every target that wants it.
func (f *Fanout) Handle(ctx context.Context, r slog.Record) error {
	return (&fanChild{f: f, def: f.def}).Handle(ctx, r)
}

// WithAttrs returns a handler adding as to every record.
func (f *Fanout) WithAttrs(as []slog.Attr) slog.Handler {
	return (&fanChild{f: f, def: f.def}).WithAttrs(as)
}

// WithGroup returns a handler qualifying later attributes with g.
func (f *Fanout) WithGroup(g string) slog.Handler {
	return (&fanChild{f: f, def: f.def}).WithGroup(g)
}

type fanChild struct {
	f      *Fanout
	def    slog.Handler
	prefix string        // group prefix "g." of later attributes
	attrs  []groupedAttr // of WithAttrs, formatted when a target wants a record
}

type groupedAttr struct {
	prefix string
	a      slog.Attr
}

func (h *fanChild) Enabled(context.Context, slog.Level) bool { return true }

func (h *fanChild) WithAttrs(as []slog.Attr) slog.Handler {
	n := *h
	n.attrs = make([]groupedAttr, len(h.attrs), len(h.attrs)+len(as))
	copy(n.attrs, h.attrs)
	for _, a := range as {
		n.attrs = append(n.attrs, groupedAttr{h.prefix, a})
	}
	if h.def != nil {
		n.def = h.def.WithAttrs(as)
	}
	return &n
}

func (h *fanChild) WithGroup(g string) slog.Handler {
	if g == "" {
		return h
	}
	n := *h
	n.prefix = h.prefix + g + "."
	if h.def != nil {
		n.def = h.def.WithGroup(g)
	}
	return &n
}

func (h *fanChild) Handle(ctx context.Context, r slog.Record) error {
	st := h.f.state.Load()
	cat := ""
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "cat" {
			cat = a.Value.String()
		}
		return true
	})
	var err error
	if st.cfg.Default && h.def != nil {
		pass := true
		if st.cfg.DefaultLevels != nil {
			if l, ok := st.cfg.DefaultLevels[cat]; ok && r.Level < l {
				pass = false
			}
		}
		if pass && h.def.Enabled(ctx, r.Level) {
			err = h.def.Handle(ctx, r)
		}
	}
	var e *Entry
	var line []byte
	for _, t := range st.cfg.Targets {
		if !t.Wants(cat, r.Level) {
			continue
		}
		if e == nil {
			e = h.entry(r, cat, st.needSrc)
		}
		line = t.AppendLine(line[:0], e)
		if werr := t.Sink.Output(e, line); werr != nil {
			st.errs.Add(1)
			s := t.Name + ": " + werr.Error()
			st.lastError.Store(&s)
		}
	}
	return err
}

func (h *fanChild) entry(r slog.Record, cat string, src bool) *Entry {
	e := &Entry{Time: r.Time, Cat: cat, Level: r.Level}
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	b := make([]byte, 0, len(r.Message)+64)
	b = append(b, r.Message...)
	for _, ga := range h.attrs {
		b = appendAttr(b, ga.prefix, ga.a)
	}
	r.Attrs(func(a slog.Attr) bool {
		if a.Key != "cat" {
			b = appendAttr(b, h.prefix, a)
		}
		return true
	})
	e.Msg = string(b)
	if src && r.PC != 0 {
		fr, _ := runtime.CallersFrames([]uintptr{r.PC}).Next()
		e.File, e.Line = fr.File, fr.Line
	}
	return e
}

// appendAttr appends " key=value" (groups flattened as "g.key").
func appendAttr(b []byte, prefix string, a slog.Attr) []byte {
	a.Value = a.Value.Resolve()
	if a.Equal(slog.Attr{}) {
		return b
	}
	if a.Value.Kind() == slog.KindGroup {
		p := prefix
		if a.Key != "" {
			p += a.Key + "."
		}
		for _, g := range a.Value.Group() {
			b = appendAttr(b, p, g)
		}
		return b
	}
	b = append(b, ' ')
	b = append(b, prefix...)
	b = append(b, a.Key...)
	b = append(b, '=')
	var v string
	if a.Value.Kind() == slog.KindTime {
		v = a.Value.Time().Format(time.RFC3339Nano)
	} else {
		v = a.Value.String()
	}
	if needsQuote(v) {
		return strconv.AppendQuote(b, v)
	}
	return append(b, v...)
}

func needsQuote(s string) bool {
	if s == "" {
		return true
	}
	for _, c := range s {
		if c <= ' ' || c == '=' || c == '"' || c == 0x7f || c > 0x7e && c < 0xa0 {
			return true
		}
	}
	return false
}
