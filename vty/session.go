package vty

import (
	"bytes"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"unicode"
)

// Telnet bytes (RFC 854) and options.
const (
	tnIAC  = 255
	tnDONT = 254
	tnDO   = 253
	tnWONT = 252
	tnWILL = 251
	tnSB   = 250
	tnSE   = 240

	optEcho     = 1
	optSGA      = 3
	optNAWS     = 31
	optLinemode = 34
)

const (
	maxHist   = 20 // libosmocore VTY_MAXHIST
	nawsSBLen = 5
)

const (
	escNormal = iota
	escPre
	escEscape
)

// Session is one telnet (or console) session: libosmocore's struct vty
// for VTY_TERM. Its line discipline is driven by Feed, which consumes
// received bytes and returns the bytes to send; it never touches the
// network itself.
type Session struct {
	v  *VTY
	id int
	st state

	buf []byte
	cp  int

	hist   [maxHist]string
	hindex int
	hp     int

	escape   int
	iac      bool
	sbActive bool
	sbBuf    [nawsSBLen]byte
	sbLen    int

	fail   int
	Width  int
	Height int

	out bytes.Buffer // pending output of the current Feed

	run     func(func())    // executes handlers (the owner's executor)
	stopped <-chan struct{} // closed when run will execute nothing more
	stopOut bool            // closed by stopped: Feed still returns the notice

	logMu     sync.Mutex
	logTarget *LogTarget   // `logging enable` of this session
	notify    func([]byte) // asynchronous output (log lines), never blocks
	// flush sends output ahead of the Feed result (the connection's
	// goroutine), so that log lines made by a command come after its echo.
	flush func([]byte)
}

func (s *Session) setNotify(f func([]byte)) {
	s.logMu.Lock()
	s.notify = f
	s.logMu.Unlock()
}

// LogTarget returns the session's `logging enable` target (nil if off).
func (s *Session) LogTarget() *LogTarget {
	s.logMu.Lock()
	defer s.logMu.Unlock()
	return s.logTarget
}

func (s *Session) setLogTarget(t *LogTarget) {
	s.logMu.Lock()
	s.logTarget = t
	s.logMu.Unlock()
}

// NewSession makes a session on the tree. run executes command handlers
// (nil = directly in the caller). Call Start for the banner and prompt.
func (v *VTY) NewSession(run func(func())) *Session {
	s := &Session{v: v, run: run}
	s.st.sess = s
	v.mu.Lock()
	s.st.lines = v.lines
	if v.passwordCheck {
		s.st.node = AuthNode
	} else if v.advanced {
		s.st.node = EnableNode
	} else {
		s.st.node = ViewNode
	}
	s.id = len(v.sessions)
	for {
		used := false
		for o := range v.sessions {
			if o.id == s.id {
				used = true
			}
		}
		if !used {
			break
		}
		s.id++
	}
	v.sessions[s] = struct{}{}
	v.mu.Unlock()
	return s
}

func sortSessions(l []*Session) { sort.Slice(l, func(i, j int) bool { return l[i].id < l[j].id }) }

// Closed reports whether the session asked to close (exit from VIEW/ENABLE,
// too many bad passwords).
func (s *Session) Closed() bool { return s.st.closed }

// Node is the session's current node.
func (s *Session) Node() NodeID { return s.st.node }

// Release forgets the session (config lock, `who` list). Call once when the
// connection is gone.
func (s *Session) Release() {
	s.v.configUnlock(s)
	s.v.mu.Lock()
	delete(s.v.sessions, s)
	s.v.mu.Unlock()
	if s.LogTarget() != nil && s.v.Logging != nil {
		s.v.Logging.SyncSessions()
	}
}

// write adds terminal output; bare LF becomes CR LF (VTY_NEWLINE).
func (s *Session) write(p []byte) {
	if s.st.node == AuthNode || s.st.node == AuthEnableNode {
		return
	}
	s.out.Write(p)
}

// vout is vty_out: not suppressed in the auth nodes.
func (s *Session) vout(str string) {
	s.out.WriteString(str)
}

