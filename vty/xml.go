package vty

import (
	"fmt"
	"io"
	"strings"
)

// XMLMode selects the commands of the XML VTY reference.
type XMLMode int

// XML reference modes (libosmocore enum vty_ref_gen_mode).
const (
	XMLDefault XMLMode = iota // all but deprecated and hidden
	XMLExpert                 // all but deprecated
	XMLHidden                 // hidden only
)

var commonCmds = map[string]bool{
	"help": true, "list [with-flags]": true, "show vty-attributes": true,
	"show vty-attributes (application|library|global)": true, "write terminal": true,
	"write file [PATH]": true, "write memory": true, "write": true, "show running-config": true,
	"exit": true, "end": true,
}

func isCommon(c *Cmd) bool { return c.Attr&attrLib != 0 && commonCmds[c.String] }

var xmlEsc = strings.NewReplacer(`"`, "&quot;", `'`, "&apos;", "<", "&lt;", ">", "&gt;", "&", "&amp;")

func (v *VTY) dumpElement(w io.Writer, c *Cmd, nl string) {
	fmt.Fprintf(w, "    <command id='%s'>%s", xmlEsc.Replace(c.String), nl)
	if c.Attr&(AttrHidden|AttrImmediate|AttrNodeExit) != 0 {
		fmt.Fprintf(w, "      <attributes scope='global'>%s", nl)
		for _, g := range globalAttrDesc {
			if c.Attr&g.a == 0 {
				continue
			}
			fmt.Fprintf(w, "        <attribute doc='%s'", xmlEsc.Replace(g.desc))
			if g.flag != '.' {
				fmt.Fprintf(w, " flag='%c'", g.flag)
			}
			fmt.Fprintf(w, " />%s", nl)
		}
		fmt.Fprintf(w, "      </attributes>%s", nl)
	}
	if c.UsrAttr != 0 {
		scope := "application"
		if c.Attr&attrLib != 0 {
			scope = "library"
		}
		fmt.Fprintf(w, "      <attributes scope='%s'>%s", scope, nl)
		for i := 0; i < 32; i++ {
			if c.UsrAttr&(1<<i) == 0 {
				continue
			}
			var a UsrAttr
			if c.Attr&attrLib != 0 {
				a = libAttrs[i]
			} else if i < len(v.Info.UsrAttrs) {
				a = v.Info.UsrAttrs[i]
			}
			fmt.Fprintf(w, "        <attribute doc='%s'", xmlEsc.Replace(a.Desc))
			if a.Letter != 0 {
				fmt.Fprintf(w, " flag='%c'", a.Letter)
			}
			fmt.Fprintf(w, " />%s", nl)
		}
		fmt.Fprintf(w, "      </attributes>%s", nl)
	}
	fmt.Fprintf(w, "      <params>%s", nl)
	for _, slot := range c.slots {
		for _, d := range slot {
			doc := "(null)"
			if d.hasHelp {
				doc = xmlEsc.Replace(d.help)
			}
			fmt.Fprintf(w, "        <param name='%s' doc='%s' />%s", xmlEsc.Replace(d.cmd), doc, nl)
		}
	}
	fmt.Fprintf(w, "      </params>%s", nl)
	fmt.Fprintf(w, "    </command>%s", nl)
}

func (mode XMLMode) wants(c *Cmd) bool {
	switch mode {
	case XMLExpert:
		return c.Attr&AttrDeprecated == 0
	case XMLHidden:
		return c.Attr&AttrHidden != 0
	}
	return c.Attr&(AttrDeprecated|AttrHidden) == 0
}

// WriteXMLReference writes the XML VTY reference (osmo-pcu --vty-ref-xml,
// `show online-help`) in libosmocore's format (vty_dump_nodes).
func (v *VTY) WriteXMLReference(w io.Writer, mode XMLMode) {
	v.writeXML(w, mode, "\n")
}

func (v *VTY) writeXML(w io.Writer, mode XMLMode, nl string) {
	fmt.Fprintf(w, "<vtydoc xmlns='urn:osmocom:xml:libosmocore:vty:doc:1.0'>%s", nl)
	fmt.Fprintf(w, "  <node id='_common_cmds_'>%s", nl)
	fmt.Fprintf(w, "    <name>Common Commands</name>%s", nl)
	fmt.Fprintf(w, "    <description>These commands are available on all VTY nodes. They are listed"+
		" here only once, to unclutter the VTY reference.</description>%s", nl)
	for _, c := range v.Config().Cmds {
		if isCommon(c) && mode.wants(c) {
			v.dumpElement(w, c, nl)
		}
	}
	fmt.Fprintf(w, "  </node>%s", nl)
	seen := map[string]int{}
	for _, n := range v.nodes {
		if n == nil || len(n.Cmds) == 0 {
			continue
		}
		seen[n.Name]++
		fmt.Fprintf(w, "  <node id='%s", n.Name)
		if seen[n.Name] > 1 || n.Name == "" {
			fmt.Fprintf(w, "_%d", seen[n.Name])
		}
		fmt.Fprintf(w, "'>%s", nl)
		fmt.Fprintf(w, "    <name>%s</name>%s", n.Name, nl)
		for _, c := range n.Cmds {
			if !isCommon(c) && mode.wants(c) {
				v.dumpElement(w, c, nl)
			}
		}
		fmt.Fprintf(w, "  </node>%s", nl)
	}
	fmt.Fprintf(w, "</vtydoc>%s", nl)
}
