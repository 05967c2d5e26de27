package testutil

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// FuzzCorpus reads the []byte inputs of a committed Go fuzz corpus
// directory (testdata/fuzz/FuzzX: files in the "go test fuzz v1" format,
// one []byte(...) argument each), so that a fuzzer of one package can
// seed from the corpus of another (a state machine from its codec's
// decoder corpus). Files it cannot read fail the test.
func FuzzCorpus(t testing.TB, dir string) [][]byte {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("fuzz corpus %s: no files (%v)", dir, err)
	}
	var out [][]byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if len(lines) != 2 || lines[0] != "go test fuzz v1" ||
			!strings.HasPrefix(lines[1], "[]byte(") || !strings.HasSuffix(lines[1], ")") {
			t.Fatalf("%s: not a one-[]byte go fuzz corpus file", f)
		}
		v, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[1], "[]byte("), ")"))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out = append(out, []byte(v))
	}
	return out
}
