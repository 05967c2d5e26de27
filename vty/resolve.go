package vty

import "strings"

// Selecting the command that the words of a line name, and the help and
// completion lists for a partial line (libosmocore command.c
// cmd_execute_command_real(), cmd_describe_command_real(),
// cmd_complete_command_real()).

// Result codes of parsing a line (libosmocore CMD_*).
type result int

const (
	resSuccess result = iota
	resWarning
	resNoMatch
	resAmbiguous
	resIncomplete
	resArgcMax
	resNothingTodo
	resCompleteFull
	resCompleteMatch
	resCompleteList
	resSuccessDaemon
	resInvalidIndent
)

const argcMax = 256

// resolve finds the single command that words select on a node and builds
// its argument vector. strict is the config-file mode (keywords must be
// complete).
func resolve(cmds []*Cmd, words []string, strict bool) (*Cmd, []string, result) {
	cands := append([]*Cmd(nil), cmds...)
	level := anyMatch
	if strict {
		level = exactMatch
	}
	mt := noMatch
	index := 0
	for index = 0; index < len(words); index++ {
		w := words[index]
		mt = filter(w, cands, index, level)
		if mt == varargMatch {
			break
		}
		switch ambiguous(w, cands, index, mt) {
		case 1:
			return nil, nil, resAmbiguous
		case 2:
			return nil, nil, resNoMatch
		}
	}
	var found *Cmd
	matched, incomplete := 0, 0
	for _, c := range cands {
		if c == nil {
			continue
		}
		if mt == varargMatch || index >= c.cmdsize {
			found = c
			matched++
		} else {
			incomplete++
		}
	}
	if matched == 0 {
		if incomplete > 0 {
			return nil, nil, resIncomplete
		}
		return nil, nil, resNoMatch
	}
	if matched > 1 {
		return nil, nil, resAmbiguous
	}
	var argv []string
	varflag := false
	for i, w := range words {
		if len(argv) == argcMax {
			return nil, nil, resArgcMax
		}
		if varflag {
			argv = append(argv, w)
			continue
		}
		if i >= len(found.slots) {
			break
		}
		slot := found.slots[i]
		if strict {
			if len(slot) == 1 {
				d := slot[0]
				if isVararg(d.cmd) {
					varflag = true
				}
				if varflag || isVariable(d.cmd) || isOption(d.cmd) {
					argv = append(argv, w)
				}
			} else {
				argv = append(argv, w)
			}
			continue
		}
		if len(slot) == 1 {
			d := slot[0]
			tmp := d.cmd
			if isOption(d.cmd) {
				tmp, _ = deopt(d.cmd)
			}
			if isVararg(tmp) {
				varflag = true
			}
			if varflag || isVariable(tmp) {
				argv = append(argv, w)
			} else if isOption(d.cmd) {
				argv = append(argv, tmp)
			}
			continue
		}
		for _, d := range slot {
			if match(d.cmd, w, anyMatch, true) == noMatch {
				continue
			}
			tmp := d.cmd
			if isOption(d.cmd) {
				tmp, _ = deopt(d.cmd)
			}
			if isVariable(tmp) {
				argv = append(argv, w)
			} else {
				argv = append(argv, tmp)
			}
			break
		}
	}
	return found, argv, resSuccess
}

// entryDesc decides whether token dst is offered by '?' for the partial
// word src (absent = nothing typed yet) (libosmocore cmd_entry_function_desc).
func entryDesc(src string, absent bool, dst string) bool {
	switch {
	case isVararg(dst):
		return true
	case isRange(dst):
		return rangeOK(dst, src, absent)
	case isIPv6(dst):
		return absent || ipv6Kind(src) != noMatch
	case isIPv6Pfx(dst):
		return absent || ipv6PrefixKind(src) != noMatch
	case isIPv4(dst):
		return absent || ipv4Kind(src) != noMatch
	case isIPv4Pfx(dst):
		return absent || ipv4PrefixKind(src) != noMatch
	case isOption(dst) || isVariable(dst):
		return true
	case absent:
		return true
	}
	return strings.HasPrefix(dst, src)
}

// entryComplete decides whether token dst completes src for TAB; variables
// never complete (libosmocore cmd_entry_function).
func entryComplete(src string, absent bool, dst string) bool {
	if isOption(dst) || isVariable(dst) || isVararg(dst) || isIPv4(dst) || isIPv4Pfx(dst) || isRange(dst) {
		return false
	}
	if absent {
		return true
	}
	return strings.HasPrefix(dst, src)
}

