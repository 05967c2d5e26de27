package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestReport: packages, a failing test's output, and the skip list with
// each reason.
func TestReport(t *testing.T) {
	in := `{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Test":"TestA","Output":"=== RUN   TestA\n"}
{"Action":"output","Package":"p","Test":"TestA","Output":"    a_test.go:9: needs root (network namespaces)\n"}
{"Action":"output","Package":"p","Test":"TestA","Output":"--- SKIP: TestA (0.00s)\n"}
{"Action":"skip","Package":"p","Test":"TestA","Elapsed":0}
{"Action":"output","Package":"p","Test":"TestB","Output":"    b_test.go:3: got 1, want 2\n"}
{"Action":"fail","Package":"p","Test":"TestB","Elapsed":0.1}
{"Action":"fail","Package":"p","Elapsed":0.2}
{"Action":"pass","Package":"q","Elapsed":1.5}
{"Action":"skip","Package":"r","Elapsed":0}
`
	var out bytes.Buffer
	failed, err := report(strings.NewReader(in), &out)
	if err != nil || !failed {
		t.Fatalf("failed=%v err=%v", failed, err)
	}
	for _, want := range []string{
		"--- FAIL: TestB (p)\n    b_test.go:3: got 1, want 2\n",
		"FAIL\tp\t0.200s\n",
		"ok  \tq\t1.500s\n",
		"?   \tr\t[no test files]\n",
		"=== 1 tests skipped (this run is partial):\n  p TestA: needs root (network namespaces) (a_test.go:9)\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if failed, _ := report(strings.NewReader(`{"Action":"pass","Package":"q","Elapsed":1}`+"\n"), &out); failed || !strings.Contains(out.String(), "no test skipped") {
		t.Errorf("clean run: failed=%v\n%s", failed, out.String())
	}
}
