package main

import (
	"fmt"
	"io"

	"github.com/gopcu/gopcu/internal/app"
	"github.com/gopcu/gopcu/internal/logx"
	"github.com/gopcu/gopcu/internal/ratectr"
	"github.com/gopcu/gopcu/vty"
)

// writeVTYRef is --vty-ref-xml: the XML VTY reference of the whole command
// tree (library nodes, the pcu node, the engine's show commands) on
// stdout, as libosmocore programs print it (vty_dump_xml_ref_mode): the
// "Generating ..." line on stderr, exit code 0; an unknown
// --vty-ref-mode is exit code 2. No config file is read and nothing is
// started.
func writeVTYRef(s *settings, stdout, stderr io.Writer) int {
	mode, err := vty.ParseXMLMode(s.VTYRefMode)
	if err != nil {
		fmt.Fprintf(stderr, "gopcu: %v\n", err)
		return 2
	}
	bare := &settings{Settings: app.DefaultSettings()} // no config file, no pcap, no metrics
	d, err := newDaemon(bare, logx.Discard(), nil, &ratectr.Registry{}, io.Discard)
	if err != nil {
		fmt.Fprintf(stderr, "gopcu: %v\n", err)
		return 1
	}
	fmt.Fprintf(stderr, "Generating the VTY reference in mode '%s' (%s)\n", mode, mode.Description())
	d.VTY().WriteXMLReference(stdout, mode)
	return 0
}
