package config

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"github.com/gopcu/gopcu/internal/testutil"
	"github.com/gopcu/gopcu/vty"
)

// xmlCommands maps "node|command" to the command's XML element text.
func xmlCommands(doc string) map[string]string {
	out := map[string]string{}
	node := ""
	for _, blk := range strings.Split(doc, "  <node id='")[1:] {
		node = blk[:strings.IndexByte(blk, '\'')]
		for _, c := range strings.Split(blk, "    <command id='")[1:] {
			id := c[:strings.IndexByte(c, '\'')]
			end := strings.Index(c, "    </command>")
			out[node+"|"+id] = c[:end]
		}
	}
	return out
}

// TestXMLReferenceMatchesOsmoPCU compares every command, attribute and
// per-token help string with osmo-pcu 1.1.0's --vty-ref-xml output.
func TestXMLReferenceMatchesOsmoPCU(t *testing.T) {
	testutil.NeedBinary(t, refBinary)
	for _, mode := range []struct {
		arg  string
		mode vty.XMLMode
	}{{"default", vty.XMLDefault}, {"expert", vty.XMLExpert}} {
		ref, err := exec.Command(refBinary, "--vty-ref-mode", mode.arg, "--vty-ref-xml").Output()
		if err != nil {
			t.Skipf("needs a working osmo-pcu --vty-ref-xml: %v", err)
		}
		v, _ := newTree(t)
		var ours bytes.Buffer
		v.WriteXMLReference(&ours, mode.mode)
		rc, oc := xmlCommands(string(ref)), xmlCommands(ours.String())
		for k, want := range rc {
			if strings.Contains(k, "neighbor resolution") {
				continue // removed in osmo-pcu 1.3.0
			}
			got, ok := oc[k]
			if !ok {
				t.Errorf("%s: missing %s", mode.arg, k)
				continue
			}
			if got != want {
				t.Errorf("%s: %s differs:\nosmo-pcu:\n%s\ngopcu:\n%s", mode.arg, k, want, got)
			}
		}
		for k := range oc {
			if _, ok := rc[k]; !ok && !strings.Contains(k, "ns") && !strings.Contains(k, "multislot-class") && !gopcuExtension(k) {
				t.Errorf("%s: extra %s", mode.arg, k)
			}
		}
	}
}

// gopcuExtension: gopcu's extension commands (ext.go: queue, ms-max, flow-control-ms;
// aqm.go: AQM, ECN, PIE, RED), which osmo-pcu 1.1.0's reference does not
// have.
func gopcuExtension(k string) bool {
	for _, w := range []string{"queue codel variant", "queue codel target", "queue codel maxpacket", "queue codel quantum", "queue limit", "ms-max",
		"queue aqm", "queue ecn", "queue fq", "queue pie", "queue red", "flow-control-ms"} {
		if strings.Contains(k, w) {
			return true
		}
	}
	return false
}
