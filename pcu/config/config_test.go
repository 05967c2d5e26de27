package config

import (
	"strings"
	"testing"

	"github.com/gopcu/gopcu/vty"
)

// freshPCU is osmo-pcu 1.1.0's `pcu` node of a process without config file
// (`show running-config`, recorded from Debian's /usr/bin/osmo-pcu;
// osmo-pcu pcu_vty.c config_write_pcu()).
const freshPCU = `pcu
 flow-control-interval 1
 cs max 4
 cs threshold 10 33
 cs downgrade-threshold 200
 cs link-quality-ranges cs1 6 cs2 5 8 cs3 7 13 cs4 12
 mcs link-quality-ranges mcs1 6 mcs2 5 8 mcs3 7 13 mcs4 12 15 mcs5 14 17 mcs6 16 18 mcs7 17 20 mcs8 19 24 mcs9 23
 mcs max 9
 window-size 64 0
 queue idle-ack-delay 10
 queue codel
 alloc-algorithm dynamic
 gamma 0
 gb-dialect classic
`

func newTree(t testing.TB) (*vty.VTY, *Config) {
	t.Helper()
	v := vty.New(AppInfo("1.1.0"))
	cfg := Default()
	Install(v, cfg)
	return v, cfg
}

func TestFreshRunningConfig(t *testing.T) {
	if got := Default().String(); got != freshPCU {
		t.Fatalf("got\n%s\nwant\n%s", got, freshPCU)
	}
}

// everyCommand sets every pcu command to a non-default value, in osmo-pcu's
// write order; reading it and writing it back must give the same lines.
const everyCommand = `pcu
 flow-control-interval 7
 flow-control force-bvc-bucket-size 1000
 flow-control force-bvc-leak-rate 2000
 flow-control force-ms-bucket-size 3000
 flow-control force-ms-leak-rate 4000
 cs 2 3
 cs max 3
 cs threshold 5 60
 cs downgrade-threshold 300
 cs link-quality-ranges cs1 7 cs2 6 9 cs3 8 14 cs4 13
 mcs link-quality-ranges mcs1 7 mcs2 6 9 mcs3 8 14 mcs4 13 16 mcs5 15 18 mcs6 17 19 mcs7 18 21 mcs8 20 25 mcs9 24
 mcs 3
 mcs max 8 7
 window-size 128 32
 egprs dl arq-type arq2
 queue lifetime 500
 queue hysteresis 20
 queue idle-ack-delay 15
 queue codel interval 50
 alloc-algorithm b
 two-phase-access
 alpha 5
 gamma 10
 no dl-tbf-preemptive-retransmission
 multislot-class default 10
 pcu-socket /tmp/other_sock
 gsmtap-remote-host 192.0.2.1
 gsmtap-category dl-ctrl
 gsmtap-category ul-rach
 gb-dialect ip-sns
 gb ip-dscp 46
 gb socket-priority 5
 neighbor resolution 192.0.2.7 4249
 timer T3113 9
 timer X2031 500
`

func TestRoundTripEveryCommand(t *testing.T) {
	v, cfg := newTree(t)
	if err := v.ReadConfig(strings.NewReader(everyCommand), "every.cfg"); err != nil {
		t.Fatal(err)
	}
	if got := cfg.String(); got != everyCommand {
		t.Fatalf("got\n%s\nwant\n%s", got, everyCommand)
	}
	// and the written file reads back to the same state
	v2, cfg2 := newTree(t)
	if err := v2.ReadConfig(strings.NewReader(v.RunningConfig()), "rc"); err != nil {
		t.Fatal(err)
	}
	if cfg2.String() != everyCommand {
		t.Fatalf("second round differs:\n%s", cfg2.String())
	}
}
