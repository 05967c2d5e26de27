package vty

import "bytes"

// The line editor of a Session: libosmocore's vty.c key bindings (cursor
// moves, history, kills, transposition, escape sequences).

// MaxLine bounds the command line a client can type (libosmocore has no
// bound); further characters are ignored, so a client cannot exhaust memory.
const MaxLine = 64 << 10

func (s *Session) selfInsert(c byte) {
	if len(s.buf) >= MaxLine {
		return
	}
	n := len(s.buf) - s.cp
	s.buf = append(s.buf, 0)
	copy(s.buf[s.cp+1:], s.buf[s.cp:])
	s.buf[s.cp] = c
	s.write(s.buf[s.cp:])
	for i := 0; i < n; i++ {
		s.write([]byte{0x08})
	}
	s.cp++
}

func (s *Session) selfInsertOverwrite(c byte) {
	if s.cp < len(s.buf) {
		s.buf[s.cp] = c
	} else {
		s.buf = append(s.buf, c)
	}
	s.cp++
	if s.st.node == AuthNode || s.st.node == AuthEnableNode {
		return
	}
	s.write([]byte{c})
}

func (s *Session) insertWordOverwrite(w string) {
	s.write([]byte(w))
	s.buf = append(s.buf[:s.cp], w...)
	s.cp = len(s.buf)
}

func (s *Session) forwardChar() {
	if s.cp < len(s.buf) {
		s.write(s.buf[s.cp : s.cp+1])
		s.cp++
	}
}

func (s *Session) backwardChar() {
	if s.cp > 0 {
		s.cp--
		s.write([]byte{0x08})
	}
}

func (s *Session) beginningOfLine() {
	for s.cp > 0 {
		s.backwardChar()
	}
}

func (s *Session) endOfLine() {
	for s.cp < len(s.buf) {
		s.forwardChar()
	}
}

func (s *Session) histAdd() {
	if len(s.buf) == 0 {
		return
	}
	line := string(s.buf)
	idx := s.hindex - 1
	if s.hindex == 0 {
		idx = maxHist - 1
	}
	if s.hist[idx] != "" && s.hist[idx] == line {
		s.hp = s.hindex
		return
	}
	s.hist[s.hindex] = line
	s.hindex++
	if s.hindex == maxHist {
		s.hindex = 0
	}
	s.hp = s.hindex
}

func (s *Session) historyPrint() {
	s.killLineFromBeginning()
	s.buf = append(s.buf[:0], s.hist[s.hp]...)
	s.cp = len(s.buf)
	s.redrawLine()
}

func (s *Session) nextLine() {
	if s.hp == s.hindex {
		return
	}
	t := s.hp + 1
	if s.hp == maxHist-1 {
		t = 0
	}
	if s.hist[t] == "" {
		return
	}
	s.hp = t
	s.historyPrint()
}

func (s *Session) previousLine() {
	t := s.hp - 1
	if s.hp == 0 {
		t = maxHist - 1
	}
	if s.hist[t] == "" {
		return
	}
	s.hp = t
	s.historyPrint()
}

// reprompt writes the prompt again and the line typed so far after it.
func (s *Session) reprompt() {
	s.prompt()
	s.redrawLine()
}

func (s *Session) redrawLine() {
	s.write(s.buf)
	s.cp = len(s.buf)
}

func (s *Session) forwardWord() {
	for s.cp != len(s.buf) && s.buf[s.cp] != ' ' {
		s.forwardChar()
	}
	for s.cp != len(s.buf) && s.buf[s.cp] == ' ' {
		s.forwardChar()
	}
}

func (s *Session) backwardPureWord() {
	for s.cp > 0 && s.buf[s.cp-1] != ' ' {
		s.backwardChar()
	}
}

func (s *Session) backwardWord() { s.backOverWord(s.backwardChar) }

