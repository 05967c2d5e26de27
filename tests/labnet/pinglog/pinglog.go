// Package pinglog reads the output of Linux's `ping -D` (iputils), as
// tests/labnet/measure.sh keeps it in each phone's .busy file: the echo
// replies with their Unix times. labplot and labping read it.
package pinglog

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Reply is one echo reply of `ping -D`.
type Reply struct {
	At  time.Time     // when ping printed the reply (its -D timestamp)
	Seq int           // icmp_seq
	RTT time.Duration // time=
}

// Sent is when the echo request left: the reply's time less its RTT.
func (r Reply) Sent() time.Time { return r.At.Add(-r.RTT) }

// "[1764619000.123456] 64 bytes from 10.46.0.1: icmp_seq=3 ttl=63 time=345 ms"
var replyRE = regexp.MustCompile(`^\[([0-9]+)(?:\.([0-9]+))?\] .*icmp_seq=([0-9]+) .*time=([0-9.]+) ms`)

// Parse reads `ping -D` output and returns its echo replies in order;
// other lines (the header, the statistics) are skipped.
func Parse(r io.Reader) ([]Reply, error) {
	var out []Reply
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		m := replyRE.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		at, err := UnixTime(m[1], m[2])
		if err != nil {
			return nil, err
		}
		seq, err := strconv.Atoi(m[3])
		if err != nil {
			return nil, err
		}
		ms, err := strconv.ParseFloat(m[4], 64)
		if err != nil {
			return nil, fmt.Errorf("time=%s: %v", m[4], err)
		}
		out = append(out, Reply{At: at, Seq: seq, RTT: time.Duration(math.Round(ms*1000)) * time.Microsecond})
	}
	return out, sc.Err()
}

// UnixTime parses "<seconds>" and the digits after the point as a time,
// without float rounding.
func UnixTime(sec, frac string) (time.Time, error) {
	s, err := strconv.ParseInt(sec, 10, 64)
	if err != nil {
		return time.Time{}, err
	}
	if len(frac) > 9 {
		frac = frac[:9]
	}
	var ns int64
	if frac != "" {
		ns, err = strconv.ParseInt(frac+strings.Repeat("0", 9-len(frac)), 10, 64)
		if err != nil {
			return time.Time{}, err
		}
	}
	return time.Unix(s, ns), nil
}
