package config

import (
	"github.com/gopcu/gopcu/internal/logx"
	"github.com/gopcu/gopcu/vty"
)

// logCats is osmo-pcu 1.1.0's logging category table (application
// categories, then libosmocore's library categories), as its VTY lists them.
var logCats = [][2]string{
	{"csn1", "Concrete Syntax Notation One (CSN1)"},
	{"l1if", "GPRS PCU L1 interface (L1IF)"},
	{"rlcmac", "GPRS RLC/MAC layer (RLCMAC)"},
	{"rlcmacdata", "GPRS RLC/MAC layer Data (RLCMAC)"},
	{"rlcmacdl", "GPRS RLC/MAC layer Downlink (RLCMAC)"},
	{"rlcmacul", "GPRS RLC/MAC layer Uplink (RLCMAC)"},
	{"rlcmacsched", "GPRS RLC/MAC layer Scheduling (RLCMAC)"},
	{"rlcmacmeas", "GPRS RLC/MAC layer Measurements (RLCMAC)"},
	{"tbf", "Temporary Block Flow (TBF)"},
	{"tbfdl", "Temporary Block Flow (TBF) Downlink"},
	{"tbful", "Temporary Block Flow (TBF) Uplink"},
	{"ns", "GPRS Network Service Protocol (NS)"},
	{"pcu", "GPRS Packet Control Unit (PCU)"},
	{"nacc", "Network Assisted Cell Change (NACC)"},
	{"rim", "RAN Information Management (RIM)"},
	{"lglobal", "Library-internal global log family"},
	{"llapd", "LAPD in libosmogsm"},
	{"linp", "A-bis Intput Subsystem"},
	{"lmux", "A-bis B-Subchannel TRAU Frame Multiplex"},
	{"lmi", "A-bis Input Driver for Signalling"},
	{"lmib", "A-bis Input Driver for B-Channels (voice)"},
	{"lsms", "Layer3 Short Message Service (SMS)"},
	{"lctrl", "Control Interface"},
	{"lgtp", "GPRS GTP library"},
	{"lstats", "Statistics messages and logging"},
	{"lgsup", "Generic Subscriber Update Protocol"},
	{"loap", "Osmocom Authentication Protocol"},
	{"lss7", "libosmo-sigtran Signalling System 7"},
	{"lsccp", "libosmo-sigtran SCCP Implementation"},
	{"lsua", "libosmo-sigtran SCCP User Adaptation"},
	{"lm3ua", "libosmo-sigtran MTP3 User Adaptation"},
	{"lmgcp", "libosmo-mgcp Media Gateway Control Protocol"},
	{"ljibuf", "libosmo-netif Jitter Buffer"},
	{"lrspro", "Remote SIM protocol"},
	{"lns", "GPRS NS layer"},
	{"lbssgp", "GPRS BSSGP layer"},
	{"lnsdata", "GPRS NS layer data PDU"},
	{"lnssignal", "GPRS NS layer signal PDU"},
	{"liuup", "Iu UP layer"},
	{"lpfcp", "libosmo-pfcp Packet Forwarding Control Protocol"},
}

// LogCategories returns osmo-pcu's `logging level` categories, all at the
// default level NOTICE; csn1, lmi and lmib disabled (as osmo-pcu shows). Levels set on categories that logx also knows are
// applied to logx (see vty.Logging.Registry).
func LogCategories() []vty.LogCategory {
	out := make([]vty.LogCategory, 0, len(logCats))
	for _, c := range logCats {
		out = append(out, vty.LogCategory{Name: c[0], Help: c[1], Level: logx.LevelNotice, Disabled: c[0] == "csn1" || c[0] == "lmi" || c[0] == "lmib"})
	}
	return out
}
