// Package vty is an Osmocom-compatible VTY: the command-string compiler
// and matcher of libosmocore (src/vty/command.c), the node tree with the
// standard nodes and built-in commands, a telnet line discipline that
// reproduces libosmocore's bytes (src/vty/vty.c), and the config file
// reader/writer in the same syntax. It knows nothing about the PCU engine:
// applications install their nodes and commands through Node.Install and
// run command handlers inside their own goroutine through an Executor.
//
// Typical wiring (see pcu/config for the osmo-pcu command set):
//
//	v := vty.New(config.AppInfo(version))      // standard nodes + library commands
//	cfg := config.Default()
//	config.Install(v, cfg)                     // pcu node, show placeholders, v.Finish()
//	v.SetHandlerVE("show bts pdch", engine.showPDCH)
//	v.InstallVE("show foo", "Show running system information\nFoo\n", h)
//	err := v.ReadConfigFile("osmo-pcu.cfg")    // before the engine loop runs
//	srv := vty.NewServer(v, engineExecutor)   // Executor.Do posts into the loop
//	go srv.ListenAndServe(v.BindAddr(4240))
//
// Handlers run only inside the executor, so they may read and change
// engine state. A handler must not block: slow work that needs no engine
// state (disk I/O) goes into Context.After, which runs in the session's
// goroutine. The Executor must run every posted function until
// Server.Close has returned.
package vty

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"
)

// NodeID numbers a node. The numbering orders `show running-config`: node
// writers run in ascending ID order, as in libosmocore.
type NodeID int

// Standard nodes, numbered as libosmocore's enum node_type orders them.
const (
	AuthNode NodeID = iota
	ViewNode
	AuthEnableNode
	EnableNode
	ConfigNode
	firstLibNode
)

// Writer writes a node's part of the running configuration; it returns true
// when a "!" separator line should follow.
type Writer func(c *Context) bool

// Node is a command node.
type Node struct {
	ID     NodeID
	Name   string // e.g. "config-pcu"
	Prompt string // printf format with one %s for the host name
	Cmds   []*Cmd
	Write  Writer
	// Parent, when set, is called by exit/end/indentation instead of just
	// popping the parent frame (libosmocore go_parent_cb).
	OnExit func(c *Context)
	v      *VTY
}

// UsrAttr describes one application-specific attribute (e.g. 'n', "This
// command applies when a new TBF is begins").
type UsrAttr struct {
	Letter byte
	Desc   string
}

// AppInfo describes the application (libosmocore struct vty_app_info).
type AppInfo struct {
	Name      string // "OsmoPCU": prompt host name and banner
	Version   string
	Copyright string    // printed after the welcome line and by show version
	UsrAttrs  []UsrAttr // application attribute letters, bit i = UsrAttrs[i]
	// ConfigFile is the file `write file` writes when no PATH is given.
	ConfigFile string
	// IsConsistent, when set, is asked before `write file`.
	IsConsistent func(c *Context) bool
	// LogCategories is the `logging level` category table (nil: derived
	// from logx.DefaultCategories). It is part of command strings, so it
	// must be known before New.
	LogCategories []LogCategory
}

// VTY is the command tree, the host settings (hostname, passwords, line
// vty) and the running-config writer. Build it at start-up (New, AddNode,
// Install), then serve it; the tree must not change while sessions run.
type VTY struct {
	Info  AppInfo
	nodes []*Node

	// host settings (libosmocore struct host)
	hostName      string
	password      string
	enablePass    string
	passwordEnc   bool // "password 8 ..." form
	enablePassEnc bool
	advanced      bool
	lines         int
	motdDefault   bool
	motdFile      string
	passwordCheck bool // `login` in line vty
	bindAddr      string
	bindPort      int

	start time.Time

	// OnShutdown is called by the `shutdown` command.
	OnShutdown func()

	mu         sync.Mutex
	configLock *Session // session holding configure terminal
	sessions   map[*Session]struct{}

	// nodes installed by New
	Logging  *Logging
	Stats    *StatsConfig
	NS       *NSConfig
	CPUSched *CPUSched
}

