// Package gea is GPRS ciphering for LLC (3GPP TS 44.064 Annex A): the
// KASUMI block cipher (TS 35.202), the KGCORE keystream generator and
// GEA3 built on it (TS 55.216), and the ciphering INPUT of an LLC UI
// frame. It is pure computation: no I/O, no state beyond its arguments.
//
// gopcu itself never ciphers (the PCU relays LLC frames it cannot read);
// the emulated phones of internal/emu/msnet use this package to cipher their LLC
// with GEA3 as osmo-sgsn does, keyed by the Kc of the SIM's
// authentication.
package gea
