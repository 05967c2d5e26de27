package config

import (
	"strings"
	"testing"
)

// TestQueueExtRoundTrip: gopcu's queue extension commands are accepted in a
// config file, written back after `queue codel`, and absent from the
// running config when not set.
func TestQueueExtRoundTrip(t *testing.T) {
	v, cfg := New("test")
	file := "pcu\n queue codel interval 200\n queue codel variant osmo\n queue codel target 250000\n queue codel maxpacket 600\n" +
		" queue codel quantum 300\n queue limit ms 100000\n queue limit global 10000000\n"
	if err := v.ReadConfig(strings.NewReader(file), "t.cfg"); err != nil {
		t.Fatal(err)
	}
	if cfg.CodelIntervalMS != 2000 || cfg.Queue.Variant != "osmo" || cfg.Queue.TargetUS != 250000 || cfg.Queue.MaxPacket != 600 ||
		cfg.Queue.Quantum != 300 || cfg.Queue.MSLimit != 100000 || cfg.Queue.GlobalLimit != 10000000 {
		t.Fatalf("config %+v %+v", cfg.CodelIntervalMS, cfg.Queue)
	}
	out := cfg.String()
	want := " queue codel interval 200\n queue codel variant osmo\n queue codel target 250000\n queue codel maxpacket 600\n" +
		" queue codel quantum 300\n queue limit ms 100000\n queue limit global 10000000\n alloc-algorithm dynamic\n"
	if !strings.Contains(out, want) {
		t.Fatalf("running config:\n%s", out)
	}
	v2, cfg2 := New("test")
	if err := v2.ReadConfig(strings.NewReader("pcu\n no queue codel\n"), "t2.cfg"); err != nil {
		t.Fatal(err)
	}
	if s := cfg2.String(); strings.Contains(s, "variant") || strings.Contains(s, "queue limit") || !strings.Contains(s, " no queue codel\n") {
		t.Fatalf("defaults written back:\n%s", s)
	}
}

// TestMSMaxRoundTrip: `ms-max` (gopcu) is read, written to the running
// config only when set, and `no ms-max` takes it back to the default.
func TestMSMaxRoundTrip(t *testing.T) {
	v, cfg := New("test")
	if err := v.ReadConfig(strings.NewReader("pcu\n ms-max 500\n"), "t.cfg"); err != nil {
		t.Fatal(err)
	}
	if cfg.MSMax != 500 || !strings.Contains(cfg.String(), " ms-max 500\n") {
		t.Fatalf("ms-max %d, running config:\n%s", cfg.MSMax, cfg.String())
	}
	if err := v.ReadConfig(strings.NewReader("pcu\n no ms-max\n"), "t2.cfg"); err != nil {
		t.Fatal(err)
	}
	if cfg.MSMax != 0 || strings.Contains(cfg.String(), "ms-max") {
		t.Fatalf("after no ms-max: %d\n%s", cfg.MSMax, cfg.String())
	}
}
