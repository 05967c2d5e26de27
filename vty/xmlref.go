package vty

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

// xmlModeNames are libosmocore's vty_ref_gen_mode names and descriptions
// (libosmocore src/vty/command.c, vty_ref_gen_mode_names/_desc), as the
// --vty-ref-mode option of every Osmocom program takes them.
var xmlModeNames = []struct {
	mode       XMLMode
	name, desc string
}{
	{XMLDefault, "default", "all commands except deprecated and hidden"},
	{XMLExpert, "expert", "all commands including hidden, excluding deprecated"},
	{XMLHidden, "hidden", "hidden commands only"},
}

// ParseXMLMode parses a --vty-ref-mode argument.
func ParseXMLMode(name string) (XMLMode, error) {
	for _, m := range xmlModeNames {
		if m.name == name {
			return m.mode, nil
		}
	}
	return 0, fmt.Errorf("Unknown VTY reference generation mode '%s'", name) //lint:ignore ST1005 libosmocore's message
}

// String is the mode's --vty-ref-mode name.
func (mode XMLMode) String() string {
	for _, m := range xmlModeNames {
		if m.mode == mode {
			return m.name
		}
	}
	return fmt.Sprintf("XMLMode(%d)", int(mode))
}

// Description is libosmocore's description of the mode ("Generating the
// VTY reference in mode '%s' (%s)").
func (mode XMLMode) Description() string {
	for _, m := range xmlModeNames {
		if m.mode == mode {
			return m.desc
		}
	}
	return ""
}

// RefDoc is a parsed XML VTY reference (libosmocore's vtydoc schema,
// urn:osmocom:xml:libosmocore:vty:doc:1.0), as written by
// WriteXMLReference or by any libosmocore program's --vty-ref-xml.
type RefDoc struct {
	XMLName xml.Name  `xml:"vtydoc"`
	Nodes   []RefNode `xml:"node"`
}

// RefNode is one <node> of the reference: a VTY node, or the pseudo node
// "_common_cmds_" of the commands present on every node.
type RefNode struct {
	ID          string   `xml:"id,attr"`
	Name        string   `xml:"name"`
	Description string   `xml:"description"`
	Commands    []RefCmd `xml:"command"`
}

// RefCmd is one <command>: its command string, attributes and the help
// text of each token.
type RefCmd struct {
	ID         string         `xml:"id,attr"`
	Attributes []RefAttrGroup `xml:"attributes"`
	Params     []RefParam     `xml:"params>param"`
}

// RefAttrGroup is an <attributes scope='global|library|application'>.
type RefAttrGroup struct {
	Scope string    `xml:"scope,attr"`
	Attrs []RefAttr `xml:"attribute"`
}

// RefAttr is one attribute with its flag letter (empty for none).
type RefAttr struct {
	Doc  string `xml:"doc,attr"`
	Flag string `xml:"flag,attr"`
}

// RefParam is one token of the command string with its help text.
type RefParam struct {
	Name string `xml:"name,attr"`
	Doc  string `xml:"doc,attr"`
}

// Flags returns the attribute flag letters of the command (e.g. "^!").
func (c *RefCmd) Flags() string {
	var b strings.Builder
	for _, g := range c.Attributes {
		for _, a := range g.Attrs {
			b.WriteString(a.Flag)
		}
	}
	return b.String()
}

// Hidden reports whether the command carries the global hidden attribute
// (listed in expert mode only).
func (c *RefCmd) Hidden() bool {
	for _, g := range c.Attributes {
		for _, a := range g.Attrs {
			if g.Scope == "global" && a.Flag == "^" {
				return true
			}
		}
	}
	return false
}

// ParseXMLReference reads an XML VTY reference.
func ParseXMLReference(r io.Reader) (*RefDoc, error) {
	var d RefDoc
	if err := xml.NewDecoder(r).Decode(&d); err != nil {
		return nil, fmt.Errorf("vty reference: %w", err)
	}
	return &d, nil
}

// Node returns the node with this id, or nil.
func (d *RefDoc) Node(id string) *RefNode {
	for i := range d.Nodes {
		if d.Nodes[i].ID == id {
			return &d.Nodes[i]
		}
	}
	return nil
}

// nodeTitles say where a node is entered (libosmocore's and osmo-pcu's
// node prompts); nodes without an entry keep their id.
var nodeTitles = map[string]string{
	"_common_cmds_":    "Common commands (every node)",
	"view":             "VIEW node (`OsmoPCU>`)",
	"enable":           "ENABLE node (`OsmoPCU#`, after `enable`)",
	"config":           "CONFIG node (`OsmoPCU(config)#`, after `configure terminal`)",
	"config-log":       "Log target node (`OsmoPCU(config-log)#`, after `log stderr|file|syslog|gsmtap`)",
	"config-stats":     "Stats reporter node (`OsmoPCU(config-stats)#`, after `stats reporter statsd|log`)",
	"config-line":      "Line node (`OsmoPCU(config-line)#`, after `line vty`)",
	"config-cpu-sched": "CPU scheduling node (`OsmoPCU(config-cpu-sched)#`, after `cpu-sched`)",
	"config-pcu":       "PCU node (`OsmoPCU(config-pcu)#`, after `pcu`)",
	"config-ns":        "NS node (`OsmoPCU(config-ns)#`, after `ns`)",
}

// mdCell escapes text for a Markdown table cell.
func mdCell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "\n", " ")
}

// WriteMarkdown renders the reference as Markdown: one section per node,
// one entry per command with its attribute flags and a table of its
// tokens' help texts. The text is fully determined by the XML.
func (d *RefDoc) WriteMarkdown(w io.Writer, title, preamble string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n%s\n", title, strings.TrimRight(preamble, "\n"))
	b.WriteString("\n## Contents\n\n")
	for _, n := range d.Nodes {
		fmt.Fprintf(&b, "- [%s](#node-%s) (%d commands)\n", nodeTitle(n), n.ID, len(n.Commands))
	}
	for _, n := range d.Nodes {
		fmt.Fprintf(&b, "\n<a id=\"node-%s\"></a>\n\n## %s\n\n", n.ID, nodeTitle(n))
		if n.Description != "" {
			fmt.Fprintf(&b, "%s\n\n", n.Description)
		}
		for _, c := range n.Commands {
			fmt.Fprintf(&b, "### `%s`\n\n", c.ID)
			for _, g := range c.Attributes {
				for _, a := range g.Attrs {
					flag := ""
					if a.Flag != "" {
						flag = fmt.Sprintf(" (`%s`)", a.Flag)
					}
					fmt.Fprintf(&b, "- %s attribute%s: %s\n", g.Scope, flag, a.Doc)
				}
			}
			if len(c.Attributes) > 0 {
				b.WriteString("\n")
			}
			b.WriteString("| Token | Help |\n|---|---|\n")
			for _, p := range c.Params {
				fmt.Fprintf(&b, "| `%s` | %s |\n", mdCell(p.Name), mdCell(p.Doc))
			}
			b.WriteString("\n")
		}
	}
	_, err := io.WriteString(w, strings.TrimRight(b.String(), "\n")+"\n")
	return err
}

func nodeTitle(n RefNode) string {
	if t, ok := nodeTitles[n.ID]; ok {
		return t
	}
	if n.Name != "" && n.Name != n.ID {
		return fmt.Sprintf("%s (`%s`)", n.Name, n.ID)
	}
	return fmt.Sprintf("Node `%s`", n.ID)
}
