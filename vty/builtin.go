package vty

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"unicode"
)

// lib installs a library command whose help comes from libHelp.
func (n *Node) lib(str string, h Handler, opts ...Opt) *Cmd {
	help, ok := libHelp[str]
	if !ok {
		panic("vty: no help for library command " + str)
	}
	return n.Install(str, help, h, append(opts, libCmd())...)
}

// installBasic adds the commands every node has (libosmocore
// install_basic_node_commands).
func (v *VTY) installBasic(n *Node) {
	n.lib("help", cmdHelp)
	n.lib("list [with-flags]", cmdList)
	n.lib("show vty-attributes", cmdShowAttrAll)
	n.lib("show vty-attributes (application|library|global)", cmdShowAttr)
	n.lib("write terminal", cmdWriteTerminal)
	n.lib("write file [PATH]", cmdWriteFile)
	n.lib("write memory", cmdWriteFile)
	n.lib("write", cmdWriteFile)
	n.lib("show running-config", cmdWriteTerminal)
	n.lib("exit", cmdExit)
	if n.ID >= ConfigNode {
		n.lib("end", cmdEnd)
	}
}

// installTerminal adds the terminal commands the view and enable nodes
// both have (libosmocore vty.c vty_init): terminal length, terminal no
// length and the hidden echo.
func (n *Node) installTerminal() {
	n.lib("terminal length <0-512>", cmdTermLength)
	n.lib("terminal no length", cmdTermNoLength)
	n.Install("echo .MESSAGE", "Echo a message back to the vty\nThe message to echo\n", cmdEcho, Hidden(), libCmd())
}

func (v *VTY) installBuiltins() {
	view, enable, config := v.View(), v.Enable(), v.Config()

	view.lib("show pid", func(c *Context) error { c.Printf("%d\n", pid()); return nil })
	view.lib("show uptime", cmdShowUptime)
	view.lib("show version", cmdShowVersion)
	view.lib("show online-help", cmdOnlineHelp)
	view.lib("list [with-flags]", cmdList)
	view.lib("exit", cmdExit)
	view.lib("help", cmdHelp)
	view.lib("show vty-attributes", cmdShowAttrAll)
	view.lib("show vty-attributes (application|library|global)", cmdShowAttr)
	view.lib("enable [expert-mode]", cmdEnable)
	view.installTerminal()

	enable.lib("disable", cmdDisable)
	enable.lib("configure terminal", cmdConfigTerminal)
	enable.lib("copy running-config startup-config", cmdWriteFile)
	enable.lib("shutdown", cmdShutdown)
	enable.lib("show startup-config", cmdShowStartup)
	enable.lib("show version", cmdShowVersion)
	enable.lib("show online-help", cmdOnlineHelp)
	enable.installTerminal()

	config.lib("hostname WORD", cmdHostname)
	config.lib("no hostname [HOSTNAME]", func(c *Context) error { c.v.locked(func() { c.v.hostName = "" }); return nil })
	config.lib("password (8|) WORD", cmdPassword)
	config.lib("password LINE", cmdPassword)
	config.lib("enable password (8|) WORD", cmdEnablePassword)
	config.lib("enable password LINE", cmdEnablePassword)
	config.lib("no enable password", func(c *Context) error {
		c.v.locked(func() { c.v.enablePass, c.v.enablePassEnc = "", false })
		return nil
	})
	config.lib("banner motd default", func(c *Context) error { c.v.locked(func() { c.v.motdDefault, c.v.motdFile = true, "" }); return nil })
	config.lib("banner motd file [FILE]", func(c *Context) error {
		f := ""
		if len(c.Args) > 0 {
			f = c.Args[0]
		}
		c.v.locked(func() { c.v.motdFile = f })
		return nil
	})
	config.lib("no banner motd", func(c *Context) error { c.v.locked(func() { c.v.motdDefault, c.v.motdFile = false, "" }); return nil })
	config.lib("service terminal-length <0-512>", func(c *Context) error {
		n, _ := strconv.Atoi(c.Args[0])
		c.v.locked(func() { c.v.lines = n })
		return nil
	})
	config.lib("no service terminal-length [<0-512>]", func(c *Context) error { c.v.locked(func() { c.v.lines = -1 }); return nil })

	// vty_init: line vty node and its commands
	line := v.addNode(lineNode, "config-line", "%s(config-line)# ", v.writeLine)
	v.InstallVE("who", libHelp["who"], cmdWho, libCmd())
	v.InstallVE("show history", libHelp["show history"], cmdShowHistory, libCmd())
	config.lib("line vty", func(c *Context) error { c.Enter(lineNode, nil); return nil })
	config.lib("service advanced-vty", func(c *Context) error { c.v.locked(func() { c.v.advanced = true }); return nil })
	config.lib("no service advanced-vty", func(c *Context) error { c.v.locked(func() { c.v.advanced = false }); return nil })
	config.lib("show history", cmdShowHistory)
	enable.lib("terminal monitor", Pending)
	enable.lib("terminal no monitor", Pending)
	line.lib("login", func(c *Context) error { c.v.locked(func() { c.v.passwordCheck = true }); return nil })
	line.lib("no login", func(c *Context) error { c.v.locked(func() { c.v.passwordCheck = false }); return nil })
	line.lib("bind A.B.C.D [<0-65535>]", func(c *Context) error {
		c.v.bindAddr = c.Args[0]
		c.v.bindPort = -1
		if len(c.Args) > 1 {
			c.v.bindPort, _ = strconv.Atoi(c.Args[1])
		}
		return nil
	})
	v.bindPort = -1

	// logging_vty_add_cmds, osmo_stats_vty_add_cmds, talloc, fsm
	v.installLogging()
	v.installStats()
	v.installTallocFSM()
}

