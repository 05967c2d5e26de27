package statsd

import (
	"net"
	"testing"
	"time"

	"github.com/gopcu/gopcu/internal/ratectr"
	"github.com/gopcu/gopcu/pcu"
)

// benchRegistry is the engine's start-up set: bts 0 (102), pcu:sgsn (2),
// pcu:l1if (29), bssgp:bss_ctx 1800 (7), ns:nse 101 (15), ns:nsvc 0 (15) =
// 170 counters.
func benchRegistry() (*ratectr.Registry, *ratectr.Group) {
	reg := engineRegistry()
	reg.Register(ratectr.NewGroup("pcu:l1if", "PCU socket", 0, pcu.L1CounterDescs))
	var bts *ratectr.Group
	for _, g := range reg.Groups() {
		if g.Name == "bts" {
			bts = g
		}
	}
	return reg, bts
}

func benchReport(b *testing.B, cfg Config, move bool) {
	reg, bts := benchRegistry()
	items := []Item{{Group: "bts", Name: "ms.present"}, {Group: "bts", Name: "pdch.available", Value: 4},
		{Group: "bts", Name: "pdch.occupied"}, {Group: "bts", Name: "pdch.occupied.gprs"}, {Group: "bts", Name: "pdch.occupied.egprs"}}
	r := New(cfg, reg, func() []Item { return items })
	var pkts, bytes int
	r.SetSender(func(p []byte) error { pkts++; bytes += len(p); return nil })
	now := time.Unix(0, 0)
	r.Report(now) // warm the name caches
	pkts, bytes = 0, 0
	b.ReportAllocs()
	for b.Loop() {
		if move {
			bts.Inc(pcu.CtrRACHRequests)
			bts.Add(pcu.CtrRLCDLBytes, 23)
			bts.Inc(pcu.CtrGPRSDLCS1 + 1)
		}
		r.Report(now)
	}
	b.ReportMetric(float64(pkts)/float64(b.N), "pkts/op")
	b.ReportMetric(float64(bytes)/float64(b.N), "B-sent/op")
}

// BenchmarkReportFlush: the TTCN-3 reporter (flush-period 1) sends all 155
// counters and 5 items every report.
func BenchmarkReportFlush(b *testing.B) { benchReport(b, ttcn3, false) }

// BenchmarkReportDelta: flush-period 0, three counters moved per interval.
func BenchmarkReportDelta(b *testing.B) {
	cfg := ttcn3
	cfg.FlushPeriod = 0
	benchReport(b, cfg, true)
}

// BenchmarkReportIdle: nothing moved, nothing sent.
func BenchmarkReportIdle(b *testing.B) {
	cfg := ttcn3
	cfg.FlushPeriod = 0
	benchReport(b, cfg, false)
}

// BenchmarkReportFlushUDP is BenchmarkReportFlush with the real socket
// (loopback, a listener that does not read: the kernel queues or drops).
func BenchmarkReportFlushUDP(b *testing.B) {
	ln, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		b.Skipf("needs a loopback UDP socket: %v", err)
	}
	defer ln.Close()
	reg, _ := benchRegistry()
	cfg := ttcn3
	cfg.RemoteIP, cfg.RemotePort = "127.0.0.1", ln.LocalAddr().(*net.UDPAddr).Port
	r := New(cfg, reg, nil)
	if err := r.Dial(); err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	now := time.Unix(0, 0)
	r.Report(now)
	b.ReportAllocs()
	for b.Loop() {
		r.Report(now)
	}
}
