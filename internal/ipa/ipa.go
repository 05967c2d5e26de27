// Package ipa is the IPA framing of Osmocom's CTRL interface over TCP
// (libosmocore ipaccess.h, osmo-bsc's CTRL port): a 2-octet big-endian
// length, the protocol octet 0xEE (IPAC_PROTO_OSMO), the extension octet
// 0x00 (IPAC_PROTO_EXT_CTRL), then the CTRL message text ("GET 1 var",
// "GET_REPLY 1 var value", "ERROR 1 reason"). The length counts the
// extension octet and the text. It is the one copy for gopcu's CTRL
// client (pcu/driver) and the tests' fake BSC.
package ipa

import (
	"bufio"
	"encoding/binary"
	"io"
)

// The IPA protocol and extension octets of a CTRL message.
const (
	ProtoOsmo = 0xee
	ExtCtrl   = 0x00
)

// CtrlFrame wraps a CTRL message in IPA framing.
func CtrlFrame(s string) []byte {
	b := make([]byte, 4+len(s))
	binary.BigEndian.PutUint16(b, uint16(1+len(s)))
	b[2], b[3] = ProtoOsmo, ExtCtrl
	copy(b[4:], s)
	return b
}

// ReadCtrl reads one IPA CTRL frame and returns its text; frames of other
// IPA protocols are skipped.
func ReadCtrl(r *bufio.Reader) (string, error) {
	for {
		var h [3]byte
		if _, err := io.ReadFull(r, h[:]); err != nil {
			return "", err
		}
		b := make([]byte, binary.BigEndian.Uint16(h[:2]))
		if _, err := io.ReadFull(r, b); err != nil {
			return "", err
		}
		if h[2] == ProtoOsmo && len(b) > 0 && b[0] == ExtCtrl {
			return string(b[1:]), nil
		}
	}
}
