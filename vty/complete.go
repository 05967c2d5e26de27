package vty

import "fmt"

// Completion (TAB) and help ('?') of a Session, as libosmocore's vty.c
// vty_complete_command() and vty_describe_command().

// cmds returns the command list of the node '?'/TAB/execution work on,
// with libosmocore's "do" shortcut (config nodes run ENABLE commands).
func (s *Session) cmds(words []string) ([]*Cmd, []string, bool) {
	n := s.st.node
	if len(words) > 0 && words[0] == "do" && n != AuthNode && n != ViewNode && n != AuthEnableNode && n != EnableNode {
		return s.v.Node(EnableNode).Cmds, words[1:], true
	}
	return s.v.Node(n).Cmds, words, false
}

func (s *Session) completeCommand() {
	if s.st.node == AuthNode || s.st.node == AuthEnableNode {
		return
	}
	line := string(s.buf)
	words := splitWords(line)
	if words == nil {
		return
	}
	absent := len(line) > 0 && isSpace(line[len(line)-1])
	cmds, words, _ := s.cmds(words)
	matched, ret := complete(cmds, words, absent)
	if len(words) == 0 && !absent {
		matched, ret = nil, resNoMatch
	}
	s.vout("\r\n")
	switch ret {
	case resAmbiguous:
		s.vout("% Ambiguous command.\r\n")
		s.reprompt()
	case resNoMatch, resNothingTodo:
		s.reprompt()
	case resCompleteFull:
		s.reprompt()
		s.backwardPureWord()
		s.insertWordOverwrite(matched[0])
		s.selfInsert(' ')
	case resCompleteMatch:
		s.reprompt()
		s.backwardPureWord()
		s.insertWordOverwrite(matched[0])
	case resCompleteList:
		for i, m := range matched {
			if i != 0 && i%6 == 0 {
				s.vout("\r\n")
			}
			s.vout(fmt.Sprintf("%-10s ", m))
		}
		s.vout("\r\n")
		s.reprompt()
	}
}

func (s *Session) describeCommand() {
	line := string(s.buf)
	words := splitWords(line)
	absent := words == nil || (len(line) > 0 && isSpace(line[len(line)-1]))
	cmds, words, _ := s.cmds(words)
	list, ret := describe(cmds, words, absent, s.st.expert)
	s.vout("\r\n")
	switch ret {
	case resAmbiguous:
		s.vout("% Ambiguous command.\r\n")
		s.reprompt()
		return
	case resNoMatch:
		s.vout("% There is no matched command.\r\n")
		s.reprompt()
		return
	}
	width := 0
	for _, d := range list {
		if d.cmd == "" {
			continue
		}
		l := len(d.cmd)
		if d.cmd[0] == '.' {
			l--
		}
		if l > width {
			width = l
		}
	}
	// desc_width is unsigned in libosmocore: a narrow or unknown terminal
	// wraps it around, which disables folding.
	descWidth := -1
	if s.Width > width+6 {
		descWidth = s.Width - (width + 6)
	} else if s.Width == width+6 {
		descWidth = 0
	}
	var cr *desc
	for _, d := range list {
		if d.cmd == "" {
			continue
		}
		if d.cmd == "<cr>" {
			cr = d
			continue
		}
		s.describeOne(d, width, descWidth)
	}
	if cr != nil {
		s.describeOne(cr, width, descWidth)
	}
	s.reprompt()
}

func (s *Session) describeOne(d *desc, width, descWidth int) {
	name := d.cmd
	if name[0] == '.' {
		name = name[1:]
	}
	if !d.hasHelp {
		s.vout(fmt.Sprintf("  %s\r\n", name))
		return
	}
	if descWidth < 0 || descWidth >= len(d.help) {
		s.vout(fmt.Sprintf("  %-*s  %s\r\n", width, name, d.help))
		return
	}
	if descWidth == 0 {
		s.vout(fmt.Sprintf("  %-*s  %s\r\n", width, name, d.help))
		return
	}
	p := d.help
	for len(p) > descWidth {
		pos := descWidth
		for pos > 0 && p[pos] != ' ' {
			pos--
		}
		if pos == 0 {
			break
		}
		s.vout(fmt.Sprintf("  %-*s  %s\r\n", width, name, p[:pos]))
		name = ""
		p = p[pos+1:]
	}
	s.vout(fmt.Sprintf("  %-*s  %s\r\n", width, name, p))
}
