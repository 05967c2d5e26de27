package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/gopcu/gopcu/internal/app"
	"github.com/gopcu/gopcu/internal/logx"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"
)

// settings are the process settings: osmo-pcu's command line plus gopcu's
// own, with environment variables (GOPCU_*) from viper underneath.
// Precedence, lowest first: built-in default, environment, config file,
// command-line flag (as osmo-pcu's -i overrides gsmtap-remote-host).
// The daemon's are app.Settings; the rest end the process at once.
type settings struct {
	app.Settings
	Version    bool
	Help       bool
	VTYRefXML  bool   // --vty-ref-xml: print the XML VTY reference and exit
	VTYRefMode string // --vty-ref-mode: default, expert or hidden
}

func parseSettings(args []string, stderr io.Writer) (*settings, error) {
	fs := pflag.NewFlagSet("gopcu", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	v := viper.New()
	v.SetEnvPrefix("GOPCU")
	v.SetEnvKeyReplacer(strings.NewReplacer("-", "_"))
	v.AutomaticEnv()

	def := app.DefaultSettings()
	fs.BoolP("help", "h", false, "Give this help message")
	fs.BoolP("version", "V", false, "Print the version of gopcu")
	fs.StringP("config-file", "c", "osmo-pcu.cfg", "Set the config file name")
	fs.IntP("mcc", "m", 0, "Override the MCC of the BSSGP RAI (needs -n)")
	fs.IntP("mnc", "n", 0, "Override the MNC of the BSSGP RAI (needs -m)")
	fs.StringP("gsmtap-ip", "i", "", "Send GSMTAP to this address (overrides gsmtap-remote-host)")
	fs.BoolP("daemonize", "D", false, "Fork the process into a background daemon (not supported: use systemd)")
	fs.IntP("realtime", "r", 0, "Deprecated: use cpu-sched in the config file")
	fs.BoolP("exit", "e", false, "Deprecated, no effect")
	fs.String("pcu-sock", "", "PCU socket path of the BTS (overrides pcu-socket in the config file)")
	fs.Int("pcuif-version", 0, "Pin the PCUIF version (10, 11 or 12); 0 adopts the BTS's")
	fs.String("vty-bind", def.VTYBind, "VTY telnet bind address (line vty / bind overrides it)")
	fs.Int("vty-port", def.VTYPort, "VTY telnet port")
	fs.Bool("console", false, "Attach an interactive VTY console to this terminal")
	fs.String("log-level", "", "Level of every category of the stderr log target at start (debug, info, notice, error, fatal), as `logging level set-all`")
	fs.String("log-format", def.LogFormat, "Line format of the stderr log target: osmocom (libosmocore's, as the log node says) or logfmt (key=value, for log collectors)")
	fs.String("metrics-addr", "", "Serve Prometheus metrics on this address (host:port, path /metrics); empty = off")
	fs.String("pcap", "", "Write Gb (NS/BSSGP) and GSMTAP datagrams to this pcap file")
	fs.String("vty-ref-mode", "default", "VTY reference generation mode (default, expert or hidden)")
	fs.Bool("vty-ref-xml", false, "Generate the VTY reference XML output and exit")
	fs.Int("pcap-max-size", def.PcapMaxMiB, "Rotate the pcap file at this size in MiB (0: no limit)")
	fs.Int("pcap-files", def.PcapFiles, "Pcap files kept when rotating (FILE, FILE.1, ...)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	for _, k := range envSettings {
		if err := v.BindPFlag(k, fs.Lookup(k)); err != nil {
			return nil, err
		}
		v.SetDefault(k, fs.Lookup(k).DefValue)
		// a number from the environment must be a decimal one: viper's
		// GetInt would make a malformed one 0 without a word, and read
		// "04240" as octal
		if fs.Lookup(k).Value.Type() == "int" && !fs.Changed(k) && v.IsSet(k) {
			if raw := v.GetString(k); raw != "" {
				n, err := strconv.Atoi(raw)
				if err != nil {
					return nil, fmt.Errorf("%s=%q: not a number", envName(k), raw)
				}
				v.Set(k, n)
			}
		}
	}
	s := &settings{Settings: app.Settings{
		ConfigFile:   v.GetString("config-file"),
		ConfigGiven:  fs.Changed("config-file") || v.IsSet("config-file") && v.GetString("config-file") != "osmo-pcu.cfg",
		GSMTAPIP:     v.GetString("gsmtap-ip"),
		PCUSocket:    v.GetString("pcu-sock"),
		SocketGiven:  v.GetString("pcu-sock") != "",
		PinVersion:   v.GetInt("pcuif-version"),
		VTYBind:      v.GetString("vty-bind"),
		VTYPort:      v.GetInt("vty-port"),
		VTYPortGiven: fs.Changed("vty-port") || v.GetInt("vty-port") != def.VTYPort,
		LogLevel:     v.GetString("log-level"),
		LogFormat:    v.GetString("log-format"),
		MetricsAddr:  v.GetString("metrics-addr"),
		PcapFile:     v.GetString("pcap"),
		PcapMaxMiB:   v.GetInt("pcap-max-size"),
		PcapFiles:    v.GetInt("pcap-files"),
	}}
	s.Help, _ = fs.GetBool("help")
	s.Version, _ = fs.GetBool("version")
	s.Console, _ = fs.GetBool("console")
	s.VTYRefXML, _ = fs.GetBool("vty-ref-xml")
	s.VTYRefMode, _ = fs.GetString("vty-ref-mode")
	s.MCC, _ = fs.GetInt("mcc")
	s.MNC, _ = fs.GetInt("mnc")
	if fs.Changed("mcc") != fs.Changed("mnc") {
		return nil, fmt.Errorf("-m and -n must be given together")
	}
	if d, _ := fs.GetBool("daemonize"); d {
		return nil, fmt.Errorf("-D (daemonize) is not supported: run gopcu under a supervisor such as systemd")
	}
	if s.LogLevel != "" {
		if _, err := logx.ParseLevel(s.LogLevel); err != nil {
			return nil, fmt.Errorf("--log-level %q: must be debug, info, notice, error or fatal", s.LogLevel)
		}
	}
	f, err := app.ParseLogFormat(s.LogFormat)
	if err != nil {
		return nil, err
	}
	s.LogFormat = f
	switch s.PinVersion {
	case 0, 10, 11, 12:
	default:
		return nil, fmt.Errorf("--pcuif-version %d: must be 10, 11 or 12 (or 0 to adopt the BTS's)", s.PinVersion)
	}
	if s.Help {
		fmt.Fprintf(stderr, "Usage: gopcu [options]\n%s", fs.FlagUsages())
	}
	return s, nil
}

// envSettings are the settings that have an environment variable.
var envSettings = []string{"config-file", "pcu-sock", "pcuif-version", "vty-bind", "vty-port", "log-level", "log-format", "gsmtap-ip",
	"metrics-addr", "pcap", "pcap-max-size", "pcap-files"}

// envName is a setting's environment variable, as viper names it with the
// prefix GOPCU and '-' as '_' ("pcu-sock" -> GOPCU_PCU_SOCK).
func envName(flag string) string {
	return "GOPCU_" + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}
