package vty

import (
	"net/netip"
	"strconv"
	"strings"
)

// Matching one word against one token of a command string (libosmocore
// command.c cmd_match(), cmd_filter(), is_cmd_ambiguous()).

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
