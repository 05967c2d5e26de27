package rlcmac

// Access technology types (TS 24.008 §10.5.5.12a).
const (
	AccessTechGSMP     = 0
	AccessTechGSME     = 1
	AccessTechGSMR     = 2
	AccessTechGSM1800  = 3
	AccessTechGSM1900  = 4
	AccessTechGSM450   = 5
	AccessTechGSM480   = 6
	AccessTechGSM850   = 7
	AccessTechGSM750   = 8
	AccessTechGSMOther = 15 // short form: list of additional access technologies
)

// MultislotCapability is the < Multislot capability struct > (TS 24.008 §10.5.5.12a).
type MultislotCapability struct {
	HasHSCSD      bool
	HSCSDClass    uint8
	HasGPRS       bool
	GPRSClass     uint8
	GPRSExtDyn    bool
	HasSMS        bool
	SMSValue      uint8
	SMValue       uint8
	HasECSD       bool
	ECSDClass     uint8
	HasEGPRS      bool
	EGPRSClass    uint8
	EGPRSExtDyn   bool
	HasDTMGPRS    bool
	DTMGPRSClass  uint8
	SingleSlotDTM bool
	HasDTMEGPRS   bool
	DTMEGPRSClass uint8
}

func (m *MultislotCapability) csn(c *Coder) {
	if c.Ext(&m.HasHSCSD, "HSCSD multislot class") {
		c.U8(&m.HSCSDClass, 5, "HSCSD multislot class")
	}
	if c.Ext(&m.HasGPRS, "GPRS multislot class") {
		c.U8(&m.GPRSClass, 5, "GPRS multislot class")
		c.Bool(&m.GPRSExtDyn, "GPRS Extended Dynamic Allocation Capability")
	}
	if c.Ext(&m.HasSMS, "SMS/SM") {
		c.U8(&m.SMSValue, 4, "SMS_VALUE")
		c.U8(&m.SMValue, 4, "SM_VALUE")
	}
	if c.Ext(&m.HasECSD, "ECSD multislot class") {
		c.U8(&m.ECSDClass, 5, "ECSD multislot class")
	}
	if c.Ext(&m.HasEGPRS, "EGPRS multislot class") {
		c.U8(&m.EGPRSClass, 5, "EGPRS multislot class")
		c.Bool(&m.EGPRSExtDyn, "EGPRS Extended Dynamic Allocation Capability")
	}
	if c.Ext(&m.HasDTMGPRS, "DTM GPRS multislot class") {
		c.U8(&m.DTMGPRSClass, 2, "DTM GPRS multislot class")
		c.Bool(&m.SingleSlotDTM, "Single Slot DTM")
		c.optU8(&m.HasDTMEGPRS, &m.DTMEGPRSClass, 2, "DTM EGPRS multislot class")
	}
}

// AdditionalAccessTech is one entry of the short form (access technology 1111).
type AdditionalAccessTech struct {
	Tech, GMSKPower, EPSKPower uint8
}

// RACValue is one < MS RA capability value part struct >. Only the fields a
// PCU uses are decoded; the remainder of the content is skipped via its
// length (and not re-encoded).
type RACValue struct {
	AccessTech uint8
	// Long form.
	RFPowerCap    uint8
	HasA5         bool
	A5            uint8
	ESInd         bool
	PS            bool
	VGCS          bool
	VBS           bool
	HasMultislot  bool
	Multislot     MultislotCapability
	Has8PSKPower  bool
	EightPSKPower uint8
	// Short form (AccessTech == AccessTechGSMOther).
	NAdd uint8
	Add  [4]AdditionalAccessTech
}

func (v *RACValue) csn(c *Coder) {
	c.U8(&v.AccessTech, 4, "Access Technology Type")
	lenPos := c.Pos()
	var l uint8
	c.U8(&l, 7, "Length")
	if c.err != nil {
		return
	}
	start := c.Pos()
	if c.dec {
		if int(l) > c.v.Remaining() {
			c.Fail(ErrShort, "MS RA capability content")
			return
		}
		saved := c.v.end
		c.v.end = start + int(l)
		v.content(c)
		c.v.end = saved
		if c.err == nil {
			c.v.pos = start + int(l)
		}
		return
	}
	v.content(c)
	if c.err != nil {
		return
	}
	n := c.Pos() - start
	if n > 127 {
		c.Fail(ErrOverflow, "MS RA capability Length")
		return
	}
	end := c.Pos()
	c.v.pos = lenPos
	_ = c.v.Write(uint64(n), 7)
	c.v.pos = end
}

