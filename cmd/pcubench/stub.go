package main

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"time"

	"github.com/gopcu/gopcu/internal/emu/btsemu"
	"github.com/gopcu/gopcu/pcu/pcuif"
)

// stub is the smallest BTS: it serves the PCU socket, sends INFO_IND,
// waits for the PDCH activations and then sends RTS_REQs, reading the
// DATA_REQ answers itself (no goroutine, no channel) so that its own
// cost stays out of the way of the PCU's.
type stub struct {
	ln    *net.UnixListener
	c     *net.UnixConn
	info  *pcuif.InfoInd
	pdchs [][2]uint8
	rbuf  []byte
	rd    *btsemu.StampedReader // kernel send stamps of the PCU's messages
	at    time.Time             // the last read message's send stamp
	fn    uint32
}

// cellInfo is the INFO_IND of the benchmark cells: trx TRXs with the
// PDCH mask, CS-1..4 (and MCS-1..9 when egprs), the NS-VC towards
// 127.0.0.1:sgsnPort from local port nsPort.
func cellInfo(trx int, mask uint8, egprs bool, nsPort, sgsnPort int) *pcuif.InfoInd {
	ii := btsemu.DefaultInfo(pcuif.V10)
	// CS-4 from the start: osmo-pcu raises the downlink CS only 1000 ms
	// of wall clock after the last "not low" error rate, which in virtual
	// time is thousands of blocks, so from CS-2 it carried 60 % of gopcu's
	// downlink octets in the same blocks (docs/performance.md)
	ii.InitialCS = 4
	for t := 0; t < trx; t++ {
		ii.TRX[t].ARFCN = uint16(871 + 2*t)
		ii.TRX[t].PDCHMask = mask
		for ts := range ii.TRX[t].TS {
			ii.TRX[t].TS[ts].TSC = 7
		}
	}
	if egprs {
		for n := 1; n <= 9; n++ {
			ii.Flags |= pcuif.FlagMCS(n)
		}
		ii.InitialMCS = 9
	}
	ii.SetRemote(0, 101, uint16(nsPort), netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), uint16(sgsnPort)))
	return ii
}

func listenStub(path string, info *pcuif.InfoInd) (*stub, error) {
	os.Remove(path)
	ln, err := net.ListenUnix("unixpacket", &net.UnixAddr{Name: path, Net: "unixpacket"})
	if err != nil {
		return nil, err
	}
	return &stub{ln: ln, info: info, rbuf: make([]byte, pcuif.BufSize)}, nil
}

func (s *stub) close() {
	if s.c != nil {
		s.c.Close()
	}
	s.ln.Close()
}

// accept waits (at most timeout) for the PCU, sends INFO_IND and reads
// until every PDCH of the INFO_IND is active.
func (s *stub) accept(timeout time.Duration) error {
	s.ln.SetDeadline(time.Now().Add(timeout))
	c, err := s.ln.AcceptUnix()
	if err != nil {
		return fmt.Errorf("no PCU connected: %w", err)
	}
	s.c = c
	s.rd = btsemu.NewStampedReader()
	b, err := pcuif.Marshal(s.info, pcuif.V10)
	if err != nil {
		return err
	}
	if _, err := c.Write(b); err != nil {
		return err
	}
	want := btsemu.InfoPDCHs(s.info)
	active := map[[2]uint8]bool{}
	c.SetReadDeadline(time.Now().Add(timeout))
	defer c.SetReadDeadline(time.Time{})
	for len(active) < want {
		m, err := s.read()
		if err != nil {
			return fmt.Errorf("waiting for %d PDCH activations (%d): %w", want, len(active), err)
		}
		if a, ok := m.(*pcuif.ActReq); ok && a.Activate {
			active[[2]uint8{a.TRX, a.TS}] = true
		}
	}
	for t := uint8(0); t < pcuif.NumTRX; t++ {
		for ts := uint8(0); ts < 8; ts++ {
			if active[[2]uint8{t, ts}] {
				s.pdchs = append(s.pdchs, [2]uint8{t, ts})
			}
		}
	}
	return nil
}

