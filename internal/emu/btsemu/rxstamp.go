//go:build linux

package btsemu

import (
	"encoding/binary"
	"net"
	"time"

	"golang.org/x/sys/unix"
)

// Kernel send timestamps for latency figures. With SO_TIMESTAMPNS set on
// the receiving socket, Linux stamps each AF_UNIX datagram/seqpacket
// message in the sender's sendmsg (net/unix/af_unix.c unix_dgram_sendmsg:
// __net_timestamp when the peer has SOCK_RCVTSTAMP) and hands the stamp
// over as an SCM_TIMESTAMPNS control message (socket(7)). An emulator
// that reads the PCU's answer late (busy sending the rest of a burst, or
// not scheduled) still learns when the PCU wrote it, so the RTS_REQ ->
// DATA_REQ latency it reports is the PCU's and not its own.

// stampOOB is the control buffer size for one SCM_TIMESTAMPNS.
var stampOOB = unix.CmsgSpace(16)

// EnableRxStamps turns on SO_TIMESTAMPNS on c.
func EnableRxStamps(c *net.UnixConn) error {
	rc, err := c.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1)
	}); err != nil {
		return err
	}
	return serr
}

// StampedReader reads messages with their kernel send stamps.
type StampedReader struct {
	oob []byte
	// Stamped and Unstamped count the reads with and without a stamp.
	Stamped, Unstamped int
}

// NewStampedReader returns a reader with its control buffer.
func NewStampedReader() *StampedReader { return &StampedReader{oob: make([]byte, stampOOB)} }

// Read reads one message into b. at is when the peer sent it (the
// kernel's stamp), or the time of the read when the message carries no
// stamp.
func (r *StampedReader) Read(c *net.UnixConn, b []byte) (n int, at time.Time, err error) {
	n, oobn, _, _, err := c.ReadMsgUnix(b, r.oob)
	if err != nil {
		return n, time.Time{}, err
	}
	if t, ok := parseStamp(r.oob[:oobn]); ok {
		r.Stamped++
		return n, t, nil
	}
	r.Unstamped++
	return n, time.Now(), nil
}

// parseStamp finds an SCM_TIMESTAMPNS (struct timespec) in oob without
// allocating. 64-bit layouts only (cmsghdr of 16 octets, timespec of two
// int64); elsewhere no stamp is found and the read time is used.
func parseStamp(oob []byte) (time.Time, bool) {
	const hdr = unix.SizeofCmsghdr
	if hdr != 16 {
		return time.Time{}, false
	}
	for len(oob) >= hdr {
		l := binary.NativeEndian.Uint64(oob[0:8])
		level := int32(binary.NativeEndian.Uint32(oob[8:12]))
		typ := int32(binary.NativeEndian.Uint32(oob[12:16]))
		if l < hdr || l > uint64(len(oob)) {
			return time.Time{}, false
		}
		if level == unix.SOL_SOCKET && typ == unix.SCM_TIMESTAMPNS && l >= hdr+16 {
			sec := int64(binary.NativeEndian.Uint64(oob[hdr : hdr+8]))
			nsec := int64(binary.NativeEndian.Uint64(oob[hdr+8 : hdr+16]))
			return time.Unix(sec, nsec), true
		}
		next := unix.CmsgSpace(int(l) - hdr)
		if next > len(oob) {
			break
		}
		oob = oob[next:]
	}
	return time.Time{}, false
}
