package bssgp

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"github.com/gopcu/gopcu/internal/testutil"
)

// labCell is the lab's cell: RAI 901-70-1-0, CI 6969.
var labCell = CellID{RAI: RAI{MCC: 901, MNC: 70, LAC: 1, RAC: 0}, CI: 6969}

var imsi1 = []byte{0x99, 0x10, 0x07, 0x00, 0x00, 0x00, 0x00, 0x10} // 901700000000001

// goldens: "capture" vectors are the BSSGP part of NS-UNITDATA PDUs in the
// Debian osmo-pcu 1.1.0 <-> osmo-sgsn 1.9.0 capture; the others follow the
// TS 48.018 §10 layouts with osmo's length-indicator choices.
var goldens = []struct {
	name string
	hex  string
	pdu  PDU
}{
	{"capture BVC-RESET sig", "22 04820000 078108", &BVCReset{BVCI: 0, Cause: CauseOMIntervention}},
	{"capture BVC-RESET-ACK sig", "23 04820000", &BVCResetAck{BVCI: 0}},
	{"capture BVC-RESET ptp", "22 04820708 078108 0888 09f1070001001b39",
		&BVCReset{BVCI: 1800, Cause: CauseOMIntervention, CellID: labCell, HasCellID: true}},
	{"capture BVC-RESET-ACK ptp with cell", "23 04820708 0888 09f1070001001b39",
		&BVCResetAck{BVCI: 1800, CellID: labCell, HasCellID: true}},
	{"capture BVC-RESET-ACK ptp", "23 04820708", &BVCResetAck{BVCI: 1800}},
	{"capture BVC-UNBLOCK", "24 04820708", &BVCUnblock{BVCI: 1800}},
	{"capture BVC-UNBLOCK-ACK", "25 04820708", &BVCUnblockAck{BVCI: 1800}},
	{"capture FLOW-CONTROL-BVC", "26 1e8101 058203e8 03820320 018203e8 1c820320 06820000",
		&FlowControlBVC{Tag: 1, BucketSize: 1000, LeakRate: 800, BmaxMS: 1000, RMS: 800, Measurement: 0, HasMeasurement: true}},
	{"capture FLOW-CONTROL-BVC-ACK", "27 1e8102", &FlowControlBVCAck{Tag: 2}},
	{"UL-UNITDATA osmo-pcu layout", "01 c0000001 000004 0888 09f1070001001b39 0080 0e0003 010203",
		&ULUnitdata{TLLI: 0xc0000001, QoS: [3]byte{0, 0, 4}, CellID: labCell, Alignment: 0, LLC: []byte{1, 2, 3}}},
	{"UL-UNITDATA pfi lsa", "01 c0000001 000004 0888 09f1070001001b39 288105 268401000001 0e0001 aa",
		&ULUnitdata{TLLI: 0xc0000001, QoS: [3]byte{0, 0, 4}, CellID: labCell, PFI: 5, HasPFI: true,
			LSAIDList: []byte{1, 0, 0, 1}, Alignment: -1, LLC: []byte{0xaa}}},
	{"DL-UNITDATA minimal", "00 c0000002 000000 16820bb8 0e0002 4142",
		&DLUnitdata{TLLI: 0xc0000002, PDULifetime: 3000, Alignment: -1, LLC: []byte("AB")}},
	{"DL-UNITDATA all IEs", "00 c0000002 000021 16820bb8 13821317 178101 0a820004 0d889910070000000010 " +
		"1f84c0000003 288103 2783000102 3d8101 818102 0082 0000 0e0001 ff",
		&DLUnitdata{TLLI: 0xc0000002, QoS: [3]byte{0, 0, 0x21}, PDULifetime: 3000, MSRAC: []byte{0x13, 0x17},
			Priority: 1, HasPriority: true, DRX: 4, HasDRX: true, IMSI: imsi1, OldTLLI: 0xc0000003, HasOldTLLI: true,
			PFI: 3, HasPFI: true, LSAInfo: []byte{0, 1, 2}, ServiceCCO: 1, HasServiceCCO: true, SPID: 2, HasSPID: true,
			Alignment: 2, LLC: []byte{0xff}}},
	{"RA-CAPABILITY", "02 1f84c0000002 13821317", &RACapability{TLLI: 0xc0000002, MSRAC: []byte{0x13, 0x17}}},
	{"PAGING-PS bvci", "06 0d889910070000000010 0a820004 04820708 18830000 21",
		&PagingPS{IMSI: imsi1, DRX: 4, HasDRX: true, Area: PagingArea{BVCI: 1800, HasBVCI: true}, QoS: [3]byte{0, 0, 0x21}}},
	{"PAGING-PS ra+tmsi", "06 0d889910070000000010 1b8609f107000100 288102 18830000 00 2084deadbeef",
		&PagingPS{IMSI: imsi1, Area: PagingArea{RA: []byte{0x09, 0xf1, 0x07, 0x00, 0x01, 0x00}}, PFI: 2, HasPFI: true,
			PTMSI: 0xdeadbeef, HasTMSI: true}},
	{"PAGING-CS", "07 0d889910070000000010 0a820000 108509f1070001 1f84c0000002 098101 2084cafebabe",
		&PagingCS{IMSI: imsi1, Area: PagingArea{LA: []byte{0x09, 0xf1, 0x07, 0x00, 0x01}}, TLLI: 0xc0000002,
			HasTLLI: true, ChannelNeeded: 1, HasChanNeeded: true, TMSI: 0xcafebabe, HasTMSI: true}},
	{"RA-CAPABILITY-UPDATE", "08 1f84c0000002 1e8107", &RACapabilityUpdate{TLLI: 0xc0000002, Tag: 7}},
	{"RA-CAPABILITY-UPDATE-ACK", "09 1f84c0000002 1e8107 0d889910070000000010 1a8100 13821317",
		&RACapabilityUpdateAck{TLLI: 0xc0000002, Tag: 7, IMSI: imsi1, Cause: 0, MSRAC: []byte{0x13, 0x17}}},
	{"RADIO-STATUS", "0a 1f84c0000002 198101", &RadioStatus{TLLI: 0xc0000002, HasTLLI: true, RadioCause: 1}},
	{"SUSPEND", "0b 1f84c0000002 1b8609f107000100", &Suspend{TLLI: 0xc0000002, RAI: labCell.RAI}},
	{"SUSPEND-ACK", "0c 1f84c0000002 1b8609f107000100 1d8103", &SuspendAck{TLLI: 0xc0000002, RAI: labCell.RAI, SRN: 3}},
	{"SUSPEND-NACK", "0d 1f84c0000002 1b8609f107000100 078104",
		&SuspendNack{TLLI: 0xc0000002, RAI: labCell.RAI, Cause: CauseUnknownMS, HasCause: true}},
	{"RESUME", "0e 1f84c0000002 1b8609f107000100 1d8103", &Resume{TLLI: 0xc0000002, RAI: labCell.RAI, SRN: 3}},
	{"RESUME-ACK", "0f 1f84c0000002 1b8609f107000100", &ResumeAck{TLLI: 0xc0000002, RAI: labCell.RAI}},
	{"RESUME-NACK", "10 1f84c0000002 1b8609f107000100", &ResumeNack{TLLI: 0xc0000002, RAI: labCell.RAI}},
	{"BVC-BLOCK", "20 04820708 078108", &BVCBlock{BVCI: 1800, Cause: CauseOMIntervention}},
	{"BVC-BLOCK-ACK", "21 04820708", &BVCBlockAck{BVCI: 1800}},
	{"BVC-RESET features", "22 04820708 078108 0888 09f1070001001b39 3b8101 698101",
		&BVCReset{BVCI: 1800, Cause: CauseOMIntervention, CellID: labCell, HasCellID: true, FeatureBitmap: 1,
			HasFeatures: true, ExtFeatures: 1, HasExtFeatures: true}},
	{"FLOW-CONTROL-MS", "28 1f84c0000002 1e8109 12820064 03820050 3c8180 7e8101",
		&FlowControlMS{TLLI: 0xc0000002, Tag: 9, BucketSize: 100, LeakRate: 80, BucketFullRatio: 0x80,
			HasBucketFullRatio: true, Granularity: 1, HasGranularity: true}},
	{"FLOW-CONTROL-MS-ACK", "29 1f84c0000002 1e8109", &FlowControlMSAck{TLLI: 0xc0000002, Tag: 9}},
	{"FLUSH-LL", "2a 1f84c0000002 04820708 04820709 3e820065",
		&FlushLL{TLLI: 0xc0000002, BVCIOld: 1800, BVCINew: 1801, HasBVCINew: true, NSEI: 101, HasNSEI: true}},
	{"FLUSH-LL-ACK", "2b 1f84c0000002 0c8101 04820709 25830005dc",
		&FlushLLAck{TLLI: 0xc0000002, FlushAction: 1, BVCINew: 1801, HasBVCINew: true, NumOctets: 1500}},
	{"LLC-DISCARDED", "2c 1f84c0000002 0f8102 04820708 25830005dc",
		&LLCDiscarded{TLLI: 0xc0000002, Frames: 2, BVCI: 1800, NumOctets: 1500}},
	{"STATUS unknown BVCI", "41 078105 04820709 158500c0000002",
		&Status{Cause: CauseUnknownBVCI, BVCI: 1801, HasBVCI: true, PDUInError: []byte{0, 0xc0, 0, 0, 2}}},
	{"STATUS", "41 078127", &Status{Cause: CauseProtocolErrorUnspec}},
}