func (s *stub) read() (pcuif.Message, error) {
	n, at, err := s.rd.Read(s.c, s.rbuf)
	s.at = at
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, errors.New("PCU closed the socket")
	}
	return pcuif.Parse(s.rbuf[:n], pcuif.V10)
}

func (s *stub) sendRTS(p [2]uint8, fn uint32, buf []byte) error {
	return s.sendRTSSAPI(pcuif.SAPIPDTCH, p, fn, uint8(btsemu.BlockNr(fn)), buf)
}

func (s *stub) sendRTSSAPI(sapi pcuif.SAPI, p [2]uint8, fn uint32, blockNr uint8, buf []byte) error {
	r := pcuif.RTSReq{SAPI: sapi, FN: fn, ARFCN: s.info.TRX[p[0]].ARFCN, TRX: p[0], TS: p[1], BlockNr: blockNr}
	n, err := pcuif.MarshalTo(buf, &r, pcuif.V10)
	if err != nil {
		return err
	}
	_, err = s.c.Write(buf[:n])
	return err
}

// waitData reads until the DATA_REQ answering the RTS of p at fn.
func (s *stub) waitData(p [2]uint8, fn uint32) error {
	for {
		m, err := s.read()
		if err != nil {
			return err
		}
		if d, ok := m.(*pcuif.Data); ok && d.Kind == pcuif.TypeDataReq && d.SAPI == pcuif.SAPIPDTCH {
			if d.TRX == p[0] && d.TS == p[1] && d.FN == fn {
				return nil
			}
		}
	}
}

// serial sends n RTS_REQs one at a time, each after the answer to the
// previous one (virtual time: as fast as the PCU answers), cycling over
// the PDCHs, one block per round.
func (s *stub) serial(n int) error {
	buf := make([]byte, pcuif.BufSize)
	s.c.SetReadDeadline(time.Now().Add(time.Minute))
	for sent := 0; sent < n; {
		for _, p := range s.pdchs {
			if err := s.sendRTS(p, s.fn, buf); err != nil {
				return err
			}
			if err := s.waitData(p, s.fn); err != nil {
				return fmt.Errorf("RTS %d: %w", sent, err)
			}
			sent++
		}
		s.fn = btsemu.NextBlockFN(s.fn)
	}
	return nil
}

// frames runs the frame clock in real time for d as osmo-bts-virtual
// does (its scheduler_virtbts.c vbts_sched_fn, once per TDMA frame):
// what osmoBTSFrame says for each frame. The PDTCH answers are read and
// checked, not timed. It returns the PDTCH RTS_REQs.
func (s *stub) frames(d time.Duration) (int, error) {
	buf := make([]byte, pcuif.BufSize)
	start := time.Now()
	rts := 0
	for f := 0; time.Since(start) < d; f++ {
		time.Sleep(time.Until(start.Add(time.Duration(f) * btsemu.FramePeriod)))
		fn := s.fn
		s.fn = (s.fn + 1) % pcuif.MaxFN
		fr := osmoBTSFrame(fn)
		if fr.timeInd {
			n, err := pcuif.MarshalTo(buf, &pcuif.TimeInd{FN: fn}, pcuif.V10)
			if err != nil {
				return rts, err
			}
			if _, err := s.c.Write(buf[:n]); err != nil {
				return rts, err
			}
		}
		rfn := fr.rtsFN
		if fr.ptcch {
			for _, p := range s.pdchs {
				if err := s.sendRTSSAPI(pcuif.SAPIPTCCH, p, rfn, uint8(rfn/104&3), buf); err != nil {
					return rts, err
				}
			}
			continue
		}
		if !fr.pdtch {
			continue
		}
		for _, p := range s.pdchs {
			if err := s.sendRTS(p, rfn, buf); err != nil {
				return rts, err
			}
			rts++
		}
		if err := s.awaitDataReqs(rfn, nil); err != nil {
			return rts, err
		}
	}
	return rts, nil
}