func crlf(b []byte) []byte {
	if bytes.IndexByte(b, '\n') < 0 {
		return b
	}
	var o bytes.Buffer
	o.Grow(len(b) + 32)
	for i, c := range b {
		if c == '\n' && (i == 0 || b[i-1] != '\r') {
			o.WriteByte('\r')
		}
		o.WriteByte(c)
	}
	return o.Bytes()
}

// Start returns the greeting: banner, option negotiation and prompt
// (libosmocore vty_create).
func (s *Session) Start() []byte {
	s.out.Reset()
	v := s.v
	v.mu.Lock()
	check, pass, motd := v.passwordCheck, v.password, v.motdFile
	v.mu.Unlock()
	if check && pass == "" {
		s.vout("Vty password is not set.\r\n")
		s.st.closed = true
		return s.take()
	}
	s.vout(fmt.Sprintf("Welcome to the %s VTY interface\r\n\r\n", v.Info.Name))
	s.vout(string(crlf([]byte(v.Info.Copyright))))
	if motd != "" {
		if b, err := os.ReadFile(motd); err == nil {
			for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
				s.vout(strings.TrimRightFunc(l, unicode.IsSpace) + "\r\n")
			}
		} else {
			s.vout("MOTD file not found\r\n")
		}
	}
	if check {
		s.vout("\r\nUser Access Verification\r\n\r\n")
	}
	s.vout(string([]byte{tnIAC, tnWILL, optEcho, tnIAC, tnWILL, optSGA, tnIAC, tnDONT, optLinemode, tnIAC, tnDO, optNAWS}))
	s.prompt()
	return s.take()
}

func (s *Session) take() []byte {
	b := append([]byte(nil), s.out.Bytes()...)
	s.out.Reset()
	return b
}

func (s *Session) prompt() {
	n := s.v.Node(s.st.node)
	p := n.Prompt
	if strings.Contains(p, "%s") {
		p = fmt.Sprintf(p, s.v.HostName())
	}
	s.vout(p)
}

// Feed processes received bytes (libosmocore vty_read) and returns what to
// send back. When Closed() is true afterwards the connection is to be
// closed without sending anything more (libosmocore drops the pending
// output of the read that closed the session).
func (s *Session) Feed(p []byte) []byte {
	s.out.Reset()
	for i := 0; i < len(p); i++ {
		b := p[i]
		if b == tnIAC {
			if !s.iac {
				s.iac = true
				continue
			}
			s.iac = false
		}
		if s.sbActive && !s.iac {
			if s.sbLen < len(s.sbBuf) {
				s.sbBuf[s.sbLen] = b
			}
			s.sbLen++
			continue
		}
		if s.iac {
			i += s.telnetOption(p[i:])
			s.iac = false
			continue
		}
		if s.escape == escEscape {
			s.escapeMap(b)
			continue
		}
		if s.escape == escPre {
			switch b {
			case '[':
				s.escape = escEscape
			case 'b':
				s.backwardWord()
				s.escape = escNormal
			case 'f':
				s.forwardWord()
				s.escape = escNormal
			case 'd':
				s.forwardKillWord()
				s.escape = escNormal
			case 0x08, 0x7f:
				s.backwardKillWord()
				s.escape = escNormal
			default:
				s.escape = escNormal
			}
			continue
		}
		switch b {
		case ctrl('A'):
			s.beginningOfLine()
		case ctrl('B'):
			s.backwardChar()
		case ctrl('C'):
			s.stopInput()
		case ctrl('D'):
			s.deleteChar()
		case ctrl('E'):
			s.endOfLine()
		case ctrl('F'):
			s.forwardChar()
		case ctrl('H'), 0x7f:
			s.deleteBackwardChar()
		case ctrl('K'):
			s.killLine()
		case ctrl('L'):
			s.clearScreen()
		case ctrl('N'):
			s.nextLine()
		case ctrl('P'):
			s.previousLine()
		case ctrl('T'):
			s.transposeChars()
		case ctrl('U'):
			s.killLineFromBeginning()
		case ctrl('W'):
			s.backwardKillWord()
		case ctrl('Z'):
			s.endConfig()
		case '\n', '\r':
			s.vout("\r\n")
			s.executeLine()
		case '\t':
			s.completeCommand()
		case '?':
			if s.st.node == AuthNode || s.st.node == AuthEnableNode {
				s.selfInsert(b)
			} else {
				s.describeCommand()
			}
		case 0x1b:
			if i+1 < len(p) && p[i+1] == '[' {
				s.escape = escEscape
				i++
			} else {
				s.escape = escPre
			}
		default:
			if b > 31 && b < 127 {
				s.selfInsert(b)
			}
		}
		if s.st.closed {
			break
		}
	}
	if s.st.closed && !s.stopOut {
		s.out.Reset()
		return nil
	}
	return s.take()
}

