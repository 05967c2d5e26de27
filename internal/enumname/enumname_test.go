package enumname

import "testing"

type kind uint8

func TestString(t *testing.T) {
	names := map[kind]string{1: "ONE", 2: "TWO"}
	for _, c := range []struct {
		v    kind
		want string
	}{{1, "ONE"}, {2, "TWO"}, {0, "KIND(0x00)"}, {0xfe, "KIND(0xfe)"}} {
		if got := String(names, c.v, "KIND(0x%02x)"); got != c.want {
			t.Errorf("String(%d) = %q, want %q", c.v, got, c.want)
		}
	}
}
