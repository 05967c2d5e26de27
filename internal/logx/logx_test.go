package logx

import (
	"bytes"
	"strings"
	"testing"
)

func TestCategoryLevels(t *testing.T) {
	var b bytes.Buffer
	r := NewText(&b)
	l := r.Logger(CatL1IF)
	l.Info("hidden")
	if b.Len() != 0 {
		t.Fatalf("info logged at default notice level: %q", b.String())
	}
	if err := r.SetLevel(CatL1IF, LevelDebug); err != nil {
		t.Fatal(err)
	}
	l.Debug("shown", "fn", 42)
	if !strings.Contains(b.String(), "shown") || !strings.Contains(b.String(), "cat=l1if") {
		t.Fatalf("debug line missing: %q", b.String())
	}
	if err := r.SetLevel("nope", LevelDebug); err == nil {
		t.Fatal("unknown category accepted")
	}
	if lv, err := ParseLevel("notice"); err != nil || lv != LevelNotice {
		t.Fatal("ParseLevel notice")
	}
}