// Errors returned by handlers.
var (
	// ErrWarning makes the command fail without further output (the handler
	// printed its message itself). Config file reading stops on it.
	ErrWarning = errors.New("vty: command failed")
)

// DefaultBindAddr is the VTY telnet bind address unless `line vty` / `bind`
// says otherwise.
const DefaultBindAddr = "127.0.0.1"

// New makes a tree with the standard nodes (VIEW, ENABLE, CONFIG, log,
// stats, line vty, ns, cpu-sched) and libosmocore's built-in commands.
// Application nodes added afterwards are numbered after these.
func New(info AppInfo) *VTY {
	v := &VTY{Info: info, lines: -1, motdDefault: true, start: time.Now(), sessions: map[*Session]struct{}{}}
	v.addNode(AuthNode, "auth", "Password: ", nil)
	v.addNode(ViewNode, "view", "%s> ", nil)
	v.addNode(AuthEnableNode, "auth-enable", "Password: ", nil)
	v.addNode(EnableNode, "enable", "%s# ", nil)
	v.addNode(ConfigNode, "config", "%s(config)# ", v.writeHost)
	v.installBuiltins()
	return v
}

func (v *VTY) addNode(id NodeID, name, prompt string, w Writer) *Node {
	n := &Node{ID: id, Name: name, Prompt: prompt, Write: w, v: v}
	for NodeID(len(v.nodes)) <= id {
		v.nodes = append(v.nodes, nil)
	}
	v.nodes[id] = n
	if id == EnableNode || id >= ConfigNode {
		v.installBasic(n)
	}
	return n
}

// AddNode adds a node with the next free number. prompt is a printf format
// with one %s for the host name, e.g. "%s(config-pcu)# ". The basic
// commands (help, list, write, exit, end, ...) are installed on it.
func (v *VTY) AddNode(name, prompt string, w Writer) *Node {
	id := NodeID(len(v.nodes))
	if id < firstAppNode {
		id = firstAppNode
	}
	return v.addNode(id, name, prompt, w)
}

// Node returns the node with the given ID (nil if none).
func (v *VTY) Node(id NodeID) *Node {
	if int(id) < 0 || int(id) >= len(v.nodes) {
		return nil
	}
	return v.nodes[id]
}

// NodeByName returns a node by its name ("config-pcu").
func (v *VTY) NodeByName(name string) *Node {
	for _, n := range v.nodes {
		if n != nil && n.Name == name {
			return n
		}
	}
	return nil
}

// View, Enable and Config return the standard nodes.
func (v *VTY) View() *Node   { return v.nodes[ViewNode] }
func (v *VTY) Enable() *Node { return v.nodes[EnableNode] }
func (v *VTY) Config() *Node { return v.nodes[ConfigNode] }

// Opt modifies a command at installation.
type Opt func(*Cmd)

// Immediate marks the command "!" (applies immediately).
func Immediate() Opt { return func(c *Cmd) { c.Attr |= AttrImmediate } }

// NodeExit marks the command "@" (applies on node exit).
func NodeExit() Opt { return func(c *Cmd) { c.Attr |= AttrNodeExit } }

// Deprecated marks the command deprecated: accepted, never listed.
func Deprecated() Opt { return func(c *Cmd) { c.Attr |= AttrDeprecated } }

// Hidden marks the command hidden: listed only in expert mode.
func Hidden() Opt { return func(c *Cmd) { c.Attr |= AttrHidden } }

// Usr sets application attribute bits (bit i = AppInfo.UsrAttrs[i]).
func Usr(bits uint32) Opt { return func(c *Cmd) { c.UsrAttr |= bits } }

func libCmd() Opt { return func(c *Cmd) { c.Attr |= attrLib } }

