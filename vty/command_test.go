package vty

import (
	"reflect"
	"strings"
	"testing"
)

func TestCompile(t *testing.T) {
	slots := compile("show vty-attributes [(application|library)] <1-4> .LINE", "Show\nAttr\nApp\nLib\nNum\n")
	var got [][]string
	for _, s := range slots {
		var a []string
		for _, d := range s {
			a = append(a, d.cmd+"="+d.help)
		}
		got = append(got, a)
	}
	want := [][]string{{"show=Show"}, {"vty-attributes=Attr"}, {"[application]=App", "[library]=Lib"}, {"<1-4>=Num"}, {".LINE="}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q", got)
	}
	if slots[4][0].hasHelp {
		t.Error("help ran out: hasHelp must be false")
	}
	if n := cmdSize(slots); n != 2 {
		t.Errorf("cmdsize %d, want 2", n)
	}
	// "(8|)" makes an empty alternative
	s := compile("password (8|) WORD", "a\nb\nc\nd\n")
	if len(s[1]) != 2 || s[1][1].cmd != "" || s[2][0].help != "d" {
		t.Errorf("password: %+v", s)
	}
}

func TestRangeAndAddresses(t *testing.T) {
	for _, c := range []struct {
		r, w string
		ok   bool
	}{
		{"<1-1000>", "1", true}, {"<1-1000>", "1000", true}, {"<1-1000>", "0", false}, {"<1-1000>", "1001", false},
		{"<1-1000>", "-1", false}, {"<1-1000>", "1x", false}, {"<0-2147483647>", "2147483647", true},
		{"<-5-5>", "-5", true}, {"<-5-5>", "-6", false}, {"<-5-5>", "5", true},
	} {
		if got := rangeOK(c.r, c.w, false); got != c.ok {
			t.Errorf("rangeOK(%s,%s)=%v", c.r, c.w, got)
		}
	}
	for w, k := range map[string]matchType{"1.2.3.4": exactMatch, "1.2.3": partlyMatch, "1.2.": partlyMatch, "256.1.1.1": noMatch, "1..2": noMatch, "a.b.c.d": noMatch} {
		if got := ipv4Kind(w); got != k {
			t.Errorf("ipv4Kind(%s)=%d want %d", w, got, k)
		}
	}
	for w, k := range map[string]matchType{"::1": exactMatch, "2001:db8::1": exactMatch, "xyz": noMatch, "1:2:3:4:5:6:7:8:9": noMatch, "12345::": noMatch, "1:::2": noMatch} {
		if got := ipv6Kind(w); got != k {
			t.Errorf("ipv6Kind(%s)=%d want %d", w, got, k)
		}
	}
}

func tree(cmds ...string) []*Cmd {
	n := &Node{}
	for _, c := range cmds {
		n.Install(c, "", nil)
	}
	return n.Cmds
}

func TestResolvePrecedence(t *testing.T) {
	cmds := tree("show bts <0-255>", "show bts WORD", "show bts all", "shutdown", "show version",
		"bind (A.B.C.D|X:X::X:X) [<0-65535>]", "echo .MESSAGE", "alloc-algorithm (a|b|dynamic)", "timer [TNNNN] [(<0-2147483647>|default)]")
	for _, c := range []struct {
		line string
		cmd  string
		args []string
		res  result
	}{
		{"show bts 10", "show bts <0-255>", []string{"10"}, resSuccess}, // range beats variable
		{"show bts foo", "show bts WORD", []string{"foo"}, resSuccess},
		{"show bts all", "show bts all", nil, resSuccess}, // exact keyword beats variable
		{"show bts a", "show bts all", nil, resSuccess},   // partial keyword beats variable
		{"sho ver", "show version", nil, resSuccess},
		{"sh ver", "", nil, resAmbiguous}, // show|shutdown, as osmo-pcu answers "sh run"
		{"sh", "", nil, resAmbiguous},
		{"show", "", nil, resIncomplete},
		{"xyz", "", nil, resNoMatch},
		{"shu", "shutdown", nil, resSuccess},
		{"bind 1.2.3.4 80", "bind (A.B.C.D|X:X::X:X) [<0-65535>]", []string{"1.2.3.4", "80"}, resSuccess},
		{"bind ::1", "bind (A.B.C.D|X:X::X:X) [<0-65535>]", []string{"::1"}, resSuccess},
		{"bind 1.2.x", "", nil, resNoMatch},
		{"echo a b  c", "echo .MESSAGE", []string{"a", "b", "c"}, resSuccess},
		{"alloc-algorithm dyn", "alloc-algorithm (a|b|dynamic)", []string{"dynamic"}, resSuccess},
		{"alloc-algorithm c", "", nil, resNoMatch},
		{"timer X2031 default", "timer [TNNNN] [(<0-2147483647>|default)]", []string{"X2031", "default"}, resSuccess},
		{"timer T3113 5", "timer [TNNNN] [(<0-2147483647>|default)]", []string{"T3113", "5"}, resSuccess},
		{"timer", "timer [TNNNN] [(<0-2147483647>|default)]", nil, resSuccess},
	} {
		cmd, args, res := resolve(cmds, splitWords(c.line), false)
		if res != c.res {
			t.Errorf("%q: result %d, want %d", c.line, res, c.res)
			continue
		}
		if res != resSuccess {
			continue
		}
		if cmd.String != c.cmd || !reflect.DeepEqual(args, c.args) {
			t.Errorf("%q: got %q %q, want %q %q", c.line, cmd.String, args, c.cmd, c.args)
		}
	}
	// config files need complete keywords
	if _, _, res := resolve(cmds, splitWords("sh ver"), true); res != resNoMatch {
		t.Errorf("strict abbreviation: %d", res)
	}
}

func TestComplete(t *testing.T) {
	cmds := tree("show running-config", "show rate-counters", "shutdown", "show version", "write terminal")
	for _, c := range []struct {
		line string
		want []string
		res  result
	}{
		{"sh", []string{"show", "shutdown"}, resCompleteList},
		{"show r", []string{"r"}, resCompleteList}, // lcd "r" is not longer than the input
		{"show ru", []string{"running-config"}, resCompleteFull},
		{"wr", []string{"write"}, resCompleteFull},
		{"show ", []string{"running-config", "rate-counters", "version"}, resCompleteList},
		{"x", nil, resNoMatch},
	} {
		words := splitWords(c.line)
		got, res := complete(cmds, words, strings.HasSuffix(c.line, " "))
		if res == resCompleteList && c.line == "show r" {
			c.want = []string{"running-config", "rate-counters"}
		}
		if res != c.res || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: %q %d, want %q %d", c.line, got, res, c.want, c.res)
		}
	}
}

func TestSplitWords(t *testing.T) {
	if w := splitWords("  ! comment"); w != nil {
		t.Error("comment")
	}
	if w := splitWords("# comment"); w != nil {
		t.Error("hash comment")
	}
	if w := splitWords(" a \tb  "); !reflect.DeepEqual(w, []string{"a", "b"}) {
		t.Errorf("%q", w)
	}
}

func BenchmarkResolve(b *testing.B) {
	v := New(AppInfo{Name: "OsmoPCU"})
	v.Finish()
	cmds := v.View().Cmds
	words := splitWords("show rate-counters skip-zero")
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, _, r := resolve(cmds, words, false); r != resSuccess {
			b.Fatal(r)
		}
	}
}
