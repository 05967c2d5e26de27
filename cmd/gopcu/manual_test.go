package main

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/gopcu/gopcu/internal/testutil"
)

// referenceCommands are the commands of docs/vty-reference.md (made from
// --vty-ref-xml by `make vty-ref`, kept current by
// TestVTYReferenceDocCurrent), each as a pattern a concrete command line
// matches: "show ns nsei <0-65535> [stats]" matches "show ns nsei 101 stats".
func referenceCommands(t *testing.T) map[string]*regexp.Regexp {
	t.Helper()
	b, err := os.ReadFile("../../docs/vty-reference.md")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*regexp.Regexp{}
	for _, m := range regexp.MustCompile("(?m)^### `([^`]+)`$").FindAllStringSubmatch(string(b), -1) {
		out[m[1]] = regexp.MustCompile("^" + syntaxPattern(m[1]) + "$")
	}
	return out
}

// syntaxPattern turns libosmocore command syntax into a regular
// expression: literals, (a|b) choices, <lo-hi> numbers, [optional] parts,
// upper-case placeholders (WORD, NAME, A.B.C.D) as any word.
func syntaxPattern(syntax string) string {
	var b strings.Builder
	for i, tok := range strings.Fields(syntax) {
		opt := strings.HasPrefix(tok, "[") && strings.HasSuffix(tok, "]")
		if opt {
			tok = tok[1 : len(tok)-1]
		}
		var p string
		switch {
		case strings.HasPrefix(tok, "(") && strings.HasSuffix(tok, ")"):
			var alts []string
			for _, a := range strings.Split(tok[1:len(tok)-1], "|") {
				alts = append(alts, tokenPattern(a))
			}
			p = "(?:" + strings.Join(alts, "|") + ")"
		default:
			p = tokenPattern(tok)
		}
		sep := " "
		if i == 0 {
			sep = ""
		}
		if opt {
			b.WriteString("(?:" + sep + p + ")?")
		} else {
			b.WriteString(sep + p)
		}
	}
	return b.String()
}

func tokenPattern(tok string) string {
	switch {
	case strings.HasPrefix(tok, "<") && strings.HasSuffix(tok, ">"):
		return `-?[0-9]+`
	case tok == strings.ToUpper(tok) && strings.ContainsAny(tok, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"):
		return `\S+`
	}
	return regexp.QuoteMeta(tok)
}

// manualNoOutput is the commands docs/manual.md says print nothing: the
// backquoted `show ...` commands of its section "Accepted, no output yet".
func manualNoOutput(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../../docs/manual.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "\n### Accepted, no output yet\n")
	if !ok {
		t.Fatal("docs/manual.md has no section \"Accepted, no output yet\"")
	}
	if i := strings.Index(sec, "\n#"); i >= 0 {
		sec = sec[:i]
	}
	var cmds []string
	for _, m := range regexp.MustCompile("`(show [^`]+)`").FindAllStringSubmatch(strings.ReplaceAll(sec, "\n", " "), -1) {
		cmds = append(cmds, m[1])
	}
	return cmds
}

// TestManualNoOutputClaims: every command docs/manual.md says prints
// nothing is a command of the VTY reference and prints nothing in a
// gopcu that serves the BTS emulator with the NS and BSSGP up towards the
// SGSN emulator (so that `show ns ...` has something to show). The manual
// said so of `show ns ...` and `show cpu-sched threads` long after they
// printed their tables.
func TestManualNoOutputClaims(t *testing.T) {
	claims := manualNoOutput(t)
	if len(claims) < 3 {
		t.Fatalf("%d commands in the manual's \"no output\" section: %q", len(claims), claims)
	}
	ref := referenceCommands(t)
	for _, c := range claims {
		found := ""
		for syntax, re := range ref {
			if re.MatchString(c) {
				found = syntax
				break
			}
		}
		if found == "" {
			t.Errorf("manual.md: %q is no command of docs/vty-reference.md", c)
		}
	}
	p := startGopcuGb(t)
	// the state the claims are about: NS up (its show commands print)
	out := testutil.VTYCommands(t, p.vty, append([]string{"enable", "show ns entities"}, claims...)...)
	if !strings.Contains(out[1], "NSEI 00101") {
		t.Fatalf("show ns entities with the NS up:\n%s", out[1])
	}
	for i, c := range claims {
		if o := out[i+2]; strings.TrimSpace(o) != "" {
			t.Errorf("docs/manual.md says %q prints nothing; it prints:\n%s", c, o)
		}
	}
}