// Install compiles the Osmocom command string str with its help lines (one
// per token, each ending in "\n", as in DEFUN) and adds it to the node.
// It panics on a duplicate command string, which is a programming error.
func (n *Node) Install(str, help string, h Handler, opts ...Opt) *Cmd {
	c := &Cmd{String: str, Handler: h}
	c.slots = compile(str, help)
	c.cmdsize = cmdSize(c.slots)
	for _, o := range opts {
		o(c)
	}
	for _, o := range n.Cmds {
		if o.String == str {
			panic(fmt.Sprintf("vty: duplicate command %q on node %s", str, n.Name))
		}
	}
	n.Cmds = append(n.Cmds, c)
	return c
}

// InstallVE installs the same command on VIEW and ENABLE.
func (v *VTY) InstallVE(str, help string, h Handler, opts ...Opt) {
	v.View().Install(str, help, h, opts...)
	v.Enable().Install(str, help, h, opts...)
}

// Pending is a handler for commands whose feature is not built yet: the
// command is accepted and does nothing.
func Pending(c *Context) error { return nil }

// locked runs f under the host-settings lock: host settings are written
// by handlers (executor) and read by session goroutines (prompt, login).
func (v *VTY) locked(f func()) {
	v.mu.Lock()
	defer v.mu.Unlock()
	f()
}

// HostName is the prompt host name: `hostname` or the application name.
func (v *VTY) HostName() string {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.hostName != "" {
		return v.hostName
	}
	return v.Info.Name
}

// BindAddr returns the telnet address configured by `line vty` / `bind`.
func (v *VTY) BindAddr(defaultPort int) string {
	a := v.bindAddr
	if a == "" {
		a = DefaultBindAddr
	}
	p := defaultPort
	if v.bindPort >= 0 && v.bindAddr != "" {
		p = v.bindPort
	}
	return fmt.Sprintf("%s:%d", bracketV6(a), p)
}

func bracketV6(a string) string {
	for i := 0; i < len(a); i++ {
		if a[i] == ':' {
			return "[" + a + "]"
		}
	}
	return a
}

// PasswordRequired reports whether `login` is configured.
func (v *VTY) PasswordRequired() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.passwordCheck
}

// RunningConfig renders `show running-config` (without the leading
// "Current configuration" header) with "\n" line ends.
func (v *VTY) RunningConfig() string {
	var b bytes.Buffer
	c := &Context{v: v, out: &b, file: true}
	v.writeNodes(c)
	return b.String()
}

func (v *VTY) writeNodes(c *Context) {
	for _, n := range v.nodes {
		if n == nil || n.Write == nil {
			continue
		}
		if n.Write(c) {
			c.Print("!\n")
		}
	}
}

// Context is what a handler sees: its arguments, the output, and the
// session (or config file reader) it runs for.
type Context struct {
	// Args are the variable arguments: values typed for WORD, <a-b>,
	// A.B.C.D ..., the chosen keyword of an alternative "(a|b)", and the
	// text or keyword of a given optional "[...]".
	Args []string
	Cmd  *Cmd

	v     *VTY
	st    *state
	out   *bytes.Buffer
	file  bool
	after []func(c *Context)
}

// state is the per-session (or per-file) node position.
type state struct {
	node   NodeID
	index  any
	stack  []frame
	expert bool
	closed bool
	lines  int
	sess   *Session
	indent *string
}

type frame struct {
	node   NodeID
	index  any
	indent *string
}

// VTY returns the tree.
func (c *Context) VTY() *VTY { return c.v }

// Printf writes formatted output; "\n" becomes the session's newline.
func (c *Context) Printf(format string, a ...any) { fmt.Fprintf(c.out, format, a...) }

// Print writes s.
func (c *Context) Print(s string) { c.out.WriteString(s) }

// Println writes s and a newline.
func (c *Context) Println(s string) { c.out.WriteString(s); c.out.WriteByte('\n') }

// Write implements io.Writer.
func (c *Context) Write(p []byte) (int, error) { return c.out.Write(p) }

