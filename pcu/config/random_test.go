package config

import (
	"math/rand"
	"strings"
	"testing"
)

// randomScript makes keystroke chunks from command words and editing keys
// (no word that could write files or shut the process down). "echo" is
// left out: '?' after a .VARARG word reads an uninitialised status in
// libosmocore 1.7 (cmd_describe_command_real), so osmo-pcu answers either
// way; gopcu always lists the vararg.
func randomScript(seed int64, n int) []string {
	r := rand.New(rand.NewSource(seed))
	words := []string{"show ", "sh", "o", "ru", "n", "vers", "conf", "t ", "pcu", "cs ", "2 ", "max ", "enable",
		"list", "end", "timer ", "T3113 ", "X2031", "log ", "stderr", "logging ", "level ", "rlcmac ", "debug",
		"queue ", "codel", " interval ", "10", "alloc-algorithm ", "b", "gamma ", "100", "disable", "  ",
		"hostname", " abc", "no ", "two-phase-access", "line vty", "bind 127.0.0.", "1", "x", "history"}
	keys := []string{"?", "\t", "\r", "\x01", "\x02", "\x05", "\x06", "\x08", "\x7f", "\x0b", "\x15", "\x17", "\x14",
		"\x1b[A", "\x1b[B", "\x1b[C", "\x1b[D", "\x1bb", "\x1bf", "\x1bd", "\x1b\x7f", "\x03", "\x1a", "\x00", "\x10", "\x0e"}
	var out []string
	for i := 0; i < n; i++ {
		var b strings.Builder
		for k := 1 + r.Intn(3); k > 0; k-- {
			if r.Intn(2) == 0 {
				b.WriteString(words[r.Intn(len(words))])
			} else {
				b.WriteString(keys[r.Intn(len(keys))])
			}
		}
		out = append(out, b.String())
	}
	return append([]string{"enable\r"}, out...)
}

// TestRandomKeystrokesLive types the same random keystrokes into osmo-pcu
// 1.1.0 and gopcu and compares every byte they answer.
func TestRandomKeystrokesLive(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a run without -short (long test)")
	}
	for _, seed := range seeds {
		script := randomScript(seed, 150)
		ours := runOurs(t, script)
		ref := liveTranscript(t, script, ours)
		compareSteps(t, ref, ours)
	}
}

// seeds of the committed run (1..39 were checked when this was written)
var seeds = []int64{1, 2, 3, 14}