func (v *RACValue) content(c *Coder) {
	if v.AccessTech == AccessTechGSMOther {
		codeAddTech(c, v)
		return
	}
	c.U8(&v.RFPowerCap, 3, "RF Power Capability")
	if c.Ext(&v.HasA5, "A5 bits") {
		c.U8(&v.A5, 7, "A5 bits")
	}
	if c.dec && c.AtEnd() {
		return
	}
	c.Bool(&v.ESInd, "ES IND")
	c.Bool(&v.PS, "PS")
	c.Bool(&v.VGCS, "VGCS")
	c.Bool(&v.VBS, "VBS")
	if c.Ext(&v.HasMultislot, "Multislot capability") {
		v.Multislot.csn(c)
	}
	if c.Ext(&v.Has8PSKPower, "8PSK Power Capability") {
		c.U8(&v.EightPSKPower, 2, "8PSK Power Capability")
	}
	// The remaining Release 99+ fields are skipped by the caller via Length.
}

func codeAddTech(c *Coder, v *RACValue) {
	c.repeat(&v.NAdd, 0, len(v.Add), false, "additional access technology", "additional access technologies", func(i int) {
		a := &v.Add[i]
		c.U8(&a.Tech, 4, "Access Technology Type")
		c.U8(&a.GMSKPower, 3, "GMSK Power Class")
		c.U8(&a.EPSKPower, 2, "8PSK Power Class")
	})
}

// MSRadioAccessCapability is the MS Radio Access Capability (2) IE (TS 24.008
// §10.5.5.12a, TS 44.060 §12.30): one or more value parts.
type MSRadioAccessCapability struct {
	N      uint8
	Values [4]RACValue
}

func (r *MSRadioAccessCapability) csn(c *Coder) {
	if !c.dec && (r.N == 0 || int(r.N) > len(r.Values)) {
		c.Fail(ErrInvalid, "MS RA capability count")
		return
	}
	r.Values[0].csn(c)
	c.repeat(&r.N, 1, len(r.Values), false, "MS RA capability value part", "MS RA capability value parts", func(i int) { r.Values[i].csn(c) })
}

// MultislotClasses returns the first GPRS and EGPRS multislot classes found
// (0 when absent); egprs reports EGPRS capability (an EGPRS multislot class present).
func (r *MSRadioAccessCapability) MultislotClasses() (gprs, egprsClass uint8, egprs bool) {
	for i := 0; i < int(r.N) && i < len(r.Values); i++ {
		v := &r.Values[i]
		if v.AccessTech == AccessTechGSMOther || !v.HasMultislot {
			continue
		}
		if gprs == 0 && v.Multislot.HasGPRS {
			gprs = v.Multislot.GPRSClass
		}
		if egprsClass == 0 && v.Multislot.HasEGPRS {
			egprsClass = v.Multislot.EGPRSClass
			egprs = true
		}
	}
	return gprs, egprsClass, egprs
}

// DecodeMSRadioAccessCapability decodes the value of the TS 24.008 MS Radio
// Access Capability IE (as carried in BSSGP, without IEI/length).
func DecodeMSRadioAccessCapability(b []byte, r *MSRadioAccessCapability) error {
	c := NewDecoder(b)
	r.csn(&c)
	return c.err
}

// EncodeMSRadioAccessCapability encodes r into b (spare bits 0) and returns the octets used.
func EncodeMSRadioAccessCapability(b []byte, r *MSRadioAccessCapability) (int, error) {
	c := NewEncoder(b)
	r.csn(&c)
	if c.err != nil {
		return 0, c.err
	}
	n := (c.Pos() + 7) / 8
	c.v.PadZero()
	return n, nil
}

// NewMultislotRAC is the MS Radio Access Capability of an MS of one access
// technology (DCS 1800, RF power capability 1) with the GPRS multislot
// class gprs and, when egprs > 0, the EGPRS multislot class egprs: what
// gopcu's MS emulators and test SGSNs report.
func NewMultislotRAC(gprs, egprs int) MSRadioAccessCapability {
	var r MSRadioAccessCapability
	r.N = 1
	v := &r.Values[0]
	v.AccessTech = AccessTechGSM1800
	v.RFPowerCap = 1
	v.HasMultislot = true
	v.Multislot.HasGPRS = true
	v.Multislot.GPRSClass = uint8(gprs)
	if egprs > 0 {
		v.Multislot.HasEGPRS = true
		v.Multislot.EGPRSClass = uint8(egprs)
	}
	return r
}

// EncodeMultislotRAC is NewMultislotRAC(gprs, egprs) encoded, as GMM and
// BSSGP carry it.
func EncodeMultislotRAC(gprs, egprs int) []byte {
	r := NewMultislotRAC(gprs, egprs)
	b := make([]byte, 64)
	n, err := EncodeMSRadioAccessCapability(b, &r)
	if err != nil {
		panic(err) // one access technology always fits
	}
	return b[:n]
}
