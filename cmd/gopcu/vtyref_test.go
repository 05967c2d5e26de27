package main

import (
	"bytes"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/gopcu/gopcu/internal/vtyrefdoc"
)

// osmoPCUBinary is Debian's osmo-pcu; osmoPCURefFile its --vty-ref-xml
// output committed as testdata (Debian osmo-pcu 1.1.0-2:
// `osmo-pcu --vty-ref-mode MODE --vty-ref-xml`), so that the comparison
// runs without the package.
const osmoPCUBinary = "/usr/bin/osmo-pcu"

func osmoPCURefFile(mode string) string {
	return "testdata/osmo-pcu-1.1.0-vty-ref-" + mode + ".xml"
}

// osmoPCURef returns osmo-pcu 1.1.0's XML VTY reference in this mode: the
// installed /usr/bin/osmo-pcu's output when that is version 1.1.0 (and
// then the testdata copy must equal it), else the testdata copy;
// GOPCU_VTYREF_TESTDATA=1 forces the copy. The log says which one the test
// used.
func osmoPCURef(t *testing.T, mode string) []byte {
	t.Helper()
	saved, err := os.ReadFile(osmoPCURefFile(mode))
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("GOPCU_VTYREF_TESTDATA") == "" {
		if v, err := exec.Command(osmoPCUBinary, "-V").CombinedOutput(); err == nil && bytes.Contains(v, []byte("OsmoPCU version 1.1.0\n")) {
			out, err := exec.Command(osmoPCUBinary, "--vty-ref-mode", mode, "--vty-ref-xml").Output()
			if err != nil {
				t.Fatalf("%s --vty-ref-xml: %v", osmoPCUBinary, err)
			}
			t.Logf("%s: reference from the installed %s", mode, osmoPCUBinary)
			if !bytes.Equal(out, saved) {
				t.Errorf("%s differs from the installed osmo-pcu 1.1.0's output", osmoPCURefFile(mode))
			}
			return out
		}
	}
	t.Logf("%s: reference from %s (osmo-pcu 1.1.0 not installed, or GOPCU_VTYREF_TESTDATA set)", mode, osmoPCURefFile(mode))
	return saved
}

// gopcuRef runs `gopcu --vty-ref-mode MODE --vty-ref-xml`.
func gopcuRef(t *testing.T, mode string) []byte {
	t.Helper()
	var out, errb bytes.Buffer
	if rc := run([]string{"--vty-ref-mode", mode, "--vty-ref-xml"}, &out, &errb); rc != 0 {
		t.Fatalf("gopcu --vty-ref-xml: exit code %d: %s", rc, errb.String())
	}
	if !strings.HasPrefix(errb.String(), "Generating the VTY reference in mode '"+mode+"' (") {
		t.Errorf("stderr: %q", errb.String())
	}
	return out.Bytes()
}

// refNode is one <node> of an XML reference: its id and its commands
// (command string -> the element's text, in order).
type refNode struct {
	id    string
	order []string
	text  map[string]string
}

func splitRef(t *testing.T, doc []byte) []refNode {
	t.Helper()
	var nodes []refNode
	for _, blk := range strings.Split(string(doc), "\n  <node id='")[1:] {
		n := refNode{id: blk[:strings.IndexByte(blk, '\'')], text: map[string]string{}}
		for _, c := range strings.Split(blk, "\n    <command id='")[1:] {
			id := c[:strings.IndexByte(c, '\'')]
			end := strings.Index(c, "\n    </command>")
			if end < 0 {
				t.Fatalf("node %s: command %s not closed", n.id, id)
			}
			n.order = append(n.order, id)
			n.text[id] = c[:end]
		}
		nodes = append(nodes, n)
	}
	return nodes
}

// refLine is the grammar of every line libosmocore's vty_dump_nodes
// writes (libosmocore src/vty/command.c), indentation included.
var refLine = regexp.MustCompile(`^(` +
	`<vtydoc xmlns='urn:osmocom:xml:libosmocore:vty:doc:1.0'>|</vtydoc>|` +
	`  <node id='[^']+'>|  </node>|` +
	`    <name>[^<]*</name>|    <description>[^<]*</description>|` +
	`    <command id='[^']+'>|    </command>|` +
	`      <attributes scope='(global|library|application)'>|      </attributes>|` +
	`        <attribute doc='[^']*'( flag='.')? />|` +
	`      <params>|      </params>|` +
	`        <param name='[^']*' doc='[^']*' />` +
	`)$`)

// gopcuAddition reports whether a command osmo-pcu 1.1.0's reference
// lacks is one gopcu adds on purpose:
//   - libosmogb's NS commands (`show ns …`, `logging filter nse|nsvc …`,
//     `nsvc … (block|unblock|reset)`, the `ns` node and its `timer …`):
//     osmo-pcu 1.1.0 installs them when it creates its NS instance, after
//     --vty-ref-xml has exited, so its reference misses them while its
//     running VTY has them (the telnet transcript tests compare those);
//   - gopcu's own: `show llc-queue` and the `queue codel
//     variant|target|maxpacket|quantum`, `queue limit ms|global` (and their
//     `no` forms), `multislot-class default` and `ms-max`.
func gopcuAddition(node, cmd string) bool {
	if node == "config-ns" {
		return true
	}
	for _, p := range []string{"show ns ", "logging filter nse ", "logging filter nsvc ", "nsvc &lt;", "show llc-queue",
		"queue codel variant", "queue codel target", "queue codel maxpacket", "queue codel quantum", "queue limit ",
		"no queue codel ", "no queue limit ", "multislot-class default ", "ms-max ", "no ms-max",
		"queue aqm ", "no queue aqm", "queue ecn", "no queue ecn", "queue fq", "no queue fq",
		"queue pie ", "no queue pie ", "queue red ", "no queue red ", "flow-control-ms", "no flow-control-ms"} {
		if strings.HasPrefix(cmd, p) {
			return true
		}
	}
	return node == "config" && cmd == "ns" || cmd == "show ns"
}

