package pcu

import (
	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/rlcmac"
)

// An MS's measurements (MS.meas) are what `show ms` reports as osmo-pcu
// 1.1.0 does: the uplink's from the BTS (DATA_IND), the downlink's from
// the Channel Quality Report (TS 44.060 §11.2.6) and the NACK rate of the
// MS's last Packet Downlink Ack/Nack (GPRS only: osmo-pcu 1.1.0 shows
// nothing of EGPRS Packet Downlink Ack/Nacks). They are kept in the form
// the MS's view shows them (MeasView).

// ul records an uplink block's L1 measurements.
func (m *MeasView) ul(d *pcuif.Data) {
	m.HaveUL, m.BER10k = true, d.BER10k
}

// dlAck records the NACK rate of a Packet Downlink Ack/Nack.
func (m *MeasView) dlAck(acked, nacked int) {
	if !m.HaveDL {
		m.HaveDL = true
		m.ILevel = [8]int8{-1, -1, -1, -1, -1, -1, -1, -1}
	}
	if acked+nacked > 0 {
		m.NackPct = 100 * nacked / (acked + nacked)
	}
}

// quality records a GPRS Channel Quality Report.
func (m *MeasView) quality(q *rlcmac.ChannelQualityReport) {
	m.HaveRxQ, m.RxQual, m.CValue, m.SignVar = true, q.RXQual, q.CValue, q.SignVar
	for i := range q.HasILev {
		if q.HasILev[i] {
			m.ILevel[i] = int8(q.ILevelTN[i])
		}
	}
}