// Node numbers of the library nodes, in libosmocore's enum order, so that
// the running config is written log, stats, line vty, ns, cpu-sched, then
// the application's nodes.
const (
	LogNode      NodeID = firstLibNode + iota // "config-log"
	StatsNode                                 // "config-stats"
	lineNode                                  // "config-line"
	NSNode                                    // "config-ns"
	CPUSchedNode                              // "config-cpu-sched"
	firstAppNode
)

// LineNode is `line vty`.
const LineNode = lineNode

func cmdHelp(c *Context) error {
	c.Print("This VTY provides advanced help features.  When you need help,\n" +
		"anytime at the command line please press '?'.\n\n" +
		"If nothing matches, the help list will be empty and you must backup\n" +
		" until entering a '?' shows the available options.\n" +
		"Two styles of help are provided:\n" +
		"1. Full help is available when you are ready to enter a\n" +
		"command argument (e.g. 'show ?') and describes each possible\n" +
		"argument.\n" +
		"2. Partial help is provided when an abbreviated argument is entered\n" +
		"   and you want to know what arguments match the input\n" +
		"   (e.g. 'show me?'.)\n\n")
	return nil
}

func cmdExit(c *Context) error {
	st := c.st
	switch st.node {
	case AuthNode, ViewNode, EnableNode:
		st.closed = true
	case ConfigNode:
		st.node = EnableNode
		c.v.configUnlock(st.sess)
	default:
		if st.node > ConfigNode {
			c.v.goParent(c)
		}
	}
	return nil
}

func cmdEnd(c *Context) error {
	st := c.st
	if st.node > EnableNode {
		last := ConfigNode
		for st.node > ConfigNode {
			if st.node == last {
				break
			}
			last = st.node
			c.v.goParent(c)
		}
		c.v.configUnlock(st.sess)
		if st.node > EnableNode {
			st.node = EnableNode
		}
		st.index = nil
	}
	return nil
}

func cmdEnable(c *Context) error {
	st := c.st
	c.v.mu.Lock()
	noPass := c.v.enablePass == ""
	c.v.mu.Unlock()
	if noPass || st.sess == nil {
		st.node = EnableNode
	} else {
		st.node = AuthEnableNode
	}
	st.expert = len(c.Args) > 0
	return nil
}

