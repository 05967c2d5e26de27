package vty

import (
	"net/netip"
	"strconv"
	"strings"
)

// desc is one alternative of one token position of a command: the token
// text as written in the command string ("show", "<1-4>", "[WORD]", ".LINE")
// and its help line. hasHelp is false when the help string ran out of lines
// (libosmocore then prints the token without a help column).
type desc struct {
	cmd     string
	help    string
	hasHelp bool
}

// Attr holds the global (library) attributes of a command.
type Attr uint8

// Global command attributes (libosmocore CMD_ATTR_*).
const (
	AttrDeprecated Attr = 1 << iota // accepted, never listed or described
	AttrHidden                      // listed and described only in expert mode
	AttrImmediate                   // "!" applies immediately
	AttrNodeExit                    // "@" applies on node exit
	attrLib                         // installed by the library (flag letters from the library table)
)

// Handler runs a command. It executes inside the owner's executor, so it may
// touch engine state. Output goes through c; a non-nil error makes the
// command fail (CMD_WARNING): ErrWarning silently, any other error is
// printed as "% <error>".
type Handler func(c *Context) error

// Cmd is one installed command.
type Cmd struct {
	String  string
	Attr    Attr
	UsrAttr uint32 // application attribute bits (letters from AppInfo.UsrAttrs)
	Handler Handler

	slots   [][]desc
	cmdsize int
}

// Deprecated reports whether the command is deprecated.
func (c *Cmd) Deprecated() bool { return c.Attr&AttrDeprecated != 0 }

// Hidden reports whether the command is hidden.
func (c *Cmd) Hidden() bool { return c.Attr&AttrHidden != 0 }

func isSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\v' || b == '\f'
}

// nextHelp takes the next help line from the help string: leading white
// space (empty lines included) is skipped, the line ends at CR or LF.
func nextHelp(h *string) (string, bool) {
	s := *h
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	if i == len(s) {
		*h = ""
		return "", false
	}
	j := i
	for j < len(s) && s[j] != '\r' && s[j] != '\n' {
		j++
	}
	*h = s[j:]
	return s[i:j], true
}

// compile splits an Osmocom command string into token positions, each a
// list of alternatives, and pairs each token with the next help line. The
// grammar is the one of libosmocore's cmd_make_descvec: "(a|b|c)" makes
// alternatives, "[(a|b)]" makes optional alternatives "[a]" "[b]", every
// other space separated word is one token.
func compile(str, help string) [][]desc {
	var all [][]desc
	multiple := 0
	optBrace := false
	cp := 0
	at := func(i int) byte {
		if i < len(str) {
			return str[i]
		}
		return 0
	}
	for {
		for cp < len(str) && isSpace(str[cp]) {
			cp++
		}
		if at(cp) == '[' && at(cp+1) == '(' {
			optBrace = true
			cp++
		}
		if at(cp) == '(' {
			multiple = 1
			cp++
		}
		if at(cp) == ')' {
			multiple = 0
			cp++
			if at(cp) == ']' {
				cp++
			}
			optBrace = false
		}
		if at(cp) == '|' {
			cp++
		}
		for cp < len(str) && isSpace(str[cp]) {
			cp++
		}
		if at(cp) == '(' {
			multiple = 1
			cp++
		}
		if cp >= len(str) {
			return all
		}
		sp := cp
		for cp < len(str) && !isSpace(str[cp]) && str[cp] != ')' && str[cp] != '|' {
			cp++
		}
		tok := str[sp:cp]
		if optBrace {
			tok = "[" + tok + "]"
		}
		h, ok := nextHelp(&help)
		d := desc{cmd: tok, help: h, hasHelp: ok}
		if multiple > 0 {
			if multiple == 1 {
				all = append(all, nil)
			}
			multiple++
		} else {
			all = append(all, nil)
		}
		all[len(all)-1] = append(all[len(all)-1], d)
	}
}

// cmdSize counts the mandatory token positions (up to the first optional).
func cmdSize(slots [][]desc) int {
	n := 0
	for _, s := range slots {
		if len(s) >= 1 && isOption(s[0].cmd) {
			return n
		}
		n++
	}
	return n
}

func isOption(s string) bool   { return len(s) > 0 && s[0] == '[' }
func isVariable(s string) bool { return len(s) > 0 && ((s[0] >= 'A' && s[0] <= 'Z') || s[0] == '<') }
func isVararg(s string) bool   { return len(s) > 0 && s[0] == '.' }
func isRange(s string) bool    { return len(s) > 0 && s[0] == '<' }
func isIPv4(s string) bool     { return s == "A.B.C.D" }
func isIPv4Pfx(s string) bool  { return s == "A.B.C.D/M" }
func isIPv6(s string) bool     { return s == "X:X::X:X" }
func isIPv6Pfx(s string) bool  { return s == "X:X::X:X/M" }

// deopt strips the brackets of "[x]"; "" when too short.
func deopt(s string) (string, bool) {
	if len(s) < 3 {
		return "", false
	}
	return s[1 : len(s)-1], true
}

// matchType ranks how a word matches a token (libosmocore enum match_type);
// a higher value is a stronger match.
type matchType int