func ctrl(c byte) byte { return c - '@' }

// telnetOption handles the byte after IAC; it returns how many further
// bytes of p it consumed (libosmocore vty_telnet_option).
func (s *Session) telnetOption(p []byte) int {
	switch p[0] {
	case tnSB:
		s.sbLen = 0
		s.sbActive = true
		return 0
	case tnSE:
		if !s.sbActive {
			return 0
		}
		if s.sbLen == 0 || s.sbBuf[0] == 0 {
			s.sbActive = false
			return 0
		}
		if s.sbBuf[0] == optNAWS {
			if s.sbLen != nawsSBLen {
				s.vout(fmt.Sprintf("RFC 1073 violation detected: telnet NAWS option should send %d characters, but we received %d", nawsSBLen, s.sbLen))
			} else {
				s.Width = int(s.sbBuf[1])<<8 | int(s.sbBuf[2])
				s.Height = int(s.sbBuf[3])<<8 | int(s.sbBuf[4])
			}
		}
		s.sbActive = false
		return 0
	}
	return 1
}

// ctx makes a handler context writing to a fresh buffer.
func (s *Session) ctx(cmd *Cmd, args []string) *Context {
	return &Context{Args: args, Cmd: cmd, v: s.v, st: &s.st, out: &bytes.Buffer{}}
}

func (s *Session) flushCtx(c *Context) {
	s.vout(string(crlf(c.out.Bytes())))
}

// SetStopped gives the session a channel its executor closes when it
// stops running handlers (see StopNotifier); a command waiting for its
// handler then gets "% Command not executed" and the session closes.
func (s *Session) SetStopped(ch <-chan struct{}) { s.stopped = ch }

// exec runs f through the owner's executor and waits for it. It reports
// whether f ran: false when the executor stopped first (the session is
// closed then).
func (s *Session) exec(f func()) bool {
	if s.run == nil {
		f()
		return true
	}
	done := make(chan struct{})
	s.run(func() {
		defer close(done)
		f()
	})
	select {
	case <-done:
		return true
	case <-s.stopped:
		select {
		case <-done: // ran before the executor stopped
			return true
		default:
		}
		s.vout("% Command not executed: the application is stopping\r\n")
		s.st.closed, s.stopOut = true, true
		return false
	}
}

// runLine runs the line in buf: a password on the auth nodes, else a
// command that goes into the history.
func (s *Session) runLine() {
	switch s.st.node {
	case AuthNode, AuthEnableNode:
		s.auth()
	default:
		s.command()
		s.histAdd()
	}
}

func (s *Session) executeLine() {
	s.runLine()
	s.cp = 0
	s.buf = s.buf[:0]
	if !s.st.closed {
		s.prompt()
	}
}

