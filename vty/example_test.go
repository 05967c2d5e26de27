package vty_test

import (
	"fmt"
	"strings"

	"github.com/gopcu/gopcu/vty"
)

// An engine adds a show command with a handler; the handler runs in the
// engine's goroutine (through the Executor given to the server) and
// writes to c.
func ExampleNode_Install() {
	v := vty.New(vty.AppInfo{Name: "OsmoPCU", Version: "0.1"})
	v.Finish()
	pdchs := 8 // engine state
	v.InstallVE("show bts pdch", "Show running system information\nBTS related functionality\nPDCH timeslots\n",
		func(c *vty.Context) error {
			c.Printf("BTS0 (active)\n  %d PDCH\n", pdchs)
			return nil
		})
	s := v.NewSession(nil) // nil executor: run handlers in place
	s.Start()
	fmt.Print(strings.ReplaceAll(s.Exec("sh bts pdch"), "\n", "|\n"))
	// Output:
	// BTS0 (active)|
	//   8 PDCH|
}
