package main

import (
	"io"
	"strings"
	"testing"

	"github.com/gopcu/gopcu/internal/app"
)

// TestSettingsEnvironment: every setting with a GOPCU_* variable takes it
// when its flag is absent; a flag wins over the environment; an empty
// variable counts as unset; a malformed number is an error naming the
// variable.
func TestSettingsEnvironment(t *testing.T) {
	for _, k := range envSettings {
		t.Setenv(envName(k), "")
	}
	s, err := parseSettings(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if s.ConfigFile != "osmo-pcu.cfg" || s.ConfigGiven || s.VTYPort != 4240 || s.VTYPortGiven || s.MetricsAddr != "" || s.SocketGiven ||
		s.LogFormat != app.LogFormatOsmocom {
		t.Errorf("defaults: %+v", s)
	}

	env := map[string]string{"GOPCU_CONFIG_FILE": "/etc/osmocom/x.cfg", "GOPCU_PCU_SOCK": "/run/pcu", "GOPCU_PCUIF_VERSION": "11",
		"GOPCU_VTY_BIND": "0.0.0.0", "GOPCU_VTY_PORT": "4241", "GOPCU_LOG_LEVEL": "debug", "GOPCU_LOG_FORMAT": "logfmt", "GOPCU_GSMTAP_IP": "127.0.0.2",
		"GOPCU_METRICS_ADDR": "127.0.0.1:9240", "GOPCU_PCAP": "/tmp/gb.pcap", "GOPCU_PCAP_MAX_SIZE": "8", "GOPCU_PCAP_FILES": "2"}
	if len(env) != len(envSettings) {
		t.Fatalf("%d variables for %d settings", len(env), len(envSettings))
	}
	for k, v := range env {
		t.Setenv(k, v)
	}
	s, err = parseSettings(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want := settings{Settings: app.Settings{ConfigFile: "/etc/osmocom/x.cfg", ConfigGiven: true, PCUSocket: "/run/pcu", SocketGiven: true, PinVersion: 11,
		VTYBind: "0.0.0.0", VTYPort: 4241, VTYPortGiven: true, LogLevel: "debug", LogFormat: "logfmt", GSMTAPIP: "127.0.0.2",
		MetricsAddr: "127.0.0.1:9240", PcapFile: "/tmp/gb.pcap", PcapMaxMiB: 8, PcapFiles: 2}, VTYRefMode: "default"}
	if *s != want {
		t.Errorf("from the environment:\n got %+v\nwant %+v", *s, want)
	}

	s, err = parseSettings([]string{"--vty-port", "4240", "--metrics-addr", "", "-c", "osmo-pcu.cfg"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if s.VTYPort != 4240 || !s.VTYPortGiven || s.MetricsAddr != "" || s.ConfigFile != "osmo-pcu.cfg" || !s.ConfigGiven || s.PcapFiles != 2 {
		t.Errorf("flags over the environment: %+v", s)
	}

	t.Setenv("GOPCU_VTY_PORT", "04241") // decimal, as a flag would read it (not octal)
	if s, err := parseSettings(nil, io.Discard); err != nil || s.VTYPort != 4241 {
		t.Errorf("GOPCU_VTY_PORT=04241: %v %v", s, err)
	}
	t.Setenv("GOPCU_VTY_PORT", "x")
	if _, err := parseSettings(nil, io.Discard); err == nil || !strings.Contains(err.Error(), "GOPCU_VTY_PORT") {
		t.Errorf("malformed GOPCU_VTY_PORT: %v", err)
	}
}

// TestSettingsLogFormat: --log-format takes osmocom or logfmt, nothing
// else.
func TestSettingsLogFormat(t *testing.T) {
	if s, err := parseSettings([]string{"--log-format", "logfmt"}, io.Discard); err != nil || s.LogFormat != app.LogFormatLogfmt {
		t.Errorf("--log-format logfmt: %v", err)
	}
	if _, err := parseSettings([]string{"--log-format", "json"}, io.Discard); err == nil {
		t.Error("--log-format json accepted")
	}
}