// Warnf prints a message (add the "% " yourself where osmo does) and
// returns ErrWarning.
func (c *Context) Warnf(format string, a ...any) error {
	c.Printf(format, a...)
	return ErrWarning
}

// Interactive is false while a config file is read (vty->type == VTY_FILE).
func (c *Context) Interactive() bool { return !c.file }

// Node is the node the session is on.
func (c *Context) Node() NodeID {
	if c.st == nil {
		return ConfigNode
	}
	return c.st.node
}

// Index is the object the current node edits (libosmocore vty->index),
// as set by Enter.
func (c *Context) Index() any {
	if c.st == nil {
		return nil
	}
	return c.st.index
}

// Enter moves the session to node n editing index. Called from a command
// handler on the parent node, as `pcu` enters the pcu node; the parent is
// remembered for exit/end and config-file indentation.
func (c *Context) Enter(n NodeID, index any) {
	if c.st == nil {
		return
	}
	c.st.node = n
	c.st.index = index
}

// Expert reports expert mode (`enable expert-mode`).
func (c *Context) Expert() bool { return c.st != nil && c.st.expert }

// Session returns the telnet session, nil for the config file and the
// running-config writer.
func (c *Context) Session() *Session {
	if c.st == nil {
		return nil
	}
	return c.st.sess
}

// goParent pops one node level (libosmocore vty_go_parent).
func (v *VTY) goParent(c *Context) NodeID {
	st := c.st
	switch st.node {
	case AuthNode, ViewNode, EnableNode, ConfigNode:
		st.stack = st.stack[:0]
	case AuthEnableNode:
		st.node = ViewNode
		st.stack = st.stack[:0]
	default:
		if n := v.Node(st.node); n != nil && n.OnExit != nil {
			n.OnExit(c)
		}
		if l := len(st.stack); l > 0 {
			f := st.stack[l-1]
			st.stack = st.stack[:l-1]
			st.node, st.index, st.indent = f.node, f.index, f.indent
		}
	}
	return st.node
}

// execute runs a resolved command for state st, with libosmocore's parent
// frame push when the handler entered a child node.
func (v *VTY) execute(st *state, cmd *Cmd, argv []string, out *bytes.Buffer, file bool) result {
	c, r := v.executeCtx(st, cmd, argv, out, file)
	if file {
		c.runAfter()
	}
	return r
}

// executeCtx runs the handler and returns its context, whose After work
// the caller runs outside the executor.
func (v *VTY) executeCtx(st *state, cmd *Cmd, argv []string, out *bytes.Buffer, file bool) (*Context, result) {
	c := &Context{Args: argv, Cmd: cmd, v: v, st: st, out: out, file: file}
	before := frame{node: st.node, index: st.index, indent: st.indent}
	depth := len(st.stack)
	var err error
	if cmd.Handler != nil {
		err = cmd.Handler(c)
	}
	if st.node != before.node && depth == len(st.stack) && (file || st.node > ConfigNode) {
		st.stack = append(st.stack, before)
		if file {
			st.indent = nil
		}
	}
	if err != nil {
		if !errors.Is(err, ErrWarning) {
			fmt.Fprintf(out, "%% %v\n", err)
		}
		return c, resWarning
	}
	return c, resSuccess
}

// After schedules f to run once the handler returned, outside the
// executor (in the session goroutine), still writing to the command's
// output. Use it for slow work that needs no engine state, like disk I/O
// of `write file`: render inside the handler, write in After.
func (c *Context) After(f func(c *Context)) { c.after = append(c.after, f) }

func (c *Context) runAfter() {
	for _, f := range c.after {
		f(c)
	}
	c.after = nil
}

func (v *VTY) uptime() time.Duration { return time.Since(v.start) }

func pid() int { return os.Getpid() }

// Render runs f with a Context writing to a string ("\n" line ends), for
// writers and tests outside a session.
func Render(f func(c *Context)) string {
	var b bytes.Buffer
	f(&Context{out: &b, file: true})
	return b.String()
}