func cmdDisable(c *Context) error {
	if c.st.node == EnableNode {
		c.st.node = ViewNode
	}
	c.st.expert = false
	return nil
}

func cmdConfigTerminal(c *Context) error {
	if c.v.configLockFor(c.st.sess) {
		c.st.node = ConfigNode
		return nil
	}
	return c.Warnf("VTY configuration is locked by other VTY\n")
}

func (v *VTY) configLockFor(s *Session) bool {
	if s == nil {
		return true
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.configLock == nil {
		v.configLock = s
	}
	return v.configLock == s
}

func (v *VTY) configUnlock(s *Session) {
	if s == nil {
		return
	}
	v.mu.Lock()
	if v.configLock == s {
		v.configLock = nil
	}
	v.mu.Unlock()
}

func cmdShowVersion(c *Context) error {
	i := c.v.Info
	c.Printf("%s %s (%s).\n", i.Name, i.Version, i.Name)
	c.Printf("%s\n", i.Copyright)
	return nil
}

func cmdShowUptime(c *Context) error {
	d := int64(c.v.uptime().Seconds())
	c.Printf("%s has been running for %dd %dh %dm %ds\n", c.v.Info.Name, d/86400, d/3600%24, d/60%60, d%60)
	return nil
}

func cmdTermLength(c *Context) error {
	c.st.lines, _ = strconv.Atoi(c.Args[0])
	return nil
}

func cmdTermNoLength(c *Context) error { c.st.lines = -1; return nil }

func cmdEcho(c *Context) error {
	c.Println(strings.Join(c.Args, " "))
	return nil
}

func cmdShutdown(c *Context) error {
	c.Printf("%s is shutting down. Bye!\n", c.v.Info.Name)
	if c.v.OnShutdown != nil {
		c.v.OnShutdown()
	}
	return nil
}

func cmdShowStartup(c *Context) error {
	path := c.v.Info.ConfigFile
	// file I/O outside the executor
	c.After(func(c *Context) {
		f, err := os.Open(path)
		if err != nil {
			c.Printf("Can't open configuration file [%s]\n", path)
			return
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			c.Println(strings.TrimRight(sc.Text(), "\r"))
		}
	})
	return nil
}

func cmdHostname(c *Context) error {
	a := c.Args[0]
	if r := rune(a[0]); !unicode.IsLetter(r) || r > unicode.MaxASCII {
		return c.Warnf("Please specify string starting with alphabet\n")
	}
	c.v.locked(func() { c.v.hostName = a })
	return nil
}

func setPassword(c *Context, pw *string, enc *bool) error {
	a := c.Args
	if len(a) == 0 {
		return c.Warnf("Please specify password.\n")
	}
	if len(a) == 2 {
		if a[0][0] == '8' {
			c.v.locked(func() { *pw, *enc = a[1], true })
			return nil
		}
		return c.Warnf("Unknown encryption type.\n")
	}
	r := a[0][0]
	if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
		return c.Warnf("Please specify string starting with alphanumeric\n")
	}
	c.v.locked(func() { *pw, *enc = a[0], false })
	return nil
}

func cmdPassword(c *Context) error { return setPassword(c, &c.v.password, &c.v.passwordEnc) }

func cmdEnablePassword(c *Context) error {
	return setPassword(c, &c.v.enablePass, &c.v.enablePassEnc)
}

func cmdWho(c *Context) error {
	c.v.mu.Lock()
	var list []*Session
	for s := range c.v.sessions {
		list = append(list, s)
	}
	lock := c.v.configLock
	c.v.mu.Unlock()
	sortSessions(list)
	for _, s := range list {
		star := " "
		if s == lock {
			star = "*"
		}
		c.Printf("%svty[%d] \n", star, s.id)
	}
	return nil
}

func cmdShowHistory(c *Context) error {
	s := c.Session()
	if s == nil {
		return nil
	}
	for i := s.hindex + 1; i != s.hindex; {
		if i == maxHist {
			i = 0
			continue
		}
		if s.hist[i] != "" {
			c.Printf("  %s\n", s.hist[i])
		}
		i++
	}
	return nil
}

