package vty

import (
	"strings"
	"testing"
)

// FuzzParser feeds arbitrary lines to the matcher, '?' and TAB logic and
// the config reader: none may panic.
func FuzzParser(f *testing.F) {
	for _, s := range []string{"show running-config", "sh ru", "conf t", "bind 1.2.3.4 5", "bind ::1",
		"log stderr", " logging level rlcmac debug", "echo a b c", "timer X2031 default", "stats reporter statsd x",
		"line vty\n bind 127.0.0.1 4240\n", "log file /tmp/x blocking-io\n logging print file basename last\n", "1.2.3.4.5", "::::"} {
		f.Add(s)
	}
	v := testTree()
	v.Info.IsConsistent = noWrite
	f.Fuzz(func(t *testing.T, line string) {
		words := splitWords(line)
		for _, n := range v.nodes {
			if n == nil {
				continue
			}
			resolve(n.Cmds, words, false)
			resolve(n.Cmds, words, true)
			describe(n.Cmds, words, strings.HasSuffix(line, " "), true)
			complete(n.Cmds, words, strings.HasSuffix(line, " "))
		}
		v2 := New(AppInfo{Name: "OsmoPCU", IsConsistent: noWrite})
		v2.Finish()
		_ = v2.ReadConfig(strings.NewReader(line), "fuzz")
		_ = v2.RunningConfig()
	})
}

// FuzzTelnet feeds arbitrary bytes to the telnet line discipline.
func FuzzTelnet(f *testing.F) {
	for _, s := range []string{"enable\r", "\xff\xfa\x1f\x00\x50\x00\x18\xff\xf0", "\xff\xff?\t\x1b[A\x1b[B\x1bb\x1bf\x1bd\x1b\x7f",
		"conf t\rlog stderr\r?logging \t\x1a", "\x01\x02\x04\x05\x06\x08\x0b\x0c\x0e\x10\x14\x15\x17\x7f", "\xff\xfa\xff\xf0\xff\xfa\x1f\x01\xff\xf0",
		"enable\rconfigure terminal\rline vty\rlogin\rend\rwrite terminal\r"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		v := New(AppInfo{Name: "OsmoPCU", IsConsistent: noWrite})
		v.Finish()
		s := v.NewSession(nil)
		s.Start()
		// feed in two chunks at a data-dependent split
		k := 0
		if len(in) > 0 {
			k = int(in[0]) % (len(in) + 1)
		}
		s.Feed(in[:k])
		if !s.Closed() {
			s.Feed(in[k:])
		}
		s.Release()
	})
}

// noWrite keeps fuzzed `write file PATH` from creating files.
func noWrite(*Context) bool { return false }
