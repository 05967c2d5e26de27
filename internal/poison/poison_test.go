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
}