const (
	noMatch matchType = iota
	anyMatch
	extendMatch
	ipv4PrefixMatch
	ipv4Match
	ipv6PrefixMatch
	ipv6Match
	rangeMatch
	varargMatch
	partlyMatch
	exactMatch
)

// rangeOK reports whether word is inside "<min-max>" ("<-5-5>" for signed).
// An absent word (nil in libosmocore) always matches.
func rangeOK(rng, word string, absent bool) bool {
	if absent {
		return true
	}
	if len(rng) < 2 {
		return false
	}
	body := strings.TrimSuffix(rng[1:], ">")
	if !strings.HasSuffix(rng, ">") {
		return false
	}
	if rng[1] == '-' {
		// signed: "<-MIN-MAX>", MIN is negated
		body = body[1:]
		i := strings.IndexByte(body, '-')
		if i < 0 {
			return false
		}
		mn, err1 := strconv.ParseInt(body[:i], 10, 64)
		mx, err2 := strconv.ParseInt(body[i+1:], 10, 64)
		v, err3 := strconv.ParseInt(word, 10, 64)
		if err1 != nil || err2 != nil || err3 != nil {
			return false
		}
		return v >= -mn && v <= mx
	}
	if word == "" || word[0] == '-' {
		return false
	}
	i := strings.IndexByte(body, '-')
	if i < 0 {
		return false
	}
	mn, err1 := strconv.ParseUint(body[:i], 10, 64)
	mx, err2 := strconv.ParseUint(body[i+1:], 10, 64)
	v, err3 := strconv.ParseUint(strings.TrimPrefix(word, "+"), 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return false
	}
	return v >= mn && v <= mx
}

// ipv4Kind classifies a (possibly incomplete) dotted quad.
func ipv4Kind(s string) matchType {
	dots, nums := 0, 0
	i := 0
	for {
		sp := i
		for i < len(s) {
			if s[i] == '.' {
				if dots >= 3 {
					return noMatch
				}
				if i+1 < len(s) && s[i+1] == '.' {
					return noMatch
				}
				if i+1 == len(s) {
					return partlyMatch
				}
				dots++
				break
			}
			if s[i] < '0' || s[i] > '9' {
				return noMatch
			}
			i++
		}
		if i-sp > 3 {
			return noMatch
		}
		v, _ := strconv.Atoi(s[sp:i])
		if v > 255 {
			return noMatch
		}
		nums++
		if i >= len(s) {
			break
		}
		i++
	}
	if nums < 4 {
		return partlyMatch
	}
	return exactMatch
}

func ipv4PrefixKind(s string) matchType {
	i := strings.IndexByte(s, '/')
	if i < 0 {
		if ipv4Kind(s) == noMatch {
			return noMatch
		}
		return partlyMatch
	}
	if k := ipv4Kind(s[:i]); k != exactMatch {
		return noMatch
	}
	m := s[i+1:]
	if m == "" {
		return partlyMatch
	}
	v, err := strconv.Atoi(m)
	if err != nil || v > 32 || len(m) > 2 {
		return noMatch
	}
	return exactMatch
}

const ipv6Chars = "0123456789abcdefABCDEF:."

func ipv6Kind(s string) matchType {
	for i := 0; i < len(s); i++ {
		if !strings.ContainsRune(ipv6Chars, rune(s[i])) {
			return noMatch
		}
	}
	if a, err := netip.ParseAddr(s); err == nil && a.Is6() {
		return exactMatch
	}
	// libosmocore's cmd_ipv6_match state machine for what inet_pton refuses
	const (
		stStart = iota
		stColon
		stDouble
		stAddr
		stDot
	)
	state, colons, nums, double, sp := stStart, 0, 0, 0, 0
	next := func(i int) byte {
		if i+1 < len(s) {
			return s[i+1]
		}
		return 0
	}
	for i := 0; i < len(s); {
		switch state {
		case stStart:
			if s[i] == ':' {
				if n := next(i); n != ':' && n != 0 {
					return noMatch
				}
				colons--
				state = stColon
			} else {
				sp = i
				state = stAddr
			}
			continue
		case stColon:
			colons++
			if next(i) == ':' {
				state = stDouble
			} else {
				sp = i + 1
				state = stAddr
			}
		case stDouble:
			if double > 0 || next(i) == ':' {
				return noMatch
			}
			if next(i) != 0 {
				colons++
			}
			sp = i + 1
			state = stAddr
			double++
			nums++
		case stAddr:
			if n := next(i); n == ':' || n == 0 {
				if i-sp > 3 {
					return noMatch
				}
				nums++
				state = stColon
			}
			if next(i) == '.' {
				state = stDot
			}
		case stDot:
			state = stAddr
		}
		if nums > 8 || colons > 7 {
			return noMatch
		}
		i++
	}
	return exactMatch
}

func ipv6PrefixKind(s string) matchType {
	i := strings.IndexByte(s, '/')
	if i < 0 {
		if ipv6Kind(s) == noMatch {
			return noMatch
		}
		return partlyMatch
	}
	if ipv6Kind(s[:i]) == noMatch {
		return noMatch
	}
	m := s[i+1:]
	if m == "" {
		return partlyMatch
	}
	v, err := strconv.Atoi(m)
	if err != nil || v > 128 {
		return noMatch
	}
	return exactMatch
}

