// Command testreport reads `go test -json` from standard input and prints
// what a person wants from a long run: one line per package, the whole
// output of every failing test, and at the end the list of skipped tests
// with the reason each gave, so a run without root or without the Osmocom
// packages is visibly partial. It exits 1 when a test or package failed.
//
//	go test -json ./... | go run ./scripts/testreport
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

type key struct{ pkg, test string }

func main() {
	failed, err := report(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testreport:", err)
		os.Exit(2)
	}
	if failed {
		os.Exit(1)
	}
}

// report prints the summary of the events in r to w; it reports whether
// anything failed.
func report(r io.Reader, w io.Writer) (bool, error) {
	out := map[key][]string{}
	var skips []string
	failed := false
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if err := json.Unmarshal(line, &e); err != nil || e.Action == "" {
			fmt.Fprintln(w, string(line)) // build errors and the like come as plain text
			continue
		}
		k := key{e.Package, e.Test}
		switch e.Action {
		case "output":
			out[k] = append(out[k], e.Output)
		case "skip":
			if e.Test != "" {
				skips = append(skips, fmt.Sprintf("%s %s: %s", e.Package, e.Test, skipReason(out[k])))
			} else {
				fmt.Fprintf(w, "?   \t%s\t[no test files]\n", e.Package)
			}
			delete(out, k)
		case "pass":
			if e.Test == "" {
				fmt.Fprintf(w, "ok  \t%s\t%.3fs\n", e.Package, e.Elapsed)
			}
			delete(out, k)
		case "fail":
			failed = true
			if e.Test != "" {
				fmt.Fprintf(w, "--- FAIL: %s (%s)\n%s", e.Test, e.Package, strings.Join(out[k], ""))
			} else {
				// package-level output: build failures, panics, TestMain
				fmt.Fprintf(w, "%sFAIL\t%s\t%.3fs\n", strings.Join(out[k], ""), e.Package, e.Elapsed)
			}
			delete(out, k)
		}
	}
	if err := sc.Err(); err != nil {
		return failed, err
	}
	sort.Strings(skips)
	if len(skips) > 0 {
		fmt.Fprintf(w, "\n=== %d tests skipped (this run is partial):\n", len(skips))
		for _, s := range skips {
			fmt.Fprintln(w, "  "+s)
		}
	} else {
		fmt.Fprintln(w, "\n=== no test skipped")
	}
	return failed, nil
}

// skipReason is the message a skipped test logged: the last output line
// that is not the "--- SKIP" line itself.
func skipReason(lines []string) string {
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l == "" || strings.HasPrefix(l, "--- SKIP") || strings.HasPrefix(l, "=== ") {
			continue
		}
		// "file_test.go:12: needs root" -> "needs root (file_test.go:12)"
		if f, msg, ok := strings.Cut(l, ": "); ok && strings.Contains(f, ".go:") {
			return msg + " (" + f + ")"
		}
		return l
	}
	return "(no reason given)"
}
