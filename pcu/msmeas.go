package pcu

import (
	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/rlcmac"
)

// msMeas are the measurements `show ms` reports as osmo-pcu 1.1.0 does:
// the uplink's from the BTS (DATA_IND), the downlink's from the Channel
// Quality Report (TS 44.060 §11.2.6) and the NACK rate of the MS's last
// Packet Downlink Ack/Nack (GPRS only: osmo-pcu 1.1.0 shows nothing of
// EGPRS Packet Downlink Ack/Nacks).
type msMeas struct {
	haveUL  bool
	ber10k  uint16
	haveDL  bool // a Packet Downlink Ack/Nack arrived
	nack    int  // % of the blocks the last Ack/Nack reported that were NACKed
	haveRxQ bool
	rxQual  uint8
	cValue  uint8
	signVar uint8
	iLev    [8]int8 // I_LEVEL_TN, -1 not reported
}

// ul records an uplink block's L1 measurements.
func (m *msMeas) ul(d *pcuif.Data) {
	m.haveUL, m.ber10k = true, d.BER10k
}

// dlAck records the NACK rate of a Packet Downlink Ack/Nack.
func (m *msMeas) dlAck(acked, nacked int) {
	if !m.haveDL {
		m.haveDL = true
		m.iLev = [8]int8{-1, -1, -1, -1, -1, -1, -1, -1}
	}
	if acked+nacked > 0 {
		m.nack = 100 * nacked / (acked + nacked)
	}
}

// quality records a GPRS Channel Quality Report.
func (m *msMeas) quality(q *rlcmac.ChannelQualityReport) {
	m.haveRxQ, m.rxQual, m.cValue, m.signVar = true, q.RXQual, q.CValue, q.SignVar
	for i := range q.HasILev {
		if q.HasILev[i] {
			m.iLev[i] = int8(q.ILevelTN[i])
		}
	}
}
