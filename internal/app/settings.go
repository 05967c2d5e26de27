package app

import "github.com/gopcu/gopcu/stats/capture"

// Settings are the daemon's process settings: what osmo-pcu takes on its
// command line plus gopcu's own (cmd/gopcu fills them from its flags and
// GOPCU_* environment variables). They override the config file where
// both say something (-i over gsmtap-remote-host, --pcu-sock over
// pcu-socket, --vty-port over line vty / bind).
type Settings struct {
	ConfigFile   string // osmo-pcu's config file; "" or missing and not ConfigGiven: defaults
	ConfigGiven  bool   // -c: a missing or broken file stops start-up
	MCC, MNC     int    // -m, -n: the RAI's MCC and MNC towards the SGSN (0: the BTS's)
	GSMTAPIP     string // -i: GSMTAP destination ("": gsmtap-remote-host)
	PCUSocket    string // --pcu-sock, used when SocketGiven
	SocketGiven  bool
	PinVersion   int    // --pcuif-version: 10, 11 or 12; 0 adopts the BTS's
	VTYBind      string // --vty-bind
	VTYPort      int    // --vty-port (0: any free port)
	VTYPortGiven bool   // VTYBind and VTYPort are used even where the config file binds
	Console      bool   // --console: a VTY console on the terminal
	LogLevel     string // --log-level: every category of `log stderr` ("": the config's)
	LogFormat    string // LogFormatOsmocom ("" too) or LogFormatLogfmt
	MetricsAddr  string // --metrics-addr: Prometheus /metrics ("": off)
	PcapFile     string // --pcap: Gb and GSMTAP capture ("": off)
	PcapMaxMiB   int    // --pcap-max-size: rotate at this size (0: no limit)
	PcapFiles    int    // --pcap-files: files kept when rotating
}

// DefaultSettings are cmd/gopcu's defaults, without its default config
// file name: no config file (the config's defaults), VTY on
// 127.0.0.1:4240, osmo-pcu's log format, pcap rotation as
// stats/capture's defaults.
func DefaultSettings() Settings {
	return Settings{VTYBind: "127.0.0.1", VTYPort: 4240, LogFormat: LogFormatOsmocom,
		PcapMaxMiB: capture.DefaultMaxSize >> 20, PcapFiles: capture.DefaultFiles}
}