// match ranks word against token str (libosmocore cmd_match).
func match(str, word string, min matchType, recur bool) matchType {
	switch {
	case recur && isOption(str):
		t, ok := deopt(str)
		if !ok {
			return noMatch
		}
		return match(t, word, min, false)
	case isVararg(str):
		return varargMatch
	case isRange(str):
		if rangeOK(str, word, false) {
			return rangeMatch
		}
	case isIPv6(str):
		if ipv6Kind(word) >= min {
			return ipv6Match
		}
	case isIPv6Pfx(str):
		if ipv6PrefixKind(word) >= min {
			return ipv6PrefixMatch
		}
	case isIPv4(str):
		if ipv4Kind(word) >= min {
			return ipv4Match
		}
	case isIPv4Pfx(str):
		if ipv4PrefixKind(word) >= min {
			return ipv4PrefixMatch
		}
	case isVariable(str):
		return extendMatch
	case strings.HasPrefix(str, word):
		if str == word {
			return exactMatch
		} else if partlyMatch >= min {
			return partlyMatch
		}
	}
	return noMatch
}

// filter drops the candidates whose token at index does not match word and
// returns the strongest match type seen; a second pass drops candidates
// weaker than that (libosmocore cmd_filter).
func filter(word string, cands []*Cmd, index int, level matchType) matchType {
	best := noMatch
	for i, c := range cands {
		if c == nil {
			continue
		}
		if index >= len(c.slots) {
			cands[i] = nil
			continue
		}
		matched := false
		for _, d := range c.slots[index] {
			r := match(d.cmd, word, level, true)
			if r != noMatch {
				matched = true
			}
			if r > best {
				best = r
			}
		}
		if !matched {
			cands[i] = nil
		}
	}
	if best == noMatch {
		return noMatch
	}
	for i, c := range cands {
		if c == nil {
			continue
		}
		matched := false
		for _, d := range c.slots[index] {
			if match(d.cmd, word, anyMatch, true) >= best {
				matched = true
			}
		}
		if !matched {
			cands[i] = nil
		}
	}
	return best
}

// ambiguous returns 1 when two different tokens match word at the given
// strength, 2 for an incomplete prefix argument, 0 otherwise; candidates
// without a token of that strength are dropped (libosmocore is_cmd_ambiguous).
func ambiguous(word string, cands []*Cmd, index int, t matchType) int {
	matched := ""
	haveMatched := false
	for i, c := range cands {
		if c == nil {
			continue
		}
		n := 0
		for _, d := range c.slots[index] {
			str := d.cmd
			if isOption(str) {
				s, ok := deopt(str)
				if !ok {
					continue
				}
				str = s
			}
			switch t {
			case exactMatch:
				if !isVariable(str) && word == str {
					n++
				}
			case partlyMatch:
				if !isVariable(str) && strings.HasPrefix(str, word) {
					if haveMatched && matched != str {
						return 1
					}
					matched, haveMatched = str, true
					n++
				}
			case rangeMatch:
				if rangeOK(str, word, false) {
					if haveMatched && matched != str {
						return 1
					}
					matched, haveMatched = str, true
					n++
				}
			case ipv6Match:
				if isIPv6(str) {
					n++
				}
			case ipv6PrefixMatch:
				if k := ipv6PrefixKind(word); k != noMatch {
					if k == partlyMatch {
						return 2
					}
					n++
				}
			case ipv4Match:
				if isIPv4(str) {
					n++
				}
			case ipv4PrefixMatch:
				if k := ipv4PrefixKind(word); k != noMatch {
					if k == partlyMatch {
						return 2
					}
					n++
				}
			case extendMatch:
				if isVariable(str) {
					n++
				}
			}
		}
		if n == 0 {
			cands[i] = nil
		}
	}
	return 0
}

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

// describe lists what may follow: words are the typed words, absentLast
// means the cursor is after a space (a new word starts).
func describe(cmds []*Cmd, words []string, absentLast bool, expert bool) ([]*desc, result) {
	if absentLast {
		words = append(words[:len(words):len(words)], "")
	}
	if len(words) == 0 {
		return nil, resNoMatch
	}
	index := len(words) - 1
	cands := append([]*Cmd(nil), cmds...)
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
	if absentLast {
		words = append(words[:len(words):len(words)], "")
	}
	if len(words) == 0 {
		return nil, resNoMatch
	}
	index := len(words) - 1
	cands := append([]*Cmd(nil), cmds...)
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

// splitWords breaks a line into words (libosmocore cmd_make_strvec). A line
// whose first word starts with '!' or '#' is a comment: nil.
func splitWords(line string) []string {
	i := 0
	for i < len(line) && isSpace(line[i]) {
		i++
	}
	if i == len(line) || line[i] == '!' || line[i] == '#' {
		return nil
	}
	return strings.FieldsFunc(line[i:], func(r rune) bool { return r < 0x80 && isSpace(byte(r)) })
}