// writeHost is the CONFIG node writer (libosmocore config_write_host).
func (v *VTY) writeHost(c *Context) bool {
	if v.hostName != "" {
		c.Printf("hostname %s\n", v.hostName)
	}
	if v.password != "" {
		if v.passwordEnc {
			c.Printf("password 8 %s\n", v.password)
		} else {
			c.Printf("password %s\n", v.password)
		}
	}
	if v.enablePass != "" {
		if v.enablePassEnc {
			c.Printf("enable password 8 %s\n", v.enablePass)
		} else {
			c.Printf("enable password %s\n", v.enablePass)
		}
	}
	if v.advanced {
		c.Print("service advanced-vty\n")
	}
	if v.lines >= 0 {
		c.Printf("service terminal-length %d\n", v.lines)
	}
	if v.motdFile != "" {
		c.Printf("banner motd file %s\n", v.motdFile)
	} else if !v.motdDefault {
		c.Print("no banner motd\n")
	}
	return true
}

// writeLine is the `line vty` writer (libosmocore vty_config_write).
func (v *VTY) writeLine(c *Context) bool {
	c.Print("line vty\n")
	if v.passwordCheck {
		c.Print(" login\n")
	} else {
		c.Print(" no login\n")
	}
	if v.bindAddr != "" && (v.bindAddr != DefaultBindAddr || v.bindPort >= 0) {
		if v.bindPort >= 0 {
			c.Printf(" bind %s %d\n", v.bindAddr, v.bindPort)
		} else {
			c.Printf(" bind %s\n", v.bindAddr)
		}
	}
	c.Print("!\n")
	return false
}

func cmdWriteTerminal(c *Context) error {
	c.Print("\nCurrent configuration:\n!\n")
	c.v.writeNodes(c)
	c.Print("end\n")
	return nil
}

func cmdWriteFile(c *Context) error {
	v := c.v
	if v.Info.IsConsistent != nil && !v.Info.IsConsistent(c) {
		return c.Warnf("Configuration is not consistent\n")
	}
	if len(c.Args) == 1 {
		v.Info.ConfigFile = c.Args[0]
	}
	if v.Info.ConfigFile == "" {
		return c.Warnf("Can't save to configuration file, using vtysh.\n")
	}
	// render in the executor, write to disk (fsync) outside it
	path, text := v.Info.ConfigFile, v.ConfigFileText()
	c.After(func(c *Context) {
		if err := writeFileAtomic(path, text); err != nil {
			c.Printf("Can't save configuration file %s.\n", path)
			return
		}
		c.Printf("Configuration saved to %s\n", path)
	})
	return nil
}

// Attribute listing (libosmocore print_attr_list / config_list).

var globalAttrDesc = []struct {
	a    Attr
	flag byte
	desc string
}{
	{AttrDeprecated, '.', "This command is deprecated"},
	{AttrHidden, '^', "This command is hidden (check expert mode)"},
	{AttrImmediate, '!', "This command applies immediately"},
	{AttrNodeExit, '@', "This command applies on VTY node exit"},
}

// libAttrs are libosmocore's library attribute letters (bit i).
var libAttrs = map[int]UsrAttr{
	0: {'A', "This command applies on ASP restart"},
	1: {'I', "This command applies on IPA link establishment"},
	2: {'L', "This command applies on E1 line update"},
}

const (
	attrTypeGlobal = 1 << iota
	attrTypeLib
	attrTypeApp
)