func TestGolden(t *testing.T) {
	for _, g := range goldens {
		t.Run(g.name, func(t *testing.T) {
			b := testutil.Hex(t, g.hex)
			testutil.CheckGolden(t, b, g.pdu, Parse, Marshal)
			if n := MarshalLen(g.pdu); n != len(b) {
				t.Fatalf("MarshalLen %d want %d", n, len(b))
			}
		})
	}
}

func TestUnitdataMethods(t *testing.T) {
	ul := &ULUnitdata{TLLI: 1, CellID: labCell, LLC: make([]byte, 300)}
	b := make([]byte, 400)
	n, err := ul.MarshalTo(b)
	if err != nil || n != ul.MarshalLen() || n != MarshalLen(ul) {
		t.Fatal(n, err)
	}
	var back ULUnitdata
	if err := back.Unmarshal(b[:n]); err != nil || !reflect.DeepEqual(&back, ul) {
		t.Fatalf("%v %+v", err, back)
	}
	if _, err := ul.MarshalTo(b[:n-1]); err != ErrShortBuffer {
		t.Fatal(err)
	}
}

func TestIMSI(t *testing.T) {
	for _, s := range []string{"901700000000001", "26201123456789", "1"} {
		v, err := EncodeIMSI(s)
		if err != nil {
			t.Fatal(err)
		}
		got, err := DecodeIMSI(v)
		if err != nil || got != s {
			t.Fatalf("%s: %x -> %q %v", s, v, got, err)
		}
	}
	v, _ := EncodeIMSI("901700000000001")
	if !bytes.Equal(v, testutil.Hex(t, "9910070000000010")) {
		t.Fatalf("%x", v)
	}
}

