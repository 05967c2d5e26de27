package msemu

import (
	"github.com/gopcu/gopcu/pcu/pcuif"
	"github.com/gopcu/gopcu/rlcmac"
)

// NACC is what the MS emulator saw of Network Assisted Cell Change (TS
// 44.060 §8.8.2): the Packet Neighbour Cell Data it received, reassembled,
// and the Packet Cell Change Continues.
type NACC struct {
	// Indexes are the CONTAINER_INDEX values in the order received.
	Indexes []uint8
	// HasID, ARFCN, BSIC: the target named by the first Neighbour Cell Data.
	HasID    bool
	ARFCN    uint16
	BSIC     uint8
	PSI      bool   // PD 001 (PSI) instead of 000 (SI)
	Data     []byte // the containers' octets concatenated (CD_LENGTH honoured)
	Complete bool   // a container ended without CD_LENGTH 31
	// Blocks are the raw DL blocks of both messages, in order.
	Blocks      [][]byte
	Continues   []*rlcmac.PacketCellChangeContinue
	ContinueFNs []uint32 // FN each Continue arrived in
	// DropContinueAcks is how many polled Continues to leave unanswered
	// (the network must send the Continue again).
	DropContinueAcks int
	pending          *rlcmac.PacketCellChangeNotification
	// SentFN is the FN the notification went in (0: not yet).
	SentFN uint32
}

// SendCellChangeNotification sends a Packet Cell Change Notification in
// the next uplink block the MS's UL TBF gets (its USF), with the UL TBF's
// Global TFI.
func (m *MS) SendCellChangeNotification(n *rlcmac.PacketCellChangeNotification) {
	c := *n
	m.NACC.pending = &c
	m.NACC.SentFN = 0
}

// naccTx sends a pending notification instead of a data block.
func (m *MS) naccTx(fn uint32, ts uint8) bool {
	n := m.NACC.pending
	if n == nil || !m.ul.active {
		return false
	}
	n.GlobalTFI = rlcmac.GlobalTFI{TFI: m.ul.tfi}
	m.sendCtrl(fn, m.ul.trx, ts, n)
	m.NACC.pending = nil
	m.NACC.SentFN = fn
	return true
}

// ours reports whether a Global TFI on trx names one of the MS's TBFs.
func (m *MS) ours(g rlcmac.GlobalTFI, trx uint8) bool {
	if g.Downlink {
		return m.dl.active && m.dl.trx == trx && m.dl.tfi == g.TFI
	}
	return m.ul.active && m.ul.trx == trx && m.ul.tfi == g.TFI
}

// naccDL handles Packet Neighbour Cell Data and Packet Cell Change
// Continue; it reports whether msg was one of them.
func (m *MS) naccDL(d pcuif.Data, h rlcmac.DLCtrlHeader, msg rlcmac.Message) bool {
	switch x := msg.(type) {
	case *rlcmac.PacketNeighbourCellData:
		if !m.ours(x.GlobalTFI, d.TRX) {
			return true
		}
		n := &m.NACC
		n.Blocks = append(n.Blocks, append([]byte(nil), d.Payload...))
		n.Indexes = append(n.Indexes, x.ContainerIndex)
		c := x.Container[:19]
		if x.HasID {
			n.HasID, n.ARFCN, n.BSIC = true, x.ARFCN, x.BSIC
			c = x.Container[:17]
		}
		// container repetition: PD (3) CD_LENGTH (5) data; 0 ends, 31 = the
		// rest of this message (TS 44.060 §11.2.9e)
		for len(c) > 0 {
			pd, l := c[0]>>5, int(c[0]&0x1f)
			n.PSI = pd == 1
			if l == 0 {
				n.Complete = true
				break
			}
			if l == 31 {
				n.Data = append(n.Data, c[1:]...)
				break
			}
			if 1+l > len(c) {
				break
			}
			n.Data = append(n.Data, c[1:1+l]...)
			n.Complete = true
			c = c[1+l:]
		}
		return true
	case *rlcmac.PacketCellChangeContinue:
		if !m.ours(x.GlobalTFI, d.TRX) {
			return true
		}
		n := &m.NACC
		n.Blocks = append(n.Blocks, append([]byte(nil), d.Payload...))
		n.Continues = append(n.Continues, x)
		n.ContinueFNs = append(n.ContinueFNs, d.FN)
		if h.SP {
			if n.DropContinueAcks > 0 {
				n.DropContinueAcks--
				return true
			}
			m.sendCtrl(rrbpFN(d.FN, h.RRBP), d.TRX, d.TS, &rlcmac.PacketControlAck{TLLI: m.TLLI, CtrlAck: 3})
		}
		return true
	}
	return false
}
