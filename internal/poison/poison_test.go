package poison

import "testing"

func TestFill(t *testing.T) {
	b := make([]byte, 2, 4)
	copy(b, "ab")
	Fill(b)
	if string(b) != "ab" {
		t.Fatalf("filled while off: %x", b)
	}
	Enable()
	Fill(b)
	if b := b[:cap(b)]; string(b) != "\xaa\xaa\xaa\xaa" {
		t.Fatalf("not filled up to cap: %x", b)
	}
	for _, n := range []int{1, 3, 1543, 4096} {
		b := make([]byte, n)
		Fill(b)
		for i, c := range b {
			if c != Byte {
				t.Fatalf("%d octets: octet %d is %#x", n, i, c)
			}
		}
	}
	Fill(nil)
	Disable()
	b = b[:1]
	b[0] = 1
	Fill(b)
	if b[0] != 1 {
		t.Fatal("filled while disabled")
	}
}
