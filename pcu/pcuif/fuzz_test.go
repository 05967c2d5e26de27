package pcuif

import (
	"reflect"
	"testing"
)

// FuzzParse: no input panics the decoder, and whatever decodes re-encodes
// to bytes that decode to the same message.
func FuzzParse(f *testing.F) {
	for _, g := range goldens(f) {
		f.Add(uint8(g.v), g.b)
	}
	f.Fuzz(func(t *testing.T, ver uint8, b []byte) {
		v := Version(ver%3) + V10
		m, err := Parse(b, v)
		if err != nil {
			return
		}
		if ii, ok := m.(*InfoInd); ok {
			v = ii.Version
		}
		out, err := Marshal(m, v)
		if err != nil {
			t.Fatalf("decoded %#v but cannot encode: %v", m, err)
		}
		m2, err := Parse(out, v)
		if err != nil {
			t.Fatalf("re-encoded message does not parse: %v", err)
		}
		if !reflect.DeepEqual(m, m2) {
			t.Fatalf("round trip differs:\n%#v\n%#v", m, m2)
		}
	})
}
