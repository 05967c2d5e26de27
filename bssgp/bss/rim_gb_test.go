package bss

import (
	"github.com/gopcu/gopcu/bssgp"
	"testing"
	"time"
)

// TestGbRIMDispatch: a RIM PDU on the signalling BVC reaches the handler
// decoded; one without its RIM container is answered with STATUS "Missing
// mandatory IE" (libosmogb bssgp_rx_rim) and not delivered.
func TestGbRIMDispatch(t *testing.T) {
	g, tx, h := up(t)
	req := "71" + "548900" + "09f1070002001b58" + "548900" + "09f1070001001b39" +
		"5799" + "4b8101" + "4c8400000001" + "4f8102" + "558101" + "4d88" + "09f1070002001b58"
	g.inHex("00000000"+req, time.Second)
	if len(h.Others) != 1 || h.Others[0] != bssgp.PDURANInformationReq {
		t.Fatalf("handler got %v, sent %v", h.Others, tx.take())
	}
	if out := tx.take(); len(out) != 0 {
		t.Fatalf("answered %v", out)
	}
	g.inHex("00000000"+req[:46], time.Second) // routing informations only
	out := tx.take()
	if len(out) != 1 || len(h.Others) != 1 {
		t.Fatalf("sent %v, handler %v", out, h.Others)
	}
	// NS-UNITDATA BVCI 0, STATUS, Cause 0x22
	if len(out[0]) < 16 || out[0][:16] != "0000000041078122" {
		t.Fatalf("STATUS %s", out[0])
	}
}