// osmoPCUOnly: osmo-pcu 1.1.0's commands gopcu does not have (none).
func osmoPCUOnly(node, cmd string) bool { return false }

// TestVTYRefXMLMatchesOsmoPCU compares `gopcu --vty-ref-xml` with osmo-pcu
// 1.1.0's, in default, expert and hidden mode: every line is one of libosmocore's
// line forms, the document starts with the same bytes, the nodes come in
// osmo-pcu's order, and every command osmo-pcu has is there with a
// byte-identical element (attributes, token help), in osmo-pcu's order;
// gopcu's additions (gopcuAddition) aside.
func TestVTYRefXMLMatchesOsmoPCU(t *testing.T) {
	for _, mode := range []string{"default", "expert", "hidden"} {
		t.Run(mode, func(t *testing.T) {
			ref := osmoPCURef(t, mode)
			ours := gopcuRef(t, mode)
			for i, l := range strings.Split(strings.TrimSuffix(string(ours), "\n"), "\n") {
				if !refLine.MatchString(l) {
					t.Errorf("line %d is none of libosmocore's forms: %q", i+1, l)
				}
			}
			if mode == "hidden" {
				for _, n := range splitRef(t, ours) {
					for _, c := range n.order {
						if !strings.Contains(n.text[c], "flag='^'") {
							t.Errorf("hidden mode lists %s|%s, which is not hidden", n.id, c)
						}
					}
				}
			}
			head := 5 // <vtydoc>, the common node's id, name and description, its first command
			rl, ol := strings.SplitN(string(ref), "\n", head+1), strings.SplitN(string(ours), "\n", head+1)
			for i := 0; i < head; i++ {
				if rl[i] != ol[i] {
					t.Errorf("line %d: osmo-pcu %q, gopcu %q", i+1, rl[i], ol[i])
				}
			}
			rn, on := splitRef(t, ref), splitRef(t, ours)
			byID := map[string]refNode{}
			for _, n := range on {
				byID[n.id] = n
			}
			last := -1
			for _, r := range rn {
				pos := -1
				for i, n := range on {
					if n.id == r.id {
						pos = i
					}
				}
				if pos < 0 {
					t.Errorf("node %s missing", r.id)
					continue
				}
				if pos < last {
					t.Errorf("node %s out of osmo-pcu's order", r.id)
				}
				last = pos
				o := byID[r.id]
				var common []string
				for _, c := range r.order {
					got, ok := o.text[c]
					switch {
					case osmoPCUOnly(r.id, c):
					case !ok:
						t.Errorf("%s: missing %q", r.id, c)
					case got != r.text[c]:
						t.Errorf("%s: %q differs:\nosmo-pcu:%s\ngopcu:%s", r.id, c, r.text[c], got)
					default:
						common = append(common, c)
					}
				}
				var oursCommon []string
				for _, c := range o.order {
					if _, ok := r.text[c]; ok {
						oursCommon = append(oursCommon, c)
					} else if !gopcuAddition(r.id, c) {
						t.Errorf("%s: %q is neither osmo-pcu's nor a known gopcu addition", r.id, c)
					}
				}
				if strings.Join(common, "\n") != strings.Join(oursCommon, "\n") {
					t.Errorf("%s: commands in another order than osmo-pcu's", r.id)
				}
			}
			for _, n := range on {
				found := false
				for _, r := range rn {
					found = found || r.id == n.id
				}
				if !found && !gopcuAddition(n.id, "") {
					t.Errorf("node %s is not osmo-pcu's", n.id)
				}
			}
		})
	}
}

// TestVTYRefModeErrors: an unknown mode is exit code 2 with libosmocore's
// message, as osmo-pcu.
func TestVTYRefModeErrors(t *testing.T) {
	var out, errb bytes.Buffer
	if rc := run([]string{"--vty-ref-mode", "bogus", "--vty-ref-xml"}, &out, &errb); rc != 2 {
		t.Fatalf("exit code %d, want 2", rc)
	}
	if !strings.Contains(errb.String(), "Unknown VTY reference generation mode 'bogus'") || out.Len() != 0 {
		t.Fatalf("stdout %q stderr %q", out.String(), errb.String())
	}
}

// TestVTYReferenceDocCurrent fails when docs/vty-reference.md is not what
// `make vty-ref` makes from the current command tree.
func TestVTYReferenceDocCurrent(t *testing.T) {
	var want bytes.Buffer
	if err := vtyrefdoc.Markdown(bytes.NewReader(gopcuRef(t, vtyrefdoc.Mode.String())), &want); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../docs/vty-reference.md")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(want.String(), "\n")
		for i := 0; i < len(gl) && i < len(wl); i++ {
			if gl[i] != wl[i] {
				t.Fatalf("docs/vty-reference.md is stale (run `make vty-ref`): line %d is %q, want %q", i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("docs/vty-reference.md is stale (run `make vty-ref`): %d lines, want %d", len(gl), len(wl))
	}
	for _, c := range []string{"### `show llc-queue`", "### `queue codel variant (rfc|osmo)`", "### `show ms all`"} {
		if !strings.Contains(want.String(), c) {
			t.Errorf("reference has no %s", c)
		}
	}
}
