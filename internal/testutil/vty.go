package testutil

import (
	"bufio"
	"bytes"
	"net"
	"regexp"
	"strings"
	"testing"
	"time"
)

// vtyPrompt ends every answer of an Osmocom VTY: "OsmoPCU> ",
// "OsmoPCU# ", "OsmoPCU(config-pcu)# ".
var vtyPrompt = regexp.MustCompile(`(?:^|\n)[A-Za-z0-9_-]+(?:\([a-z0-9-]+\))?[>#] $`)

// VTYCommands connects to the telnet VTY at addr, waits for the prompt
// and runs each command in turn; it returns each command's output (what
// comes after the echoed command line, up to the next prompt, with
// "\r\n" as "\n"). Telnet option negotiation is skipped. It fails the
// test when the VTY does not answer within 10 s.
func VTYCommands(t testing.TB, addr string, cmds ...string) []string {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatalf("VTY %s: %v", addr, err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	r := bufio.NewReader(c)
	readPrompt := func() string {
		var b bytes.Buffer
		for !vtyPrompt.Match(b.Bytes()) {
			x, err := r.ReadByte()
			if err != nil {
				t.Fatalf("VTY %s: %v after %q", addr, err, b.String())
			}
			if x == 0xff { // IAC: a 3-octet option or a subnegotiation
				y, _ := r.ReadByte()
				if y == 0xfa {
					for {
						z, err := r.ReadByte()
						if err != nil {
							t.Fatalf("VTY %s: %v", addr, err)
						}
						if z == 0xf0 {
							break
						}
					}
				} else if y >= 0xfb {
					_, _ = r.ReadByte() // dropped: telnet option octet skipped; an error shows at the next read
				}
				continue
			}
			b.WriteByte(x)
		}
		return strings.ReplaceAll(b.String(), "\r\n", "\n")
	}
	readPrompt()
	out := make([]string, 0, len(cmds))
	for _, cmd := range cmds {
		if _, err := c.Write([]byte(cmd + "\r")); err != nil {
			t.Fatalf("VTY %s: %v", addr, err)
		}
		s := readPrompt()
		if i := strings.Index(s, cmd+"\n"); i >= 0 { // the echo
			s = s[i+len(cmd)+1:]
		}
		s = s[:vtyPrompt.FindStringIndex(s)[0]]
		if strings.HasSuffix(s, "\n") || s == "" {
			out = append(out, s)
		} else {
			out = append(out, s+"\n") // the prompt's own "\n" was taken with it
		}
	}
	return out
}