// backOverWord repeats step, a move or a deletion of the character before
// the cursor, over the spaces before the cursor and then the word before
// them (Meta-B and Ctrl-W / Meta-Backspace alike).
func (s *Session) backOverWord(step func()) {
	for s.cp > 0 && s.buf[s.cp-1] == ' ' {
		step()
	}
	for s.cp > 0 && s.buf[s.cp-1] != ' ' {
		step()
	}
}

// downLevel is Ctrl-D on an empty line.
func (s *Session) downLevel() {
	s.vout("\r\n")
	c := s.ctx(nil, nil)
	if s.st.node > ConfigNode {
		if !s.exec(func() { s.v.goParent(c) }) {
			return
		}
	} else if !s.exec(func() { _ = cmdExit(c) }) {
		return
	}
	s.flushCtx(c)
	if s.st.closed {
		return
	}
	s.prompt()
	s.cp = 0
}

func (s *Session) clearScreen() {
	s.vout("\x1b[2J\x1b[H")
	s.reprompt()
}

// endConfig is Ctrl-Z (libosmocore vty_end_config).
func (s *Session) endConfig() {
	s.vout("\r\n")
	switch s.st.node {
	case ViewNode, EnableNode:
	case ConfigNode, LineNode:
		s.v.configUnlock(s)
		s.st.node = EnableNode
	case LogNode:
		s.st.node = ConfigNode
	}
	s.prompt()
	s.cp = 0
}

func (s *Session) deleteChar() {
	if s.st.node == AuthNode || s.st.node == AuthEnableNode {
		return
	}
	if len(s.buf) == 0 {
		s.downLevel()
		return
	}
	if s.cp == len(s.buf) {
		return
	}
	size := len(s.buf) - s.cp
	s.buf = append(s.buf[:s.cp], s.buf[s.cp+1:]...)
	s.write(s.buf[s.cp:])
	s.write([]byte{' '})
	for i := 0; i < size; i++ {
		s.write([]byte{0x08})
	}
}

func (s *Session) deleteBackwardChar() {
	if s.cp == 0 {
		return
	}
	s.backwardChar()
	s.deleteChar()
}

func (s *Session) killLine() {
	size := len(s.buf) - s.cp
	if size == 0 {
		return
	}
	s.write(bytes.Repeat([]byte{' '}, size))
	s.write(bytes.Repeat([]byte{0x08}, size))
	s.buf = s.buf[:s.cp]
}

func (s *Session) killLineFromBeginning() {
	s.beginningOfLine()
	s.killLine()
}

func (s *Session) forwardKillWord() {
	for s.cp != len(s.buf) && s.buf[s.cp] == ' ' {
		s.deleteChar()
	}
	for s.cp != len(s.buf) && s.buf[s.cp] != ' ' {
		s.deleteChar()
	}
}

func (s *Session) backwardKillWord() { s.backOverWord(s.deleteBackwardChar) }

func (s *Session) transposeChars() {
	if len(s.buf) < 2 || s.cp < 1 {
		return
	}
	if s.cp == len(s.buf) {
		c1, c2 := s.buf[s.cp-1], s.buf[s.cp-2]
		s.backwardChar()
		s.backwardChar()
		s.selfInsertOverwrite(c1)
		s.selfInsertOverwrite(c2)
	} else {
		c1, c2 := s.buf[s.cp], s.buf[s.cp-1]
		s.backwardChar()
		s.selfInsertOverwrite(c1)
		s.selfInsertOverwrite(c2)
	}
}

func (s *Session) stopInput() {
	s.buf = s.buf[:0]
	s.cp = 0
	s.vout("\r\n")
	s.prompt()
	s.hp = s.hindex
}

func (s *Session) escapeMap(c byte) {
	switch c {
	case 'A':
		s.previousLine()
	case 'B':
		s.nextLine()
	case 'C':
		s.forwardChar()
	case 'D':
		s.backwardChar()
	}
	s.escape = escNormal
}
