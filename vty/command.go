package vty

import "strings"

// Commands (Cmd) and the compiler of Osmocom command strings into token
// alternatives; match.go matches words against tokens, resolve.go picks the
// command of a line and lists help and completions.

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