var descCR = &desc{cmd: "<cr>", help: "", hasHelp: true}

// partialLine prepares the typed words of a line being described or
// completed: after a space (absentLast) an empty word is the one being
// typed. It returns the words, the index of the last one (-1: none) and
// a copy of cmds for filter to strike candidates from.
func partialLine(cmds []*Cmd, words []string, absentLast bool) ([]string, int, []*Cmd) {
	if absentLast {
		words = append(words[:len(words):len(words)], "")
	}
	return words, len(words) - 1, append([]*Cmd(nil), cmds...)
}

// describe lists what may follow: words are the typed words, absentLast
// means the cursor is after a space (a new word starts).
func describe(cmds []*Cmd, words []string, absentLast bool, expert bool) ([]*desc, result) {
	words, index, cands := partialLine(cmds, words, absentLast)
	if index < 0 {
		return nil, resNoMatch
	}
	var out []*desc
	for i := 0; i < index; i++ {
		w := words[i]
		mt := filter(w, cands, i, anyMatch)
		if mt == varargMatch {
			for _, c := range cands {
				if c == nil || len(c.slots) == 0 {
					continue
				}
				last := c.slots[len(c.slots)-1]
				for k := range last {
					out = append(out, &last[k])
				}
			}
			out = append(out, descCR)
			return out, resSuccess
		}
		switch ambiguous(w, cands, i, mt) {
		case 1:
			return nil, resAmbiguous
		case 2:
			return nil, resNoMatch
		}
	}
	cur := words[index]
	absent := absentLast
	if !absent {
		filter(cur, cands, index, anyMatch)
	}
	has := func(s string) bool {
		for _, d := range out {
			if d.cmd == s {
				return true
			}
		}
		return false
	}
	for _, c := range cands {
		if c == nil {
			continue
		}
		if c.Attr&AttrDeprecated != 0 {
			continue
		}
		if !expert && c.Attr&AttrHidden != 0 {
			continue
		}
		if !absent && index >= len(c.slots) {
			continue
		}
		if absent && index == len(c.slots) {
			if !has("<cr>") {
				out = append(out, descCR)
			}
			continue
		}
		if index >= len(c.slots) {
			continue
		}
		for k := range c.slots[index] {
			d := &c.slots[index][k]
			if !entryDesc(cur, absent, d.cmd) {
				continue
			}
			if !has(d.cmd) {
				out = append(out, d)
			}
		}
	}
	if len(out) == 0 {
		return nil, resNoMatch
	}
	return out, resSuccess
}

// complete computes TAB completion candidates.
func complete(cmds []*Cmd, words []string, absentLast bool) ([]string, result) {
	words, index, cands := partialLine(cmds, words, absentLast)
	if index < 0 {
		return nil, resNoMatch
	}
	for i := 0; i < index; i++ {
		w := words[i]
		mt := filter(w, cands, i, anyMatch)
		if ambiguous(w, cands, i, mt) == 1 {
			return nil, resAmbiguous
		}
	}
	var out []string
	cur := words[index]
	for _, c := range cands {
		if c == nil || index >= len(c.slots) {
			continue
		}
		for _, d := range c.slots[index] {
			s := d.cmd
			if isOption(s) {
				s, _ = deopt(s)
			}
			if !entryComplete(cur, absentLast, s) {
				continue
			}
			dup := false
			for _, o := range out {
				if o == s {
					dup = true
					break
				}
			}
			if !dup {
				out = append(out, s)
			}
		}
	}
	if len(out) == 0 {
		if absentLast {
			return nil, resNothingTodo
		}
		return nil, resNoMatch
	}
	if len(out) == 1 {
		return out, resCompleteFull
	}
	if !absentLast {
		lcd := -1
		for i := 1; i < len(out); i++ {
			a, b := out[i-1], out[i]
			j := 0
			for j < len(a) && j < len(b) && a[j] == b[j] {
				j++
			}
			if lcd < 0 || j < lcd {
				lcd = j
			}
		}
		if lcd > 0 && len(cur) < lcd {
			return []string{out[0][:lcd]}, resCompleteMatch
		}
	}
	return out, resCompleteList
}
