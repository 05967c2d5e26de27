// Package netsink holds the log targets that send over sockets:
// libosmocore's "log gsmtap HOST" (GSMTAP log datagrams over UDP) and
// "log syslog FACILITY". They are logx.Sinks; package logx itself opens
// no socket (its other sinks write to an io.Writer or a file), so the
// engine, which logs through logx, does not link package net.
package netsink

import (
	"errors"
	"fmt"
	"log/syslog"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gopcu/gopcu/internal/logx"
)

// GSMTAPSink sends every entry as a GSMTAP log datagram over UDP
// ("log gsmtap HOST").
type GSMTAPSink struct {
	conn  net.Conn
	ident string
	pid   uint32
	bufs  sync.Pool
}

// DialGSMTAP makes a sink sending to host:port (port 0 = 4729); ident is
// the process name in the header ("OsmoPCU").
func DialGSMTAP(host string, port int, ident string) (*GSMTAPSink, error) {
	if port == 0 {
		port = logx.GSMTAPPort
	}
	c, err := net.Dial("udp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		return nil, err
	}
	return &GSMTAPSink{conn: c, ident: ident, pid: uint32(os.Getpid())}, nil
}

// Output sends the entry (the formatted line is not used: GSMTAP carries
// the fields).
func (s *GSMTAPSink) Output(e *logx.Entry, _ []byte) error {
	bp, _ := s.bufs.Get().(*[]byte)
	if bp == nil {
		bp = new([]byte)
	}
	*bp = logx.AppendGSMTAPLog((*bp)[:0], s.ident, s.pid, e)
	_, err := s.conn.Write(*bp)
	s.bufs.Put(bp)
	return err
}

// Close closes the socket.
func (s *GSMTAPSink) Close() error { return s.conn.Close() }

// NeedsSource: the log header carries the source file and line
// (logx.SourceSink).
func (s *GSMTAPSink) NeedsSource() bool { return true }

// SyslogSink sends lines to the local syslog daemon ("log syslog
// FACILITY"). Like syslog(3) it does not fail without a daemon: it
// connects on first use and again (at most once a second) after errors,
// and drops lines meanwhile.
type SyslogSink struct {
	network, raddr, ident string
	prio                  syslog.Priority

	mu      sync.Mutex
	w       *syslog.Writer
	lastTry time.Time
}

var syslogFacilities = map[string]syslog.Priority{
	"authpriv": syslog.LOG_AUTHPRIV, "cron": syslog.LOG_CRON, "daemon": syslog.LOG_DAEMON,
	"ftp": syslog.LOG_FTP, "lpr": syslog.LOG_LPR, "mail": syslog.LOG_MAIL, "news": syslog.LOG_NEWS,
	"user": syslog.LOG_USER, "uucp": syslog.LOG_UUCP,
	"local0": syslog.LOG_LOCAL0, "local1": syslog.LOG_LOCAL1, "local2": syslog.LOG_LOCAL2,
	"local3": syslog.LOG_LOCAL3, "local4": syslog.LOG_LOCAL4, "local5": syslog.LOG_LOCAL5,
	"local6": syslog.LOG_LOCAL6, "local7": syslog.LOG_LOCAL7,
}

// OpenSyslog makes a sink for the local syslog daemon with the facility
// name of the VTY ("daemon", "local3", ...); only an unknown facility is
// an error.
func OpenSyslog(facility, ident string) (*SyslogSink, error) {
	return DialSyslog("", "", facility, ident)
}

// DialSyslog is OpenSyslog with a syslog daemon at network/raddr (as
// log/syslog.Dial; "", "" = the local daemon).
func DialSyslog(network, raddr, facility, ident string) (*SyslogSink, error) {
	p, ok := syslogFacilities[facility]
	if !ok {
		return nil, fmt.Errorf("netsink: unknown syslog facility %q", facility)
	}
	s := &SyslogSink{network: network, raddr: raddr, ident: ident, prio: p | syslog.LOG_NOTICE}
	s.mu.Lock()
	s.connect()
	s.mu.Unlock()
	return s, nil
}

func (s *SyslogSink) connect() error {
	if s.w != nil {
		return nil
	}
	if !s.lastTry.IsZero() && time.Since(s.lastTry) < time.Second {
		return errors.New("netsink: no syslog daemon")
	}
	s.lastTry = time.Now()
	w, err := syslog.Dial(s.network, s.raddr, s.prio, s.ident)
	if err != nil {
		return err
	}
	s.w = w
	return nil
}

// Output sends the line at the syslog severity of the entry's level.
func (s *SyslogSink) Output(e *logx.Entry, line []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.connect(); err != nil {
		return err
	}
	m := strings.TrimSuffix(string(line), "\n")
	var err error
	switch logx.OsmoLevel(e.Level) {
	case logx.OsmoDebug:
		err = s.w.Debug(m)
	case logx.OsmoInfo:
		err = s.w.Info(m)
	case logx.OsmoNotice:
		err = s.w.Notice(m)
	case logx.OsmoError:
		err = s.w.Err(m)
	default:
		err = s.w.Crit(m)
	}
	return err
}

// Close closes the connection.
func (s *SyslogSink) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.w == nil {
		return nil
	}
	err := s.w.Close()
	s.w = nil
	return err
}
