package ns

import "net/netip"

// ---- IP-SNS PDUs (TS 48.016 §9.3) ----

// SNSAck is SNS-ACK (§9.3.1): the answer to SNS-ADD, SNS-DELETE and
// SNS-CHANGEWEIGHT.
//
//	PDU type | NSEI | Transaction ID | [Cause] [IP Address] [IP4 list] [IP6 list]
type SNSAck struct {
	NSEI          uint16
	TransactionID uint8
	Cause         Cause
	HasCause      bool
	IPAddr        netip.Addr // IP Address IE; sent when valid
	IP4           []IPElement
	HasIP4        bool
	IP6           []IPElement
	HasIP6        bool
}

func (p *SNSAck) Type() PDUType { return PDUSNSAck }
func (p *SNSAck) ies(c *codec) {
	num(c, IENSEI, M, &p.NSEI, nil)
	c.tid(&p.TransactionID)
	c.cause(O, &p.Cause, &p.HasCause)
	c.ipAddr(C, &p.IPAddr)
	c.ipLists(&p.IP4, &p.HasIP4, &p.IP6, &p.HasIP6)
}

// SNSAdd is SNS-ADD (§9.3.2): endpoints to add, a List of IP4 or of IP6
// Elements.
//
//	PDU type | NSEI | Transaction ID | [IP4 list] [IP6 list]
type SNSAdd struct {
	NSEI          uint16
	TransactionID uint8
	IP4           []IPElement
	HasIP4        bool
	IP6           []IPElement
	HasIP6        bool
}

func (p *SNSAdd) Type() PDUType { return PDUSNSAdd }
func (p *SNSAdd) ies(c *codec) {
	num(c, IENSEI, M, &p.NSEI, nil)
	c.tid(&p.TransactionID)
	c.ipLists(&p.IP4, &p.HasIP4, &p.IP6, &p.HasIP6)
	if c.decoding() {
		c.need(anyIPList(p.HasIP4, p.HasIP6))
	}
}

// SNSChangeWeight is SNS-CHANGEWEIGHT (§9.3.3): new weights of endpoints,
// laid out as SNS-ADD.
type SNSChangeWeight struct {
	NSEI          uint16
	TransactionID uint8
	IP4           []IPElement
	HasIP4        bool
	IP6           []IPElement
	HasIP6        bool
}

func (p *SNSChangeWeight) Type() PDUType { return PDUSNSChangeWeight }
func (p *SNSChangeWeight) ies(c *codec)  { (*SNSAdd)(p).ies(c) } // the same IEs

// SNSConfig is SNS-CONFIG (§9.3.4): a sender's endpoints; the End Flag
// marks its last SNS-CONFIG.
//
//	PDU type | End Flag | NSEI | [IP4 list] [IP6 list]
type SNSConfig struct {
	EndFlag bool
	NSEI    uint16
	IP4     []IPElement
	HasIP4  bool
	IP6     []IPElement
	HasIP6  bool
}

func (p *SNSConfig) Type() PDUType { return PDUSNSConfig }
func (p *SNSConfig) ies(c *codec) {
	c.endFlag(&p.EndFlag)
	num(c, IENSEI, M, &p.NSEI, nil)
	c.ipLists(&p.IP4, &p.HasIP4, &p.IP6, &p.HasIP6)
}

// SNSConfigAck is SNS-CONFIG-ACK (§9.3.5); a Cause refuses the
// SNS-CONFIG.
type SNSConfigAck struct {
	NSEI     uint16
	Cause    Cause
	HasCause bool
}

func (p *SNSConfigAck) Type() PDUType { return PDUSNSConfigAck }
func (p *SNSConfigAck) ies(c *codec) {
	num(c, IENSEI, M, &p.NSEI, nil)
	c.cause(O, &p.Cause, &p.HasCause)
}

// SNSDelete is SNS-DELETE (§9.3.6): endpoints to delete, by IP Address or
// as IP Elements.
//
//	PDU type | NSEI | Transaction ID | [IP Address] [IP4 list] [IP6 list]
type SNSDelete struct {
	NSEI          uint16
	TransactionID uint8
	IPAddr        netip.Addr // IP Address IE; sent when valid
	IP4           []IPElement
	HasIP4        bool
	IP6           []IPElement
	HasIP6        bool
}

func (p *SNSDelete) Type() PDUType { return PDUSNSDelete }
func (p *SNSDelete) ies(c *codec) {
	num(c, IENSEI, M, &p.NSEI, nil)
	c.tid(&p.TransactionID)
	c.ipAddr(C, &p.IPAddr)
	c.ipLists(&p.IP4, &p.HasIP4, &p.IP6, &p.HasIP6)
	if c.decoding() && !p.HasIP4 && !p.HasIP6 && !p.IPAddr.IsValid() {
		c.need(IEIPAddress, "IP Address or IP list")
	}
}

// SNSSize is SNS-SIZE (§9.3.7): how many endpoints the BSS will announce.
// Reset Flag and Maximum Number of NS-VCs are mandatory and always sent;
// a received SNS-SIZE is not refused without them.
//
//	PDU type | NSEI | Reset Flag | Max NS-VCs | [Num IP4 EP] [Num IP6 EP]
type SNSSize struct {
	NSEI        uint16
	ResetFlag   bool
	MaxNSVCs    uint16
	NumIP4EP    uint16
	HasNumIP4EP bool
	NumIP6EP    uint16
	HasNumIP6EP bool
}

func (p *SNSSize) Type() PDUType { return PDUSNSSize }
func (p *SNSSize) ies(c *codec) {
	num(c, IENSEI, M, &p.NSEI, nil)
	c.flag(IEResetFlag, O, &p.ResetFlag)
	num(c, IEMaxNSVCs, O, &p.MaxNSVCs, nil)
	num(c, IENumIP4EP, C, &p.NumIP4EP, &p.HasNumIP4EP)
	num(c, IENumIP6EP, C, &p.NumIP6EP, &p.HasNumIP6EP)
	if c.decoding() && !p.HasNumIP4EP && !p.HasNumIP6EP {
		c.need(IENumIP4EP, "Number of IP endpoints")
	}
}

// SNSSizeAck is SNS-SIZE-ACK (§9.3.8); a Cause refuses the SNS-SIZE.
type SNSSizeAck struct {
	NSEI     uint16
	Cause    Cause
	HasCause bool
}

func (p *SNSSizeAck) Type() PDUType { return PDUSNSSizeAck }
func (p *SNSSizeAck) ies(c *codec) {
	num(c, IENSEI, M, &p.NSEI, nil)
	c.cause(O, &p.Cause, &p.HasCause)
}
