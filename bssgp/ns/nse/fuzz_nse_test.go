package nse

import (
	"net/netip"
	"testing"
	"time"

	"github.com/gopcu/gopcu/internal/testutil"
)

// FuzzNSEInput: arbitrary datagrams into a classic and an IP-SNS NSE never
// panic. It starts from the NS decoder's corpus.
func FuzzNSEInput(f *testing.F) {
	for _, b := range testutil.FuzzCorpus(f, "../testdata/fuzz/FuzzParse") {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		n, _, _ := bringUp(t)
		n.Input(0, sgsn, b, time.Second)
		n.Tick(100 * time.Second)
		_ = n.SendUnitdata(1, 2, []byte{3})
		s, _ := NewNSE(Config{NSEI: 1234, Dialect: DialectIPSNS, Endpoints: []Endpoint{{Remote: sgsn,
			Local: netip.MustParseAddrPort("127.0.0.1:23001")}}}, &recTx{}, &recH{}, nil)
		s.Start(0)
		s.Input(0, sgsn, b, time.Second)
		s.Tick(100 * time.Second)
	})
}