func TestRAI(t *testing.T) {
	b := make([]byte, 6)
	r := RAI{MCC: 262, MNC: 42, LAC: 0x1234, RAC: 5}
	r.put(b)
	if !bytes.Equal(b, testutil.Hex(t, "62f224123405")) || parseRAI(b) != r {
		t.Fatalf("%x", b)
	}
	r3 := RAI{MCC: 310, MNC: 260, MNC3Digits: true, LAC: 1, RAC: 1}
	r3.put(b)
	if !bytes.Equal(b, testutil.Hex(t, "130062000101")) || parseRAI(b) != r3 {
		t.Fatalf("%x %+v", b, parseRAI(b))
	}
}

// decodeErrors: malformed PDUs and the cause of the STATUS that answers them
// (TS 48.018 §8.7, §11.3.8; osmo-pcu gprs_bssgp_pcu.c gprs_bssgp_pcu_rcvmsg()).
var decodeErrors = []struct {
	name  string
	hex   string
	cause Cause
}{
	{"empty", "", CauseProtocolErrorUnspec},
	{"reserved type", "3f", CauseProtocolErrorUnspec},
	{"DL-UNITDATA header truncated", "00c00000", CauseInvalidMandatoryInfo},
	{"DL-UNITDATA no lifetime", "00c0000002000000 0e0001ff", CauseMissingMandatoryIE},
	{"DL-UNITDATA no LLC", "00c0000002000000 16820bb8", CauseMissingMandatoryIE},
	{"DL-UNITDATA lifetime len 1", "00c0000002000000 16810b 0e0001ff", CauseInvalidMandatoryInfo},
	{"DL-UNITDATA LLC truncated", "00c0000002000000 16820bb8 0e0005ff", CauseInvalidMandatoryInfo},
	{"DL-UNITDATA IMSI not IMSI", "00c0000002000000 16820bb8 0d820cf4 0e0001ff", CauseConditionalIEError},
	{"DL-UNITDATA old TLLI len 2", "00c0000002000000 16820bb8 1f820000 0e0001ff", CauseConditionalIEError},
	{"DL-UNITDATA IE length missing", "00c0000002000000 16", CauseInvalidMandatoryInfo},
	{"PAGING-PS no IMSI", "06 04820708 18830000 00", CauseMissingMandatoryIE},
	{"PAGING-PS TMSI len 3", "06 0d889910070000000010 04820708 18830000 00 2083deadbe", CauseConditionalIEError},
	{"PAGING-PS no area", "06 0d889910070000000010 18830000 00", CauseMissingConditionalIE},
	{"PAGING-PS IMSI bad type", "06 0d889c10070000000010 04820708 18830000 00", CauseInvalidMandatoryInfo},
	{"PAGING-CS no DRX", "07 0d889910070000000010 04820708", CauseMissingMandatoryIE},
	{"BVC-RESET no cause", "22 04820708", CauseMissingMandatoryIE},
	{"BVC-RESET BVCI len 1", "22 048107 078108", CauseInvalidMandatoryInfo},
	{"BVC-RESET cell id short", "22 04820708 078108 088709f1070001001b", CauseConditionalIEError},
	{"BVC-RESET-ACK no BVCI", "23", CauseMissingMandatoryIE},
	{"BVC-BLOCK no cause", "20 04820708", CauseMissingMandatoryIE},
	{"BVC-UNBLOCK-ACK 2-octet length truncated", "25 0400", CauseInvalidMandatoryInfo},
	{"FLOW-CONTROL-BVC-ACK no tag", "27", CauseMissingMandatoryIE},
	{"FLUSH-LL no BVCI", "2a 1f84c0000002", CauseMissingMandatoryIE},
	{"SUSPEND-ACK RA len 5", "0c 1f84c0000002 1b8509f1070001 1d8103", CauseInvalidMandatoryInfo},
	{"RADIO-STATUS no identity", "0a 198101", CauseMissingConditionalIE},
	{"STATUS no cause", "41 04820708", CauseMissingMandatoryIE},
	{"RA-CAPABILITY empty MS RAC", "02 1f84c0000002 1380", CauseInvalidMandatoryInfo},
	{"UL-UNITDATA no cell id", "01 c0000001 000004 0e0001aa", CauseMissingMandatoryIE},
}