// awaitDataReqs reads (5 s at most) until every PDCH answered the
// RTS_REQs for frame fn with a PDTCH DATA_REQ; count, when not nil, says
// whether an answer counts.
func (s *stub) awaitDataReqs(fn uint32, count func(d *pcuif.Data) bool) error {
	s.c.SetReadDeadline(time.Now().Add(5 * time.Second))
	for left := len(s.pdchs); left > 0; {
		m, err := s.read()
		if err != nil {
			return err
		}
		if d, ok := m.(*pcuif.Data); ok && d.Kind == pcuif.TypeDataReq && d.SAPI == pcuif.SAPIPDTCH && d.FN == fn &&
			(count == nil || count(d)) {
			left--
		}
	}
	return nil
}

// rtsAdvance is how many frames ahead osmo-bts-virtual asks for a block
// (RTS_ADVANCE in its scheduler_virtbts.c).
const rtsAdvance = 5

// btsFrame is what osmo-bts-virtual sends the PCU in one TDMA frame.
type btsFrame struct {
	timeInd bool   // a TIME_IND for the frame
	rtsFN   uint32 // the frame the RTS_REQs are for (fn + rtsAdvance)
	pdtch   bool   // a PDTCH RTS_REQ per PDCH: rtsFN starts a radio block
	ptcch   bool   // a PTCCH RTS_REQ per PDCH: rtsFN is frame 12 or 38 of the 52-multiframe
}

// osmoBTSFrame is what osmo-bts-virtual sends the PCU in frame fn: a
// TIME_IND only when fn starts a radio block (pcu_tx_time_ind: fn % 13 is
// 0, 4 or 8), and the RTS_REQs for frame fn+5 (vbts_sched_fn).
func osmoBTSFrame(fn uint32) btsFrame {
	m := fn % 13
	f := btsFrame{timeInd: m == 0 || m == 4 || m == 8, rtsFN: (fn + rtsAdvance) % pcuif.MaxFN}
	r := f.rtsFN % 52
	f.ptcch = r == 12 || r == 38
	f.pdtch = btsemu.BlockNr(f.rtsFN) >= 0
	return f
}

// realtime runs the frame clock in real time for d: at each block's due
// time it sends the RTS_REQs of every PDCH at once (as a BTS does) and
// records each one's time to its DATA_REQ in lat: from just before the
// RTS_REQ's write to the kernel's stamp of the DATA_REQ's send, so that
// answers that came while the stub was still sending the burst count
// when they were sent, not when the stub got to read them.
func (s *stub) realtime(d time.Duration, lat *latencies) (int, error) {
	// kernel send stamps on the answers (off in the CPU workloads: the
	// stamp costs the PCU's send a clock read)
	if err := btsemu.EnableRxStamps(s.c); err != nil {
		return 0, err
	}
	buf := make([]byte, pcuif.BufSize)
	start := time.Now()
	var frames uint32
	sentAt := map[[2]uint8]time.Time{}
	rts := 0
	for time.Since(start) < d {
		fn := s.fn
		s.fn = btsemu.NextBlockFN(fn)
		for _, p := range s.pdchs {
			sentAt[p] = time.Now()
			if err := s.sendRTS(p, fn, buf); err != nil {
				return rts, err
			}
			rts++
		}
		if err := s.awaitDataReqs(fn, func(d *pcuif.Data) bool {
			t, ok := sentAt[[2]uint8{d.TRX, d.TS}]
			if ok {
				lat.add(s.at.Sub(t))
			}
			return ok
		}); err != nil {
			return rts, err
		}
		frames += (s.fn - fn + pcuif.MaxFN) % pcuif.MaxFN
		time.Sleep(time.Until(start.Add(time.Duration(frames) * btsemu.FramePeriod)))
	}
	return rts, nil
}