func (s *Session) command() {
	words := splitWords(string(s.buf))
	if words == nil {
		return
	}
	onode := s.st.node
	cmds, words, doShortcut := s.cmds(words)
	cmd, argv, ret := resolve(cmds, words, false)
	switch ret {
	case resAmbiguous:
		s.vout("% Ambiguous command.\r\n")
		return
	case resNoMatch:
		s.vout("% Unknown command.\r\n")
		return
	case resIncomplete:
		s.vout("% Command incomplete.\r\n")
		return
	case resArgcMax:
		return
	}
	if s.flush != nil && s.out.Len() > 0 && s.LogTarget() != nil {
		// libosmocore writes log lines of the command (logp) after the
		// echo of its line and before its output and prompt.
		s.flush(bytes.Clone(s.out.Bytes()))
		s.out.Reset()
	}
	var out bytes.Buffer
	var c *Context
	if !s.exec(func() {
		if doShortcut {
			s.st.node = EnableNode
		}
		c, _ = s.v.executeCtx(&s.st, cmd, argv, &out, false)
		if doShortcut {
			s.st.node = onode
		}
	}) {
		return
	}
	c.runAfter()
	s.vout(string(crlf(out.Bytes())))
}

func (s *Session) auth() {
	v := s.v
	v.mu.Lock()
	defer v.mu.Unlock()
	var pass string
	var next NodeID
	switch s.st.node {
	case AuthNode:
		pass = v.password
		next = ViewNode
		if v.advanced {
			next = EnableNode
			if v.enablePass != "" {
				next = ViewNode
			}
		}
	case AuthEnableNode:
		pass = v.enablePass
		next = EnableNode
	}
	if pass != "" && string(s.buf) == pass {
		s.fail = 0
		s.st.node = next
		return
	}
	s.fail++
	if s.fail >= 3 {
		if s.st.node == AuthNode {
			s.vout("% Bad passwords, too many failures!\r\n")
			s.st.closed = true
		} else {
			s.fail = 0
			s.vout("% Bad enable passwords, too many failures!\r\n")
			s.st.node = ViewNode
		}
	}
}

// Line-level API for front ends that do their own line editing (the local
// console): the same parser, nodes and outputs, without telnet echo.

// Prompt returns the current prompt ("OsmoPCU(config-pcu)# ").
func (s *Session) Prompt() string {
	s.out.Reset()
	s.prompt()
	return string(s.take())
}

// Exec runs one command line as Enter does and returns its output with
// "\n" line ends; history is kept. After `exit` from VIEW/ENABLE, Closed()
// is true.
func (s *Session) Exec(line string) string {
	s.out.Reset()
	s.buf = append(s.buf[:0], line...)
	s.cp = len(s.buf)
	s.runLine()
	s.buf = s.buf[:0]
	s.cp = 0
	return strings.ReplaceAll(string(s.take()), "\r\n", "\n")
}

// Candidates returns TAB completions for the last word of line: full
// words for the last word (a trailing space means a new, empty word).
func (s *Session) Candidates(line string) []string {
	words := splitWords(line)
	absent := len(line) == 0 || isSpace(line[len(line)-1])
	cmds, words, _ := s.cmds(words)
	if len(words) == 0 && !absent {
		return nil
	}
	if absent && len(words) == 0 {
		words = nil
	}
	if !absent && len(words) > 0 {
		// offer every matching keyword, not just the common prefix
		all, ret := complete(cmds, words[:len(words)-1], true)
		if ret != resCompleteFull && ret != resCompleteList {
			return nil
		}
		var out []string
		for _, c := range all {
			if strings.HasPrefix(c, words[len(words)-1]) {
				out = append(out, c)
			}
		}
		return out
	}
	all, ret := complete(cmds, words, true)
	if ret != resCompleteFull && ret != resCompleteList {
		return nil
	}
	return all
}

// Help returns the '?' listing for line ("\n" line ends), as the telnet
// session prints it between the line and the redrawn prompt.
func (s *Session) Help(line string) string {
	s.out.Reset()
	s.buf = append(s.buf[:0], line...)
	s.cp = len(s.buf)
	s.describeCommand()
	out := strings.ReplaceAll(string(s.take()), "\r\n", "\n")
	s.buf = s.buf[:0]
	s.cp = 0
	// drop the leading newline and the trailing prompt+line
	out = strings.TrimPrefix(out, "\n")
	if i := strings.LastIndexByte(out, '\n'); i >= 0 {
		out = out[:i+1]
	}
	return out
}
