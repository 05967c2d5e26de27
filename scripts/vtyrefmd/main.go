// Command vtyrefmd turns gopcu's XML VTY reference on stdin into
// docs/vty-reference.md on stdout (`make vty-ref`).
package main

import (
	"fmt"
	"os"

	"github.com/gopcu/gopcu/internal/vtyrefdoc"
)

func main() {
	if err := vtyrefdoc.Markdown(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "vtyrefmd: %v\n", err)
		os.Exit(1)
	}
}
