package pcuif

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestWriteSeedCorpus regenerates testdata/fuzz/FuzzParse from the golden
// vectors when GOPCU_WRITE_CORPUS=1 (the committed files are the fuzzer's
// seed corpus besides the f.Add seeds).
func TestWriteSeedCorpus(t *testing.T) {
	if os.Getenv("GOPCU_WRITE_CORPUS") != "1" {
		t.Skip("needs GOPCU_WRITE_CORPUS=1 (regenerates the seed corpus)")
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzParse")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i, g := range goldens(t) {
		body := fmt.Sprintf("go test fuzz v1\nuint8(%d)\n[]byte(%q)\n", uint8(g.v), g.b)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("golden-%03d", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