func (v *VTY) printAttrList(c *Context, mask int) {
	if mask&attrTypeGlobal != 0 {
		c.Print("  Global attributes:\n")
		for _, g := range globalAttrDesc {
			if g.flag != '.' {
				c.Printf("    %c  %s\n", g.flag, g.desc)
			}
		}
	}
	if mask&attrTypeLib != 0 {
		c.Print("  Library specific attributes:\n")
		for i := 0; i < 32; i++ {
			if a, ok := libAttrs[i]; ok {
				c.Printf("    %c  %s\n", a.Letter, a.Desc)
			}
		}
	}
	if mask&attrTypeApp != 0 {
		c.Print("  Application specific attributes:\n")
		found := false
		for _, a := range v.Info.UsrAttrs {
			if a.Desc == "" {
				continue
			}
			found = true
			l := a.Letter
			if l == 0 {
				l = '.'
			}
			c.Printf("    %c  %s\n", l, a.Desc)
		}
		if !found {
			c.Print("    (no attributes)\n")
		}
	}
}

func cmdShowAttrAll(c *Context) error { c.v.printAttrList(c, 0xff); return nil }

func cmdShowAttr(c *Context) error {
	m := 0
	switch c.Args[0][0] {
	case 'g':
		m = attrTypeGlobal
	case 'l':
		m = attrTypeLib
	case 'a':
		m = attrTypeApp
	}
	c.v.printAttrList(c, m)
	return nil
}

func (v *VTY) flagLetter(cmd *Cmd, f int) byte {
	if cmd.Attr&attrLib != 0 {
		return libAttrs[f].Letter
	}
	if f < len(v.Info.UsrAttrs) {
		return v.Info.UsrAttrs[f].Letter
	}
	return 0
}

func (v *VTY) nodeFlagMask(n *Node, expert bool) uint32 {
	var mask uint32
	for f := 0; f < 32; f++ {
		for _, cmd := range n.Cmds {
			if cmd.Attr&AttrDeprecated != 0 || (!expert && cmd.Attr&AttrHidden != 0) {
				continue
			}
			if cmd.UsrAttr&(1<<f) == 0 {
				continue
			}
			if v.flagLetter(cmd, f) == 0 {
				continue
			}
			mask |= 1 << f
			break
		}
	}
	return mask
}

func gflag(cmd *Cmd) byte {
	switch {
	case cmd.Attr&AttrHidden != 0:
		return '^'
	case cmd.Attr&AttrImmediate != 0:
		return '!'
	case cmd.Attr&AttrNodeExit != 0:
		return '@'
	}
	return '.'
}

func cmdList(c *Context) error {
	v := c.v
	n := v.Node(c.Node())
	var mask uint32
	withFlags := len(c.Args) > 0
	if withFlags {
		mask = v.nodeFlagMask(n, c.Expert())
	}
	for _, cmd := range n.Cmds {
		if cmd.Attr&AttrDeprecated != 0 || (!c.Expert() && cmd.Attr&AttrHidden != 0) {
			continue
		}
		if !withFlags {
			c.Printf("  %s\n", cmd.String)
			continue
		}
		var fl strings.Builder
		for f := 0; f < 32; f++ {
			if mask&(1<<f) == 0 {
				continue
			}
			if cmd.UsrAttr&(1<<f) == 0 {
				fl.WriteByte('.')
				continue
			}
			l := v.flagLetter(cmd, f)
			if l == 0 {
				l = '.'
			}
			fl.WriteByte(l)
		}
		c.Printf("  %c %s  %s\n", gflag(cmd), fl.String(), cmd.String)
	}
	return nil
}

// SetHandler replaces the handler of an installed command; the engine uses
// it to give placeholder commands (installed in osmo-pcu's order) their
// implementation. It returns an error if the command does not exist.
func (n *Node) SetHandler(str string, h Handler) error {
	for _, c := range n.Cmds {
		if c.String == str {
			c.Handler = h
			return nil
		}
	}
	return fmt.Errorf("vty: node %s has no command %q", n.Name, str)
}

// SetHandlerVE is SetHandler on VIEW and ENABLE.
func (v *VTY) SetHandlerVE(str string, h Handler) error {
	if err := v.View().SetHandler(str, h); err != nil {
		return err
	}
	return v.Enable().SetHandler(str, h)
}

func cmdOnlineHelp(c *Context) error {
	mode := XMLDefault
	if c.Expert() {
		mode = XMLExpert
	}
	c.v.writeXML(c, mode, "\n")
	return nil
}
