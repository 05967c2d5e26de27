package prom

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/gopcu/gopcu/internal/ratectr"
	"github.com/gopcu/gopcu/pcu"
	"github.com/gopcu/gopcu/stats"
)

// BenchmarkScrape: one /metrics page (text format) over the engine's
// bts, pcu:sgsn and pcu:l1if groups plus 5 items, the go_* series
// included, through a net/http handler (handler_test.go).
func BenchmarkScrape(b *testing.B) {
	reg := &ratectr.Registry{}
	reg.Register(ratectr.NewGroup("bts", "BTS Statistics", 0, pcu.BTSCounterDescs))
	reg.Register(ratectr.NewGroup("pcu:sgsn", "SGSN Statistics", 0, pcu.SGSNCounterDescs))
	reg.Register(ratectr.NewGroup("pcu:l1if", "PCU socket", 0, pcu.L1CounterDescs))
	e := New(reg)
	e.SetItems(make([]stats.Item, 5))
	h := e.Handler()
	req := httptest.NewRequest("GET", "/metrics", nil)
	b.ReportAllocs()
	for b.Loop() {
		h.ServeHTTP(httptest.NewRecorder(), req)
	}
}

// BenchmarkObserveSojourn is the engine's cost per dequeued LLC frame.
func BenchmarkObserveSojourn(b *testing.B) {
	e := New(nil)
	for i := range 64 {
		e.ObserveSojourn(uint32(0xc0000000+i), time.Millisecond)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		e.ObserveSojourn(uint32(0xc0000000+i&63), 150*time.Millisecond)
		i++
	}
}