func TestDecodeErrors(t *testing.T) {
	for _, c := range decodeErrors {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse(testutil.Hex(t, c.hex))
			got, ok := CauseOf(err)
			if !ok || got != c.cause {
				t.Fatalf("cause %v (%v) want %v", got, err, c.cause)
			}
		})
	}
	_, err := Parse(testutil.Hex(t, "2204820708"))
	if !errors.Is(err, ErrMissingMandatoryIE) {
		t.Fatal(err)
	}
}

func FuzzParse(f *testing.F) {
	for _, g := range goldens {
		f.Add(testutil.Hex(f, g.hex))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		testutil.CheckParse(t, b, Parse, Marshal, func(err error) bool { _, ok := CauseOf(err); return ok })
	})
}

func FuzzDLUnitdata(f *testing.F) {
	f.Add(testutil.Hex(f, goldens[12].hex))
	f.Fuzz(func(t *testing.T, b []byte) {
		var p DLUnitdata
		_ = p.Unmarshal(b)
	})
}

func BenchmarkULUnitdataEncode1500(b *testing.B) {
	ul := ULUnitdata{TLLI: 0xc0000001, QoS: [3]byte{0, 0, 4}, CellID: labCell, LLC: make([]byte, 1500)}
	buf := make([]byte, 1600)
	b.ReportAllocs()
	b.SetBytes(1500)
	for b.Loop() {
		if _, err := ul.MarshalTo(buf); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkULUnitdataMarshal1500(b *testing.B) {
	ul := ULUnitdata{TLLI: 0xc0000001, QoS: [3]byte{0, 0, 4}, CellID: labCell, LLC: make([]byte, 1500)}
	b.ReportAllocs()
	b.SetBytes(1500)
	for b.Loop() {
		out := make([]byte, ul.MarshalLen())
		if _, err := ul.MarshalTo(out); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDLUnitdataDecode1500(b *testing.B) {
	dl := DLUnitdata{TLLI: 0xc0000002, PDULifetime: 500, IMSI: imsi1, MSRAC: []byte{1, 2, 3, 4}, Alignment: -1,
		LLC: make([]byte, 1500)}
	pkt, _ := Marshal(&dl)
	var p DLUnitdata
	b.ReportAllocs()
	b.SetBytes(int64(len(pkt)))
	for b.Loop() {
		if err := p.Unmarshal(pkt); err != nil {
			b.Fatal(err)
		}
	}
}

// TestLLCDiscardedMarshalTo: the PDU's own MarshalTo encodes what the
// generic one does, without allocating.
func TestLLCDiscardedMarshalTo(t *testing.T) {
	p := &LLCDiscarded{TLLI: 0xc0000002, Frames: 2, BVCI: 1800, NumOctets: 1500}
	want, _ := Marshal(p)
	var b [32]byte
	n, err := p.MarshalTo(b[:])
	if err != nil || !bytes.Equal(b[:n], want) {
		t.Fatalf("%x (%v), want %x", b[:n], err, want)
	}
	if _, err := p.MarshalTo(b[:n-1]); err != ErrShortBuffer {
		t.Fatalf("short buffer: %v", err)
	}
	if a := testing.AllocsPerRun(100, func() { p.MarshalTo(b[:]) }); a != 0 {
		t.Fatalf("%.1f allocations", a)
	}
}
